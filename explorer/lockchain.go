package explorer

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/heddledbg/heddle/rt"
)

// Reverse lock chain analysis (Bruening, §2.5.1), the lock-cycle half of ExitBlock-DD and
// ExitBlock-RWDD.
//
// The thesis tracks, for every thread, the locks it holds and the last lock it held; when the
// current thread cannot obtain a lock l, it follows "l's current owner's last lock's current
// owner's last lock's …" and reports a lock-cycle deadlock if the chain comes back to the
// current thread. The threads of the cycle, backed up to just before they acquired their last
// lock, still hold their outer locks and each wants a lock another holds (proof of Theorem 5
// (b)): a deadlock that the search did not execute.
//
// Adaptation to rt. ExitBlock only meets a failing acquire at a block boundary inside a nest
// (Fig. 2.15: T1 has left b but still holds a, T2 takes b and fails on a). rt folds a release
// into the step before it, so "unlock b; unlock a" is one step and that boundary does not exist
// as a decision: the thesis's failure points are never reached. The analysis therefore runs
// over the run's lock history instead of its instantaneous state:
//
//   - Trigger: every nested acquire, i.e. a goroutine g that holds at least one mutex and
//     acquires (or is left pending on) the exclusive lock of another one. §2.5.1's key
//     observation is that only such acquires can close a cycle; a failing acquire in the thesis
//     is one of them.
//   - Owner: the goroutine o that holds l at that point, or, if l is free, the goroutine that
//     held it last (it is the current owner at the boundary the thesis would have stopped at).
//   - Last lock: the lock o waits for, if it is really blocked on a held mutex; otherwise the
//     last mutex o acquired inside its hold of l (the thesis's "last lock held", whose release
//     rt folded). The chain goes on with that lock's owner, until it reaches g holding it.
//
// Because the history gives the owners at different times, the predicted state (every
// goroutine of the cycle backed up to just before its last lock, g at its acquire) is checked
// to be a consistent cut of the run before it is reported: the locks the goroutines hold there
// are pairwise disjoint (a common outer "gate" lock makes the cycle impossible), and no
// goroutine's part of the cut happens after another's excluded part through any
// synchronization other than the cycle's mutexes (program order, go statements, channels,
// conds, wait groups, atomics; every operation on such an object is ordered after the previous
// one). Mutex edges are left out: reordering critical sections is what the prediction is
// about, and the thesis's locking discipline (§2.1.1) is the assumption that makes it sound.
// Cycles whose every goroutine is really blocked were executed, and rt reports them as
// deadlocks; they are not predicted again.

// verdictLockCycle is the kind of a lock-cycle deadlock predicted, not executed.
const verdictLockCycle rt.VerdictKind = "lockcycle"

// prediction is a bug that a brancher infers from a run without executing it.
type prediction struct {
	kind rt.VerdictKind
	// key identifies the bug across runs, like bugKey.
	key string
	// goroutines: each goroutine of the bug, with the operation it would block on.
	goroutines []rt.GoroutineState
	// message renders the bug from the run it was predicted in or from that run's replay in
	// detail mode (same events, with source positions).
	message func(res *rt.Result) string
}

// predictor is implemented by branchers that predict bugs from each run (ExitBlock-DD and
// -RWDD); explorer.systematic turns the predictions into bugs (addPrediction).
type predictor interface {
	predict(res *rt.Result) []prediction
}

// lockHold is one hold of an exclusive lock: from its acquisition to its release.
type lockHold struct {
	g      rt.GID
	lock   rt.ObjID
	acq    int   // event index of the acquisition
	rel    int   // event index of the release, -1 if held at the end of the run
	nested []int // Lock events of g while it held this lock (blocking nested acquisitions)
}

func (h *lockHold) heldAt(t int) bool { return h.acq < t && (h.rel < 0 || h.rel > t) }

type lockHistory struct {
	res    *rt.Result
	holds  []*lockHold
	byLock map[rt.ObjID][]*lockHold
	byG    map[rt.GID][]*lockHold
	// Vector clocks without mutex edges, per event, over goroutine slots (the clock last).
	vc    [][]int32
	nslot int
}

