package explorer_test

import (
	"strings"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// stollerComposition is the example of Stoller §6 (STTT 2002): from s1, where the objects are
// initialised and every lock is free, thread θi takes its own lock o'i (ti,1), then o0 (ti,2),
// reads o and writes oi (ti,3), and releases o0 and o'i (ti,4, ti,5). The accesses to o and oi
// are reported as instrumented code reports them (rt.Load, rt.Store); the root initialises
// them before starting the threads, as in s1, and does not join them, as the paper's example
// does not. order records the order of the o0 critical sections for the test: it is the
// test's probe, not the program's data, so it is not reported. Each thread declares its
// allowedOps (rt.Declare), as a static analysis of its code would give them, for Algorithm
// 2-MLD.
func stollerComposition(order *[]string) func() {
	return func() {
		*order = (*order)[:0]
		var o0 rt.Mutex
		var own [2]rt.Mutex
		var o int
		var oi [2]int
		rt.Store(&o, 7, "o")
		for i := range oi {
			rt.Store(&oi[i], 0, "oi")
		}
		for i := range 2 {
			rt.Go(func() {
				rt.Declare(rt.Bound{}.Sync(&own[i], &o0).Reads(&o).Writes(&oi[i]))
				own[i].Lock()
				o0.Lock()
				oi[i] = rt.Store(&oi[i], *rt.Load(&o, "o"), "oi")
				*order = append(*order, []string{"θ1", "θ2"}[i])
				o0.Unlock()
				own[i].Unlock()
			})
		}
	}
}

// TestStollerComposition checks the number of orders of §6's critical sections that Stoller
// gives for each search. IF-SSS explores two: ti,2 and t2,2 are dependent in s3. SSS applied
// to the composed system C(S) explores one, s1 →t1,1 s2 →t2,1 s3 →w1 s4 →w2 s6, "or a symmetric
// variant": wi = ti,2 … ti,5 is one step in heddle (rt folds the releases into the step of the
// acquisition), and by eq. (4) w1 and w2 are independent, since each does exactly an acquire
// and a release of o0 and their accesses only share the read of o. The stoller strategy is
// SSS on C(S): one complete run (heddle's depth-first order runs θ2 first, the symmetric
// variant). Its sleep sets abandon the two runs that start the other orders (the other thread
// first at s1, and at s2). With persistent sets by Algorithm 2-MLD (stoller-ps), s1 and s2
// each have a persistent set of one thread (its own lock and unshared data), and only the run
// that starts the other order at s3 is abandoned: 2-MLD relates operations, and the two
// acquisitions of o0 are dependent in s3 (Fig. 3), so the paper's "optimal" set {w1} is what
// eq. (4) on whole steps gives, through the sleep set.
func TestStollerComposition(t *testing.T) {
	var order []string
	orders := map[string]int{}
	explore := func(opts explorer.Options) *explorer.Report {
		clear(orders)
		aborted := 0
		opts.Progress = func(s *record.Stats) {
			if s.Aborted > aborted {
				aborted = s.Aborted
				return
			}
			orders[strings.Join(order, " ")]++
		}
		rep := explorer.Explore(stollerComposition(&order), opts)
		if !rep.Stats.Complete {
			t.Fatalf("%s did not complete", opts.Strategy)
		}
		t.Logf("%s: %d runs (%d aborted, %d pruned by persistent sets), orders of the o0 sections %v", opts.Strategy, rep.Stats.Runs, rep.Stats.Aborted, rep.Stats.PrunedPersistent, orders)
		return rep
	}
	for _, tc := range []struct {
		strategy explorer.Strategy
		aborted  int
	}{{"stoller", 2}, {"stoller-ps", 1}} {
		rep := explore(explorer.Options{Strategy: tc.strategy})
		if len(orders) != 1 || rep.Stats.Runs-rep.Stats.Aborted != 1 {
			t.Errorf("%s: orders of the o0 critical sections %v, want one order, once (SSS on C(S), Stoller §6)", tc.strategy, orders)
		}
		if rep.Stats.Aborted != tc.aborted {
			t.Errorf("%s: %d aborted runs, want %d", tc.strategy, rep.Stats.Aborted, tc.aborted)
		}
	}

	// Without the accesses (the lockset check off), the stoller search has no footprints and
	// is IF-SSS with rt.Dependent: both orders, as the paper says of IF-SSS.
	explore(explorer.Options{Strategy: "stoller", IgnoreAccesses: true})
	if len(orders) != 2 || orders["θ1 θ2"] == 0 || orders["θ2 θ1"] == 0 {
		t.Errorf("IF-SSS: orders of the o0 critical sections %v, want θ1 θ2 and θ2 θ1 (Stoller §6)", orders)
	}
}

// stollerHold is the case where eq. (4) is not an independence in Godefroid's sense: θ1's
// step locks and unlocks l, so by eq. (4) it is independent of θ2's acquisition of l, but
// θ2 keeps l while it waits to receive from θ1, which then blocks on l: a deadlock that only
// the order θ2 first reaches. Sleep sets keep it (θ1, asleep, is blocked, and the run ends in
// the deadlock); a persistent set {θ1} justified by eq. (4) would lose it. The fixed θ2
// receives after releasing l.
func stollerHold(bug bool) func() {
	return func() {
		var l rt.Mutex
		c := rt.MakeChan[int](0)
		var x int
		rt.Go(func() {
			rt.Declare(rt.Bound{}.Sync(&l, c))
			l.Lock()
			l.Unlock()
			rt.Send(c, 1)
		})
		rt.Declare(rt.Bound{}.Sync(&l, c).Writes(&x))
		l.Lock()
		if bug {
			x = rt.Store(&x, rt.Recv(c), "x")
			l.Unlock()
		} else {
			l.Unlock()
			x = rt.Store(&x, rt.Recv(c), "x")
		}
	}
}

func TestStollerHold(t *testing.T) {
	for _, strategy := range []explorer.Strategy{"stoller", "stoller-ps"} {
		for _, bug := range []bool{true, false} {
			rep := explorer.Explore(stollerHold(bug), explorer.Options{Strategy: strategy})
			found := false
			for _, b := range rep.Bugs {
				found = found || b.Kind == rt.VerdictDeadlock
			}
			if !rep.Stats.Complete || found != bug {
				t.Errorf("%s, bug=%v: deadlock found %v in %d runs (complete=%v)", strategy, bug, found, rep.Stats.Runs, rep.Stats.Complete)
			}
		}
	}
}
