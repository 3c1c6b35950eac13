package dap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/heddledbg/heddle/bidir"
	"github.com/heddledbg/heddle/worker"
)

// pump routes an incarnation's events for as long as its debugger runs.
func (s *Session) pump(in *incarnation) {
	for ev := range in.events {
		s.route(in, ev)
	}
	in.mu.Lock()
	sink := in.sink
	in.mu.Unlock()
	if sink != nil {
		sink <- &message{Type: "event", Event: "terminated"}
	}
}

func (s *Session) route(in *incarnation, ev *message) {
	switch ev.Event {
	case "stopped", "terminated", "exited", "continued":
		if ev.Event == "terminated" || ev.Event == "exited" {
			in.exitedOnce.Do(func() { close(in.exited) })
		}
		in.mu.Lock()
		sink := in.sink
		in.mu.Unlock()
		if sink != nil {
			sink <- ev
			return
		}
		if in != s.current() {
			return
		}
		if ev.Event == "stopped" {
			// A stop no motion waits for: a pause.
			var b struct {
				ThreadID int64  `json:"threadId"`
				Reason   string `json:"reason"`
			}
			json.Unmarshal(ev.Body, &b)
			b.ThreadID = s.paused(in, b.ThreadID)
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.present(in, halt{goid: b.ThreadID, reason: b.Reason}, -1)
			}()
			return
		}
		if ev.Event == "continued" {
			ev.Body = s.threads.fromDelve(in, ev.Body)
		}
		s.send(ev)
	case "initialized":
	case "output":
		if in != s.current() {
			in.keepOutput(ev)
			return
		}
		// Delve's console greeting is about its own command line, which heddle's users
		// do not have.
		if !strings.Contains(string(ev.Body), "Type 'dlv help'") {
			s.send(ev)
		}
	default:
		if in != s.current() {
			return
		}
		ev.Body = s.threads.fromDelve(in, ev.Body)
		s.send(ev)
	}
}

// paused returns the goroutine to show for a pause that stopped goroutine goid. Delve
// reports whichever goroutine its thread was running, often one of Go's; the user paused the
// goroutine heddle was running.
func (s *Session) paused(in *incarnation, goid int64) int64 {
	if _, name := s.threads.client(in, goid); name != "" {
		return goid
	}
	in.ctrl.mu.Lock()
	defer in.ctrl.mu.Unlock()
	if n := len(in.ctrl.checkpoints); n > 0 {
		return in.ctrl.checkpoints[n-1].goid
	}
	return goid
}

// keepOutput keeps the end of what a debuggee that is not the current one prints, for the
// error when it exits before connecting.
func (in *incarnation) keepOutput(ev *message) {
	var b struct {
		Output string `json:"output"`
	}
	json.Unmarshal(ev.Body, &b)
	in.mu.Lock()
	if in.output = append(in.output, b.Output); len(in.output) > 20 {
		in.output = in.output[1:]
	}
	in.mu.Unlock()
}

// capture makes in's stop events go to the returned channel until release.
func (in *incarnation) capture() chan *message {
	ch := make(chan *message, 64)
	in.mu.Lock()
	in.sink = ch
	in.mu.Unlock()
	return ch
}

// releaseSink releases the capture made with sink, if it is still the current one.
func (in *incarnation) releaseSink(sink chan *message) {
	in.mu.Lock()
	if in.sink == sink {
		in.sink = nil
	}
	in.mu.Unlock()
}

// halt is where an incarnation came to rest after a motion.
type halt struct {
	ended  bool
	goid   int64
	reason string // DAP stop reason
	// bug is set when the debuggee stopped where it found a bug.
	bug  *Bug
	desc string
	cp   *Checkpoint // set when it stopped at a checkpoint
}

// hit reports whether h is a stop at one of the client's breakpoints.
func (h halt) hit() bool {
	return !h.ended && h.bug == nil && h.cp == nil && strings.Contains(h.reason, "breakpoint")
}

// maxEscape bounds the step-outs from heddle's frames back to the user's code.
const maxEscape = 32

