package record

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// Version is the version of the file formats this package writes: schedule, trace and
// exploration. Parse reads every version from 1 up to it. Version 2 added the history of a
// linearizability verdict (Verdict.History), version 3 the members of a process group
// (Program.Group), version 4 made time that passes with work the default (rt.TimeQuantum): a
// file of an earlier version that names no model of time was recorded under rt.TimeSynctest.
const Version = 4

// Program identifies what a schedule belongs to.
type Program struct {
	Package string `json:"package,omitempty"`
	Test    string `json:"test,omitempty"`
	// Run and Skip are go test's -run and -skip patterns that selected the test's subtests
	// (package testmatch); a replay runs the same subtests.
	Run  string `json:"run,omitempty"`
	Skip string `json:"skip,omitempty"`
	// Binary is a digest of the instrumented binary, to tell a stale schedule from a divergent
	// program.
	Binary string `json:"binary,omitempty"`
	// Dir is the package's directory when the schedule was recorded; replay builds there
	// unless told otherwise. In a file it is relative to the file's directory (WriteFile),
	// and the readers make it absolute again.
	Dir string `json:"dir,omitempty"`
	// Group lists the import paths of the programs of a process group, separated by commas,
	// in the order of their processes P1, P2… (docs/processes.md); Package is then the first
	// of them, and Test "group" for a group of programs, or the test each member runs,
	// separated by commas, for a group of test binaries (since version 3). A string keeps
	// Program comparable.
	Group string `json:"group,omitempty"`
}

// Members returns the import paths of a process group's programs, nil if p is not a group.
func (p Program) Members() []string {
	if p.Group == "" {
		return nil
	}
	return strings.Split(p.Group, ",")
}

// Pos is a position in the user's source.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (p Pos) String() string {
	if p.File == "" {
		return "?"
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// Decision is one decision of a schedule. Pick is a goroutine id (G1.2, clock) for goroutine
// and wake decisions and a number for select and choose decisions.
type Decision struct {
	Kind string   `json:"kind"`
	Pick string   `json:"pick"`
	Of   []string `json:"of,omitempty"`
	At   string   `json:"at,omitempty"`
	Step int      `json:"step"`
}

// Schedule is the minimal, hand-editable description of one execution.
type Schedule struct {
	Heddle    string     `json:"heddle"`
	Version   int        `json:"version"`
	Program   Program    `json:"program"`
	Strategy  string     `json:"strategy,omitempty"`
	Seed      uint64     `json:"seed,omitempty"`
	Decisions []Decision `json:"decisions"`
	Verdict   *Verdict   `json:"verdict,omitempty"`
	// Time is the model of time the schedule was recorded with, and Quantum its quantum; a
	// replay uses them.
	Time    rt.TimeModel  `json:"time,omitempty"`
	Quantum time.Duration `json:"quantum,omitempty"`
	// LeftOut are the subtests, as go test names them, that the run skipped because heddle
	// cannot explore them (the exploration's Skips say why): a replay skips them too.
	LeftOut []string `json:"leftOut,omitempty"`
}

// Goroutine describes a goroutine of a trace.
type Goroutine struct {
	ID      string `json:"id"`
	Parent  string `json:"parent"`
	Func    string `json:"func,omitempty"`
	Created int    `json:"created"`
	Exited  int    `json:"exited"`
	Pos     *Pos   `json:"pos,omitempty"`
}

// Object describes a synchronization object of a trace.
type Object struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Pos  *Pos   `json:"pos,omitempty"`
	// Name is the expression the program names the object by (from.mu), from the source
	// at its operations (NameObjects); empty if none was found.
	Name string `json:"name,omitempty"`
}

// Event is one step of a trace.
type Event struct {
	Step  int    `json:"step"`
	G     string `json:"g"`
	Op    string `json:"op"`
	Obj   string `json:"obj,omitempty"`
	With  string `json:"with,omitempty"`
	Child string `json:"child,omitempty"`
	Pos   *Pos   `json:"pos,omitempty"`
	// Expr is the expression by which the program named Obj at Pos (NameObjects).
	Expr string `json:"expr,omitempty"`
	// Defer is the position of the defer statement whose call made the operation, which ran
	// when its function returned at Pos (NameObjects).
	Defer *Pos `json:"defer,omitempty"`
	// Waits is, for a park, the operation that waits: send, recv or select.
	Waits string `json:"waits,omitempty"`
	After []int  `json:"after,omitempty"`
	// Decision is the index of the decision that picked this step, if it started one.
	Decision *int `json:"decision,omitempty"`
}