func isLockObj(res *rt.Result, o rt.ObjID) bool {
	if o < 0 || int(o) >= len(res.Objects) {
		return false
	}
	k := res.Objects[o].Kind
	return k == rt.ObjMutex || k == rt.ObjRWMutex
}

func newLockHistory(res *rt.Result) *lockHistory {
	h := &lockHistory{res: res, byLock: map[rt.ObjID][]*lockHold{}, byG: map[rt.GID][]*lockHold{}}
	cur := map[rt.ObjID]*lockHold{}
	readers := map[rt.ObjID]int{}
	open := map[rt.GID][]*lockHold{}
	acquire := func(j int, e *rt.Event) {
		hd := &lockHold{g: e.G, lock: e.Obj, acq: j, rel: -1}
		if e.Op == rt.OpLock {
			for _, oh := range open[e.G] {
				oh.nested = append(oh.nested, j)
			}
		}
		open[e.G] = append(open[e.G], hd)
		cur[e.Obj] = hd
		h.holds = append(h.holds, hd)
		h.byLock[e.Obj] = append(h.byLock[e.Obj], hd)
		h.byG[e.G] = append(h.byG[e.G], hd)
	}
	for j := range res.Events {
		e := &res.Events[j]
		if !isLockObj(res, e.Obj) {
			continue
		}
		o := e.Obj
		switch e.Op {
		case rt.OpLock:
			if readers[o] > 0 {
				continue // an RWMutex writer announcing itself; it acquires in a later step
			}
			acquire(j, e)
		case rt.OpTryLock:
			if cur[o] == nil && readers[o] == 0 {
				acquire(j, e)
			}
		case rt.OpRLock:
			readers[o]++
		case rt.OpTryRLock:
			if cur[o] == nil {
				readers[o]++
			}
		case rt.OpRUnlock:
			readers[o]--
		case rt.OpUnlock:
			if hd := cur[o]; hd != nil {
				hd.rel = j
				delete(cur, o)
				open[hd.g] = slices.DeleteFunc(open[hd.g], func(x *lockHold) bool { return x == hd })
			}
		}
	}
	if len(h.holds) > 0 {
		h.clocks()
	}
	return h
}

func (h *lockHistory) slot(g rt.GID) int {
	if g == rt.ClockID {
		return h.nslot - 1
	}
	return int(g)
}

// clocks computes happens-before without mutex edges for every event of the run.
func (h *lockHistory) clocks() {
	h.nslot = len(h.res.Goroutines) + 1
	h.vc = make([][]int32, len(h.res.Events))
	mutexFreeClocks(h.res, func(j, _ int, vc []int32) { h.vc[j] = slices.Clone(vc) })
}

// mutexFreeClocks computes happens-before without mutex edges: program order, go statements,
// rendezvous partners (both ways), and on every other object the order of its operations,
// each after the previous one that changed it (an atomic load or a len orders nothing after
// it). It calls at with each event's index, its goroutine's slot (the clock's is the last)
// and its clock, which counts the goroutine's events, that one included; at must copy the
// clock to keep it.
func mutexFreeClocks(res *rt.Result, at func(j, slot int, vc []int32)) {
	nslot := len(res.Goroutines) + 1
	slot := func(g rt.GID) int {
		if g == rt.ClockID {
			return nslot - 1
		}
		return int(g)
	}
	cur := make([][]int32, nslot)
	for i := range cur {
		cur[i] = make([]int32, nslot)
	}
	last := map[rt.ObjID][]int32{}
	for j := range res.Events {
		if j%(1<<16) == 0 {
			rt.Analysing()
		}
		e := &res.Events[j]
		p := slot(e.G)
		c := cur[p]
		objs := eventObjs(e)
		if e.With != rt.NoG {
			// A rendezvous: the partner had reached its operation, so its earlier steps
			// come first (and its later ones after, below).
			join(c, cur[slot(e.With)])
		}
		for _, o := range objs {
			if !isLockObj(res, o) {
				join(c, last[o])
			}
		}
		c[p]++
		at(j, p, c)
		if !e.Op.ReadOnly() {
			for _, o := range objs {
				if !isLockObj(res, o) {
					last[o] = append(last[o][:0], c...)
				}
			}
		}
		if e.With != rt.NoG {
			join(cur[slot(e.With)], c)
		}
		if e.Child != rt.NoG {
			copy(cur[slot(e.Child)], c)
		}
	}
}

