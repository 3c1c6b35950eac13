package explorer

import (
	"fmt"
	"slices"

	"github.com/heddledbg/heddle/rt"
)

// JPF's race window (Havelund & Pressburger, "Model checking Java programs using Java
// PathFinder", §4.2, "race window"): a race that the lockset check warns about is taken to a
// model checker that explores only the threads involved, to see whether some order of the
// racing accesses makes the program fail. Here the threads are the goroutines of the two
// accesses and the others that accessed the variable, closed over the goroutines that wrote
// what they read and over those that spawned them (rt.Warning.Others, involved). The search is a depth-first search without reduction over
// their scheduling decisions (the accesses themselves are not scheduling points, so dpor,
// which does not see them, can order them only one way); every other goroutine takes the
// first alternative. A run that fails (an assertion, a panic, a deadlock) with the racing
// accesses flipped confirms the warning: the warning then says which failure the race leads to, and the
// failure is filed as a bug, found by "race-window", with a schedule that replays it.

// windowRuns bounds each warning's search.
const windowRuns = 2000

// raceWindows runs the race window of every lockset warning not confirmed yet, within the
// exploration's budget.
func (e *explorer) raceWindows() {
	for _, w := range e.rep.Warnings {
		if w.Kind == "lockset" && w.Confirmed == "" && !e.overBudget() {
			e.window(w)
		}
	}
}

// A windowFrame is a decision of the window search with its alternatives left to explore.
type windowFrame struct {
	index int     // the decision's index in the run
	alts  []int32 // picks still to try
}

func (e *explorer) window(w *Warning) {
	member := e.member
	e.member = "race-window"
	defer func() { e.member = member }()
	var stack []windowFrame
	var prefix []int32
	for runs := 0; runs < windowRuns && !e.overBudget(); runs++ {
		gd := &Guide{Bound: -1, Prefix: slices.Clone(prefix), noLog: true, Watch: w.positions[:]}
		res := e.once(gd)
		if confirms(res, w.positions) {
			w.Confirmed = "this race makes " + failure(res)
			return
		}
		if res.Verdict.Kind == rt.VerdictStopped {
			return
		}
		for i := len(prefix); i < len(res.Decisions); i++ {
			if alts := windowAlts(res, i, w.Goroutines); len(alts) > 0 {
				stack = append(stack, windowFrame{index: i, alts: alts})
			}
		}
		for len(stack) > 0 && len(stack[len(stack)-1].alts) == 0 {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return
		}
		top := &stack[len(stack)-1]
		prefix = prefix[:0]
		for _, d := range res.Decisions[:top.index] {
			prefix = append(prefix, d.Pick)
		}
		prefix = append(prefix, top.alts[0])
		top.alts = top.alts[1:]
	}
}

// windowAlts returns the picks other than the one taken at decision i of res that the window
// search explores: those of the involved goroutines.
func windowAlts(res *rt.Result, i int, involved []string) []int32 {
	d := &res.Decisions[i]
	var alts []int32
	switch d.Kind {
	case rt.DecideGoroutine, rt.DecideWake:
		for _, a := range d.Alts {
			if a != d.Pick && slices.Contains(involved, res.Name(rt.GID(a))) {
				alts = append(alts, a)
			}
		}
	default:
		// A select case or a chosen value, of the goroutine whose step follows.
		if int(d.Step) < len(res.Events) && slices.Contains(involved, res.Name(res.Events[d.Step].G)) {
			for _, a := range d.Alts {
				if a != d.Pick {
					alts = append(alts, a)
				}
			}
		}
	}
	return alts
}

// confirms reports whether run res failed, otherwise than by the race itself, with the racing
// accesses flipped: the later access of the warning (pos[1]) came first, or alone. Two
// accesses at one position (two goroutines running the same code) have no order to flip: a
// failure of a run that reached them confirms.
func confirms(res *rt.Result, pos [2]string) bool {
	k := res.Verdict.Kind
	if !k.Bug() || k == rt.VerdictRace || len(res.Watched) == 0 {
		return false
	}
	return res.Watched[0] == pos[1]
}

// failure names the failure of run res for a confirmed warning.
func failure(res *rt.Result) string {
	return fmt.Sprintf("the test fail (%s: %s)", res.Verdict.Kind, res.Verdict.Message)
}
