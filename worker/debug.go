package worker

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// debugReason is written by debugBreak so that the call cannot be optimised away.
var debugReason string

// debugBreak is wire.BreakFunc, on which the debugger sets a breakpoint.
//
//go:noinline
func debugBreak(reason string) { debugReason = reason }

// debugSession is the debuggee's end of the debug protocol: the adapter is its scheduler.
type debugSession struct {
	conn  *os.File
	w     *bufio.Writer
	enc   *json.Encoder
	dec   *json.Decoder
	goids map[rt.GID]int64
	// root is the function of the root goroutine: the test function, or main.main.
	root string
	// point is the run's last scheduling point, valid until the run ends.
	point *rt.Point
	// auto is set while the debuggee replays the adapter's plan on its own, up to checkpoint
	// start.BreakAt; decisions and checkpoints count what it has seen.
	start       wire.DebugStart
	auto        bool
	decisions   int
	checkpoints int
}

// debug serves a debugging session when wire.EnvDebug names the adapter's socket; it returns
// false otherwise. The run's goroutines are those of harnessFor(test).
func debug(harnessFor func(name string) (explorer.Harness, error), rootFunc func(name string) string) (bool, int) {
	addr := os.Getenv(wire.EnvDebug)
	if addr == "" {
		return false, 0
	}
	if dir := os.Getenv(wire.EnvTmpdir); dir != "" {
		os.Setenv("TMPDIR", dir)
		os.Unsetenv(wire.EnvTmpdir)
	}
	conn, err := dialAdapter(addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "heddle debuggee: connecting to the debug adapter at %s: %v\n", addr, err)
		return true, 2
	}
	defer conn.Close()
	s := &debugSession{conn: conn, w: bufio.NewWriter(conn), dec: json.NewDecoder(conn), goids: map[rt.GID]int64{}}
	s.enc = json.NewEncoder(s.w)
	var start wire.DebugStart
	if err := s.dec.Decode(&start); err != nil {
		fmt.Fprintf(os.Stderr, "heddle debuggee: reading the start message: %v\n", err)
		return true, 2
	}
	s.root = rootFunc(start.Test)
	leaveOut(start.LeftOut)
	prog, err := programOf(start.Test)
	if err != nil {
		s.send(&wire.DebugEvent{Type: wire.EventEnd, Error: err.Error()})
		return true, 2
	}
	s.start, s.auto = start, start.BreakAt >= 0
	h, err := harnessFor(start.Test)
	if err != nil {
		s.send(&wire.DebugEvent{Type: wire.EventEnd, Error: err.Error()})
		return true, 2
	}
	var res *rt.Result
	h(func(body func()) {
		res = rt.Run(rt.Config{
			Chooser:   s,
			Detail:    true,
			AskAlways: true,
			// Delve reads the locks' states from their words.
			Mirror:   true,
			MaxSteps: start.MaxSteps,
			Time:     start.Time,
			Quantum:  start.Quantum,
			// The debuggee stands still while the user looks at it: no wall-clock bounds.
			Hang:        100000 * time.Hour,
			ForeignWait: time.Second,
			Resumed:     s.resumed,
			Bug:         s.bug,
			Spawned:     s.spawned,
		}, body)
	})
	tr := record.FromResult(res, prog, "debug")
	s.send(&wire.DebugEvent{Type: wire.EventEnd, Trace: tr})
	return true, 0
}

func (s *debugSession) send(ev *wire.DebugEvent) {
	s.enc.Encode(ev)
	s.w.Flush()
}

// ask sends ev and waits for the adapter's reply. Without an adapter the debuggee cannot go
// on: it exits.
func (s *debugSession) ask(ev *wire.DebugEvent) wire.DebugReply {
	s.send(ev)
	var r wire.DebugReply
	if err := s.dec.Decode(&r); err != nil {
		fmt.Fprintf(os.Stderr, "heddle debuggee: the debug adapter went away: %v\n", err)
		os.Exit(2)
	}
	return r
}

// Choose implements rt.Chooser: the adapter decides.
func (s *debugSession) Choose(p *rt.Point) int {
	s.point = p
	dp := &wire.DebugPoint{Kind: p.Kind, Current: p.Current, Step: p.Step, Decision: p.Index}
	for _, a := range p.Alts {
		da := wire.DebugAlt{G: a.G, Op: a.Op.String(), Obj: p.ObjName(a.Obj), Case: a.Case}
		switch p.Kind {
		case rt.DecideGoroutine, rt.DecideWake:
			da.Name = p.Name(a.G)
		default:
			da.Name = strconv.Itoa(a.Case)
		}
		if a.G != rt.ClockID {
			da.Pos = position(p.PC(a.G))
		}
		dp.Alts = append(dp.Alts, da)
	}
	if !s.auto || s.checkpoints >= s.start.BreakAt-1 {
		// Replaying the plan, the adapter needs the goroutines' states only where the run
		// stops: listing them at every point is most of the replay's cost.
		dp.Goroutines = s.goroutines(p)
	}
	if s.auto {
		pick := s.plannedPick(dp)
		s.send(&wire.DebugEvent{Type: wire.EventPoint, Point: dp, Auto: true, Pick: pick})
		return pick
	}
	r := s.ask(&wire.DebugEvent{Type: wire.EventPoint, Point: dp})
	if len(p.Alts) > 1 {
		// Counted as in the plan's replay, which a reply may extend (wire.DebugExtend).
		s.decisions++
	}
	if r.Pick < 0 || r.Pick >= len(p.Alts) {
		return 0
	}
	return r.Pick
}

