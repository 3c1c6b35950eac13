package debugger

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/heddledbg/heddle/bidir"
	"github.com/heddledbg/heddle/wire"
)

// spares is how many incarnations are kept ready, parked before their run starts, so that
// backward moves do not wait for Delve to start and load the binary. Two cover a step back
// made while the previous one's replacement is still loading.
const spares = 2

// spareWait is how long a backward move waits for a spare that is still being prepared
// before it prepares its own.
const spareWait = 15 * time.Second

// startSpare tops the pool of spare incarnations up, in the background.
func (d *Debugger) startSpare() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.spare) < spares && d.ctx.Err() == nil {
		ch := make(chan *incarnation, 1)
		d.spare = append(d.spare, ch)
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			in, err := d.prepare(d.ctx)
			if err == nil {
				if err = in.finish(d.ctx, -1, false); err != nil {
					in.close()
					in = nil
				}
			}
			ch <- in
		}()
	}
}

// fresh returns an incarnation ready to begin its run: a spare if there is one. The pool is
// topped up when the move ends (goMotion), so that preparing spares does not compete with the
// move for the processor.
func (d *Debugger) fresh(ctx context.Context) (*incarnation, error) {
	d.mu.Lock()
	var ch chan *incarnation
	if len(d.spare) > 0 {
		ch = d.spare[0]
		d.spare = d.spare[1:]
	}
	d.mu.Unlock()
	var in *incarnation
	if ch != nil {
		select {
		case in = <-ch:
		case <-ctx.Done():
			go closeLate(ch)
			return nil, ctx.Err()
		case <-time.After(spareWait):
			// The spare is late (Delve slow to launch on a loaded machine, or stuck): start
			// another, and close the late one when it comes.
			go closeLate(ch)
		}
	}
	if in == nil {
		var err error
		if in, err = d.prepare(ctx); err != nil {
			return nil, err
		}
		if err := in.finish(ctx, -1, false); err != nil {
			in.close()
			return nil, err
		}
	}
	return in, nil
}

// closeLate closes the spare that ch delivers, which no one waits for any more.
func closeLate(ch chan *incarnation) {
	if late := <-ch; late != nil {
		late.close()
	}
}

// navInc is an incarnation driven by bidir.
type navInc struct {
	d       *Debugger
	in      *incarnation
	sink    chan Event
	plan    planned
	started bool
	last    halt
	// at is where the incarnation stands, once placed: its Steps count the line steps since
	// its checkpoint when they are known.
	at     bidir.Stop
	placed bool
}

// starter returns incarnations that follow plan p: one kept along the run on the way to the
// move's target (parked.go), or else a fresh one. A plan that changes a decision (next)
// starts afresh.
func (d *Debugger) starter(p planned) bidir.Starter {
	return func(ctx context.Context, k, steps int) (bidir.Incarnation, error) {
		defer trace("fresh")()
		if p.next == "" {
			if n := d.takeParked(ctx, p, k, steps); n != nil {
				return n, nil
			}
		}
		in, err := d.fresh(ctx)
		if err != nil {
			return nil, err
		}
		return &navInc{d: d, in: in, sink: in.capture(), plan: p}, nil
	}
}

func (n *navInc) Where() (bidir.Stop, bool) { return n.at, n.placed }

// moved records where a motion left the incarnation; stepped says it was one line step.
func (n *navInc) moved(st bidir.Stop, stepped bool) {
	if st.Steps < 0 && stepped && n.placed && n.at.Steps >= 0 && st.Checkpoint == n.at.Checkpoint && !st.Ended {
		st.Steps = n.at.Steps + 1
	}
	n.at, n.placed = st, true
}

func (n *navInc) run(ctx context.Context, breakAt int) error {
	if !n.started {
		n.started = true
		p := n.plan
		p.breakAt = breakAt
		return n.in.ctrl.begin(n.d.prog.test, n.d.prog.time, n.d.prog.quantum, p)
	}
	n.in.ctrl.mu.Lock()
	n.in.ctrl.plan.breakAt = breakAt
	n.in.ctrl.mu.Unlock()
	return n.in.resume(ctx, Continue, n.last.goid)
}

func (n *navInc) stop(ctx context.Context, stepping bool) (bidir.Stop, error) {
	h, err := n.d.await(ctx, n.in, n.sink, stepping)
	if err != nil {
		return bidir.Stop{}, err
	}
	n.last = h
	return n.d.position(ctx, n.in, h), nil
}

