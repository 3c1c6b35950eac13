package debugger

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heddledbg/heddle/bidir"
)

// halt is where an incarnation came to rest after a motion.
type halt struct {
	ended  bool
	goid   int64
	reason string // stop reason, as the target gives it
	// bug is set when the debuggee stopped where it found a bug.
	bug  *Bug
	desc string
	cp   *Checkpoint // set when it stopped at a checkpoint
}

// hit reports whether h is a stop at one of the client's breakpoints.
func (h halt) hit() bool {
	return !h.ended && h.bug == nil && h.cp == nil && strings.Contains(h.reason, "breakpoint")
}

// plainStep reports whether h is a step of goroutine goid that ended on a line of the user's,
// with nothing else to show: no checkpoint, bug, breakpoint or end.
func (h halt) plainStep(goid int64) bool {
	return !h.ended && h.bug == nil && h.cp == nil && h.goid == goid && h.reason == "step"
}

// maxEscape bounds the step-outs from heddle's frames back to the user's code.
const maxEscape = 32

// await waits until in stops for good: stops inside heddle's runtime after a step are
// stepped out of, and a stop at a new goroutine's checkpoint runs to its function's first
// line. stepping says the motion was a step.
func (d *Debugger) await(ctx context.Context, in *incarnation, sink chan Event, stepping bool) (halt, error) {
	return d.awaitStep(ctx, in, sink, stepping, false)
}

// awaitStep is await for a move that steps into calls (into): from a forwarding function of
// heddle's, it steps on into the standard function.
func (d *Debugger) awaitStep(ctx context.Context, in *incarnation, sink chan Event, stepping, into bool) (halt, error) {
	for escapes := 0; ; {
		h, err := d.awaitRaw(ctx, in, sink)
		if err != nil || h.ended || h.bug != nil {
			if h.bug != nil {
				h.desc = h.bug.Kind + ": " + h.bug.Message
			}
			return h, err
		}
		if h.cp != nil {
			if h.cp.New && h.cp.Func != "" {
				return d.enter(ctx, in, sink, h.goid, h.cp)
			}
			h.reason = "step"
			return h, nil
		}
		if h.reason == "pause" && escapes < maxEscape {
			// A pause can land where the debugger cannot unwind to the user's code (inside
			// the runtime, mid-prologue): let the goroutine run a moment and pause it again.
			if frames, err := d.frames(ctx, in, h.goid); err == nil && len(frames) == 0 {
				escapes++
				if err := in.resume(ctx, Continue, h.goid); err != nil {
					return halt{}, err
				}
				time.Sleep(20 * time.Millisecond)
				if err := in.resume(ctx, Pause, h.goid); err != nil {
					return halt{}, err
				}
				continue
			}
		}
		if (stepping || h.reason == "step") && escapes < maxEscape {
			top, err := d.stack(ctx, in, h.goid, 1)
			if err != nil {
				return halt{}, err
			}
			if len(top) > 0 && top[0].hidden() {
				escapes++
				m := StepOut
				if into && forwarding(top[0].File) {
					// A step into a standard function that heddle forwards (context.Background)
					// goes on into the standard one, where Delve stops; a step that comes back
					// out of heddle's own code does not go in again.
					m = StepIn
				}
				into = into && m == StepIn
				if m == StepIn {
					err = in.resume(ctx, m, h.goid)
				} else {
					err = d.stepOutHidden(ctx, in, h.goid, nil)
				}
				if err != nil {
					return halt{}, err
				}
				continue
			}
		}
		return h, nil
	}
}

