package dap

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/heddledbg/heddle/bidir"
	"github.com/heddledbg/heddle/worker"
)

// spares is how many incarnations are kept ready, parked before their run starts, so that
// backward moves do not wait for Delve to start and load the binary. Two cover a step back
// made while the previous one's replacement is still loading.
const spares = 2

// spareWait is how long a backward move waits for a spare that is still being prepared
// before it prepares its own.
const spareWait = 15 * time.Second

// startSpare tops the pool of spare incarnations up, in the background.
func (s *Session) startSpare() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.spare) < spares && s.ctx.Err() == nil {
		ch := make(chan *incarnation, 1)
		s.spare = append(s.spare, ch)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			in, err := s.prepare(s.ctx)
			if err == nil {
				if err = in.finish(s.ctx, s.bps, false); err != nil {
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
func (s *Session) fresh(ctx context.Context) (*incarnation, error) {
	s.mu.Lock()
	var ch chan *incarnation
	if len(s.spare) > 0 {
		ch = s.spare[0]
		s.spare = s.spare[1:]
	}
	s.mu.Unlock()
	var in *incarnation
	if ch != nil {
		select {
		case in = <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(spareWait):
			// The spare is late (Delve slow to launch on a loaded machine, or stuck): start
			// another, and close the late one when it comes.
			go func() {
				if late := <-ch; late != nil {
					late.close()
				}
			}()
		}
	}
	if in == nil {
		var err error
		if in, err = s.prepare(ctx); err != nil {
			return nil, err
		}
		if err := in.finish(ctx, s.bps, false); err != nil {
			in.close()
			return nil, err
		}
	}
	return in, nil
}

// navInc is an incarnation driven by bidir.
type navInc struct {
	s       *Session
	in      *incarnation
	sink    chan *message
	plan    planned
	started bool
	last    halt
}

func (s *Session) starter(p planned) bidir.Starter {
	return func(ctx context.Context) (bidir.Incarnation, error) {
		defer trace("fresh")()
		in, err := s.fresh(ctx)
		if err != nil {
			return nil, err
		}
		return &navInc{s: s, in: in, sink: in.capture(), plan: p}, nil
	}
}

func (n *navInc) run(ctx context.Context, breakAt int) error {
	if !n.started {
		n.started = true
		p := n.plan
		p.breakAt = breakAt
		return n.in.ctrl.begin(n.s.prog.test, n.s.prog.time, p)
	}
	n.in.ctrl.mu.Lock()
	n.in.ctrl.plan.breakAt = breakAt
	n.in.ctrl.mu.Unlock()
	_, err := n.in.call(ctx, "continue", map[string]any{"threadId": n.last.goid})
	return err
}

func (n *navInc) stop(ctx context.Context, stepping bool) (bidir.Stop, error) {
	h, err := n.s.await(ctx, n.in, n.sink, stepping)
	if err != nil {
		return bidir.Stop{}, err
	}
	n.last = h
	return n.s.position(n.in, h), nil
}

func (n *navInc) Goto(ctx context.Context, k int) (bidir.Stop, error) {
	defer trace("goto")()
	if err := n.run(ctx, k); err != nil {
		return bidir.Stop{}, err
	}
	for {
		st, err := n.stop(ctx, false)
		if err != nil {
			return st, err
		}
		if n.last.cp != nil {
			return st, n.in.ensureBreakpoints(ctx, n.s.bps)
		}
		if st.Ended || n.last.bug != nil || st.Checkpoint > k {
			return st, fmt.Errorf("checkpoint %d was not reached (stopped at %s)", k, describeHalt(st))
		}
		// A breakpoint on the way.
		if _, err := n.in.call(ctx, "continue", map[string]any{"threadId": n.last.goid}); err != nil {
			return st, err
		}
	}
}

func (n *navInc) Step(ctx context.Context) (bidir.Stop, error) {
	defer trace("step")()
	if n.last.ended {
		return bidir.Stop{Ended: true}, nil
	}
	goid := n.last.goid
	hidden, err := n.s.inHeddle(n.in, goid)
	if err != nil {
		return bidir.Stop{}, err
	}
	if hidden {
		before := n.s.position(n.in, n.last)
		h, err := n.s.stepOutOfHeddle(ctx, n.in, n.sink, goid)
		if err != nil {
			return bidir.Stop{}, err
		}
		if h != nil {
			n.last = *h
			return n.s.position(n.in, *h), nil
		}
		n.last = halt{goid: goid, reason: "step"}
		if after := n.s.position(n.in, n.last); after.Line != before.Line || after.Depth != before.Depth || after.File != before.File {
			// Returning from the operation's call already reached the next line.
			return after, nil
		}
	}
	if _, err := n.in.call(ctx, "next", map[string]any{"threadId": goid}); err != nil {
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
	if err := n.in.ensureBreakpoints(ctx, n.s.bps); err != nil {
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
	return st, err
}

func (n *navInc) State(ctx context.Context) (string, error) {
	return n.s.state(n.in, n.last.goid)
}

func (n *navInc) Close() {
	n.in.releaseSink(n.sink)
	go n.in.close()
}

// adopt makes a navigated incarnation the session's current one, ends motion id and shows
// the incarnation's stop.
func (s *Session) adopt(id int, n *navInc, st bidir.Stop, reason string) {
	n.in.releaseSink(n.sink)
	s.end(id)
	s.mu.Lock()
	old := s.active
	s.active = n.in
	s.mu.Unlock()
	if old != nil && old != n.in {
		go old.close()
	}
	h := n.last
	if reason != "" && h.bug == nil {
		h.reason = reason
	}
	s.present(n.in, h, st.Steps)
}

// navigator plans over the current incarnation's recorded checkpoints.
func (s *Session) navigator() *bidir.Navigator {
	in := s.current()
	s.record(in)
	s.mu.Lock()
	from := s.from
	names := make([]string, len(s.recorded))
	for i, c := range s.recorded {
		names[i] = c.Goroutine
	}
	s.mu.Unlock()
	return &bidir.Navigator{Start: s.starter(s.plan(-1)), Checkpoints: names, FromStart: s.bps.hitCounts(),
		Hits: s.hits, From: from}
}

// backward handles stepBack and reverseContinue.
func (s *Session) backward(m *message) {
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	if s.current() == nil || cur == nil {
		s.fail(m, "%s: the program is not stopped", m.Command)
		return
	}
	s.goMotion(m, func(id int) {
		nav := s.navigator()
		var (
			inc bidir.Incarnation
			st  bidir.Stop
			err error
		)
		if m.Command == "stepBack" {
			if cur.Steps < 0 {
				in := s.current()
				nav.State, _ = s.state(in, s.threads.goid(in, s.threads.id(cur.Goroutine)))
			}
			inc, st, err = nav.StepBack(s.ctx, *cur)
		} else {
			inc, st, err = nav.ReverseContinue(s.ctx, *cur)
		}
		if err != nil {
			s.fail(m, "%s: %v", m.Command, err)
			return
		}
		s.respond(m, nil)
		reason := "step"
		if m.Command == "reverseContinue" {
			reason = "breakpoint"
			if st.Steps == 0 {
				reason = "entry"
			}
		}
		s.adopt(id, inc.(*navInc), st, reason)
	})
}

// gotoCheckpoint replaces the incarnation with one stopped at checkpoint k of the recorded
// execution.
func (s *Session) gotoCheckpoint(m *message, k int) {
	if s.current() == nil {
		s.fail(m, "heddle/gotoCheckpoint: no program is being debugged")
		return
	}
	s.record(s.current())
	s.mu.Lock()
	n := len(s.recorded)
	s.mu.Unlock()
	if k < 0 || k >= n {
		s.fail(m, "heddle/gotoCheckpoint: no checkpoint %d (the execution has %d so far)", k, n)
		return
	}
	s.navigateTo(m, s.plan(-1), k, "goto")
}

// navigateTo starts a new incarnation with plan p, runs it to checkpoint k (or, for k < 0,
// until it stops) and makes it current.
func (s *Session) navigateTo(m *message, p planned, k int, reason string) {
	s.goMotion(m, func(id int) {
		inc, err := s.starter(p)(s.ctx)
		if err != nil {
			s.fail(m, "%s: %v", m.Command, err)
			return
		}
		n := inc.(*navInc)
		var st bidir.Stop
		switch {
		case k >= 0:
			st, err = n.Goto(s.ctx, k)
		case p.stopOnBug && reason == "":
			// A replay goes to the bug, through the breakpoints on the way.
			for st, err = n.Continue(s.ctx); err == nil && !st.Ended; st, err = n.Continue(s.ctx) {
			}
		default:
			st, err = n.Continue(s.ctx)
		}
		if err != nil {
			n.Close()
			s.fail(m, "%s: %v", m.Command, err)
			return
		}
		s.respond(m, nil)
		if n.last.ended {
			s.mu.Lock()
			old := s.active
			s.active = n.in
			s.mu.Unlock()
			n.in.releaseSink(n.sink)
			if old != nil {
				go old.close()
			}
			s.reportEnd(n.in)
			s.end(id)
			s.present(n.in, n.last, -1)
			return
		}
		s.adopt(id, n, st, reason)
	})
}

var traceOn = os.Getenv(worker.EnvDAPTrace) != ""

func trace(what string) func() {
	if !traceOn {
		return func() {}
	}
	t0 := time.Now()
	return func() { fmt.Fprintf(os.Stderr, "heddle dap: %s %v\n", what, time.Since(t0)) }
}
