package explorer_test

import (
	"testing"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/corpus"
	"github.com/heddledbg/heddle/rt"
)

// TestSpinTerminates checks that every correct spin-wait of the corpus terminates under every
// strategy: fair scheduling makes a spinning goroutine let the one it waits for run, whatever
// the strategy prefers, so no run is cut at the step bound or reported as a livelock.
func TestSpinTerminates(t *testing.T) {
	for _, name := range []string{"SpinBackoff", "SpinGosched", "SpinLoad", "SpinSelectDefault", "SpinTryLock"} {
		p, ok := corpus.Lookup(name)
		if !ok {
			t.Fatalf("%s is not in the corpus", name)
		}
		for _, s := range explorer.Strategies {
			t.Run(name+"/"+s.String(), func(t *testing.T) {
				// A bound well below the default makes a run that spins without end cost little,
				// and still leaves a thousand times the steps a fair run needs.
				rep := explorer.Explore(p.Body, explorer.Options{Strategy: s, MaxRuns: 300, MaxTime: corpusBudget, MaxSteps: 20_000})
				if rep.Stats.Runs == 0 {
					t.Fatal("no run")
				}
				for _, b := range rep.Bugs {
					t.Errorf("%s bug %q in %d runs", b.Kind, b.Message, rep.Stats.Runs)
				}
				if rep.Stats.Cut > 0 {
					t.Errorf("%d of %d runs cut at the step bound", rep.Stats.Cut, rep.Stats.Runs)
				}
			})
		}
	}
}

// TestCutIsNotABug checks that a run that reaches the step bound while working is cut and
// counted, not reported.
func TestCutIsNotABug(t *testing.T) {
	body := func() {
		var mu rt.Mutex
		done := rt.MakeChan[struct{}](0)
		for range 2 {
			rt.Go(func() {
				for range 1000 {
					mu.Lock()
					mu.Unlock()
				}
				rt.Send(done, struct{}{})
			})
		}
		rt.Recv(done)
		rt.Recv(done)
	}
	rep := explorer.Explore(body, explorer.Options{Strategy: "random", MaxRuns: 5, MaxSteps: 500})
	if len(rep.Bugs) > 0 {
		t.Errorf("bugs %v, want none", kinds(rep))
	}
	if rep.Stats.Cut != 5 || rep.Stats.Runs != 5 {
		t.Errorf("%d of %d runs cut, want 5 of 5", rep.Stats.Cut, rep.Stats.Runs)
	}
}

// TestBudgetStopsRun checks that the time budget bounds a run, not only the number of runs:
// a run that works without end is stopped, the first not before FirstRunLimit past the start
// (a first run that ends by then gives the test a verdict); it is neither a bug nor a cut run,
// the statistics count it stopped, and the search is not complete.
func TestBudgetStopsRun(t *testing.T) {
	const budget = 100 * time.Millisecond
	for _, s := range []explorer.Strategy{"portfolio", "dpor", "random"} {
		rep := explorer.Explore(func() {
			var mu rt.Mutex
			for {
				mu.Lock()
				mu.Unlock()
			}
		}, explorer.Options{Strategy: s, MaxTime: budget, MaxSteps: 1 << 40})
		st := rep.Stats
		if st.Runs != 1 || st.Stopped != 1 || st.Cut != 0 || st.Bugs != 0 || st.Complete {
			t.Errorf("%s: %d runs, %d stopped, %d cut, %d bugs, complete %v; want one stopped run, no bug, incomplete", s, st.Runs, st.Stopped, st.Cut, st.Bugs, st.Complete)
		}
		if st.Elapsed < explorer.FirstRunLimit(budget) {
			t.Errorf("%s: the first run stopped after %v, before the first run's limit of %v", s, st.Elapsed, explorer.FirstRunLimit(budget))
		}
	}
}

func TestFirstRunLimit(t *testing.T) {
	for _, tc := range []struct{ budget, want time.Duration }{
		{time.Second, 10 * time.Second},
		{5 * time.Second, 50 * time.Second},
		{time.Minute, 2 * time.Minute},
		{5 * time.Minute, 5 * time.Minute}, // never less than the budget
	} {
		if got := explorer.FirstRunLimit(tc.budget); got != tc.want {
			t.Errorf("FirstRunLimit(%v) = %v, want %v", tc.budget, got, tc.want)
		}
	}
}

// TestLockTreesBounded: a goroutine that holds thousands of locks at once makes the lock trees'
// analysis quadratic; the trees of its run are those of its beginning, and the run ends.
func TestLockTreesBounded(t *testing.T) {
	const n = 1000 // 500,500 locks held at an acquisition, summed: past maxLockWork
	rep := explorer.Explore(func() {
		mus := make([]rt.Mutex, n)
		for i := range mus {
			mus[i].Lock()
		}
		for i := range mus {
			mus[i].Unlock()
		}
	}, explorer.Options{Strategy: "random", MaxRuns: 1})
	if rep.Err != nil || len(rep.LockTrees.Trees) != 1 {
		t.Fatalf("err %v, %d trees; want one tree", rep.Err, len(rep.LockTrees.Trees))
	}
	depth := 0
	for n := rep.LockTrees.Trees[0].Root; len(n.Children) > 0; n = n.Children[0] {
		depth++
	}
	if depth == 0 || depth >= n {
		t.Errorf("the tree is %d locks deep, want the beginning of the %d nested locks", depth, n)
	}
}