// before returns the clock of goroutine g just before event index t (its last event before t,
// or its go statement's clock if it has none), and the number of g's events before t.
func (h *lockHistory) before(g rt.GID, t int) ([]int32, int32) {
	for j := min(t, len(h.res.Events)) - 1; j >= 0; j-- {
		if h.res.Events[j].G == g {
			return h.vc[j], h.vc[j][h.slot(g)]
		}
	}
	for j := range h.res.Events {
		if h.res.Events[j].Child == g {
			return h.vc[j], 0
		}
	}
	return nil, 0
}

// holder returns the last hold of lock l that started before t.
func (h *lockHistory) holder(l rt.ObjID, t int) *lockHold {
	hs := h.byLock[l]
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].acq < t {
			return hs[i]
		}
	}
	return nil
}

func (h *lockHistory) heldBy(g rt.GID, t int) []*lockHold {
	var out []*lockHold
	for _, hd := range h.byG[g] {
		if hd.heldAt(t) {
			out = append(out, hd)
		}
	}
	return out
}

func (h *lockHistory) heldAt(l rt.ObjID, t int) bool {
	hd := h.holder(l, t)
	return hd != nil && hd.heldAt(t)
}

// blockedOn returns the mutex goroutine g waits for at t, if g is stopped there before a Lock
// of a mutex that is held.
func (h *lockHistory) blockedOn(g rt.GID, t int) (rt.ObjID, bool) {
	evs := h.res.Events
	for j := t; j < len(evs); j++ {
		if evs[j].G != g {
			continue
		}
		e := &evs[j]
		if e.Start && e.Op == rt.OpLock && isLockObj(h.res, e.Obj) && h.heldAt(e.Obj, t) {
			return e.Obj, true
		}
		return rt.NoObj, false
	}
	for _, p := range h.res.Pending {
		if p.ID == g && p.Op == rt.OpLock && isLockObj(h.res, p.Obj) && h.heldAt(p.Obj, t) {
			return p.Obj, true
		}
	}
	return rt.NoObj, false
}

// chainLink is one goroutine of a predicted cycle: at its cut it holds a lock (acquired at
// event acq) and is stopped before the Lock of want (event cut, or pending if cut is past the
// last event).
type chainLink struct {
	g     rt.GID
	holds rt.ObjID
	acq   int
	want  rt.ObjID
	cut   int
	real  bool // really blocked at the analysis point
}

// lockCycles runs reverse lock chain analysis at every nested acquire of the run.
func lockCycles(res *rt.Result) []prediction {
	h := newLockHistory(res)
	if len(h.holds) == 0 {
		return nil
	}
	var out []prediction
	seen := map[string]bool{}
	try := func(g rt.GID, t int, want rt.ObjID) {
		chain := h.analyze(g, t, want)
		if chain == nil {
			return
		}
		p := h.predictionOf(chain)
		if !seen[p.key] {
			seen[p.key] = true
			out = append(out, p)
		}
	}
	for _, hd := range h.holds {
		if res.Events[hd.acq].Op == rt.OpLock && len(h.heldBy(hd.g, hd.acq)) > 0 {
			try(hd.g, hd.acq, hd.lock)
		}
	}
	end := len(res.Events)
	for _, p := range res.Pending {
		if p.Op == rt.OpLock && isLockObj(res, p.Obj) && len(h.heldBy(p.ID, end)) > 0 {
			try(p.ID, end, p.Obj)
		}
	}
	return out
}

