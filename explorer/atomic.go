package explorer

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// The atomicity checkers of Bogor (Hatcliff, Robby and Dwyer, "Verifying atomicity
// specifications for concurrent object-oriented software using model-checking", §3), run on
// every explored run that executed a //heddle:atomic function (rt.Region). Each checker
// classifies the transitions of every execution and checks them against a pattern:
//
//   - MC-ind (Fig. 4): a transition is dependent (D) when another goroutine of the run
//     performs an operation that does not commute with it, independent (I) otherwise; the
//     execution must fit I*D?I*.
//   - MC-mover (Fig. 5): Lipton's movers. Acquires are right movers (R), releases left movers
//     (L), operations that cannot race both (B), the rest non-movers (A); the execution must
//     fit R*A?L* (B fits anywhere).
//   - C (end of §3.1): a function is possibly not atomic only when both MC-ind and MC-mover
//     flag it: each is safe, so one that verifies the function suffices.
//   - W (end of §3): C with MC-mover's movers modified so that the lock operations on
//     goroutine-local or lock-dominated locks, which protect nothing, do not move the
//     execution along the pattern.
//
// A flagged function is possibly not atomic: a warning. What makes it definitely not atomic
// (a wait, a deadlock or a livelock inside it) is found by rt, which ends the run with an
// atomicity verdict, a bug like any other.
const (
	AtomicC     = "C"
	AtomicInd   = "MC-ind"
	AtomicMover = "MC-mover"
	AtomicW     = "W"
)

// AtomicCheckers are the checkers Options.Atomicity may name; the first is the default.
var AtomicCheckers = []string{AtomicC, AtomicInd, AtomicMover, AtomicW}

// A mover is the class of a transition in Lipton's theory.
type mover uint8

const (
	both     mover = iota // B: commutes both ways
	right                 // R: an acquire
	left                  // L: a release
	nonMover              // A
)

// A transition is one step or plain memory access of an execution of an annotated function.
type transition struct {
	event  int32 // index in the run's events, or -1
	access int32 // index in the region's accesses, or -1
	dep    bool  // MC-ind: dependent
	mov    mover // MC-mover
	movW   mover // W's modified mover
	// other is an event of another goroutine that does not commute with this transition, -1
	// if none: one in the middle of the execution if there is one.
	other int32
	// time orders the transition among the run's events, in half steps: event j at 2j, an
	// access after the events before At at 2At-1.
	time int32
}

// A breach is where an execution left its checker's pattern: the transition that moved it
// into the pattern's second part (the first D, or the first A or L) and the one that then
// broke it.
type breach struct {
	moved, broke transition
}

// checker indices in atomicFunc's arrays.
const (
	chkInd = iota
	chkMover
	chkW
	nChk
)

var chkNames = [nChk]string{AtomicInd, AtomicMover, AtomicW}

// A funcKey identifies an annotated function: its name and its declaration.
type funcKey struct{ name, decl string }

// An atomicFunc is what the exploration learned about one annotated function.
type atomicFunc struct {
	name, decl string
	execs      int
	flagged    [nChk]int
	example    [nChk]*atomicExample
	// hits counts the runs in which a checker flagged an execution.
	hits, hitRun int
}

// An atomicExample is the execution a checker flagged that a warning shows: the first in
// which another goroutine's conflicting operation ran in its middle (inside), or else the first.
type atomicExample struct {
	run      int
	strategy string
	schedule []rt.Decision
	region   int
	b        breach
	g        string
	inside   bool
}

// atomicRun holds what the checks of one run need about all of its steps.
type atomicRun struct {
	res *rt.Result
	// byObj lists, for each object, the events that touch it, with their partners' operations.
	byObj map[rt.ObjID][]objUse
	// acquirers are the goroutines that acquired each lock; dominators the locks held at every
	// acquisition of it from the first by a second goroutine on (before, the lock's object
	// is its first goroutine's own: Bogor's thread-local states, such as a collection filled
	// before it is shared; a schedule in which the second goroutine comes earlier counts the
	// first one's acquisitions).
	acquirers  map[rt.ObjID][]rt.GID
	dominators map[rt.ObjID][]rt.ObjID
	// waitLocks are the locks held at every Cond.Wait on each condition; quietSignal marks
	// the Signal and Broadcast events made holding one of them.
	waitLocks   map[rt.ObjID][]rt.ObjID
	quietSignal map[int32]bool
	// Scratch: the locks each goroutine holds, and the Signal and Broadcast events with the
	// locks held at each.
	held       map[rt.GID][]rt.ObjID
	signals    []int32
	signalHeld [][]rt.ObjID
	ts         []transition // classify's
	start      int32        // the first event index of the region being classified
}