// forwarding reports whether path is a generated api.go of one of heddle's packages that
// stand for a standard one (rt/context, rt/io…): each of its functions calls the standard
// function or heddle's own.
func forwarding(path string) bool {
	src := runtimeSource()
	if src == "" || filepath.Base(path) != "api.go" {
		return false
	}
	rel, err := filepath.Rel(filepath.Join(src, "rt"), filepath.Dir(path))
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

// waitEvent returns the next stop event of in. A debuggee that has gone (killed, crashed)
// while its debugger reports nothing counts as ended once the debugger has had a moment to
// say so.
func waitEvent(ctx context.Context, in *incarnation, sink chan Event) (Event, error) {
	select {
	case ev := <-sink:
		return ev, nil
	case <-ctx.Done():
		return Event{}, ctx.Err()
	case <-in.ctrl.ended:
	}
	select {
	case ev := <-sink:
		return ev, nil
	case <-ctx.Done():
		return Event{}, ctx.Err()
	case <-time.After(2 * time.Second):
		return Event{Kind: Exited}, nil
	}
}

// enter runs a goroutine stopped at its start (inside heddle) to the first line of its
// function, with a temporary function breakpoint.
func (d *Debugger) enter(ctx context.Context, in *incarnation, sink chan Event, goid int64, cp *Checkpoint) (halt, error) {
	if err := in.t.FunctionBreakpoints(ctx, true, []string{cp.Func}); err != nil {
		return halt{}, err
	}
	if err := in.resume(ctx, Continue, goid); err != nil {
		return halt{}, err
	}
	h, err := d.await(ctx, in, sink, false)
	if err := in.t.FunctionBreakpoints(ctx, true, nil); err != nil {
		return halt{}, err
	}
	if err == nil && h.cp == nil && h.bug == nil && !h.ended {
		h.cp, h.reason = cp, "step"
	}
	return h, err
}

// stack returns the first levels frames of goroutine goid of in. A debugger answers within
// seconds; a minute means it is stuck, and nothing may wait for it forever.
func (d *Debugger) stack(ctx context.Context, in *incarnation, goid int64, levels int) ([]Frame, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return in.t.Stack(ctx, goid, levels)
}

// position reads where goroutine goid of in stands, for bidir.
func (d *Debugger) position(ctx context.Context, in *incarnation, h halt) bidir.Stop {
	var all []Frame
	if !h.ended {
		all, _ = d.stack(ctx, in, h.goid, maxDepth)
	}
	return d.positionIn(in, h, all)
}

// positionIn is position for a goroutine whose stack, read to maxDepth, is all.
func (d *Debugger) positionIn(in *incarnation, h halt, all []Frame) bidir.Stop {
	st := bidir.Stop{Steps: -1, Ended: h.ended}
	in.ctrl.mu.Lock()
	st.Checkpoint = len(in.ctrl.checkpoints) - 1
	in.ctrl.mu.Unlock()
	if h.ended {
		return st
	}
	_, st.Goroutine = d.threads.client(in, h.goid)
	frames := visible(all)
	if len(frames) == 0 {
		return st
	}
	top := frames[0]
	st.Line, st.Depth, st.File = top.Line, len(frames), top.File
	if h.cp != nil {
		st.Steps = 0
	}
	return st
}

// present shows a halt to the front end. steps is the halt's line steps since its
// checkpoint, when known.
func (d *Debugger) present(in *incarnation, h halt, steps int) {
	if h.ended {
		d.mu.Lock()
		d.cur = nil
		d.mu.Unlock()
		d.front.Terminated()
		return
	}
	st := d.position(d.ctx, in, h)
	if st.Steps < 0 {
		st.Steps = steps
	}
	d.mu.Lock()
	d.names.in = nil
	d.cur = &st
	d.curBug = h.bug
	web := d.web
	d.mu.Unlock()
	id, _ := d.threads.client(in, h.goid)
	desc, text := h.desc, ""
	if h.bug != nil {
		desc, text = h.bug.Kind, h.desc
	}
	d.front.Stopped(Stop{Reason: h.reason, Thread: id, Goroutine: st.Goroutine, Description: desc, Text: text,
		Checkpoint: st.Checkpoint, Others: d.others(in, st.Goroutine)})
	if web != nil {
		d.publishCheckpoint(web, in, st.Checkpoint)
	}
}

// begin starts a motion; only one runs at a time. It returns the motion's id.
func (d *Debugger) begin() (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.moving != 0 {
		return 0, ErrBusy
	}
	d.motions++
	d.moving = d.motions
	d.from = d.hits.Leave()
	return d.moving, nil
}

// end ends motion id, if it is still the current one.
func (d *Debugger) end(id int) {
	d.mu.Lock()
	if d.moving == id {
		d.moving = 0
	}
	d.mu.Unlock()
}

// goMotion runs f as motion id in a goroutine of its own, if no other motion runs; then
// it tops the spare incarnations up and places incarnations for the next step back.
func (d *Debugger) goMotion(done func(error), f func(id int)) {
	id, err := d.begin()
	if err != nil {
		done(err)
		return
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer d.reposition()
		defer d.startSpare()
		defer d.end(id)
		f(id)
	}()
}

// goCaptured runs f as motion id on incarnation in, in a goroutine of its own, if no other
// motion runs; in's stop events go to sink meanwhile. Then it places incarnations for the
// next step back, and tops up the spares that placing took.
func (d *Debugger) goCaptured(in *incarnation, done func(error), f func(id int, sink chan Event)) {
	id, err := d.begin()
	if err != nil {
		done(err)
		return
	}
	sink := in.capture()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer d.topUp()
		defer d.reposition()
		defer d.end(id)
		defer in.release(sink)
		f(id, sink)
	}()
}