// await waits until in stops for good: stops inside heddle's runtime after a step are
// stepped out of, and a stop at a new goroutine's checkpoint runs to its function's first
// line. stepping says the motion was a step.
func (s *Session) await(ctx context.Context, in *incarnation, sink chan *message, stepping bool) (halt, error) {
	for escapes := 0; ; {
		h, err := s.awaitRaw(ctx, in, sink)
		if err != nil || h.ended || h.bug != nil {
			if h.bug != nil {
				h.desc = h.bug.Kind + ": " + h.bug.Message
			}
			return h, err
		}
		if h.cp != nil {
			if h.cp.New && h.cp.Func != "" {
				return s.enter(ctx, in, sink, h.goid, h.cp)
			}
			h.reason = "step"
			return h, nil
		}
		if h.reason == "pause" && escapes < maxEscape {
			// A pause can land where Delve cannot unwind to the user's code (inside the
			// runtime, mid-prologue): let the goroutine run a moment and pause it again.
			if frames, err := s.frames(in, h.goid); err == nil && len(frames) == 0 {
				escapes++
				if _, err := in.call(ctx, "continue", map[string]any{"threadId": h.goid}); err != nil {
					return halt{}, err
				}
				time.Sleep(20 * time.Millisecond)
				if _, err := in.call(ctx, "pause", map[string]any{"threadId": h.goid}); err != nil {
					return halt{}, err
				}
				continue
			}
		}
		if (stepping || h.reason == "step") && escapes < maxEscape {
			hidden, err := s.inHeddle(in, h.goid)
			if err != nil {
				return halt{}, err
			}
			if hidden {
				escapes++
				if _, err := in.call(ctx, "stepOut", map[string]any{"threadId": h.goid}); err != nil {
					return halt{}, err
				}
				continue
			}
		}
		return h, nil
	}
}

// waitEvent returns the next stop event of in. A debuggee that has gone (killed, crashed)
// while Delve reports nothing counts as terminated once Delve has had a moment to say so.
func waitEvent(ctx context.Context, in *incarnation, sink chan *message) (*message, error) {
	select {
	case ev := <-sink:
		return ev, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-in.ctrl.ended:
	}
	select {
	case ev := <-sink:
		return ev, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(2 * time.Second):
		return &message{Type: "event", Event: "terminated"}, nil
	}
}

// enter runs a goroutine stopped at its start (inside heddle) to the first line of its
// function, with a temporary function breakpoint.
func (s *Session) enter(ctx context.Context, in *incarnation, sink chan *message, goid int64, cp *Checkpoint) (halt, error) {
	if _, err := in.call(ctx, "setFunctionBreakpoints", s.bps.functions([]string{cp.Func})); err != nil {
		return halt{}, err
	}
	if _, err := in.call(ctx, "continue", map[string]any{"threadId": goid}); err != nil {
		return halt{}, err
	}
	h, err := s.await(ctx, in, sink, false)
	if _, err := in.call(ctx, "setFunctionBreakpoints", s.bps.functions(nil)); err != nil {
		return halt{}, err
	}
	if err == nil && h.cp == nil && h.bug == nil && !h.ended {
		h.cp, h.reason = cp, "step"
	}
	return h, err
}

// inHeddle reports whether goroutine goid's top frame is in heddle's runtime or Go's.
func (s *Session) inHeddle(in *incarnation, goid int64) (bool, error) {
	resp, err := s.call(in, "stackTrace", map[string]any{"threadId": goid, "startFrame": 0, "levels": 1})
	if err != nil {
		return false, err
	}
	var b struct {
		StackFrames []stackFrame `json:"stackFrames"`
	}
	json.Unmarshal(resp.Body, &b)
	return len(b.StackFrames) > 0 && b.StackFrames[0].hidden(), nil
}

// position reads where goroutine goid of in stands, for bidir.
func (s *Session) position(in *incarnation, h halt) bidir.Stop {
	st := bidir.Stop{Steps: -1, Ended: h.ended}
	in.ctrl.mu.Lock()
	st.Checkpoint = len(in.ctrl.checkpoints) - 1
	in.ctrl.mu.Unlock()
	if h.ended {
		return st
	}
	_, st.Goroutine = s.threads.client(in, h.goid)
	frames, err := s.frames(in, h.goid)
	if err != nil || len(frames) == 0 {
		return st
	}
	var top stackFrame
	json.Unmarshal(frames[0], &top)
	st.Line, st.Depth = top.Line, len(frames)
	if top.Source != nil {
		st.File = top.Source.Path
	}
	if h.cp != nil {
		st.Steps = 0
	}
	return st
}