// An objUse is an operation of a step on one of its objects.
type objUse struct {
	event int32
	g     rt.GID
	op    rt.OpKind
}

// reset prepares a, whose storage the previous run's analysis may have left, for run res.
// The maps keep their keys and the slices their storage: an exploration's runs touch mostly
// the same objects.
func (a *atomicRun) reset(res *rt.Result) {
	if a.byObj == nil {
		a.byObj, a.acquirers, a.dominators = map[rt.ObjID][]objUse{}, map[rt.ObjID][]rt.GID{}, map[rt.ObjID][]rt.ObjID{}
		a.held, a.waitLocks, a.quietSignal = map[rt.GID][]rt.ObjID{}, map[rt.ObjID][]rt.ObjID{}, map[int32]bool{}
	}
	a.res = res
	for k, v := range a.byObj {
		a.byObj[k] = v[:0]
	}
	for k, v := range a.acquirers {
		a.acquirers[k] = v[:0]
	}
	for k, v := range a.dominators {
		a.dominators[k] = v[:0]
	}
	for k, v := range a.held {
		a.held[k] = v[:0]
	}
	clear(a.waitLocks)
	clear(a.quietSignal)
	a.signals, a.signalHeld = a.signals[:0], a.signalHeld[:0]
}

// analyze indexes the steps of run res.
func (a *atomicRun) analyze(res *rt.Result) {
	a.reset(res)
	held := a.held
	intersect := func(d, h []rt.ObjID) []rt.ObjID {
		return slices.DeleteFunc(d, func(l rt.ObjID) bool { return !slices.Contains(h, l) })
	}
	for j := range res.Events {
		e := &res.Events[j]
		use := objUse{event: int32(j), g: e.G, op: e.Op}
		if e.Objs != nil {
			for _, o := range e.Objs {
				a.byObj[o] = append(a.byObj[o], use)
			}
		} else if e.Obj != rt.NoObj {
			a.byObj[e.Obj] = append(a.byObj[e.Obj], use)
		}
		for _, p := range e.Partners {
			for _, o := range p.Objs {
				a.byObj[o] = append(a.byObj[o], objUse{event: int32(j), g: p.G, op: p.Op})
			}
		}
		switch e.Op {
		case rt.OpLock, rt.OpRLock:
			h := held[e.G]
			switch acq := a.acquirers[e.Obj]; {
			case len(acq) == 0 || len(acq) == 1 && acq[0] == e.G:
			case len(acq) == 1:
				a.dominators[e.Obj] = append(a.dominators[e.Obj][:0], h...)
			default:
				a.dominators[e.Obj] = intersect(a.dominators[e.Obj], h)
			}
			if !slices.Contains(a.acquirers[e.Obj], e.G) {
				a.acquirers[e.Obj] = append(a.acquirers[e.Obj], e.G)
			}
			held[e.G] = append(h, e.Obj)
		case rt.OpCondWait:
			if d, seen := a.waitLocks[e.Obj]; !seen {
				a.waitLocks[e.Obj] = slices.Clone(held[e.G])
			} else {
				a.waitLocks[e.Obj] = intersect(d, held[e.G])
			}
		case rt.OpSignal, rt.OpBroadcast:
			a.signals = append(a.signals, int32(j))
			a.signalHeld = append(a.signalHeld, slices.Clone(held[e.G]))
		case rt.OpUnlock, rt.OpRUnlock:
			if i := slices.Index(held[e.G], e.Obj); i >= 0 {
				held[e.G] = slices.Delete(held[e.G], i, i+1)
			}
		}
	}
	// A Signal or Broadcast made holding a lock that every Wait on the condition held commutes
	// with the other goroutines' operations on it: none of their Waits is enabled meanwhile,
	// and a waiter it wakes cannot go on before the lock is released.
	for i, j := range a.signals {
		w := a.waitLocks[res.Events[j].Obj]
		a.quietSignal[j] = slices.ContainsFunc(a.signalHeld[i], func(l rt.ObjID) bool { return slices.Contains(w, l) })
	}
}

func isAcquire(op rt.OpKind) bool {
	switch op {
	case rt.OpLock, rt.OpRLock, rt.OpTryLock, rt.OpTryRLock, rt.OpLockWait:
		return true
	}
	return false
}

