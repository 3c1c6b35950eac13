package suite

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/heddledbg/heddle/explorer"
)

// defaultBudget is -budget's default: at most ten minutes for the whole run, and at most a
// minute for any one test. A run of a few tests gives each the minute it had when the
// budget was per test; a module of a few hundred tests ends within the ten minutes that a CI
// job can wait, rather than within hours (docs/budget.md).
const defaultBudget = explorer.DefaultBudget

// budgetSpec is -budget (explorer.TestBudget): per test, a number of runs and a duration;
// with total, a duration for the whole run that the allocator divides among the tests, each
// getting no more than time (when set) in one exploration.
type budgetSpec struct {
	runs  int
	time  time.Duration
	total time.Duration
}

// parseBudget reads -budget, as Explore from Here reads it.
func parseBudget(s string) (budgetSpec, error) {
	b, err := explorer.ParseTestBudget(s)
	return budgetSpec{runs: b.Runs, time: b.Time, total: b.Total}, err
}

// The allocator divides a total budget among the tests of a run, in two passes. The first
// pass explores every test once, so that every test gets a verdict: it has half the total,
// each test an equal share of it. A search that completes early releases the rest of its
// share to the second pass, where it goes to the searches that need it, rather than to the
// first budgets of the tests that happen to come after it. The second pass gives the time
// left to the searches that neither completed nor found a bug, most to those that were still
// finding new schedules at the end of their first pass: a test's weight is its novelty, the
// share of its schedule tree built in the second half of its first exploration, plus a floor.
// A search cannot be resumed across processes, so extra time explores the test again, from
// the start: the same seed makes the same first runs, and the exploration goes on past them.
// It is given only when it at least doubles the test's first budget; less would mostly
// repeat it.
const (
	// minFirst is the least first budget: what a test's first runs need to start, so that it
	// gets a verdict however small the total is.
	minFirst = 100 * time.Millisecond
	// floorWeight is the weight of a search that found nothing new in the second half of its
	// first pass: it still gets some of the time left, an eleventh of what a search whose tree
	// grew evenly (novelty 0.5) gets.
	floorWeight = 0.05
	// unknownNovelty is the novelty of a search that builds no schedule tree (the samplers,
	// random and pct): nothing tells whether its runs were new.
	unknownNovelty = 0.5
)

// allocator holds the total budget and what each test was given and used. Tests are
// explored lanes at a time, so the run has lanes times the total to give: the time of a lane.
type allocator struct {
	total   time.Duration
	perTest time.Duration        // the most one exploration gets; 0: no bound but the total
	lanes   int                  // explorations at a time
	now     func() time.Duration // time since the run began
	// committed is the budgets of the explorations under way, which the time left does not
	// count yet.
	committed time.Duration
	tests     []*allotment
	// overhead and measured add up, over the explorations so far, the time spent outside
	// the searches (starting processes, replaying bugs, writing reports).
	overhead time.Duration
	measured int
	// queue holds the second pass's tests still to serve; dropped those that left it with no
	// extra time, still to report.
	queue, dropped []*allotment
}

// An allotment is what one test was given and how its search went.
type allotment struct {
	pkg, test string
	first     time.Duration // the first pass's budget
	extra     time.Duration // the budget of the exploration of the second pass, 0 if none
	used      time.Duration // wall time of its explorations, overhead included
	firstUsed time.Duration // wall time of its first exploration
	runs      int           // runs of its last exploration
	complete  bool          // the search completed
	final     bool          // its verdict cannot change with more time: a bug, unexplorable
	novelty   float64
	reason    string // why it got extra time or none, for -v
}

// pass is what the allocator learns from one exploration of a test.
type pass struct {
	wall     time.Duration // the exploration, overhead included
	searched time.Duration // the search alone, as the worker measured it
	runs     int
	complete bool
	final    bool
	samples  []sample
}

// sample is a search's progress at a moment: its schedule tree's decision nodes and distinct
// bugs so far.
type sample struct {
	at        time.Duration
	decisions int
	bugs      int
}

