package rt

import (
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"
)

// GID identifies a goroutine within a run: its index in creation order. Creation order is a
// function of the schedule, so a GID is stable across runs that share the schedule prefix in
// which the goroutine was created. Result.Name gives the logical id (G1.2) used in files.
type GID int32

const (
	// NoG means no goroutine.
	NoG GID = -1
	// ClockID is the virtual clock pseudo-goroutine.
	ClockID GID = -2
)

// ObjID identifies a synchronization object within a run, in order of first use.
type ObjID int32

// NoObj means no object.
const NoObj ObjID = -1

// ClockObj is the virtual clock seen as an object: the clock's steps and every operation that
// sets a timer touch it, since setting a timer changes what the clock's next step fires.
const ClockObj ObjID = -2

// FairObj is the fair scheduler's state seen as an object (rt/sched.go, poll): a poll that
// yields writes it, since it makes its goroutine wait for every other goroutine enabled then,
// and every other step reads it, since stepping ends a wait. A step is thus dependent with a
// yielding poll of another goroutine in either order, and steps that do not yield are not
// made dependent with each other. Event.Yields and Alt.Yields mark the yielding polls; the
// reductions add these accesses to the ones of the operations.
const FairObj ObjID = -3

// TimeObj is the passing of virtual time seen as an object (docs/time.md): every step moves
// the clock on by a quantum, so where a timer is set or stopped among the other goroutines'
// steps decides at which step it falls due. An operation that sets or stops a timer (one that
// touches ClockObj) writes it and every other goroutine's step reads it: such an operation is
// dependent with every step of another goroutine, and other steps are not made dependent
// with each other. The reductions add these accesses to the ones of the operations.
const TimeObj ObjID = -4

// OpKind is the kind of a visible operation.
type OpKind uint8

const (
	OpNone OpKind = iota
	OpGo
	OpExit
	OpLock
	OpUnlock
	OpRLock
	OpRUnlock
	OpTryLock
	OpTryRLock
	OpWGAdd
	OpWGWait
	OpCondWait
	OpSignal
	OpBroadcast
	OpOnce
	OpOnceDone
	OpMap
	OpAtomicLoad
	OpAtomicStore
	OpAtomicRMW
	OpSend
	OpRecv
	OpClose
	OpLen
	OpSelect
	OpSleep
	OpTimer
	OpClock
	OpChoose
	OpYield
	OpLockWait
	OpPark
	OpBubble     // synctest.Test: wait for the goroutines of the bubble to exit
	OpBubbleWait // synctest.Wait
	OpCall       // the call of an operation of a history checked for linearizability
	OpReturn     // its return
	// The operations on sockets between the processes of a group (package rt/member), which
	// the group's controller performs: Stoller's communication objects.
	OpListen
	OpDial
	OpAccept
	OpRead
	OpWrite
	OpShut   // closing a socket or a listener
	OpWGDone // WaitGroup.Done, an Add(-1) the program wrote as Done
	opCount
)

var opNames = [opCount]string{
	OpNone: "none", OpGo: "go", OpExit: "exit", OpLock: "lock", OpUnlock: "unlock",
	OpRLock: "rlock", OpRUnlock: "runlock", OpTryLock: "trylock", OpTryRLock: "tryrlock",
	OpWGAdd: "wg.add", OpWGWait: "wg.wait", OpCondWait: "cond.wait", OpSignal: "signal",
	OpBroadcast: "broadcast", OpOnce: "once", OpOnceDone: "once.done", OpMap: "map",
	OpAtomicLoad: "atomic.load", OpAtomicStore: "atomic.store", OpAtomicRMW: "atomic.rmw",
	OpSend: "send", OpRecv: "recv", OpClose: "close", OpLen: "len", OpSelect: "select",
	OpSleep: "sleep", OpTimer: "timer", OpClock: "clock", OpChoose: "choose", OpYield: "yield",
	OpLockWait: "lock.wait", OpPark: "park", OpBubble: "synctest.test", OpBubbleWait: "synctest.wait",
	OpCall: "lin.call", OpReturn: "lin.return",
	OpListen: "net.listen", OpDial: "net.dial", OpAccept: "net.accept", OpRead: "net.read",
	OpWrite: "net.write", OpShut: "net.close", OpWGDone: "wg.done",
}

//go:norace
func (k OpKind) String() string {
	if k < opCount {
		return opNames[k]
	}
	return "op(" + strconv.Itoa(int(k)) + ")"
}