// present shows a halt to the client: a stopped event on the goroutine's thread, and heddle's
// checkpoint event. steps is the halt's line steps since its checkpoint, when known.
func (s *Session) present(in *incarnation, h halt, steps int) {
	if h.ended {
		s.mu.Lock()
		s.cur = nil
		s.mu.Unlock()
		s.event("terminated", nil)
		return
	}
	st := s.position(in, h)
	if st.Steps < 0 {
		st.Steps = steps
	}
	s.mu.Lock()
	s.cur = &st
	s.curBug = h.bug
	web := s.web
	s.mu.Unlock()
	id, _ := s.threads.client(in, h.goid)
	b := map[string]any{"reason": h.reason, "threadId": id, "allThreadsStopped": true}
	if h.desc != "" {
		b["description"], b["text"] = h.desc, h.desc
	}
	s.event("stopped", b)
	s.event("heddle/checkpoint", map[string]any{"index": st.Checkpoint, "goroutine": st.Goroutine})
	if web != nil {
		s.publishCheckpoint(web, in, st.Checkpoint)
	}
}

// begin starts a motion; only one runs at a time. It returns the motion's id.
func (s *Session) begin(m *message) (int, bool) {
	s.mu.Lock()
	if s.moving != 0 {
		s.mu.Unlock()
		s.fail(m, "%s: the debugger is busy with another command; try again when it stops", m.Command)
		return 0, false
	}
	s.motions++
	s.moving = s.motions
	s.from = s.hits.Leave()
	s.mu.Unlock()
	return s.moving, true
}

// end ends motion id, if it is still the current one.
func (s *Session) end(id int) {
	s.mu.Lock()
	if s.moving == id {
		s.moving = 0
	}
	s.mu.Unlock()
}

// goMotion runs f as motion id in a goroutine of its own, if no other motion runs.
func (s *Session) goMotion(m *message, f func(id int)) {
	id, ok := s.begin(m)
	if !ok {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.startSpare()
		defer s.end(id)
		f(id)
	}()
}

// settle ends motion id before its stop is shown, so that the client may start the next
// motion as soon as it sees the stop.
func (s *Session) settle(id int, in *incarnation, sink chan *message) {
	if sink != nil {
		in.releaseSink(sink)
	}
	s.end(id)
}

// forwardMotion handles continue and the steps: Delve moves the debuggee, and heddle keeps
// the user out of its runtime.
func (s *Session) forwardMotion(m *message) { s.motion(m, m.Command, m.Arguments) }

// motion sends command with args to Delve on behalf of request m, and shows where the
// debuggee stops.
func (s *Session) motion(m *message, command string, args json.RawMessage) {
	in := s.current()
	if in == nil {
		s.fail(m, "%s: no program is being debugged", m.Command)
		return
	}
	id, ok := s.begin(m)
	if !ok {
		return
	}
	var a struct {
		ThreadID int `json:"threadId"`
	}
	json.Unmarshal(args, &a)
	goid := s.threads.goid(in, a.ThreadID)
	s.mu.Lock()
	prev := s.cur
	s.mu.Unlock()
	sink := in.capture()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.end(id)
		defer in.releaseSink(sink)
		ctx := s.ctx
		stepping := command != "continue"
		if stepping {
			// At a checkpoint the goroutine stands inside heddle's runtime, before its
			// operation: step out to the user's line first, which performs the operation.
			hidden, err := s.inHeddle(in, goid)
			if err != nil {
				s.fail(m, "%s: %v", m.Command, err)
				return
			}
			if hidden {
				before := s.position(in, halt{goid: goid})
				h, err := s.stepOutOfHeddle(ctx, in, sink, goid)
				if err != nil {
					s.fail(m, "%s: %v", m.Command, err)
					return
				}
				if h != nil {
					// Something else stopped the debuggee first.
					s.respond(m, nil)
					s.settle(id, in, sink)
					s.present(in, *h, -1)
					return
				}
				here := halt{goid: goid, reason: "step"}
				if after := s.position(in, here); after.Line != before.Line || after.Depth != before.Depth || after.File != before.File {
					// Returning from the operation's call already reached the next line.
					s.respond(m, nil)
					steps := -1
					if prev != nil && prev.Steps >= 0 && after.Checkpoint == prev.Checkpoint {
						steps = prev.Steps + 1
					}
					s.settle(id, in, sink)
					s.present(in, here, steps)
					return
				}
			}
		}
		resp, err := in.call(ctx, command, s.threads.toDelve(in, args))
		if err != nil {
			s.fail(m, "%v", err)
			s.endIfGone(in)
			return
		}
		resp.RequestSeq, resp.Seq, resp.Command = m.Seq, 0, m.Command
		s.send(resp)
		h, err := s.await(ctx, in, sink, stepping)
		if err != nil {
			s.output("stderr", fmt.Sprintf("heddle: %s: %v\n", m.Command, err))
			return
		}
		steps := -1
		if command == "next" && prev != nil && prev.Steps >= 0 {
			steps = prev.Steps + 1
		}
		if h.cp != nil {
			steps = 0
		}
		st := s.position(in, h)
		if command == "continue" && prev != nil {
			s.mu.Lock()
			from := s.from
			s.mu.Unlock()
			s.hits.Continued(from, *prev, st, h.hit())
		}
		if prev != nil && st.Checkpoint != prev.Checkpoint && h.cp == nil {
			steps = -1
		}
		if h.ended {
			s.reportEnd(in)
		}
		s.settle(id, in, sink)
		s.present(in, h, steps)
	}()
}