// topUp tops the spare incarnations up at the end of a motion, unless trailers were parked
// where the motion stopped: the step back that may follow at once takes those, and runs
// faster without new debuggers loading beside it; the spares are topped up when it ends.
func (d *Debugger) topUp() {
	d.mu.Lock()
	later := d.sparesLater
	d.sparesLater = false
	d.mu.Unlock()
	if !later {
		d.startSpare()
	}
}

// settle ends motion id before its stop is shown, so that the client may start the next
// motion as soon as it sees the stop.
func (d *Debugger) settle(id int, in *incarnation, sink chan Event) {
	if sink != nil {
		in.release(sink)
	}
	d.end(id)
}

// Move resumes the goroutine of thread with motion m (Continue, Next, StepIn or StepOut)
// and shows where the debuggee stops. done is called once the move has started, or with
// the error that stopped it from starting. granularity is that of a step ("instruction", or
// "" for lines).
func (d *Debugger) Move(m Motion, thread int, granularity string, done func(error)) {
	in := d.current()
	if in == nil {
		done(ErrNoProgram)
		return
	}
	if (m == Next || m == Continue) && granularity == "" && d.redo(m, thread, done) {
		return
	}
	goid := d.threads.goid(in, thread)
	d.mu.Lock()
	prev := d.cur
	d.mu.Unlock()
	d.goCaptured(in, done, func(id int, sink chan Event) {
		ctx := d.ctx
		stepping := m != Continue
		in.mu.Lock()
		name := in.interrupted
		in.interrupted = ""
		in.mu.Unlock()
		if stepping {
			_, name = d.threads.client(in, goid)
		}
		in.ctrl.mu.Lock()
		in.ctrl.plan.stepping = name
		in.ctrl.mu.Unlock()
		if stepping {
			// At a checkpoint the goroutine stands inside heddle's runtime, before its
			// operation: step out to the user's line first, which performs the operation.
			h, reached, after, err := d.leaveHeddle(ctx, in, sink, goid)
			if err != nil {
				done(err)
				return
			}
			if h != nil {
				done(nil)
				if h.ended {
					in.release(sink)
					d.stopAtEnd(id, in)
					return
				}
				steps := -1
				if reached && prev != nil && prev.Steps >= 0 && after.Checkpoint == prev.Checkpoint {
					steps = prev.Steps + 1
				}
				d.settle(id, in, sink)
				d.present(in, *h, steps)
				return
			}
		}
		var start bidir.Stop
		if m == StepIn {
			start = d.position(ctx, in, halt{goid: goid})
		}
		if err := in.t.Resume(ctx, Resume{Motion: m, Goid: goid, Granularity: granularity}); err != nil {
			done(err)
			d.endIfGone(in)
			return
		}
		done(nil)
		var ts []*trailer
		if m == Continue {
			ts = d.startTrailers(in)
		}
		h, err := d.awaitStep(ctx, in, sink, stepping, m == StepIn)
		d.releaseTrailers(ts, in, err != nil || h.ended)
		// A step into a line whose memory accesses or operations the instrumenter turned into
		// calls into heddle's runtime enters that call, which await steps out of, back to the
		// same line: step in again, as if the call were not there.
		for i := 0; m == StepIn && err == nil && i < maxEscape && h.plainStep(goid); i++ {
			if p := d.position(ctx, in, h); p.Line != start.Line || p.File != start.File || p.Depth != start.Depth {
				break
			}
			if err = in.resume(ctx, StepIn, goid); err == nil {
				h, err = d.awaitStep(ctx, in, sink, true, true)
			}
		}
		if err != nil {
			d.errorf("%s: %v", m, err)
			return
		}
		steps := -1
		if m == Next && prev != nil && prev.Steps >= 0 {
			steps = prev.Steps + 1
		}
		if h.cp != nil {
			steps = 0
		}
		st := d.position(ctx, in, h)
		if m == Continue && prev != nil {
			d.mu.Lock()
			from := d.from
			d.mu.Unlock()
			d.hits.Continued(from, *prev, st, h.hit())
		}
		if prev != nil && st.Checkpoint != prev.Checkpoint && h.cp == nil {
			steps = -1
		}
		if h.ended {
			in.release(sink)
			d.stopAtEnd(id, in)
			return
		}
		if _, who := d.threads.client(in, h.goid); name != "" && h.hit() && who != name {
			in.mu.Lock()
			in.interrupted = name
			in.mu.Unlock()
		}
		d.settle(id, in, sink)
		d.present(in, h, steps)
	})
}