// plannedPick is the adapter's choice at p while it replays its plan: the followed pick, or
// else the current goroutine, or else the first alternative.
func (s *debugSession) plannedPick(p *wire.DebugPoint) int {
	if len(p.Alts) < 2 {
		return 0
	}
	d := s.decisions
	s.decisions++
	if d < len(s.start.Follow) {
		for i, a := range p.Alts {
			if a.Name == s.start.Follow[d] {
				return i
			}
		}
		// Diverged: the plan is followed no further.
		s.start.Follow = s.start.Follow[:d]
	}
	if p.Current >= 0 {
		return p.Current
	}
	return 0
}

// spawned tells the adapter of a goroutine started between two scheduling points.
func (s *debugSession) spawned(sp rt.Spawn) {
	ev := &wire.DebugSpawned{G: sp.Child, Parent: sp.Parent}
	if f := runtime.FuncForPC(sp.Fn); f != nil {
		ev.Func = f.Name()
		if file, line := f.FileLine(f.Entry()); file != "" {
			ev.Pos = &record.Pos{File: file, Line: line}
		}
	}
	s.send(&wire.DebugEvent{Type: wire.EventSpawned, Spawned: ev, Auto: true})
}

func (s *debugSession) resumed(r rt.Resumption) {
	s.goids[r.G] = r.Goid
	ev := &wire.DebugResumed{G: r.Name, Goid: r.Goid, Step: r.Step, Decision: r.Decision, New: r.New, ObjID: rt.NoObj}
	switch {
	case !r.New:
		ev.Op, ev.Pos, ev.ObjID = r.Op.String(), position(r.PC), r.Obj
		if s.point != nil {
			ev.Obj = s.point.ObjName(r.Obj)
		}
	case r.G == 0:
		ev.Func = s.root
	case r.Fn != 0:
		if f := runtime.FuncForPC(r.Fn); f != nil {
			ev.Func = f.Name()
		}
	}
	k := s.checkpoints
	s.checkpoints++
	if s.auto && k < s.start.BreakAt {
		s.send(&wire.DebugEvent{Type: wire.EventResumed, Resumed: ev, Auto: true})
		return
	}
	// The break is asked for, so that the adapter has seen everything before the stop.
	s.auto = false
	reply := s.ask(&wire.DebugEvent{Type: wire.EventResumed, Resumed: ev})
	if reply.Break {
		debugBreak("checkpoint")
	}
	if e := reply.Extend; e != nil && e.From == s.decisions && e.BreakAt > k {
		// The picks before From are made: only their number matters.
		follow := make([]string, e.From, e.From+len(e.Follow))
		copy(follow, s.start.Follow)
		s.start.Follow = append(follow, e.Follow...)
		s.start.BreakAt = e.BreakAt
		s.auto = true
	}
}

// goroutines returns the state of every goroutine of p's run.
func (s *debugSession) goroutines(p *rt.Point) []wire.DebugGoroutine {
	var out []wire.DebugGoroutine
	for _, g := range p.Goroutines() {
		dg := wire.DebugGoroutine{ID: p.Name(g.ID), Goid: s.goids[g.ID], State: g.State, Pos: position(g.PC)}
		if g.State == "blocked" {
			dg.Op, dg.Obj = g.Op.String(), p.ObjName(g.Obj)
		}
		out = append(out, dg)
	}
	return out
}

func (s *debugSession) bug(v *rt.Verdict) {
	ev := &wire.DebugEvent{Type: wire.EventBug, Kind: string(v.Kind), Message: v.Message}
	if s.point != nil {
		// The goroutines as the bug leaves them: for a deadlock, all blocked.
		ev.Point = &wire.DebugPoint{Current: -1, Goroutines: s.goroutines(s.point)}
	}
	if s.ask(ev).Break {
		debugBreak(string(v.Kind))
	}
}

func position(pc uintptr) *record.Pos {
	file, line, _ := rt.Position(pc)
	if file == "" {
		return nil
	}
	return &record.Pos{File: file, Line: line}
}

func funcName[F any](f F) string {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	if fn := runtime.FuncForPC(v.Pointer()); fn != nil {
		return fn.Name()
	}
	return ""
}