func (n *navInc) Goto(ctx context.Context, k int) (bidir.Stop, error) {
	defer trace("goto")()
	if n.placed && n.at.Checkpoint == k && n.at.Steps == 0 && !n.at.Ended {
		// Kept at the checkpoint already.
		return n.at, n.in.ensureBreakpoints(ctx, n.d.breakpointVersion())
	}
	if err := n.run(ctx, k); err != nil {
		return bidir.Stop{}, err
	}
	for {
		st, err := n.stop(ctx, false)
		if err != nil {
			return st, err
		}
		if n.last.cp != nil {
			n.moved(st, false)
			return st, n.in.ensureBreakpoints(ctx, n.d.breakpointVersion())
		}
		if st.Ended || n.last.bug != nil || st.Checkpoint > k {
			return st, fmt.Errorf("checkpoint %d was not reached (stopped at %s)", k, describeHalt(st))
		}
		// A breakpoint on the way.
		if err := n.in.resume(ctx, Continue, n.last.goid); err != nil {
			return st, err
		}
	}
}

func (n *navInc) Step(ctx context.Context) (bidir.Stop, error) {
	defer trace("step")()
	st, err := n.step(ctx)
	if err == nil {
		n.moved(st, true)
	}
	return st, err
}

func (n *navInc) step(ctx context.Context) (bidir.Stop, error) {
	if n.last.ended {
		return bidir.Stop{Ended: true}, nil
	}
	goid := n.last.goid
	h, reached, after, err := n.d.leaveHeddle(ctx, n.in, n.sink, goid)
	switch {
	case err != nil:
		return bidir.Stop{}, err
	case reached:
		n.last = *h
		return after, nil
	case h != nil:
		n.last = *h
		return n.d.position(ctx, n.in, *h), nil
	}
	if err := n.in.resume(ctx, Next, goid); err != nil {
		return bidir.Stop{}, err
	}
	return n.stop(ctx, true)
}

func (n *navInc) Continue(ctx context.Context) (bidir.Stop, error) {
	if n.last.ended {
		return bidir.Stop{Ended: true}, nil
	}
	if !n.started {
		// Delve takes some breakpoints (exception filters) only from a stopped debuggee: stop
		// at the start of the run to apply the client's.
		if _, err := n.Goto(ctx, 0); err != nil {
			return bidir.Stop{}, err
		}
	}
	if err := n.in.ensureBreakpoints(ctx, n.d.breakpointVersion()); err != nil {
		return bidir.Stop{}, err
	}
	if err := n.run(ctx, -1); err != nil {
		return bidir.Stop{}, err
	}
	st, err := n.stop(ctx, false)
	if n.last.bug != nil {
		// The bug ends the run as far as breakpoints go.
		st.Ended = true
	}
	if err == nil {
		n.moved(st, false)
	}
	return st, err
}

func (n *navInc) State(ctx context.Context) (string, error) {
	return n.d.state(ctx, n.in, n.last.goid)
}

func (n *navInc) Close() {
	n.in.release(n.sink)
	go n.in.close()
}

// adopt makes a navigated incarnation the session's current one, ends motion id and shows
// the incarnation's stop. The incarnation it replaces is kept at from, the place the move
// left, when from is set (going back there again costs nothing), and ended otherwise.
func (d *Debugger) adopt(id int, n *navInc, st bidir.Stop, reason string, from *bidir.Stop) {
	n.in.release(n.sink)
	d.end(id)
	d.mu.Lock()
	old := d.active
	oldBug := d.curBug != nil
	place := d.from
	d.active = n.in
	d.mu.Unlock()
	if old != nil && old != n.in {
		if from == nil || oldBug || !d.keep(old, *from, d.hits.Serial(place)) {
			go old.close()
		}
	}
	h := n.last
	if reason != "" && h.bug == nil {
		h.reason = reason
	}
	d.present(n.in, h, st.Steps)
}

// navigator plans over the current incarnation's recorded checkpoints.
func (d *Debugger) navigator() *bidir.Navigator {
	in := d.current()
	d.record(in)
	d.mu.Lock()
	hitConditions := d.hitConditions
	from := d.from
	names := make([]string, len(d.recorded))
	for i, c := range d.recorded {
		names[i] = c.Goroutine
	}
	d.mu.Unlock()
	return &bidir.Navigator{Start: d.starter(d.plan(-1)), Checkpoints: names, FromStart: hitConditions,
		Hits: d.hits, From: from}
}

// StepBack goes to the previous line the current goroutine executed (docs/dap.md,
// "Checkpoints and going backwards"). done is called when the debuggee is there, before
// the stop is shown, or with the error that kept it from going.
func (d *Debugger) StepBack(done func(error)) { d.backward(false, done) }

