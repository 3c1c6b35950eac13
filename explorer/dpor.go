package explorer

import (
	"slices"

	"github.com/heddledbg/heddle/rt"
)

// dpor is dynamic partial-order reduction with sleep sets (Flanagan and Godefroid, POPL 2005,
// Fig. 4, in its stateless form). A node starts with only the alternative the run took; after
// each run, every pair of dependent steps of different goroutines that are not ordered by
// happens-before (a race) adds the later goroutine to the backtrack set of the node before the
// earlier step, so that the reversed order is explored too. Sleep sets (Godefroid) then prune
// the orders that differ only by commuting independent steps.
type dpor struct{}

func (dpor) initial(*node, *rt.Result, int) {}
func (dpor) sleeping() bool                 { return true }

func (dpor) afterRun(t *tree, res *rt.Result) {
	if res.Verdict.Kind == rt.VerdictCut {
		backtrackStarved(t, res)
	}
	forEachRace(res, func(at int, g rt.GID) {
		at -= t.base
		if at < 0 || at >= len(t.stack) {
			return
		}
		n := t.stack[at]
		if n.kind != rt.DecideGoroutine {
			return
		}
		for i, a := range n.alts {
			if a.G != g {
				continue
			}
			if !asleepIn(n.sleep, g) {
				n.back[i] = true
				return
			}
			// g is asleep here: its own subtree was explored from an ancestor, yet the
			// reversed race can still start with another goroutine whose step wakes g. Every
			// awake alternative is a candidate start (a superset of the source set of
			// Abdulla et al., 2014).
			for j, b := range n.alts {
				if !asleepIn(n.sleep, b.G) {
					n.back[j] = true
				}
			}
			return
		}
		// The racing goroutine was not enabled before the earlier step: explore every
		// alternative there (FG05's conservative fallback).
		for i := range n.back {
			n.back[i] = true
		}
	})
}

// backtrackStarved handles a run cut at the step bound. DPOR assumes runs end: the races of a
// goroutine that the run starved (it stayed enabled while others ran until the bound) are
// those of operations it never reached, so the run says nothing about them. Each goroutine
// still pending is tried at the first decision after its last step that offered it.
func backtrackStarved(t *tree, res *rt.Result) {
	for _, gs := range res.Pending {
		last := -1
		for j := len(res.Events) - 1; j >= 0; j-- {
			if res.Events[j].G == gs.ID {
				last = j
				break
			}
		}
		for d := t.base; d < t.base+len(t.stack); d++ {
			if int(res.Decisions[d].Step) <= last {
				continue
			}
			n := t.stack[d-t.base]
			if i := slices.IndexFunc(n.alts, func(a rt.Alt) bool { return a.G == gs.ID }); n.kind == rt.DecideGoroutine && i >= 0 && !asleepIn(n.sleep, gs.ID) {
				n.back[i] = true
				break
			}
		}
	}
}

// access is one goroutine's operation on objects within a step. A step may hold two: a
// rendezvous completes the partner's blocked operation (the receiver of a send, the waiter of
// a Signal) in the same step, and that operation belongs to the partner's program order.
type access struct {
	ev    int // the event
	slot  int
	op    rt.OpKind
	objs  []rt.ObjID
	count int32 // the access's index in its slot's program order
}