// novelty is the share of the new states a search found in the second half of its time:
// decision nodes of its schedule tree (each a schedule prefix no earlier run took), or 1 if
// it found a new bug then.
func novelty(ss []sample, end time.Duration) float64 {
	if len(ss) == 0 {
		return unknownNovelty
	}
	last := ss[len(ss)-1]
	var mid sample
	for _, s := range ss {
		if s.at <= end/2 {
			mid = s
		}
	}
	switch {
	case last.bugs > mid.bugs:
		return 1
	case last.decisions == 0:
		return unknownNovelty
	}
	return float64(last.decisions-mid.decisions) / float64(last.decisions)
}

func newAllocator(total, perTest time.Duration, lanes int, now func() time.Duration) *allocator {
	return &allocator{total: total, perTest: perTest, lanes: max(lanes, 1), now: now}
}

// add registers a test, in the order of the first pass.
func (a *allocator) add(pkg, test string) *allotment {
	t := &allotment{pkg: pkg, test: test}
	a.tests = append(a.tests, t)
	return t
}

// wall is the time left of the total: what one exploration can take at most.
func (a *allocator) wall() time.Duration { return max(0, a.total-a.now()) }

// left is the lanes' time left, less what the explorations under way were given.
func (a *allocator) left() time.Duration {
	return max(0, time.Duration(a.lanes)*a.wall()-a.committed)
}

// perExploration is the time one exploration is expected to take outside its search.
func (a *allocator) perExploration() time.Duration {
	if a.measured == 0 {
		return 0
	}
	return a.overhead / time.Duration(a.measured)
}

// firstBudget is the budget of t's first exploration, when waiting tests, t included, are
// still to be explored in the first pass.
func (a *allocator) firstBudget(t *allotment, waiting int) time.Duration {
	each := a.left()/time.Duration(max(waiting, 1)) - a.perExploration()
	d := min(time.Duration(a.lanes)*a.total/2/time.Duration(len(a.tests))-a.perExploration(), each)
	if a.perTest > 0 && each >= a.perTest {
		// Enough for every test's bound: the first pass is the only one.
		d = a.perTest
	}
	d = max(d, minFirst)
	if a.perTest > 0 {
		d = min(d, a.perTest)
	}
	t.first = d
	a.committed += d
	return d
}

// done records an exploration of t: the first pass's, or the second's when extra is set.
func (a *allocator) done(t *allotment, p pass) {
	if t.extra > 0 {
		a.committed -= t.extra
	} else {
		a.committed -= t.first
	}
	t.used += p.wall
	t.runs = p.runs
	t.complete, t.final = p.complete, p.final
	if p.wall > p.searched {
		a.overhead += p.wall - p.searched
		a.measured++
	}
	if t.extra == 0 {
		t.firstUsed = p.wall
		t.novelty = novelty(p.samples, p.searched)
	}
	switch {
	case t.final:
		t.reason = "no extra time: its verdict is final (a bug, or the test cannot be explored)"
	case t.complete:
		t.reason = "search complete"
	case a.perTest > 0 && t.first >= a.perTest:
		t.reason = fmt.Sprintf("no extra time: the first pass gave it the most one test gets (time=%v)", a.perTest)
	}
}

// open reports whether more time could change t's search.
func (a *allocator) open(t *allotment) bool {
	return !t.final && !t.complete && (a.perTest == 0 || t.first < a.perTest)
}

// refuse takes back the extra time that next gave t, for reason.
func (a *allocator) refuse(t *allotment, reason string) {
	a.committed -= t.extra
	t.extra, t.reason = 0, reason
}

// weight is t's claim on the time left after the first pass.
func (t *allotment) weight() float64 { return floorWeight + t.novelty }

