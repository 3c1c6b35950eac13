package explorer_test

import (
	"strings"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/rt"
)

// leakOne leaks one of three senders; which one depends on the schedule.
func leakOne() {
	ch := rt.MakeChan[int](0)
	for i := 0; i < 3; i++ {
		rt.Go(func() { rt.Send(ch, i) })
	}
	rt.Recv(ch)
	rt.Recv(ch)
}

// lostUpdate loses increments; the failure message names the count, which varies.
func lostUpdate() {
	var mu rt.Mutex
	var wg rt.WaitGroup
	n := 0
	for i := 0; i < 3; i++ {
		wg.Add(1)
		rt.Go(func() {
			defer wg.Done()
			mu.Lock()
			v := n
			mu.Unlock()
			mu.Lock()
			n = v + 1
			mu.Unlock()
		})
	}
	wg.Wait()
	if n != 3 {
		panic("lost update: n = " + string(rune('0'+n)))
	}
}

// failedTest fails as a test does through the harness, with a message per line whose words
// depend on the schedule: which goroutine's update survived.
func failedTest() {
	var mu rt.Mutex
	var wg rt.WaitGroup
	last := ""
	for _, name := range []string{"first", "second"} {
		wg.Add(1)
		rt.Go(func() {
			defer wg.Done()
			mu.Lock()
			last = name
			mu.Unlock()
		})
	}
	wg.Wait()
	rt.Fail(rt.VerdictFatal, "test failed:\n    report_test.go:60: the "+last+" update won\n    report_test.go:61: want neither", false)
}

// TestOneBugPerSignature checks that runs which hit the same bug with other goroutines,
// other values in the message, or other schedules are one bug, with a count of its runs and
// a simplest schedule.
func TestOneBugPerSignature(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func()
		kind rt.VerdictKind
	}{
		{"leak by any sender", leakOne, rt.VerdictLeak},
		{"panic with any count", lostUpdate, rt.VerdictPanic},
		{"test failure with any words", failedTest, rt.VerdictFatal},
	} {
		for _, strategy := range []explorer.Strategy{"dpor", "random"} {
			t.Run(tc.name+"/"+strategy.String(), func(t *testing.T) {
				rep := explorer.Explore(tc.body, explorer.Options{Strategy: strategy, MaxRuns: 300, MaxTime: corpusBudget})
				if len(rep.Bugs) != 1 {
					t.Fatalf("%d bugs, want 1: %v", len(rep.Bugs), kinds(rep))
				}
				b := rep.Bugs[0]
				if b.Kind != tc.kind || b.Hits < 2 || b.Hits != rep.Stats.BuggyRuns {
					t.Errorf("bug %s hit by %d of %d buggy runs, want one %s bug hit by all of them", b.Kind, b.Hits, rep.Stats.BuggyRuns, tc.kind)
				}
				if b.Result == nil || b.Result.Verdict.Kind != tc.kind {
					t.Errorf("no detailed run of the bug's schedule")
				}
				if !strings.Contains(b.Key, "report_test.go:") {
					t.Errorf("key %q names no source position", b.Key)
				}
			})
		}
	}
}

// TestDivergenceSkipped checks that runs whose schedule does not replay (here, the program
// starts a goroutine on one run in three only) are counted and placed, are not reported as
// bugs, and do not stop the search, which still finds the program's real bug.
func TestDivergenceSkipped(t *testing.T) {
	calls := 0
	body := func() {
		calls++
		if calls%3 == 0 {
			rt.Go(func() {})
		}
		leakOne()
	}
	rep := explorer.Explore(body, explorer.Options{MaxTime: corpusBudget})
	if rep.Stats.Diverged == 0 {
		t.Fatalf("no diverged run in %d runs", rep.Stats.Runs)
	}
	if !strings.HasPrefix(rep.Divergence, "decision ") || !strings.Contains(rep.Divergence, "report_test.go:") && !strings.Contains(rep.Divergence, ", after G") {
		t.Errorf("divergence %q does not say which decision and where", rep.Divergence)
	}
	for _, b := range rep.Bugs {
		if b.Kind != rt.VerdictLeak {
			t.Errorf("unexpected %s bug: %s", b.Kind, b.Message)
		}
	}
	if len(rep.Bugs) != 1 {
		t.Errorf("bugs %v, want the leak", kinds(rep))
	}
	if !rep.Stats.Complete || rep.Stats.Runs <= rep.Stats.Diverged+1 {
		t.Errorf("search stopped: %d runs, %d diverged, complete %v", rep.Stats.Runs, rep.Stats.Diverged, rep.Stats.Complete)
	}
}
