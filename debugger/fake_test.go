package debugger

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// A fake target plays Delve and the instrumented debuggee for the core's unit tests. The
// debuggee is a program of goroutines, each a list of lines; a line with an operation is a
// scheduling point, and the fake speaks the real debug protocol with the core's controller
// over its socket, as package worker does. Like Delve, it moves goroutines on Resume, stops at
// breakpoints, at heddle's break (a stop inside heddle's runtime) and at function entries,
// and reports stops as events.

// fakeLine is a line of a goroutine's function: op is the operation it performs (a
// scheduling point), spawn the goroutine it starts (not a scheduling point).
type fakeLine struct {
	line  int
	op    string
	spawn string
}

// fakeFunc is the function a goroutine runs.
type fakeFunc struct {
	name  string
	lines []fakeLine
}

// fakeProgram is a program and the client's line breakpoints.
type fakeProgram struct {
	root  string // the root goroutine's function
	funcs map[string]fakeFunc
	bps   []int

	mu sync.Mutex
	// launched counts the targets started, to see what a move costs.
	launched int
}

// counter is a program of two goroutines that each lock a mutex and count: G1 runs lines
// 10–14, the goroutine it starts (G1.1) lines 20–22.
func counter(bps ...int) *fakeProgram {
	return &fakeProgram{root: "main.TestCount", bps: bps, funcs: map[string]fakeFunc{
		"main.TestCount": {"main.TestCount", []fakeLine{{line: 10, spawn: "main.worker"}, {line: 11, op: "Lock"}, {line: 12}, {line: 13, op: "Lock"}, {line: 14}}},
		"main.worker":    {"main.worker", []fakeLine{{line: 20, op: "Lock"}, {line: 21}, {line: 22}}},
	}}
}

func (p *fakeProgram) launch(_ context.Context, id int, spec Spec) (Target, error) {
	p.mu.Lock()
	p.launched++
	p.mu.Unlock()
	t := &fakeTarget{p: p, sock: spec.Env[wire.EnvDebug], events: make(chan Event, 64), done: make(chan struct{}), lineBps: map[int]bool{}, funcBps: map[string]bool{}}
	if id == 1 {
		// The client sets its breakpoints on the first incarnation before configurationDone.
		for _, l := range p.bps {
			t.lineBps[l] = true
		}
	}
	return t, nil
}

// fakeG is a goroutine of a fake run.
type fakeG struct {
	name string
	goid int64
	gid  rt.GID
	fn   fakeFunc
	pc   int
	// fresh: not started yet; inHeddle: resumed at a checkpoint, stopped in heddle's runtime
	// before its operation; midLine: its operation is done, the rest of its line is not.
	fresh, inHeddle, midLine, done bool
	children                       int
}

type fakeTarget struct {
	p      *fakeProgram
	sock   string
	events chan Event
	done   chan struct{}

	mu      sync.Mutex
	lineBps map[int]bool
	funcBps map[string]bool
	conn    net.Conn
	enc     *json.Encoder
	sc      *bufio.Scanner
	start   wire.DebugStart
	gs      []*fakeG
	cur     *fakeG
	steps   int
	// decisions and checkpoints count what the run did, for the plan it follows on its own.
	decisions, checkpoints int
	ended, closed          bool
	closeOnce              sync.Once
}

func (t *fakeTarget) Events() <-chan Event  { return t.events }
func (t *fakeTarget) Done() <-chan struct{} { return t.done }

func (t *fakeTarget) FunctionBreakpoints(_ context.Context, client bool, extra []string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.funcBps = map[string]bool{}
	for _, f := range extra {
		t.funcBps[f] = true
	}
	return nil
}

func (t *fakeTarget) ApplyBreakpoints(context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.p.bps {
		t.lineBps[l] = true
	}
	return nil
}

// Begin starts the debuggee: it connects to the controller, waits for its run to begin and
// runs to the first stop.
func (t *fakeTarget) Begin(context.Context) error {
	conn, err := net.Dial("unix", t.sock)
	if err != nil {
		return err
	}
	t.conn, t.enc = conn, json.NewEncoder(conn)
	t.sc = bufio.NewScanner(conn)
	t.sc.Buffer(make([]byte, 1<<20), 1<<20)
	go func() {
		if !t.sc.Scan() {
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		if err := json.Unmarshal(t.sc.Bytes(), &t.start); err != nil {
			panic(fmt.Sprintf("fake debuggee: the start message: %v", err))
		}
		root := &fakeG{name: "G1", goid: 100, fn: t.p.funcs[t.p.root], fresh: true}
		t.gs = []*fakeG{root}
		if !t.schedule(nil) {
			t.run(nil)
		}
	}()
	return nil
}

func (t *fakeTarget) Resume(_ context.Context, r Resume) error {
	go func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		g := t.byGoid(r.Goid)
		if g == nil || t.ended {
			return
		}
		switch r.Motion {
		case Pause:
			t.stop("pause", t.cur)
		case StepOut:
			if g.inHeddle {
				if t.leaveHeddle(g) {
					return
				}
				t.stop("step", g)
				return
			}
			t.run(g)
		case Next, StepIn:
			t.run(g)
		default:
			t.run(nil)
		}
	}()
	return nil
}