// stepOutOfHeddle steps goroutine goid out of heddle's frames. It returns a halt if the
// debuggee stopped for another reason on the way.
func (s *Session) stepOutOfHeddle(ctx context.Context, in *incarnation, sink chan *message, goid int64) (*halt, error) {
	for i := 0; i < maxEscape; i++ {
		if _, err := in.call(ctx, "stepOut", map[string]any{"threadId": goid}); err != nil {
			return nil, err
		}
		h, err := s.awaitRaw(ctx, in, sink)
		if err != nil {
			return nil, err
		}
		if h.ended || h.bug != nil || h.cp != nil || h.goid != goid || h.reason != "step" {
			return &h, nil
		}
		hidden, err := s.inHeddle(in, goid)
		if err != nil {
			return nil, err
		}
		if !hidden {
			return nil, nil
		}
	}
	return nil, fmt.Errorf("could not step out of heddle's runtime")
}

// awaitRaw waits for the next stop without stepping out of anything.
func (s *Session) awaitRaw(ctx context.Context, in *incarnation, sink chan *message) (halt, error) {
	for {
		ev, err := waitEvent(ctx, in, sink)
		if err != nil {
			return halt{}, err
		}
		switch ev.Event {
		case "terminated", "exited":
			return halt{ended: true}, nil
		case "continued":
			continue
		}
		var b struct {
			ThreadID int64  `json:"threadId"`
			Reason   string `json:"reason"`
		}
		json.Unmarshal(ev.Body, &b)
		if b.ThreadID == 0 && gone(in) {
			return halt{ended: true}, nil
		}
		if b.Reason == "pause" {
			b.ThreadID = s.paused(in, b.ThreadID)
		}
		reason, cp := in.ctrl.takeBreak()
		h := halt{goid: b.ThreadID, reason: b.Reason, cp: cp}
		if reason == "bug" {
			in.ctrl.mu.Lock()
			h.bug = in.ctrl.bug
			in.ctrl.mu.Unlock()
			h.reason = "exception"
		}
		return h, nil
	}
}