// Releases reports whether the operation ends an atomic block in ExitBlock's sense (thesis
// §2.3: blocks end at lock exits). Go adds communication the thesis's Java model did not
// have: channel operations, atomics, WaitGroups, timers and the like all observe or publish
// shared state, so they end blocks too. Only acquisitions continue a block.
//
//go:norace
func (k OpKind) Releases() bool {
	switch k {
	case OpLock, OpRLock, OpLockWait, OpGo, OpNone, OpChoose:
		return false
	}
	return true
}

// ReadOnly reports whether two operations of this kind on the same object commute with each
// other (atomic loads and len commute; Stoller's Fig. 3 covers only lock, wait and notify operations).
// The calls of a history commute too: only a return before a call orders two operations in
// real time.
//
//go:norace
func (k OpKind) ReadOnly() bool {
	return k == OpAtomicLoad || k == OpLen || k == OpCall
}

// DecisionKind tells what a decision chose.
type DecisionKind uint8

const (
	// DecideGoroutine chooses which goroutine (or the clock) performs the next step.
	DecideGoroutine DecisionKind = iota
	// DecideSelect chooses which ready case of a select fires.
	DecideSelect
	// DecideWake chooses which waiter Cond.Signal wakes.
	DecideWake
	// DecideChoose chooses the value returned by heddle.Choose.
	DecideChoose
)

var decisionNames = [...]string{"goroutine", "select", "wake", "choose"}

//go:norace
func (k DecisionKind) String() string { return decisionNames[k] }

// ParseDecisionKind is the inverse of DecisionKind.String.
//
//go:norace
func ParseDecisionKind(s string) (DecisionKind, bool) {
	for i, n := range decisionNames {
		if n == s {
			return DecisionKind(i), true
		}
	}
	return 0, false
}

// Alt is one alternative of a decision.
type Alt struct {
	// G is the goroutine that performs the step (the clock for a clock step). For select and
	// wake decisions it is the goroutine concerned.
	G GID
	// Op and Obj describe the operation the goroutine is stopped before. Objs lists every
	// object a multi-object operation (select, clock) may touch; nil otherwise.
	Op   OpKind
	Obj  ObjID
	Objs []ObjID `json:",omitempty"`
	// Case is the select case index (select decisions) or the value (choose decisions).
	Case int `json:",omitempty"`
	// Yields tells that the step may be a poll that yields (FairObj): the goroutine polled
	// before, and its operation polls.
	Yields bool `json:",omitempty"`
}

// Objects returns the objects the alternative's operation may touch: Objs, or Obj alone.
//
//go:norace
func (a *Alt) Objects() []ObjID {
	if a.Objs != nil {
		return a.Objs
	}
	if a.Obj == NoObj {
		return nil
	}
	return []ObjID{a.Obj}
}

// Point is a decision in progress, as shown to a Chooser. It is only valid during Choose.
type Point struct {
	Kind DecisionKind
	Alts []Alt
	// Current is the index in Alts of the goroutine that performed the previous step and is
	// still enabled (a choice of any other goroutine is a preemption), or -1.
	Current int
	// Index is the decision's index in the schedule; Step the index of the step it precedes.
	Index int
	Step  int
	// Persistent, with Config.Persistent, marks the alternatives of a goroutine decision that
	// form a persistent set (Algorithm 2-MLD): exploring them alone from here loses no
	// terminal state. nil means every alternative.
	Persistent []bool
	run        *run
	sys        System
}

// A System is a set of runs that one scheduler decides for as if they were one (the processes
// of a group): its points are made by NewPoint.
type System interface {
	// Events returns the system's steps so far, numbered across its runs.
	Events() []Event
	// Name returns the logical id of goroutine id of the system.
	Name(id GID) string
	// Objects returns the number of the system's objects so far: the ObjIDs below it.
	Objects() int
}

// NewPoint makes a decision point of system s, whose goroutines and objects the alternatives
// name by the system's numbering.
//
//go:norace
func NewPoint(s System, kind DecisionKind, alts []Alt, current, index, step int) *Point {
	return &Point{Kind: kind, Alts: alts, Current: current, Index: index, Step: step, sys: s}
}

// Events returns the steps performed so far in this run.
//
//go:norace
func (p *Point) Events() []Event {
	if p.sys != nil {
		return p.sys.Events()
	}
	return p.run.events
}