// startExtra begins the second pass: its queue holds the tests that more time could change,
// the most novel first, then in the first pass's order.
func (a *allocator) startExtra() {
	a.queue = nil
	for _, t := range a.tests {
		if a.open(t) && t.extra == 0 {
			a.queue = append(a.queue, t)
		}
	}
	slices.SortStableFunc(a.queue, func(x, y *allotment) int { return cmp.Compare(y.novelty, x.novelty) })
}

// next is the second pass's next test and the budget of its second exploration, 0 for none;
// ok is false once the pass is over. The queue shares the time left in proportion to its
// tests' weights, less the overhead of an exploration each, so that time that a completed
// search did not use goes to those after it. When the first test's share would not double
// its first budget, the least novel test leaves the queue, and its share goes to the others.
func (a *allocator) next() (t *allotment, budget time.Duration, ok bool) {
	if len(a.dropped) > 0 {
		t, a.dropped = a.dropped[0], a.dropped[1:]
		return t, 0, true
	}
	for len(a.queue) > 0 {
		t = a.queue[0]
		if all := min(a.left(), a.wall()) - a.perExploration(); all < 2*t.first {
			// Not even the whole of what is left would double its first budget.
			a.queue = a.queue[1:]
			t.reason = fmt.Sprintf("no extra time: what is left of the total (%v) would not double its first budget", max(all, 0).Round(time.Millisecond))
			return t, 0, true
		}
		var w float64
		for _, x := range a.queue {
			w += x.weight()
		}
		d := time.Duration(float64(a.left())*t.weight()/w) - a.perExploration()
		d = min(d, a.wall()-a.perExploration())
		if a.perTest > 0 {
			d = min(d, a.perTest)
		}
		if d >= 2*t.first {
			a.queue = a.queue[1:]
			t.extra = d
			a.committed += d
			return t, d, true
		}
		if len(a.queue) == 1 || a.perTest > 0 && a.perTest < 2*t.first {
			a.queue = a.queue[1:]
			t.reason = fmt.Sprintf("no extra time: its share of the time left (%v) would not double its first budget", max(d, 0).Round(time.Millisecond))
			return t, 0, true
		}
		last := a.queue[len(a.queue)-1]
		a.queue = a.queue[:len(a.queue)-1]
		last.reason = "no extra time: the time left went to searches that were finding more new schedules"
		a.dropped = append(a.dropped, last)
	}
	if len(a.dropped) > 0 {
		return a.next()
	}
	return nil, 0, false
}

// why is the line -v prints on how t's time was given.
func (t *allotment) why() string {
	s := fmt.Sprintf("budget: first pass %v", t.first.Round(time.Millisecond))
	if t.extra > 0 {
		s += fmt.Sprintf(", then extra time: explored again with %v (its search was still finding new schedules: %.0f%% of its schedule tree in the second half of the first pass)", t.extra.Round(time.Millisecond), 100*t.novelty)
		if t.complete {
			s += ", search complete"
		}
	} else if t.reason != "" {
		s += "; " + t.reason
	}
	return s + fmt.Sprintf("; %v used", t.used.Round(time.Millisecond))
}

// summary is the line -v prints at the end of a run with a total budget.
func (a *allocator) summary() string {
	var firstUsed, extraUsed time.Duration
	complete, extra, stopped, final := 0, 0, 0, 0
	for _, t := range a.tests {
		firstUsed += t.firstUsed
		if t.extra > 0 {
			extra++
			extraUsed += t.used - t.firstUsed
		}
		switch {
		case t.final:
			final++
		case t.complete:
			complete++
		default:
			stopped++
		}
	}
	return fmt.Sprintf("budget total=%v: %s in %v, %s at a time; first pass %v, extra time to %s %v (explorations' time, summed); %d complete, %d with a final verdict (bug or unexplorable), %d stopped by the budget",
		a.total, plural(len(a.tests), "test"), a.now().Round(100*time.Millisecond), plural(a.lanes, "test"), firstUsed.Round(100*time.Millisecond),
		plural(extra, "test"), extraUsed.Round(100*time.Millisecond), complete, final, stopped)
}