// run runs the program until a stop: for stepping, until goroutine g reaches its next line.
func (t *fakeTarget) run(stepping *fakeG) {
	for !t.ended {
		g := t.cur
		if g.inHeddle {
			if t.leaveHeddle(g) {
				return
			}
			continue
		}
		l := g.fn.lines[g.pc]
		if l.op != "" && !g.midLine {
			if t.schedule(g) {
				return
			}
			continue
		}
		if l.spawn != "" {
			g.children++
			t.gs = append(t.gs, &fakeG{name: fmt.Sprintf("%s.%d", g.name, g.children), goid: 100 + int64(len(t.gs)), gid: rt.GID(len(t.gs)),
				fn: t.p.funcs[l.spawn], fresh: true})
		}
		g.pc++
		g.midLine = false
		if g.pc == len(g.fn.lines) {
			g.done = true
			if t.schedule(nil) {
				return
			}
			continue
		}
		switch {
		case t.lineBps[g.fn.lines[g.pc].line]:
			t.stop("breakpoint", g)
			return
		case g == stepping:
			t.stop("step", g)
			return
		}
	}
}

// leaveHeddle returns goroutine g from heddle's runtime to its code: a new goroutine enters
// its function, stopping there at a function breakpoint; another has done its operation.
func (t *fakeTarget) leaveHeddle(g *fakeG) bool {
	g.inHeddle = false
	if g.fresh {
		g.fresh = false
		switch {
		case t.funcBps[g.fn.name]:
			t.stop("function breakpoint", g)
			return true
		case t.lineBps[g.fn.lines[0].line]:
			t.stop("breakpoint", g)
			return true
		}
		return false
	}
	g.midLine = true
	t.steps++
	return false
}

// schedule makes a scheduling point, with g (nil if none) pending on its line's operation,
// and resumes the goroutine the controller picks. It reports whether the debuggee stopped.
func (t *fakeTarget) schedule(g *fakeG) bool {
	var alts []*fakeG
	for _, h := range t.gs {
		if !h.done {
			alts = append(alts, h)
		}
	}
	if len(alts) == 0 {
		t.end()
		return true
	}
	p := &wire.DebugPoint{Kind: rt.DecideGoroutine, Current: -1, Step: t.steps, Decision: -1}
	for i, h := range alts {
		a := wire.DebugAlt{G: h.gid, Name: h.name, Op: "start"}
		if !h.fresh {
			l := h.fn.lines[h.pc]
			a.Op, a.Pos = l.op, &record.Pos{File: "f.go", Line: l.line}
		}
		p.Alts = append(p.Alts, a)
		p.Goroutines = append(p.Goroutines, wire.DebugGoroutine{ID: h.name, Goid: h.goid, State: "blocked", Op: a.Op, Pos: a.Pos})
		if h == g {
			p.Current = i
		}
	}
	if len(alts) > 1 {
		p.Decision = t.decisions
	}
	pick := 0
	if t.auto() {
		pick = t.plannedPick(p)
		t.send(&wire.DebugEvent{Type: "point", Point: p, Auto: true, Pick: pick})
	} else {
		pick = t.ask(&wire.DebugEvent{Type: "point", Point: p}).Pick
	}
	if len(alts) > 1 {
		t.decisions++
	}
	next := alts[pick]
	t.cur, next.inHeddle = next, true
	res := &wire.DebugResumed{G: next.name, Goid: next.goid, Step: t.steps, Decision: p.Decision, New: next.fresh}
	if next.fresh {
		res.Func = next.fn.name
	} else {
		l := next.fn.lines[next.pc]
		res.Op, res.Pos = l.op, &record.Pos{File: "f.go", Line: l.line}
	}
	k := t.checkpoints
	t.checkpoints++
	if t.auto() && k < t.start.BreakAt {
		t.send(&wire.DebugEvent{Type: "resumed", Resumed: res, Auto: true})
		return false
	}
	t.start.BreakAt = -1
	if t.ask(&wire.DebugEvent{Type: "resumed", Resumed: res}).Break {
		t.stop("function breakpoint", next)
		return true
	}
	return false
}

func (t *fakeTarget) auto() bool { return t.start.BreakAt >= 0 }

// plannedPick follows the plan as package worker does.
func (t *fakeTarget) plannedPick(p *wire.DebugPoint) int {
	if len(p.Alts) < 2 {
		return 0
	}
	if d := t.decisions; d < len(t.start.Follow) {
		if i := slices.IndexFunc(p.Alts, func(a wire.DebugAlt) bool { return a.Name == t.start.Follow[d] }); i >= 0 {
			return i
		}
		t.start.Follow = t.start.Follow[:d]
	}
	return max(p.Current, 0)
}

func (t *fakeTarget) send(ev *wire.DebugEvent) {
	if err := t.enc.Encode(ev); err != nil {
		t.ended = true
	}
}