// Accesses returns the plain accesses made so far in this run, with Config.StepAccesses. A
// system's members keep their plain accesses to themselves: its points have none.
//
//go:norace
func (p *Point) Accesses() []VarAccess {
	if p.sys != nil {
		return nil
	}
	return p.run.stepAccs
}

// Objects returns the number of objects used so far in this run: the ObjIDs below it.
//
//go:norace
func (p *Point) Objects() int {
	if p.sys != nil {
		return p.sys.Objects()
	}
	return len(p.run.objs)
}

// Name returns the logical id (G1.2, or clock) of goroutine id.
//
//go:norace
func (p *Point) Name(id GID) string {
	if id == ClockID {
		return "clock"
	}
	if p.sys != nil {
		return p.sys.Name(id)
	}
	return p.run.gname(p.run.gs[id])
}

// Dependent reports whether operations a and b may not commute: they are performed by
// different goroutines and touch a common object, unless both only read it.
//
//go:norace
func Dependent(aOp OpKind, aObjs []ObjID, bOp OpKind, bObjs []ObjID) bool {
	if aOp.ReadOnly() && bOp.ReadOnly() {
		return false
	}
	for _, x := range aObjs {
		for _, y := range bObjs {
			if x == y {
				return true
			}
		}
	}
	return false
}

// Event is one step of a run. Its zero fields are left out of JSON: a worker that runs each
// schedule in its own process sends every step of the run.
type Event struct {
	Step  int32
	G     GID
	Op    OpKind
	Obj   ObjID   `json:",omitempty"`
	Objs  []ObjID `json:",omitempty"` // for a clock step: the objects of the timers it fired
	With  GID     `json:",omitempty"` // partner of a rendezvous, goroutine woken by Signal, or NoG
	Child GID     `json:",omitempty"` // goroutine created by a go step, or NoG
	PC    uintptr `json:",omitempty"` // detail mode: the user's call site
	After []int32 `json:",omitempty"` // detail mode: steps this one happens after through its object
	// Partners are the blocked operations of other goroutines that this step completed (the
	// receiver of a send, the waiters a Close or Signal wakes, the sleepers the clock wakes).
	Partners []Partner `json:",omitempty"`
	// Start marks the first event of a scheduled step: the operation the goroutine was stopped
	// before when it was picked. Decision is the index of the decision that picked it, or -1
	// when it was the only alternative. Events without Start continue the previous step of
	// their goroutine (a folded release, or a goroutine resumed by a partner).
	Start bool `json:",omitempty"`
	// Yields marks a poll that yields (FairObj).
	Yields bool `json:",omitempty"`
	// Waits is, for a park, the operation that waits: OpSend, OpRecv or OpSelect. It sits
	// beside Start, in what would be padding.
	Waits    OpKind `json:",omitempty"`
	Decision int32
}

// Partner is another goroutine's operation completed by a step.
type Partner struct {
	G    GID
	Op   OpKind
	Objs []ObjID
}

// Decision is one recorded choice.
type Decision struct {
	Kind DecisionKind
	Step int32   // the step the decision precedes
	Alts []int32 // goroutine ids (goroutine and wake decisions) or case indices
	Pick int32   // the chosen element of Alts
	// Current is the goroutine that performed the previous step if it is among Alts (choosing
	// another one is a preemption), else -1.
	Current int32
}

// Preemptive reports whether the decision switched away from a goroutine that could have
// continued.
//
//go:norace
func (d *Decision) Preemptive() bool {
	return d.Kind == DecideGoroutine && d.Current >= 0 && d.Pick != d.Current
}

// VerdictKind classifies how a run ended.
type VerdictKind string