// analyze follows the reverse lock chain from goroutine g acquiring want at event index t.
// It returns the cycle, g's link last, or nil.
func (h *lockHistory) analyze(g rt.GID, t int, want rt.ObjID) []chainLink {
	var chain []chainLink
	in := map[rt.GID]bool{g: true}
	x := want
	for range len(h.res.Goroutines) + 1 {
		hd := h.holder(x, t)
		if hd == nil {
			return nil
		}
		o := hd.g
		if o == g {
			if !hd.heldAt(t) {
				return nil // g's own earlier hold: no cycle
			}
			_, blocked := h.blockedOn(g, t)
			chain = append(chain, chainLink{g: g, holds: x, acq: hd.acq, want: want, cut: t, real: blocked && t == len(h.res.Events)})
			if h.consistent(chain) {
				return chain
			}
			return nil
		}
		if in[o] {
			return nil
		}
		in[o] = true
		var l chainLink
		found := false
		if hd.heldAt(t) {
			if w, ok := h.blockedOn(o, t); ok && w != x {
				l, found = chainLink{g: o, holds: x, acq: hd.acq, want: w, cut: t, real: true}, true
			}
		}
		if !found {
			// The thesis's "last lock held": the last lock o acquired inside this hold.
			n := -1
			for _, k := range hd.nested {
				if k < t {
					n = k
				}
			}
			if n < 0 {
				return nil
			}
			l = chainLink{g: o, holds: x, acq: hd.acq, want: h.res.Events[n].Obj, cut: n}
		}
		if l.want == x {
			return nil
		}
		chain = append(chain, l)
		x = l.want
	}
	return nil
}

// consistent checks that the predicted deadlock state is a consistent cut of the run: no
// executed cycle (every link really blocked), pairwise disjoint held locks, and no part of the
// cut that happens after a goroutine's excluded steps.
func (h *lockHistory) consistent(chain []chainLink) bool {
	allReal := true
	for _, l := range chain {
		allReal = allReal && l.real
	}
	if allReal || len(chain) < 2 {
		return false
	}
	owner := map[rt.ObjID]rt.GID{}
	for _, l := range chain {
		for _, hd := range h.heldBy(l.g, l.cut) {
			if o, ok := owner[hd.lock]; ok && o != l.g {
				return false
			}
			owner[hd.lock] = l.g
		}
	}
	frontier := make([]int32, h.nslot)
	counts := make([]int32, len(chain))
	for i, l := range chain {
		c, n := h.before(l.g, l.cut)
		if c != nil {
			join(frontier, c)
		}
		counts[i] = n
	}
	for i, l := range chain {
		if frontier[h.slot(l.g)] > counts[i] {
			return false
		}
	}
	return true
}

func (h *lockHistory) predictionOf(chain []chainLink) prediction {
	res := h.res
	var parts []string
	var gs []rt.GoroutineState
	for _, l := range chain {
		parts = append(parts, res.Name(l.g)+":"+res.ObjName(l.holds)+">"+res.ObjName(l.want))
		gs = append(gs, rt.GoroutineState{ID: l.g, State: "blocked", Op: rt.OpLock, Obj: l.want})
	}
	slices.Sort(parts)
	chain = slices.Clone(chain)
	n := len(res.Events)
	return prediction{
		kind:       verdictLockCycle,
		key:        string(verdictLockCycle) + "|" + strings.Join(parts, ","),
		goroutines: gs,
		message:    func(r *rt.Result) string { return lockCycleMessage(r, chain, n) },
	}
}

// lockCycleMessage names the goroutines and locks of the cycle, with the positions of the
// acquisitions when r was recorded in detail mode.
// n is the number of events of the run the cycle was predicted in: a cut at n is a pending
// operation.
func lockCycleMessage(r *rt.Result, chain []chainLink, n int) string {
	pos := func(pc uintptr) string {
		if pc == 0 {
			return ""
		}
		file, line, _ := rt.Position(pc)
		if file == "" {
			return ""
		}
		return fmt.Sprintf(" at %s:%d", filepath.Base(file), line)
	}
	var b strings.Builder
	b.WriteString("lock-cycle deadlock predicted by reverse lock chain analysis (not executed):")
	for i, l := range chain {
		if i > 0 {
			b.WriteString(";")
		}
		var acqPC, wantPC uintptr
		if l.acq < len(r.Events) {
			acqPC = r.Events[l.acq].PC
		}
		if l.cut < n && l.cut < len(r.Events) {
			wantPC = r.Events[l.cut].PC
		} else {
			for _, p := range r.Pending {
				if p.ID == l.g {
					wantPC = p.PC
				}
			}
		}
		fmt.Fprintf(&b, " %s holds %s (locked%s) and waits for %s (Lock%s)",
			r.Name(l.g), r.ObjName(l.holds), pos(acqPC), r.ObjName(l.want), pos(wantPC))
	}
	return b.String()
}