func isRelease(op rt.OpKind) bool { return op == rt.OpUnlock || op == rt.OpRUnlock }

// idle reports whether l is a lock that protects nothing in the run: only g acquires it, or
// every acquisition of it holds another lock (it is lock-dominated, §3's W).
func (a *atomicRun) idle(l rt.ObjID, g rt.GID) bool {
	acq := a.acquirers[l]
	return len(acq) == 0 || len(acq) == 1 && acq[0] == g || len(a.dominators[l]) > 0
}

// conflict returns an event of a goroutine other than g that does not commute with op on
// objs, preferring one in [from, to); -1 if there is none.
func (a *atomicRun) conflict(g rt.GID, op rt.OpKind, objs []rt.ObjID, from, to int32) int32 {
	found := int32(-1)
	for _, o := range objs {
		for _, u := range a.byObj[o] {
			if u.g == g || u.g < 0 && u.g != rt.ClockID {
				continue
			}
			if !dependentOps(op, u.op) || op.ReadOnly() && u.op.ReadOnly() {
				continue
			}
			if u.event >= from && u.event < to {
				return u.event
			}
			if found < 0 {
				found = u.event
			}
		}
	}
	return found
}

// dependentOps refines rt.Dependent for the checks: two read locks commute, and a release
// commutes with another goroutine's acquire, which cannot be enabled while the lock is held
// (the independence of §2.3 asks only that transitions enabled together commute).
func dependentOps(a, b rt.OpKind) bool {
	switch {
	case (a == rt.OpRLock || a == rt.OpTryRLock) && (b == rt.OpRLock || b == rt.OpTryRLock):
		return false
	case isRelease(a) || isRelease(b):
		return false
	}
	return true
}

// neutral are the operations that no other goroutine's can affect: a go statement (nothing
// else touches the new goroutine yet), data choices, yields, the bookkeeping of a history
// checked for linearizability.
func neutral(op rt.OpKind) bool {
	switch op {
	case rt.OpGo, rt.OpChoose, rt.OpYield, rt.OpCall, rt.OpReturn, rt.OpExit, rt.OpNone:
		return true
	}
	return false
}

// classify returns the transitions of region reg, in storage that the next call reuses.
func (a *atomicRun) classify(reg *rt.Region) []transition {
	end := reg.Exit
	if end < 0 {
		end = int32(len(a.res.Events))
	}
	out := a.ts[:0]
	defer func() { a.ts = out[:0] }()
	// The region's middle starts at its first transition: a new goroutine enters a region
	// as it is created, before its first step.
	a.start = end
	if len(reg.Accesses) > 0 {
		a.start = reg.Accesses[0].At
	}
	for j := reg.Enter; j < a.start; j++ {
		if a.res.Events[j].G == reg.G {
			a.start = j
			break
		}
	}
	k := 0
	addAccesses := func(upTo int32) {
		for ; k < len(reg.Accesses) && reg.Accesses[k].At <= upTo; k++ {
			acc := &reg.Accesses[k]
			t := transition{event: -1, access: int32(k), other: -1, mov: both, movW: both, time: 2*acc.At - 1}
			if acc.Racy {
				t.dep, t.mov, t.movW = true, nonMover, nonMover
			}
			out = append(out, t)
		}
	}
	for j := reg.Enter; j < end; j++ {
		addAccesses(j)
		e := &a.res.Events[j]
		if e.G != reg.G {
			continue
		}
		out = append(out, a.step(reg, j, e))
	}
	addAccesses(end)
	return out
}