const (
	VerdictOK       VerdictKind = "ok"
	VerdictDeadlock VerdictKind = "deadlock"
	VerdictLeak     VerdictKind = "leak"
	VerdictPanic    VerdictKind = "panic"
	VerdictAssert   VerdictKind = "assert"
	VerdictFatal    VerdictKind = "fatal"
	VerdictMisuse   VerdictKind = "misuse"
	VerdictLivelock VerdictKind = "livelock"
	VerdictHang     VerdictKind = "hang"
	VerdictExit     VerdictKind = "exit"
	VerdictInternal VerdictKind = "internal"
	// VerdictRace marks a data race: two accesses to the same memory, at least one a write,
	// unordered by heddle's synchronization, as the race detector of a -race build saw them.
	// Its goroutines are the two accesses', with their stacks; State is the access ("write",
	// "read").
	VerdictRace VerdictKind = "race"
	// VerdictLinearizability marks a history of operations that no sequential order consistent
	// with real time explains under the test's model (package lin). Verdict.History holds it.
	VerdictLinearizability VerdictKind = "linearizability"
	// VerdictUnsupported marks a run that heddle cannot control: instrumented code was called
	// from a goroutine heddle did not start. It is not the program's bug.
	VerdictUnsupported VerdictKind = "unsupported"
	// VerdictPruned marks a run abandoned by its strategy as redundant.
	VerdictPruned VerdictKind = "pruned"
	// VerdictDiverged marks a replay whose decisions no longer match the program.
	VerdictDiverged VerdictKind = "diverged"
	// VerdictCut marks a run stopped at the step bound while it was still making progress: not
	// a bug, but the run says nothing about the schedules beyond the bound.
	VerdictCut VerdictKind = "cut"
	// VerdictStopped marks a run stopped at Config.Deadline, the end of an exploration's time
	// budget: not a bug, and not a whole run.
	VerdictStopped VerdictKind = "stopped"
)

// Bug reports whether the verdict is a bug.
//
//go:norace
func (k VerdictKind) Bug() bool {
	switch k {
	case VerdictOK, VerdictPruned, VerdictCut, VerdictStopped, "":
		return false
	}
	return true
}

// Verdict says how a run ended.
type Verdict struct {
	Kind       VerdictKind
	Message    string
	Goroutines []GoroutineState
	// Timing says, for a bug found with adversarial time (detail mode), which goroutines were
	// still running when a timer fired, and so would have had to run longer than its duration.
	Timing []string `json:",omitempty"`
	// History is the history of operations of a linearizability verdict, in the order of
	// their calls.
	History []Operation `json:",omitempty"`
	// Atomicity names the function of an atomicity verdict.
	Atomicity *AtomicFunc `json:",omitempty"`
	// Subtest is the innermost subtest that the run was in when it ended, as go test names it
	// ("TestX/sub"); "" outside any (Ending).
	Subtest string `json:",omitempty"`
}

// GoroutineState describes a goroutine at the end of a run.
type GoroutineState struct {
	ID    GID
	State string // "blocked", "running", "done"
	Op    OpKind
	Obj   ObjID
	Objs  []ObjID
	PC    uintptr
	Stack []Frame
	// Site is the program's frame at PC (its call site of the operation, which callers
	// chooses), resolved where PC means something: a process group's member sends it, since
	// its controller cannot resolve the member's PCs. Nil where PC is kept.
	Site *Frame `json:",omitempty"`
}

// Frame is one frame of a goroutine's stack.
type Frame struct {
	Func string
	File string
	Line int
}

// Position is the frame's file:line, with the file's base name, as reports print it.
//
//go:norace
func (f Frame) Position() string { return filepath.Base(f.File) + ":" + strconv.Itoa(f.Line) }

// ObjKind is the kind of a synchronization object.
type ObjKind uint8

const (
	ObjMutex ObjKind = iota
	ObjRWMutex
	ObjWaitGroup
	ObjCond
	ObjOnce
	ObjMap
	ObjAtomic
	ObjChan
	ObjTimer
	ObjHistory // the history of a run's operations checked for linearizability
	ObjSocket  // a socket or listener shared with other processes of a group
)

var objKindNames = [...]string{"mutex", "rwmutex", "waitgroup", "cond", "once", "map", "atomic", "chan", "timer", "history", "socket"}

//go:norace
func (k ObjKind) String() string { return objKindNames[k] }

type objInfo struct {
	kind ObjKind
	g    GID
	seq  int32
	pc   uintptr
}