// stopAtEnd shows the end of in's run, which motion id reached going forward, as a stop
// (reason "end") on the last line the run executed, in a new incarnation: the user can go
// back from there. A debuggee that did not end its run (killed, crashed) ends the session.
func (d *Debugger) stopAtEnd(id int, in *incarnation) {
	desc := d.reportEnd(in)
	if desc == "" {
		d.end(id)
		d.present(in, halt{ended: true}, -1)
		return
	}
	defer d.startSpare()
	inc, st, err := d.navigator().End(d.ctx)
	if err != nil {
		d.front.Output("stderr", "heddle: cannot stay at the end of the run: "+err.Error()+"\n")
		d.end(id)
		d.present(in, halt{ended: true}, -1)
		return
	}
	n := inc.(*navInc)
	n.last.desc = desc
	d.adopt(id, n, st, "end", nil)
}

// leaveHeddle begins a line step of goroutine goid. Stopped at a checkpoint, a goroutine
// stands inside heddle's runtime, before its operation: it steps out to the user's line first,
// which performs the operation. leaveHeddle returns the halt that ended the step already, if
// one did: another stop on the way (the run's end, a bug, another goroutine's breakpoint), or
// the return reaching the next line (reached, with the stop's place); nil if the step goes on
// with a Next. It reads the goroutine's stack once before the move and once after each stop,
// for what it decides and for the places it compares.
func (d *Debugger) leaveHeddle(ctx context.Context, in *incarnation, sink chan Event, goid int64) (h *halt, reached bool, at bidir.Stop, err error) {
	all, err := d.stack(ctx, in, goid, maxDepth)
	if err != nil || len(all) == 0 || !all[0].hidden() {
		return nil, false, bidir.Stop{}, err
	}
	before := d.positionIn(in, halt{goid: goid}, all)
	for range maxEscape {
		if err := d.stepOutHidden(ctx, in, goid, all); err != nil {
			return nil, false, bidir.Stop{}, err
		}
		h, err := d.awaitRaw(ctx, in, sink)
		if err != nil {
			return nil, false, bidir.Stop{}, err
		}
		if h.ended || h.bug != nil || h.cp != nil || h.goid != goid || h.reason != "step" {
			return &h, false, bidir.Stop{}, nil
		}
		if all, err = d.stack(ctx, in, goid, maxDepth); err != nil {
			return nil, false, bidir.Stop{}, err
		}
		if len(all) > 0 && all[0].hidden() {
			continue
		}
		here := halt{goid: goid, reason: "step"}
		if after := d.positionIn(in, here, all); after.Line != before.Line || after.Depth != before.Depth || after.File != before.File {
			// Returning from the operation's call already reached the next line.
			return &here, true, after, nil
		}
		return nil, false, bidir.Stop{}, nil
	}
	return nil, false, bidir.Stop{}, fmt.Errorf("could not step out of heddle's runtime")
}

// hiddenDepth is how many frames stepOutHidden reads to find the user's frame beneath
// heddle's: more than a call into rt stacks up.
const hiddenDepth = 24

// stepOutHidden resumes goroutine goid, stopped in heddle's frames or Go's, until it returns
// to the first frame beneath them, the user's code that called them, in one move of the
// debugger rather than a step out of each frame: at a checkpoint they are seven deep, and
// each step out is a round trip and a continue of Delve's. When the stack shows no user's
// frame within reach, or the target cannot, it steps out of the top frame alone. frames is the
// goroutine's stack if the caller read it, or nil.
func (d *Debugger) stepOutHidden(ctx context.Context, in *incarnation, goid int64, frames []Frame) error {
	if frames == nil {
		var err error
		if frames, err = d.stack(ctx, in, goid, hiddenDepth); err != nil {
			return err
		}
	}
	// The return into the user's frame may have a breakpoint of the user's already (one on
	// the line after the call), where Delve sets no other: the return into the last of
	// heddle's frames then, and a step out of it.
	for k := slices.IndexFunc(frames, func(f Frame) bool { return !f.hidden() }); k >= 2; k-- {
		if err := in.t.ReturnTo(ctx, goid, frames[k]); !errors.Is(err, ErrNoReturn) {
			return err
		}
	}
	return in.resume(ctx, StepOut, goid)
}