// step classifies event j, of the region's goroutine.
func (a *atomicRun) step(reg *rt.Region, j int32, e *rt.Event) transition {
	t := transition{event: j, access: -1, other: -1, time: 2 * j}
	objs := eventObjs(e)
	end := reg.Exit
	if end < 0 {
		end = int32(len(a.res.Events))
	}
	switch {
	case neutral(e.Op):
		t.mov, t.movW = both, both
		if e.Op == rt.OpGo {
			t.mov, t.movW = left, left
		}
		return t
	case isRelease(e.Op) || e.Op == rt.OpOnceDone:
		// A release is independent: no acquire of the lock is enabled while it is held.
		t.mov, t.movW = left, left
		if isRelease(e.Op) && a.idle(e.Obj, e.G) {
			t.movW = both
		}
		return t
	case isAcquire(e.Op) || e.Op == rt.OpOnce || e.Op == rt.OpWGWait:
		t.mov, t.movW = right, right
		t.other = a.conflict(e.G, e.Op, objs, a.start, end)
		t.dep = t.other >= 0
		if isAcquire(e.Op) && a.idle(e.Obj, e.G) {
			t.movW, t.dep = both, false
		}
		return t
	}
	if a.quietSignal[j] {
		t.mov, t.movW = both, both
		return t
	}
	// Channel operations, atomics, WaitGroup.Add and Done, Signal, Broadcast, sync.Map,
	// timers: both movers when no other goroutine's operation conflicts with them in the run
	// (a goroutine-local channel, an atomic nobody else writes), non-movers otherwise.
	t.other = a.conflict(e.G, e.Op, objs, a.start, end)
	t.dep = t.other >= 0
	t.mov = both
	if t.dep {
		t.mov = nonMover
	}
	t.movW = t.mov
	return t
}

// checkInd runs MC-ind (Fig. 4, updateIndAtomic): I*D?I*.
func checkInd(ts []transition) *breach {
	var moved *transition
	for i := range ts {
		if !ts[i].dep {
			continue
		}
		if moved != nil {
			return &breach{moved: *moved, broke: ts[i]}
		}
		moved = &ts[i]
	}
	return nil
}

// checkMover runs MC-mover (Fig. 5, updateMovAtomic) on the movers that class gives: R*A?L*.
func checkMover(ts []transition, class func(*transition) mover) *breach {
	var moved *transition
	for i := range ts {
		m := class(&ts[i])
		if moved == nil {
			// The right-mover part: anything but an acquire or a both-mover moves on.
			if m == nonMover || m == left {
				moved = &ts[i]
			}
			continue
		}
		if m == nonMover || m == right {
			return &breach{moved: *moved, broke: ts[i]}
		}
	}
	return nil
}

// between reports whether event o of another goroutine ran between the first and the last of
// transitions ts, in the middle of their execution.
func between(ts []transition, o int32) bool {
	if o < 0 || len(ts) == 0 {
		return false
	}
	first, last := ts[0].time, ts[len(ts)-1].time
	return first < 2*o && 2*o < last
}

// checkAtomicity runs the checkers on every execution of an annotated function in run res.
func (e *explorer) checkAtomicity(res *rt.Result) {
	if len(res.Regions) == 0 || res.Verdict.Kind == rt.VerdictPruned || res.Verdict.Kind == rt.VerdictDiverged {
		return
	}
	a := &e.atomicRun
	a.analyze(res)
	for i := range res.Regions {
		reg := &res.Regions[i]
		key := funcKey{reg.Func, reg.Decl}
		f := e.atomic[key]
		if f == nil {
			if e.atomic == nil {
				e.atomic = map[funcKey]*atomicFunc{}
			}
			f = &atomicFunc{name: reg.Func, decl: reg.Decl}
			e.atomic[key] = f
			e.atomicOrder = append(e.atomicOrder, f)
		}
		f.execs++
		ts := a.classify(reg)
		found := [nChk]*breach{
			checkInd(ts),
			checkMover(ts, func(t *transition) mover { return t.mov }),
			checkMover(ts, func(t *transition) mover { return t.movW }),
		}
		for c, b := range found {
			if b == nil {
				continue
			}
			f.flagged[c]++
			if f.hitRun != e.rep.Stats.Runs+1 {
				f.hits, f.hitRun = f.hits+1, e.rep.Stats.Runs+1
			}
			inside := slices.ContainsFunc([]int32{b.broke.other, b.moved.other}, func(o int32) bool { return between(ts, o) })
			if ex := f.example[c]; ex == nil || inside && !ex.inside {
				f.example[c] = &atomicExample{run: e.rep.Stats.Runs, strategy: e.member, schedule: slices.Clone(res.Decisions),
					region: i, b: *b, g: res.Name(reg.G), inside: inside}
			}
		}
	}
}

// flags reports whether checker flags f: C and W are combinations (Table 1).
func (f *atomicFunc) flags(checker string) bool {
	switch checker {
	case AtomicInd:
		return f.flagged[chkInd] > 0
	case AtomicMover:
		return f.flagged[chkMover] > 0
	case AtomicW:
		return f.flagged[chkInd] > 0 && f.flagged[chkW] > 0
	}
	return f.flagged[chkInd] > 0 && f.flagged[chkMover] > 0
}