// Result is the outcome and trace of one run.
type Result struct {
	Verdict Verdict
	// Pending lists every goroutine that had not returned when the run ended, with the
	// operation it was stopped before.
	Pending []GoroutineState
	// Clock lists the objects the clock's next step would have touched, if timers were still
	// set when the run ended: the clock is a pending pseudo-goroutine too.
	Clock      []ObjID
	Events     []Event
	Decisions  []Decision
	Goroutines []GoroutineInfo
	Objects    []ObjectInfo
	Steps      int
	// TimerReach says that, under TimeQuantum, a timer set in the run was no longer than the
	// time the run's work moved the clock on: where its set falls among other goroutines'
	// steps may decide the step at which it falls due. A run whose timers are all longer than
	// its work makes them due only when every goroutine waits, whatever the order of its
	// steps (the explorer's rt.TimeObj).
	TimerReach bool
	// Time is the model of time the run had, and Quantum its quantum under TimeQuantum.
	Time    TimeModel
	Quantum time.Duration
	// Warnings are the findings of the lockset check in this run, one per variable.
	Warnings []Warning `json:",omitempty"`
	// Watched lists the positions of Config.Watch in the order the run first reached them.
	Watched []string `json:",omitempty"`
	// Accesses are the run's plain accesses, with Config.StepAccesses.
	Accesses []VarAccess `json:",omitempty"`
	// TimerSites lists, with Config.TimerSites, where the run set timers that a goroutine may
	// wait for, as file:line, in the order it first set them.
	TimerSites []string `json:",omitempty"`
	// Regions are the executions of //heddle:atomic functions in the run.
	Regions []Region `json:",omitempty"`
	// TestFailed says that the test had failed (t.Error, t.Fatal) before the run ended,
	// whatever its verdict (TestFailed).
	TestFailed bool `json:",omitempty"`
	// Untold says that a worker answered with the run's verdict and length but without its
	// events, decisions and pending operations: a long run without a finding, in a process of
	// its own. A search cannot branch from it.
	Untold bool `json:",omitempty"`
}

// GoroutineInfo describes a goroutine of a run.
type GoroutineInfo struct {
	Name    string // logical id: G1, G1.2, …
	Parent  GID
	Func    string // detail mode
	Created int32  // step of its go statement, -1 for the root
	Exited  int32  // step it exited in, -1 if it never did
}

// ObjectInfo describes a synchronization object of a run.
type ObjectInfo struct {
	Name string // logical id: G1#3
	Kind ObjKind
	PC   uintptr // detail mode: first use
}

// Name returns the logical id of goroutine id in this result.
//
//go:norace
func (res *Result) Name(id GID) string {
	switch {
	case id == ClockID:
		return "clock"
	case id < 0 || int(id) >= len(res.Goroutines):
		return ""
	}
	return res.Goroutines[id].Name
}

// ObjName returns the logical id of object o.
//
//go:norace
func (res *Result) ObjName(o ObjID) string {
	if o < 0 || int(o) >= len(res.Objects) {
		return ""
	}
	return res.Objects[o].Name
}

//go:norace
func (r *run) result() *Result {
	var res *Result
	if r.cfg.Reuse {
		res = &r.shared
		res.Events, res.Decisions = r.events, r.decisions
	} else {
		res = &Result{Events: cloneEvents(r.events), Decisions: CloneDecisions(r.decisions)}
	}
	res.Verdict, res.Steps, res.Time = r.verdict, r.steps, r.cfg.Time
	if r.cfg.Time == TimeQuantum {
		res.Quantum = r.cfg.Quantum
	}
	res.Pending, res.Clock = r.pending, r.clockNext
	res.TimerReach = r.cfg.Time == TimeQuantum && r.clock.reach()
	res.Warnings, res.Watched, res.TimerSites = nil, r.watched, r.timerSites
	if r.cfg.Reuse {
		res.Accesses = r.stepAccs
	} else {
		res.Accesses = slices.Clone(r.stepAccs)
	}
	if r.acc != nil {
		res.Warnings = r.acc.warnings
	}
	res.TestFailed = r.testFailed
	res.Regions = r.regionsResult()
	if !r.cfg.Reuse {
		res.Regions = cloneRegions(res.Regions)
	}
	// The infos are written field by field into the reused storage: most runs of an
	// exploration have the same goroutines and objects as the previous one.
	res.Goroutines = grow(res.Goroutines, len(r.gs))
	for i, g := range r.gs {
		gi := &res.Goroutines[i]
		gi.Name, gi.Parent, gi.Created, gi.Exited = r.gname(g), NoG, g.created, g.exited
		if g.parent != nil {
			gi.Parent = g.parent.id
		}
		gi.Func = ""
		if g.fn != 0 {
			if f := runtime.FuncForPC(g.fn); f != nil {
				gi.Func = f.Name()
			}
		}
	}
	res.Objects = grow(res.Objects, len(r.objs))
	for i, o := range r.objs {
		oi := &res.Objects[i]
		oi.Name, oi.Kind, oi.PC = r.objName(ObjID(i)), o.kind, o.pc
	}
	return res
}