// Frame is one frame of a stack.
type Frame struct {
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// GoroutineState is a goroutine involved in a verdict.
type GoroutineState struct {
	ID    string   `json:"id"`
	State string   `json:"state"`
	Op    string   `json:"op,omitempty"`
	Obj   string   `json:"obj,omitempty"`
	Objs  []string `json:"objs,omitempty"`
	Pos   *Pos     `json:"pos,omitempty"`
	// Expr is the expression by which the program named Obj at Pos (NameObjects).
	Expr  string  `json:"expr,omitempty"`
	Stack []Frame `json:"stack,omitempty"`
}

// Verdict says how a run ended.
type Verdict struct {
	Kind       string           `json:"kind"`
	Message    string           `json:"message,omitempty"`
	Goroutines []GoroutineState `json:"goroutines,omitempty"`
	Cycle      []string         `json:"cycle,omitempty"`
	// Timing names, for a bug found with adversarial time, the goroutines that a timer fired
	// before although they did not wait (rt.Verdict.Timing).
	Timing []string `json:"timing,omitempty"`
	// History is the history of operations of a linearizability verdict, in the order of
	// their calls (since version 2).
	History []Operation `json:"history,omitempty"`
	// Atomicity names the //heddle:atomic function of an atomicity verdict (since version 2).
	Atomicity *Atomicity `json:"atomicity,omitempty"`
	// Subtest is the innermost subtest that the run was in when it ended, as go test names it
	// ("TestX/sub"); "" outside any.
	Subtest string `json:"subtest,omitempty"`
}

// Atomicity describes a //heddle:atomic function found not atomic (docs/atomicity.md): as a
// bug's verdict when it is definitely not atomic, as a warning's when it is possibly not.
type Atomicity struct {
	// Func is the annotated function as Go source names it: "Append", "(*Buffer).Append".
	Func string `json:"func"`
	// Decl is the position of the function's declaration.
	Decl Pos `json:"decl"`
	// Definite says an execution of the function was definitely not atomic; otherwise only
	// the checkers' pattern was broken and it is possibly not atomic.
	Definite bool `json:"definite"`
	// Checkers are the checkers that flagged it ("MC-ind", "MC-mover", "W").
	Checkers []string `json:"checkers,omitempty"`
	// Failure, for a definite verdict, is the kind of the run's failure ("panic", "fatal"…)
	// when the failure is what shows the function not atomic: no serial order of the
	// executions of annotated functions gives it. A replay that fails so has this verdict.
	Failure string `json:"failure,omitempty"`
	// Schedule, for a warning, is the schedule of the run whose execution of the function
	// broke the first checker's pattern; Replay, once heddle test saved it, the command that
	// replays it.
	Schedule []Decision `json:"schedule,omitempty"`
	Replay   string     `json:"replay,omitempty"`
}

// AtomicityCheck is what the atomicity checkers found of one //heddle:atomic function over an
// exploration (docs/atomicity.md): how many executions they checked, and how many of them each
// checker flagged ("MC-ind", "MC-mover", and "W" for W's movers alone).
type AtomicityCheck struct {
	Func       string         `json:"func"`
	Decl       Pos            `json:"decl"`
	Executions int            `json:"executions"`
	Flagged    map[string]int `json:"flagged,omitempty"`
}

// DeclPos converts the file:line of a //heddle:atomic function's declaration, as rt records
// it, to a Pos.
func DeclPos(decl string) Pos {
	i := strings.LastIndexByte(decl, ':')
	if i < 0 {
		return Pos{File: decl}
	}
	line, _ := strconv.Atoi(decl[i+1:])
	return Pos{File: decl[:i], Line: line}
}

// Operation is an operation of a history checked for linearizability: goroutine G called it
// with Input and it returned Output.
type Operation struct {
	G string `json:"g"`
	// Call and Return are the positions of the call and the return among the history's calls
	// and returns, in run order: they say which operations overlapped. Return is -1 for an
	// operation that had not returned.
	Call   int `json:"call"`
	Return int `json:"return"`
	// CallStep and ReturnStep are the steps of the call and of the return (ops lin.call and
	// lin.return).
	CallStep   int    `json:"callStep"`
	ReturnStep int    `json:"returnStep"`
	Input      string `json:"input"`
	Output     string `json:"output,omitempty"`
}

// Trace is a schedule plus everything observed along it.
type Trace struct {
	Heddle     string      `json:"heddle"`
	Version    int         `json:"version"`
	Program    Program     `json:"program"`
	Strategy   string      `json:"strategy,omitempty"`
	Seed       uint64      `json:"seed,omitempty"`
	Decisions  []Decision  `json:"decisions"`
	Goroutines []Goroutine `json:"goroutines"`
	Objects    []Object    `json:"objects"`
	Events     []Event     `json:"events"`
	Verdict    Verdict     `json:"verdict"`
	// Time is the model of time of the run, and Quantum its quantum.
	Time    rt.TimeModel  `json:"time,omitempty"`
	Quantum time.Duration `json:"quantum,omitempty"`
	// Warnings are the lockset check's findings in the run (docs/races.md).
	Warnings []Warning `json:"warnings,omitempty"`
	// LeftOut are the subtests, as go test names them, that the run skipped because heddle
	// cannot explore them: a replay skips them too.
	LeftOut []string `json:"leftOut,omitempty"`
}

func pos(pc uintptr) *Pos {
	file, line, _ := rt.Position(pc)
	if file == "" {
		return nil
	}
	return &Pos{File: file, Line: line}
}

// FromResult converts a run, preferably one executed in detail mode, into a trace.
func FromResult(res *rt.Result, prog Program, strategy string) *Trace {
	t := &Trace{Heddle: "trace", Version: Version, Program: prog, Strategy: strategy, Time: res.Time, Quantum: res.Quantum}
	t.Decisions = Decisions(res)
	for _, g := range res.Goroutines {
		tg := Goroutine{ID: g.Name, Parent: res.Name(g.Parent), Func: g.Func, Created: int(g.Created), Exited: int(g.Exited)}
		if g.Created >= 0 && int(g.Created) < len(res.Events) {
			tg.Pos = pos(res.Events[g.Created].PC)
		}
		t.Goroutines = append(t.Goroutines, tg)
	}
	for _, o := range res.Objects {
		t.Objects = append(t.Objects, Object{ID: o.Name, Kind: o.Kind.String(), Pos: pos(o.PC)})
	}
	t.Events = make([]Event, len(res.Events))
	for i, e := range res.Events {
		te := Event{Step: int(e.Step), G: res.Name(e.G), Op: e.Op.String(), Obj: res.ObjName(e.Obj), Pos: pos(e.PC)}
		if e.With != rt.NoG {
			te.With = res.Name(e.With)
		}
		if e.Child != rt.NoG {
			te.Child = res.Name(e.Child)
		}
		if e.Op == rt.OpPark && e.Waits != rt.OpNone {
			te.Waits = e.Waits.String()
		}
		for _, a := range e.After {
			te.After = append(te.After, int(a))
		}
		if e.Start && e.Decision >= 0 {
			d := int(e.Decision)
			te.Decision = &d
		}
		t.Events[i] = te
	}
	t.Verdict = verdict(res)
	for i := range res.Warnings {
		w := &res.Warnings[i]
		t.Warnings = append(t.Warnings, Warning{Kind: w.Kind, Message: w.Message(res), Hits: 1, Goroutines: []string{res.Name(w.Earlier.G), res.Name(w.Later.G)}})
	}
	NameObjects(t)
	for i := range t.Decisions {
		if s := t.Decisions[i].Step; s < len(t.Events) && t.Events[s].Pos != nil {
			t.Decisions[i].At = shortPos(*t.Events[s].Pos)
		}
	}
	return t
}

// Decisions converts a run's decisions to the file form.
func Decisions(res *rt.Result) []Decision {
	out := make([]Decision, len(res.Decisions))
	for i, d := range res.Decisions {
		out[i] = Decision{Kind: d.Kind.String(), Pick: value(res, d.Kind, d.Pick), Step: int(d.Step)}
		for _, a := range d.Alts {
			out[i].Of = append(out[i].Of, value(res, d.Kind, a))
		}
	}
	return out
}

func value(res *rt.Result, k rt.DecisionKind, v int32) string {
	if k == rt.DecideGoroutine || k == rt.DecideWake {
		return res.Name(rt.GID(v))
	}
	return strconv.Itoa(int(v))
}

func shortPos(p Pos) string {
	for i := len(p.File) - 1; i >= 0; i-- {
		if p.File[i] == '/' {
			return p.File[i+1:] + ":" + strconv.Itoa(p.Line)
		}
	}
	return p.String()
}

func verdict(res *rt.Result) Verdict {
	v := Verdict{Kind: string(res.Verdict.Kind), Message: res.Verdict.Message, Timing: res.Verdict.Timing, Subtest: res.Verdict.Subtest}
	for _, g := range res.Verdict.Goroutines {
		gs := GoroutineState{ID: res.Name(g.ID), State: g.State, Pos: pos(g.PC)}
		if g.State == "blocked" {
			gs.Op, gs.Obj = g.Op.String(), res.ObjName(g.Obj)
			for _, o := range g.Objs {
				gs.Objs = append(gs.Objs, res.ObjName(o))
			}
		}
		for _, f := range g.Stack {
			gs.Stack = append(gs.Stack, Frame(f))
		}
		switch {
		case gs.Pos != nil:
		case g.Site != nil:
			// The program's call site, as a step's position is (rt's callers), rather than the
			// innermost frame, which may be the standard library's (io.ReadAll's read).
			gs.Pos = &Pos{File: g.Site.File, Line: g.Site.Line}
		case len(gs.Stack) > 0:
			gs.Pos = &Pos{File: gs.Stack[0].File, Line: gs.Stack[0].Line}
		}
		v.Goroutines = append(v.Goroutines, gs)
	}
	if res.Verdict.Kind == rt.VerdictDeadlock {
		v.Cycle = waitCycle(res)
	}
	if a := res.Verdict.Atomicity; a != nil {
		v.Atomicity = &Atomicity{Func: a.Func, Decl: DeclPos(a.Decl), Definite: true, Failure: string(a.Failure)}
	}
	for _, op := range res.Verdict.History {
		v.History = append(v.History, Operation{G: res.Name(op.G), Call: int(op.Call), Return: int(op.Return),
			CallStep: int(op.CallStep), ReturnStep: int(op.ReturnStep), Input: op.Input, Output: op.Output})
	}
	return v
}

// waitCycle finds a cycle in the wait-for graph at the end of a deadlocked run: goroutine A
// waits for B when A is blocked on a mutex B holds. It returns nil when the deadlock is not a
// lock cycle (a channel or WaitGroup wait).
func waitCycle(res *rt.Result) []string {
	holder := map[rt.ObjID]rt.GID{}
	for _, e := range res.Events {
		switch e.Op {
		case rt.OpLock, rt.OpRLock:
			holder[e.Obj] = e.G
		case rt.OpUnlock, rt.OpRUnlock:
			delete(holder, e.Obj)
		}
	}
	waits := map[rt.GID]rt.GID{}
	var starts []rt.GID // in the verdict's order, so that a replay names the cycle alike
	for _, g := range res.Verdict.Goroutines {
		if g.Op == rt.OpLock || g.Op == rt.OpRLock {
			if h, ok := holder[g.Obj]; ok {
				waits[g.ID] = h
				starts = append(starts, g.ID)
			}
		}
	}
	for _, start := range starts {
		seen := map[rt.GID]int{}
		var path []rt.GID
		for g, ok := start, true; ok; g, ok = waits[g] {
			if i, dup := seen[g]; dup {
				var cyc []string
				for _, x := range path[i:] {
					cyc = append(cyc, res.Name(x))
				}
				return cyc
			}
			seen[g] = len(path)
			path = append(path, g)
		}
	}
	return nil
}

// Schedule extracts the schedule of a trace.
func (t *Trace) Schedule() *Schedule {
	v := t.Verdict
	return &Schedule{Heddle: "schedule", Version: Version, Program: t.Program, Strategy: t.Strategy, Seed: t.Seed, Time: t.Time, Quantum: t.Quantum, Decisions: t.Decisions, Verdict: &v, LeftOut: t.LeftOut}
}

// Picks converts a schedule's decisions into the kinds and the textual picks that a replay
// matches against the alternatives it meets.
func (s *Schedule) Picks() ([]rt.DecisionKind, []string, error) {
	if path, err := checkDecisions(s.Decisions, false); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	kinds := make([]rt.DecisionKind, len(s.Decisions))
	picks := make([]string, len(s.Decisions))
	for i, d := range s.Decisions {
		kinds[i], _ = rt.ParseDecisionKind(d.Kind)
		picks[i] = d.Pick
	}
	return kinds, picks, nil
}

// ProcessOf returns the process of a goroutine of a process group (P2 for P2:G1.2, P1 for
// P1:clock), or "" for a goroutine of a single program.
func ProcessOf(id string) string {
	p, _, ok := strings.Cut(id, ":")
	if !ok {
		return ""
	}
	return p
}