// checkers lists the checkers whose pattern f broke.
func (f *atomicFunc) checkers() []string {
	var out []string
	for c := range nChk {
		if f.flagged[c] > 0 {
			out = append(out, chkNames[c])
		}
	}
	return out
}

// shown are the checkers whose example executions a warning of each checker describes.
var shown = map[string][]int{AtomicC: {chkInd, chkMover}, AtomicInd: {chkInd}, AtomicMover: {chkMover}, AtomicW: {chkInd, chkW}}

// atomicWarnings files a warning for each annotated function that the exploration's checker
// (Options.Atomicity, C by default) flags, and fills Report.Atomicity. The example execution of
// each checker is replayed in detail, for the positions of its operations.
func (e *explorer) atomicWarnings(over func() bool) {
	checker := e.opts.Atomicity
	if checker == "" {
		checker = AtomicC
	}
	for _, f := range e.atomicOrder {
		af := &record.AtomicityCheck{Func: f.name, Decl: record.DeclPos(f.decl), Executions: f.execs, Flagged: map[string]int{}}
		for c := range nChk {
			af.Flagged[chkNames[c]] = f.flagged[c]
		}
		e.rep.Atomicity = append(e.rep.Atomicity, af)
		if !f.flags(checker) {
			continue
		}
		var parts []string
		var first *atomicExample
		var schedule []record.Decision
		for _, c := range shown[checker] {
			ex := f.example[c]
			text, detail := e.describeBreach(ex, over)
			if first == nil {
				first = ex
				if detail != nil {
					schedule = record.Decisions(detail)
				}
			}
			parts = append(parts, chkNames[c]+": "+text)
		}
		w := &Warning{Kind: "atomicity", Key: "atomicity " + f.name + " " + f.decl, Hits: f.hits,
			Message:   fmt.Sprintf("atomicity: %s (%s) is possibly not atomic: %s", f.name, filepath.Base(f.decl), strings.Join(parts, "; ")),
			atomicity: &record.Atomicity{Func: f.name, Decl: record.DeclPos(f.decl), Checkers: f.checkers(), Schedule: schedule}}
		if first != nil {
			w.Strategy, w.Run, w.Goroutines = first.strategy, first.run, []string{first.g}
		}
		if e.warnings == nil {
			e.warnings = map[string]*Warning{}
		}
		e.warnings[w.Key] = w
		e.rep.Warnings = append(e.rep.Warnings, w)
	}
}

// describeBreach says which transition of example ex broke the pattern, after which one, and
// which operation of another goroutine does not commute with it, with positions from a
// replay of its run in detail, which it returns too (nil past the budget).
func (e *explorer) describeBreach(ex *atomicExample, over func() bool) (string, *rt.Result) {
	res := (*rt.Result)(nil)
	if !over() && e.canReplay() {
		if d := e.r.Run(scheduleGuide(ex.schedule), true); ex.region < len(d.Regions) {
			res = d
		}
	}
	if res == nil {
		return fmt.Sprintf("run %d broke the pattern", ex.run), nil
	}
	reg := &res.Regions[ex.region]
	namer := record.NewNamer()
	// op names an event's operation with its object as the program's expression there
	// ("b.mu"), or its logical id.
	op := func(ev *rt.Event) string {
		obj := res.ObjName(ev.Obj)
		if file, line, _ := rt.Position(ev.PC); file != "" {
			if x := namer.Expr(record.Pos{File: file, Line: line}, ev.Op.String()); x != "" {
				obj = x
			}
		}
		return fmt.Sprintf("%s %s of %s at %s", res.Name(ev.G), ev.Op, obj, eventPos(ev))
	}
	name := func(t transition) string {
		if t.access >= 0 && int(t.access) < len(reg.Accesses) {
			acc := &reg.Accesses[t.access]
			what := "read"
			if acc.Write {
				what = "write"
			}
			return fmt.Sprintf("the %s at %s", what, shortAccess(acc.Pos))
		}
		if t.event >= 0 && int(t.event) < len(res.Events) {
			return op(&res.Events[t.event])
		}
		return "?"
	}
	s := fmt.Sprintf("%s after %s", name(ex.b.broke), name(ex.b.moved))
	for _, t := range []transition{ex.b.broke, ex.b.moved} {
		if t.other >= 0 && int(t.other) < len(res.Events) {
			s += ", and " + op(&res.Events[t.other]) + " does not commute with it"
			break
		}
		if t.access >= 0 && reg.Accesses[t.access].Racy {
			s += " (the variable is racy: see the lockset warning)"
			break
		}
	}
	return s, res
}