// grow returns s resized to n elements, reusing its storage; it is never nil.
//
//go:norace
func grow[S ~[]E, E any](s S, n int) S {
	if n <= cap(s) {
		return s[:n]
	}
	return make(S, n)
}

// Clone returns a copy of res that shares no storage with the runtime, for keeping the result
// of a run with Config.Reuse.
//
//go:norace
func (res *Result) Clone() *Result {
	c := *res
	c.Events = cloneEvents(res.Events)
	c.Decisions = CloneDecisions(res.Decisions)
	c.Goroutines = slices.Clone(res.Goroutines)
	c.Objects = slices.Clone(res.Objects)
	c.Warnings = slices.Clone(res.Warnings)
	c.Accesses = slices.Clone(res.Accesses)
	c.Regions = cloneRegions(res.Regions)
	return &c
}

// cloneEvents copies events and their partners, which share storage.
//
//go:norace
func cloneEvents(es []Event) []Event {
	out := slices.Clone(es)
	np, no := 0, 0
	for _, e := range out {
		np += len(e.Partners)
		for _, p := range e.Partners {
			no += len(p.Objs)
		}
	}
	if np == 0 {
		return out
	}
	ps := make([]Partner, 0, np)
	objs := make([]ObjID, 0, no)
	for i := range out {
		e := &out[i]
		if e.Partners == nil {
			continue
		}
		start := len(ps)
		for _, p := range e.Partners {
			k := len(objs)
			objs = append(objs, p.Objs...)
			p.Objs = objs[k:len(objs):len(objs)]
			ps = append(ps, p)
		}
		e.Partners = ps[start:len(ps):len(ps)]
	}
	return out
}

// CloneDecisions copies decisions and their alternatives, which share one allocation: a
// run's decisions kept without its events.
//
//go:norace
func CloneDecisions(ds []Decision) []Decision {
	if ds == nil {
		return nil
	}
	n := 0
	for _, d := range ds {
		n += len(d.Alts)
	}
	alts := make([]int32, 0, n)
	out := slices.Clone(ds)
	for i := range out {
		d := &out[i]
		start := len(alts)
		alts = append(alts, d.Alts...)
		d.Alts = alts[start:len(alts):len(alts)]
	}
	return out
}

// objName is the memo of an object's logical id, kept across runs by ObjID.
type objName struct {
	owner string
	seq   int32
	name  string
}

//go:norace
func (r *run) objName(o ObjID) string {
	ob := r.objs[o]
	owner := r.gname(r.gs[ob.g])
	if int(o) < len(r.objNames) {
		if m := &r.objNames[o]; m.owner == owner && m.seq == ob.seq {
			return m.name
		}
	}
	name := owner + "#" + strconv.Itoa(int(ob.seq))
	if int(o) < maxCached {
		for len(r.objNames) <= int(o) {
			r.objNames = append(r.objNames, objName{})
		}
		r.objNames[o] = objName{owner: owner, seq: ob.seq, name: name}
	}
	return name
}

//go:norace
func (r *run) gname(g *goroutine) string {
	if g.parent == nil {
		return "G1"
	}
	p := r.gname(g.parent)
	if g.name == "" || g.nameSeq != g.seq || g.nameParent != p {
		g.name, g.nameParent, g.nameSeq = p+"."+strconv.Itoa(int(g.seq)), p, g.seq
	}
	return g.name
}

//go:norace
func (id GID) index() int { return int(id) }

// Goroutines returns the state of every goroutine of the run that has not finished, with the
// position of its pending operation in detail mode.
//
//go:norace
func (p *Point) Goroutines() []GoroutineState {
	var out []GoroutineState
	if p.run == nil {
		return nil // a system's point: its runs are in other processes
	}
	for _, g := range p.run.gs {
		if g.state != gDone {
			out = append(out, p.run.goroutineState(g))
		}
	}
	return out
}

// ObjName returns the logical id of object o (G1#3).
//
//go:norace
func (p *Point) ObjName(o ObjID) string {
	if p.run == nil || o < 0 || int(o) >= len(p.run.objs) {
		return ""
	}
	return p.run.objName(o)
}

// PC returns the position of goroutine id's pending operation (detail mode), or 0.
//
//go:norace
func (p *Point) PC(id GID) uintptr {
	if p.run == nil || id < 0 || int(id) >= len(p.run.gs) {
		return 0
	}
	return p.run.gs[id].pc
}
