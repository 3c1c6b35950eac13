package explorer

import (
	"slices"

	"github.com/heddledbg/heddle/rt"
)

// dpor is the strategy dpor-sleep: dynamic partial-order reduction with sleep sets (Flanagan
// and Godefroid, POPL 2005, Fig. 4, in its stateless form), kept for comparison with optimal
// DPOR (optimal.go). A node starts with only the alternative the run took; after
// each run, every pair of dependent steps of different goroutines that are not ordered by
// happens-before (a race) adds the later goroutine to the backtrack set of the node before the
// earlier step, so that the reversed order is explored too. Sleep sets (Godefroid) then prune
// the orders that differ only by commuting independent steps.
type dpor struct{}

func (dpor) initial(*node, *rt.Result, int) {}
func (dpor) sleeping() bool                 { return true }

func (dpor) afterRun(t *tree, res *rt.Result) {
	if res.Verdict.Kind == rt.VerdictCut {
		forEachStarved(t, res, func(n *node, i int) { n.back[i] = true })
	}
	rf := raceFinder{deadline: t.deadline}
	defer t.absorbFinder(&rf)
	decision := stepDecisions(res.Events)
	rf.forEachRace(res, func(r race) {
		at, g := int(decision[r.early])-t.base, r.g
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
	if n, i := lateClock(t, res); n != nil && !asleepIn(n.sleep, rt.ClockID) {
		n.back[i] = true
	}
}

// lateClock handles a run that ended with timers due. The clock's next step would fire them,
// and what their callbacks and receivers then do is not known until they run, so no race
// names it: the clock is to be tried at the last decision that offered it, before the run's
// end. It returns that node and the clock's alternative there, or nil.
func lateClock(t *tree, res *rt.Result) (*node, int) {
	if len(res.Clock) == 0 {
		return nil, -1
	}
	for at := len(t.stack) - 1; at >= 0; at-- {
		n := t.stack[at]
		if n.kind != rt.DecideGoroutine {
			continue
		}
		if i := slices.IndexFunc(n.alts, func(a rt.Alt) bool { return a.G == rt.ClockID }); i >= 0 {
			if i == n.pick {
				return nil, -1 // the clock fired there, and set timers that are due only later
			}
			return n, i
		}
	}
	return nil, -1
}

// forEachStarved handles a run cut at the step bound. DPOR assumes runs end: the races of a
// goroutine that the run starved (it stayed enabled while others ran until the bound) are
// those of operations it never reached, so the run says nothing about them. Each goroutine
// still pending is to be tried at the first decision after its last step that offered it:
// f(n, i) is called for that node and the goroutine's alternative.
func forEachStarved(t *tree, res *rt.Result, f func(n *node, i int)) {
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
				f(n, i)
				break
			}
		}
	}
}

// stepDecisions maps each event to the decision that picked the step it belongs to, -1 if the
// step had no alternative. A step is its Start event and the events after it up to the next
// Start: its folded releases and what the partners it completed did on resuming, which happens
// before the next decision.
func stepDecisions(evs []rt.Event) []int32 {
	out := make([]int32, len(evs))
	d := int32(-1)
	for i := range evs {
		if evs[i].Start {
			d = evs[i].Decision
		}
		out[i] = d
	}
	return out
}