func eventPos(ev *rt.Event) string {
	file, line, _ := rt.Position(ev.PC)
	if file == "" {
		return "?"
	}
	return filepath.Base(file) + ":" + strconv.Itoa(line)
}

// shortAccess is an access's file:line:col as base name and line.
func shortAccess(pos string) string {
	pos = filepath.Base(pos)
	if i := strings.LastIndexByte(pos, ':'); i > strings.IndexByte(pos, ':') {
		return pos[:i]
	}
	return pos
}

// serialRuns bounds the serial search of serialCheck.
const serialRuns = 20_000

// serialCheck decides Bogor's third definite case, a result that no serial order of the
// annotated functions' executions gives: for every failing bug whose run interleaved another
// goroutine's step inside such an execution, it searches the schedules in which every
// execution runs serially (a goroutine inside one is not preempted while it can go on,
// rt.Config.Serial), with dpor. If that search is complete and never fails so (the bug's
// signature), the failure is the interleaving's: the bug becomes an atomicity bug naming the
// interleaved function, with the failure kept in Atomicity.Failure, so that a replay that
// fails so reports it too. An incomplete serial search decides nothing.
func (e *explorer) serialCheck(over func() bool) {
	if e.opts.serial {
		return
	}
	var cands []*Bug
	for _, b := range e.rep.Bugs {
		switch b.Kind {
		case rt.VerdictPanic, rt.VerdictAssert, rt.VerdictFatal, rt.VerdictMisuse:
			if b.Result != nil && interleaved(b.Result) >= 0 {
				cands = append(cands, b)
			}
		}
	}
	if len(cands) == 0 || over() || !e.canReplay() {
		return
	}
	opts := Options{Strategy: "dpor", MaxRuns: serialRuns, MaxSteps: e.opts.MaxSteps, Hang: e.opts.Hang, Time: e.opts.Time, Quantum: e.opts.Quantum,
		IgnoreAccesses: true, serial: true}
	if e.opts.MaxTime > 0 {
		left := e.opts.MaxTime - time.Since(e.start)
		if left <= 0 {
			return
		}
		opts.MaxTime = left / 2
	}
	var deadline time.Time
	p, local := e.r.(*inProcess)
	if local {
		deadline = p.deadline
	}
	serial := explore(e.r, opts)
	if local {
		p.deadline = deadline
	}
	if !serial.Stats.Complete {
		return
	}
	for _, b := range cands {
		if slices.ContainsFunc(serial.Bugs, func(s *Bug) bool { return s.Key == b.Key }) {
			continue
		}
		reg := &b.Result.Regions[interleaved(b.Result)]
		failure := b.Kind
		msg := fmt.Sprintf("%s is not atomic: %s ran in the middle of it, and the run failed (%s: %s), which no serial order of the //heddle:atomic functions' executions does (%d serial schedules, all explored)",
			reg.Func, b.Result.Name(interleaver(b.Result, reg)), failure, b.Message, serial.Stats.Runs)
		b.Kind, b.Message = rt.VerdictAtomicity, msg
		b.Result.Verdict = rt.Verdict{Kind: rt.VerdictAtomicity, Message: msg, Goroutines: b.Result.Verdict.Goroutines,
			Atomicity: &rt.AtomicFunc{Func: reg.Func, Decl: reg.Decl, Failure: failure}}
	}
}

// interleaved returns the index of the first region of res in whose middle another goroutine
// stepped, or -1.
func interleaved(res *rt.Result) int {
	for i := range res.Regions {
		if interleaver(res, &res.Regions[i]) != rt.NoG {
			return i
		}
	}
	return -1
}

// interleaver returns the first goroutine other than reg's that stepped between two steps
// of reg's, or rt.NoG. A new goroutine enters a region as soon as it is created, before its
// first step: the steps of others before that are not in the region's middle.
func interleaver(res *rt.Result, reg *rt.Region) rt.GID {
	end := int(reg.Exit)
	if end < 0 {
		end = len(res.Events)
	}
	other, started := rt.NoG, false
	for j := int(reg.Enter); j < end; j++ {
		switch g := res.Events[j].G; {
		case g == reg.G && other != rt.NoG:
			return other
		case g == reg.G:
			started = true
		case started && g != rt.ClockID && other == rt.NoG:
			other = g
		}
	}
	return rt.NoG
}