// awaitRaw waits for the next stop without stepping out of anything.
func (d *Debugger) awaitRaw(ctx context.Context, in *incarnation, sink chan Event) (halt, error) {
	for {
		ev, err := waitEvent(ctx, in, sink)
		if err != nil {
			return halt{}, err
		}
		switch ev.Kind {
		case Exited:
			return halt{ended: true}, nil
		case Continued:
			continue
		}
		goid := ev.Goid
		if goid == 0 && gone(in) {
			return halt{ended: true}, nil
		}
		if ev.Reason == "pause" {
			goid = d.paused(in, goid)
		}
		reason, cp := in.ctrl.takeBreak()
		h := halt{goid: goid, reason: ev.Reason, cp: cp}
		if reason == "bug" {
			in.ctrl.mu.Lock()
			h.bug = in.ctrl.bug
			in.ctrl.mu.Unlock()
			h.reason = "exception"
		}
		return h, nil
	}
}

// gone reports, within two seconds, whether in's debuggee has gone.
func gone(in *incarnation) bool {
	select {
	case <-in.ctrl.ended:
		return true
	case <-in.t.Done():
		return true
	case <-time.After(2 * time.Second):
		return false
	}
}

// endIfGone ends the session's run if in's debuggee has gone (killed, crashed): its
// requests fail, and the client must learn that there is nothing left to debug.
func (d *Debugger) endIfGone(in *incarnation) {
	select {
	case <-in.ctrl.ended:
	case <-in.t.Done():
	case <-time.After(2 * time.Second):
		return
	}
	if in != d.current() {
		return
	}
	d.reportEnd(in)
	d.present(in, halt{ended: true}, -1)
}

// reportEnd tells the user how the run ended when it ended without stopping. It returns
// what it said ("the run ended: ok"), or "" if the debuggee did not end its run.
func (d *Debugger) reportEnd(in *incarnation) string {
	select {
	case <-in.ctrl.ended:
	case <-time.After(2 * time.Second):
		return ""
	}
	in.ctrl.mu.Lock()
	tr, errMsg := in.ctrl.trace, in.ctrl.endErr
	in.ctrl.mu.Unlock()
	switch {
	case errMsg != "":
		d.front.Output("stderr", "heddle: "+errMsg+"\n")
	case tr != nil:
		msg := "the run ended: " + tr.Verdict.Kind
		if tr.Verdict.Message != "" {
			msg += ": " + tr.Verdict.Message
		}
		d.front.Output("console", "heddle: "+msg+"\n")
		return msg
	}
	return ""
}

// plan is how a new incarnation runs: it follows the session's schedule and stops at
// checkpoint breakAt.
func (d *Debugger) plan(breakAt int) planned {
	d.mu.Lock()
	defer d.mu.Unlock()
	return planned{follow: append([]string(nil), d.follow...), leftOut: d.leftOut, breakAt: breakAt, stopOnBug: d.prog.stopOnBug}
}

// record makes the current incarnation's decisions the session's schedule, keeping any
// recorded decisions beyond them (a replayed schedule's rest).
func (d *Debugger) record(in *incarnation) {
	st := in.ctrl.snapshot()
	picks := st.picks()
	d.mu.Lock()
	defer d.mu.Unlock()
	same := prefixOf(picks, d.follow)
	if len(picks) >= len(d.follow) || !same {
		d.follow = picks
	}
	if !same && !prefixOf(d.follow, picks) {
		// Another execution: the hits met on the old one say nothing of it.
		d.hits.Clear()
	}
	// An incarnation that went back on the same schedule has seen fewer checkpoints than the
	// session knows of: the known ones stay the timeline.
	if !same || len(st.checkpoints) >= len(d.recorded) || !sameCheckpoints(st.checkpoints, d.recorded) {
		d.recorded = st.checkpoints
	}
}

// sameCheckpoints reports whether a's checkpoints begin b's.
func sameCheckpoints(a, b []Checkpoint) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i].Goroutine != b[i].Goroutine || a[i].Step != b[i].Step {
			return false
		}
	}
	return true
}

func prefixOf(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// describeHalt is a one-line description of where a halt is, for messages.
func describeHalt(st bidir.Stop) string {
	return strings.TrimSpace(fmt.Sprintf("%s at %s:%d", st.Goroutine, st.File, st.Line))
}
