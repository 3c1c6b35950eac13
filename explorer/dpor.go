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
			if a.G == g {
				n.back[i] = true
				return
			}
		}
		// The racing goroutine was not enabled before the earlier step: explore every
		// alternative there (FG05's conservative fallback).
		for i := range n.back {
			n.back[i] = true
		}
	})
}

// forEachRace calls f(d, g) for every race of the run whose reversal must be tried: goroutine
// g's step (or pending operation, for goroutines that never got to perform it) races with an
// earlier step picked at decision d.
func forEachRace(res *rt.Result, f func(d int, g rt.GID)) {
	evs := res.Events
	n := len(res.Goroutines) + 1 // the last slot is the clock
	slot := func(g rt.GID) int {
		if g == rt.ClockID {
			return n - 1
		}
		return int(g)
	}
	// Vector clocks over event counts: clk[j][s] > 0 means event j knows the k-th event of
	// slot s for k <= clk[j][s]. Reads and writes of an object are tracked apart, so two reads
	// do not order each other.
	vc := make([][]int32, n)
	for i := range vc {
		vc[i] = make([]int32, n)
	}
	count := make([]int32, n)
	evIdx := make([]int32, len(evs)) // the event's own count in its slot
	lastW := map[rt.ObjID][]int32{}
	reads := map[rt.ObjID][]int32{}
	byObj := map[rt.ObjID][]int{}
	last := make([]int, n) // index of each slot's latest event, -1 before any
	for i := range last {
		last[i] = -1
	}
	startOf := make([]int, len(evs)) // the Start event of each event's step
	lastStart := make([]int, n)
	for i := range lastStart {
		lastStart[i] = -1
	}
	check := func(j int, p int, op rt.OpKind, objs []rt.ObjID, before []int32, a int) {
		// FG05 takes, for each state between p's previous event a and j, the latest racing
		// event before it: that is every racing event after a, and the latest one up to a.
		seenBeforeA := false
		cands := candidates(byObj, objs)
		for c := len(cands) - 1; c >= 0; c-- {
			i := cands[c]
			if i >= j {
				continue
			}
			q := slot(evs[i].G)
			if q == p || evIdx[i] <= before[q] {
				continue
			}
			if !rt.Dependent(evs[i].Op, eventObjs(&evs[i]), op, objs) {
				continue
			}
			if i <= a {
				if seenBeforeA {
					break
				}
				seenBeforeA = true
			}
			s := startOf[i]
			if s >= 0 && evs[s].Decision >= 0 {
				f(int(evs[s].Decision), gidOf(p, n))
			}
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
		before := append([]int32(nil), vc[p]...)
		check(j, p, e.Op, objs, before, last[p])
		c := vc[p]
		for _, o := range objs {
			join(c, lastW[o])
			if !e.Op.ReadOnly() {
				join(c, reads[o])
			}
		}
		count[p]++
		c[p] = count[p]
		evIdx[j] = count[p]
		for _, o := range objs {
			if e.Op.ReadOnly() {
				if reads[o] == nil {
					reads[o] = make([]int32, n)
				}
				join(reads[o], c)
			} else {
				lastW[o] = append(lastW[o][:0], c...)
				reads[o] = nil
			}
			byObj[o] = append(byObj[o], j)
		}
		if e.With != rt.NoG {
			join(vc[slot(e.With)], c)
		}
		if e.Child != rt.NoG {
			copy(vc[slot(e.Child)], c)
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
}

func gidOf(slot, n int) rt.GID {
	if slot == n-1 {
		return rt.ClockID
	}
	return rt.GID(slot)
}

// candidates merges the per-object event lists of objs, in increasing order.
func candidates(byObj map[rt.ObjID][]int, objs []rt.ObjID) []int {
	switch len(objs) {
	case 0:
		return nil
	case 1:
		return byObj[objs[0]]
	}
	seen := map[int]bool{}
	var out []int
	for _, o := range objs {
		for _, i := range byObj[o] {
			if !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	slices.Sort(out)
	return out
}

func join(dst, src []int32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}