// launch builds the program and launches the first incarnation; the client then sets its
// breakpoints on it, and configurationDone starts the run.
func (s *Session) launch(m *message) {
	a, extra, err := parseLaunch(m.Arguments)
	if err != nil {
		s.fail(m, "%v", err)
		return
	}
	s.mu.Lock()
	if s.prog != nil {
		s.mu.Unlock()
		s.fail(m, "launch: this session already debugs %s", s.prog.pkg)
		return
	}
	s.mu.Unlock()
	s.output("console", "heddle: building "+a.Program+a.Schedule+" for debugging\n")
	p, err := build(s.ctx, a, s.tmp)
	if err != nil {
		s.fail(m, "%v", err)
		return
	}
	spec := &launchSpec{initialize: s.initArgs, binary: p.binary, env: a.Env, cwd: a.Cwd, extra: extra}
	if spec.cwd == "" {
		spec.cwd = p.dir
	}
	if p.mode == "test" {
		spec.args = worker.TestArgs(false, a.Args...)
	} else {
		spec.args = a.Args
	}
	if spec.env == nil {
		spec.env = map[string]string{}
	}
	spec.env[worker.EnvPackage] = p.pkg
	if _, ok := spec.env["TMPDIR"]; !ok {
		// The program's temporary directory is the user's, not the one Delve runs with.
		spec.env["TMPDIR"] = os.TempDir()
	}
	if spec.initialize == nil {
		spec.initialize = body(map[string]any{"adapterID": "heddle", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"})
	}
	s.mu.Lock()
	s.prog, s.spec = p, spec
	if p.schedule != nil {
		_, names, err := p.schedule.Picks()
		if err == nil {
			s.follow = names
		}
	}
	s.mu.Unlock()
	in, err := s.prepare(s.ctx)
	if err != nil {
		s.fail(m, "launch: %v", err)
		return
	}
	s.mu.Lock()
	s.active = in
	s.mu.Unlock()
	s.respond(m, nil)
	s.event("initialized", nil)
}

// prepare launches a new incarnation and starts routing its events.
func (s *Session) prepare(ctx context.Context) (*incarnation, error) {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	spec := s.spec
	s.mu.Unlock()
	in, err := prepareIncarnation(ctx, id, s.tmp, spec)
	if err != nil {
		return nil, err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.pump(in)
	}()
	return in, nil
}

// configurationDone lets the first incarnation run.
func (s *Session) configurationDone(m *message) {
	in := s.current()
	if in == nil {
		s.fail(m, "configurationDone: launch first")
		return
	}
	id, ok := s.begin(m)
	if !ok {
		return
	}
	sink := in.capture()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.end(id)
		defer in.releaseSink(sink)
		if err := in.finish(s.ctx, s.bps, true); err != nil {
			s.fail(m, "configurationDone: %v", err)
			return
		}
		s.respond(m, nil)
		p := s.plan(-1)
		if s.prog.stopOnEntry {
			p.breakAt = 0
		}
		if err := in.ctrl.begin(s.prog.test, s.prog.time, p); err != nil {
			s.output("stderr", "heddle: "+err.Error()+"\n")
			return
		}
		s.startSpare()
		s.hits.Start()
		h, err := s.await(s.ctx, in, sink, false)
		if err != nil {
			s.output("stderr", "heddle: "+err.Error()+"\n")
			return
		}
		if p.breakAt < 0 {
			s.hits.Continued(0, bidir.Stop{}, s.position(in, h), h.hit())
		}
		if h.ended {
			s.reportEnd(in)
		}
		if h.cp != nil && h.cp.Index == 0 {
			h.reason = "entry"
		}
		s.settle(id, in, sink)
		s.present(in, h, -1)
	}()
}

// gone reports, within two seconds, whether in's debuggee has gone.
func gone(in *incarnation) bool {
	select {
	case <-in.ctrl.ended:
		return true
	case <-in.done:
		return true
	case <-time.After(2 * time.Second):
		return false
	}
}

// endIfGone ends the session's run if in's debuggee has gone (killed, crashed): its
// requests fail, and the client must learn that there is nothing left to debug.
func (s *Session) endIfGone(in *incarnation) {
	select {
	case <-in.ctrl.ended:
	case <-in.done:
	case <-time.After(2 * time.Second):
		return
	}
	if in != s.current() {
		return
	}
	s.reportEnd(in)
	s.present(in, halt{ended: true}, -1)
}

// reportEnd tells the user how the run ended when it ended without stopping.
func (s *Session) reportEnd(in *incarnation) {
	select {
	case <-in.ctrl.ended:
	case <-time.After(2 * time.Second):
		return
	}
	in.ctrl.mu.Lock()
	tr, errMsg := in.ctrl.trace, in.ctrl.endErr
	in.ctrl.mu.Unlock()
	switch {
	case errMsg != "":
		s.output("stderr", "heddle: "+errMsg+"\n")
	case tr != nil:
		msg := "heddle: the run ended: " + tr.Verdict.Kind
		if tr.Verdict.Message != "" {
			msg += ": " + tr.Verdict.Message
		}
		s.output("console", msg+"\n")
	}
}

// plan is how a new incarnation runs: it follows the session's schedule and stops at
// checkpoint breakAt.
func (s *Session) plan(breakAt int) planned {
	s.mu.Lock()
	defer s.mu.Unlock()
	return planned{follow: append([]string(nil), s.follow...), breakAt: breakAt, stopOnBug: s.prog.stopOnBug}
}

// record makes the current incarnation's decisions the session's schedule, keeping any
// recorded decisions beyond them (a replayed schedule's rest).
func (s *Session) record(in *incarnation) {
	st := in.ctrl.snapshot()
	picks := st.picks()
	s.mu.Lock()
	defer s.mu.Unlock()
	same := prefixOf(picks, s.follow)
	if len(picks) >= len(s.follow) || !same {
		s.follow = picks
	}
	if !same && !prefixOf(s.follow, picks) {
		// Another execution: the hits met on the old one say nothing of it.
		s.hits.Clear()
	}
	// An incarnation that went back on the same schedule has seen fewer checkpoints than the
	// session knows of: the known ones stay the timeline.
	if !same || len(st.checkpoints) >= len(s.recorded) || !sameCheckpoints(st.checkpoints, s.recorded) {
		s.recorded = st.checkpoints
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