// forEachRace calls f(d, g) for every race of the run whose reversal must be tried: goroutine
// g's operation (performed, or pending when the run ended) races with an earlier operation of
// the step picked at decision d.
func forEachRace(res *rt.Result, f func(d int, g rt.GID)) {
	evs := res.Events
	n := len(res.Goroutines) + 1 // the last slot is the clock
	slot := func(g rt.GID) int {
		if g == rt.ClockID {
			return n - 1
		}
		return int(g)
	}
	// Vector clocks over access counts; reads and writes of an object are tracked apart, so
	// two reads do not order each other.
	vc := make([][]int32, n)
	for i := range vc {
		vc[i] = make([]int32, n)
	}
	count := make([]int32, n)
	lastW := map[rt.ObjID][]int32{}
	reads := map[rt.ObjID][]int32{}
	// The accesses to each object, by slot in program order, and the slots that accessed it.
	bySlot := map[objSlot][]*access{}
	slotsOf := map[rt.ObjID][]int{}
	last := make([]int, n) // each slot's latest event, -1 before any
	for i := range last {
		last[i] = -1
	}
	startOf := make([]int, len(evs)) // the Start event of the step each event belongs to
	lastStart := make([]int, n)
	for i := range lastStart {
		lastStart[i] = -1
	}
	decisionOf := func(ev int) int {
		if s := startOf[ev]; s >= 0 {
			return int(evs[s].Decision)
		}
		return -1
	}
	// check applies FG05's rule to an operation of slot p at event j: for each state between
	// p's previous event a and j, the latest racing access before it must be reversible,
	// which is every racing access after a and the latest one up to a.
	//
	// A slot's accesses that happen before j are a prefix of its program order (their counts
	// are at most before[slot]), so only the suffix after it is read, latest first: the scan
	// costs the racing accesses, not the length of the run.
	check := func(j, p int, op rt.OpKind, objs []rt.ObjID, before []int32, a int) {
		report := func(c *access) {
			if d := decisionOf(c.ev); d >= 0 {
				f(d, gidOf(p, n))
			}
		}
		var latest *access // the latest racing access up to a
		for _, o := range objs {
			for _, s := range slotsOf[o] {
				if s == p {
					continue
				}
				l := bySlot[objSlot{o, s}]
				for k := len(l) - 1; k >= 0 && l[k].count > before[s]; k-- {
					c := l[k]
					if c.ev >= j || !rt.Dependent(c.op, c.objs, op, objs) {
						continue
					}
					if c.ev > a {
						report(c)
						continue
					}
					if latest == nil || c.ev > latest.ev {
						latest = c
					}
					break
				}
			}
		}
		if latest != nil {
			report(latest)
		}
	}
	apply := func(a *access, c []int32) {
		for _, o := range a.objs {
			join(c, lastW[o])
			if !a.op.ReadOnly() {
				join(c, reads[o])
			}
		}
		count[a.slot]++
		c[a.slot] = count[a.slot]
		a.count = count[a.slot]
		for _, o := range a.objs {
			if a.op.ReadOnly() {
				if reads[o] == nil {
					reads[o] = make([]int32, n)
				}
				join(reads[o], c)
			} else {
				lastW[o] = append(lastW[o][:0], c...)
				reads[o] = nil
			}
			k := objSlot{o, a.slot}
			l := bySlot[k]
			if l == nil {
				slotsOf[o] = append(slotsOf[o], a.slot)
			}
			bySlot[k] = append(l, a)
		}
	}
	for j := range evs {
		e := &evs[j]
		p := slot(e.G)
		if e.Start {
			lastStart[p] = j
		}
		startOf[j] = lastStart[p]
		objs := eventObjs(e)
		own := &access{ev: j, slot: p, op: e.Op, objs: objs}
		partners := make([]*access, len(e.Partners))
		for i, pt := range e.Partners {
			partners[i] = &access{ev: j, slot: slot(pt.G), op: pt.Op, objs: pt.Objs}
		}
		check(j, p, own.op, own.objs, append([]int32(nil), vc[p]...), last[p])
		for _, pa := range partners {
			q := pa.slot
			check(j, q, pa.op, pa.objs, append([]int32(nil), vc[q]...), last[q])
		}
		// Setting or stopping a timer races with the clock's next step, whatever it was then:
		// the clock is a process whose pending step is not recorded until it runs.
		if e.G != rt.ClockID && slices.Contains(objs, rt.ClockObj) {
			if d := decisionOf(j); d >= 0 {
				f(d, rt.ClockID)
			}
		}
		apply(own, vc[p])
		for _, pa := range partners {
			q := pa.slot
			join(vc[q], vc[p])
			apply(pa, vc[q])
			last[q] = j
			// What the partner does when it resumes, up to its next scheduling point, is part
			// of this step.
			lastStart[q] = lastStart[p]
		}
		if e.Child != rt.NoG {
			c := slot(e.Child)
			copy(vc[c], vc[p])
			lastStart[c] = lastStart[p]
		}
		last[p] = j
	}
	// Goroutines that never performed the operation they were stopped before.
	for _, gs := range res.Pending {
		p := slot(gs.ID)
		objs := gs.Objs
		if objs == nil && gs.Obj != rt.NoObj {
			objs = []rt.ObjID{gs.Obj}
		}
		check(len(evs), p, gs.Op, objs, vc[p], last[p])
	}
	if len(res.Clock) > 0 {
		p := n - 1
		check(len(evs), p, rt.OpClock, res.Clock, vc[p], last[p])
	}
}

func gidOf(slot, n int) rt.GID {
	if slot == n-1 {
		return rt.ClockID
	}
	return rt.GID(slot)
}

// objSlot names the accesses of one slot to one object.
type objSlot struct {
	o    rt.ObjID
	slot int
}

func join(dst, src []int32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}