// ReverseContinue goes to the latest earlier breakpoint hit, or to checkpoint 0.
func (d *Debugger) ReverseContinue(done func(error)) { d.backward(true, done) }

func (d *Debugger) backward(reverse bool, done func(error)) {
	d.mu.Lock()
	cur := d.cur
	d.mu.Unlock()
	if d.current() == nil || cur == nil {
		done(ErrNotStopped)
		return
	}
	d.goMotion(done, func(id int) {
		if !reverse && cur.Steps > 0 {
			// The line before, where an incarnation may be waiting already: nothing to plan.
			if n := d.parkedExactly(d.plan(-1), cur.Checkpoint, cur.Steps-1); n != nil {
				if err := n.in.ensureBreakpoints(d.ctx, d.breakpointVersion()); err != nil {
					n.Close()
					done(err)
					return
				}
				done(nil)
				d.adopt(id, n, n.at, "step", cur)
				return
			}
		}
		nav := d.navigator()
		var (
			inc bidir.Incarnation
			st  bidir.Stop
			err error
		)
		if !reverse {
			if cur.Steps < 0 {
				// The count needs the stop's state only once it meets the stop's line: read
				// it meanwhile.
				in := d.current()
				state := make(chan string, 1)
				go func() {
					s, _ := d.state(d.ctx, in, d.threads.goid(in, d.threads.id(cur.Goroutine)))
					state <- s
				}()
				nav.State = sync.OnceValue(func() string { return <-state })
			}
			inc, st, err = nav.StepBack(d.ctx, *cur)
		} else if n := d.undo(nav); n != nil {
			inc, st = n, n.at
		} else {
			inc, st, err = nav.ReverseContinue(d.ctx, *cur)
		}
		if err != nil {
			done(err)
			return
		}
		done(nil)
		reason := "step"
		if reverse {
			reason = "breakpoint"
			if st.Steps == 0 {
				reason = "entry"
			}
		}
		from := *cur
		if !reverse && cur.Steps < 0 {
			// The count of line steps placed the stop it left from, or did not.
			from.Steps = nav.Found
		}
		d.adopt(id, inc.(*navInc), st, reason, &from)
	})
}

// GotoCheckpoint replaces the incarnation with one stopped at checkpoint k of the recorded
// execution.
func (d *Debugger) GotoCheckpoint(k int, done func(error)) {
	if d.current() == nil {
		done(ErrNoProgram)
		return
	}
	d.record(d.current())
	d.mu.Lock()
	n := len(d.recorded)
	d.mu.Unlock()
	if k < 0 || k >= n {
		done(fmt.Errorf("no checkpoint %d (the execution has %d so far)", k, n))
		return
	}
	d.navigateTo(d.plan(-1), k, "goto", done)
}

// navigateTo starts a new incarnation with plan p, runs it to checkpoint k (or, for k < 0,
// until it stops) and makes it current.
func (d *Debugger) navigateTo(p planned, k int, reason string, done func(error)) {
	d.goMotion(done, func(id int) {
		inc, err := d.starter(p)(d.ctx, k, 0)
		if err != nil {
			done(err)
			return
		}
		n := inc.(*navInc)
		var st bidir.Stop
		switch {
		case k >= 0:
			st, err = n.Goto(d.ctx, k)
		case p.stopOnBug && reason == "":
			// A replay goes to the bug, through the breakpoints on the way.
			for st, err = n.Continue(d.ctx); err == nil && !st.Ended; st, err = n.Continue(d.ctx) {
			}
		default:
			st, err = n.Continue(d.ctx)
		}
		if err != nil {
			n.Close()
			done(err)
			return
		}
		done(nil)
		if n.last.ended {
			d.mu.Lock()
			old := d.active
			d.active = n.in
			d.mu.Unlock()
			n.in.release(n.sink)
			if old != nil {
				go old.close()
			}
			d.stopAtEnd(id, n.in)
			return
		}
		d.adopt(id, n, st, reason, nil)
	})
}

// traceOn makes backward moves report the time they spend starting, replaying and stepping
// incarnations (docs/dap.md, "Diagnosing the adapter").
var traceOn = os.Getenv(wire.EnvDAPTrace) != ""

func trace(what string) func() {
	if !traceOn {
		return func() {}
	}
	t0 := time.Now()
	return func() { fmt.Fprintf(os.Stderr, "heddle dap: %s %v\n", what, time.Since(t0)) }
}