func (t *fakeTarget) ask(ev *wire.DebugEvent) wire.DebugReply {
	t.send(ev)
	var r wire.DebugReply
	if !t.sc.Scan() {
		t.ended = true
		return r
	}
	if err := json.Unmarshal(t.sc.Bytes(), &r); err != nil {
		panic(fmt.Sprintf("fake debuggee: a reply: %v", err))
	}
	return r
}

func (t *fakeTarget) end() {
	t.send(&wire.DebugEvent{Type: "end", Trace: &record.Trace{Verdict: record.Verdict{Kind: "ok"}}})
	t.ended = true
	t.event(Event{Kind: Exited})
}

func (t *fakeTarget) stop(reason string, g *fakeG) {
	t.event(Event{Kind: Stopped, Goid: g.goid, Reason: reason})
}

// event reports ev unless the target has been closed; t.mu is held.
func (t *fakeTarget) event(ev Event) {
	if !t.closed {
		t.events <- ev
	}
}

func (t *fakeTarget) byGoid(goid int64) *fakeG {
	for _, g := range t.gs {
		if g.goid == goid {
			return g
		}
	}
	return nil
}

func (t *fakeTarget) Stack(_ context.Context, goid int64, levels int) ([]Frame, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.byGoid(goid)
	if g == nil || g.done {
		return nil, fmt.Errorf("no goroutine %d", goid)
	}
	var fs []Frame
	if g.inHeddle {
		fs = append(fs, Frame{ID: 1, Func: "runtime.gopark"})
	}
	if !g.fresh {
		fs = append(fs, Frame{ID: 2, Func: g.fn.name, File: "f.go", Line: g.fn.lines[g.pc].line})
	}
	return fs[:min(levels, len(fs))], nil
}

// ReturnTo is not the fake's: its stacks are one hidden frame deep at most.
func (t *fakeTarget) ReturnTo(context.Context, int64, Frame) error { return ErrNoReturn }

func (t *fakeTarget) Locals(context.Context, int) ([]Variable, error) {
	return []Variable{{Name: "p", Value: "0xc000012345"}}, nil
}

func (t *fakeTarget) Threads(context.Context) ([]Thread, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Thread
	for _, g := range t.gs {
		if !g.done {
			out = append(out, Thread{Goid: g.goid, Name: g.fn.name})
		}
	}
	return out, nil
}

// Close ends the debuggee: a run in progress ends at its next exchange with the controller.
func (t *fakeTarget) Close() {
	t.closeOnce.Do(func() {
		if t.conn != nil {
			t.conn.Close()
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		t.ended, t.closed = true, true
		close(t.events)
		close(t.done)
	})
}

// recorder is a Front that keeps what the debugger shows.
type recorder struct {
	stops chan Stop
	mu    sync.Mutex
	out   []string
}

func newRecorder() *recorder { return &recorder{stops: make(chan Stop, 16)} }

func (r *recorder) Stopped(s Stop) { r.stops <- s }
func (r *recorder) Terminated()    { r.stops <- Stop{Reason: "terminated"} }
func (r *recorder) Output(category, text string) {
	r.mu.Lock()
	r.out = append(r.out, category+": "+text)
	r.mu.Unlock()
}
func (r *recorder) Forward(any, func(int64) int) {}
func (r *recorder) Progress(Progress)            {}
func (r *recorder) BugFound(int, *Bug)           {}
func (r *recorder) ExploreDone(ExploreDone)      {}

// session is a debugger on a fake program, stopped where its run first stops.
type session struct {
	t   *testing.T
	d   *Debugger
	r   *recorder
	p   *fakeProgram
	cur Stop
}

func newSession(t *testing.T, p *fakeProgram) *session {
	t.Helper()
	r := newRecorder()
	d, err := New(context.Background(), Config{Front: r, Launch: p.launch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	// What Launch does, but for building a program.
	d.prog = &program{mode: "test", test: "TestCount", stopOnBug: true}
	if d.active, err = d.prepare(d.ctx); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, d: d, r: r, p: p}
	s.do("start", d.Start)
	return s
}

// do makes a move and waits for its stop.
func (s *session) do(what string, move func(done func(error))) Stop {
	s.t.Helper()
	errc := make(chan error, 1)
	move(func(err error) { errc <- err })
	select {
	case err := <-errc:
		if err != nil {
			s.t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(20 * time.Second):
		s.t.Fatalf("%s: no answer", what)
	}
	select {
	case st := <-s.r.stops:
		s.cur = st
		return st
	case <-time.After(20 * time.Second):
		s.r.mu.Lock()
		defer s.r.mu.Unlock()
		s.t.Fatalf("%s: no stop (output: %q)", what, s.r.out)
		return Stop{}
	}
}

// line returns the line of the current stop.
func (s *session) line() int {
	s.t.Helper()
	if s.cur.Reason == "terminated" {
		return 0
	}
	fs, err := s.d.Frames(context.Background(), s.cur.Thread)
	if err != nil {
		s.t.Fatalf("frames: %v", err)
	}
	if len(fs) == 0 {
		return -1
	}
	return fs[0].Line
}
