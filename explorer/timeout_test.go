package explorer

import (
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// withinTimeout is a guard of a worker's result by a timeout, as Go code writes it: the worker
// sends its result on ch, made with capacity buffered, and the caller waits for it or for the
// timer. With failOnTimeout, the caller's timeout branch fails the test, as t.Fatal does.
func withinTimeout(buffered int, failOnTimeout bool, other time.Duration) func() {
	return func() {
		var mu rt.Mutex
		work := 0
		if other > 0 {
			// A timer nobody's work races with: the worker's own, which it stops.
			rt.Go(func() {
				t := rt.NewTimer(other)
				t.Stop()
			})
		}
		ch := rt.MakeChan[int](buffered)
		rt.Go(func() {
			for range 3 {
				mu.Lock()
				work++
				mu.Unlock()
			}
			rt.Send(ch, work)
		})
		timeout := rt.After(500 * time.Millisecond) // the line the timing names
		switch i, _, _ := rt.Select(false, rt.RecvCase(ch), rt.RecvCase(timeout)); {
		case i == 1 && failOnTimeout:
			rt.Fail(rt.VerdictAssert, "timed out", true)
		}
	}
}

// failedThenStuck is a test that fails in the branch of its timeout (t.Fatal, which the harness
// reports with rt.TestFailed) while it holds the lock its worker needs, and whose cleanup then
// waits for the worker: the deadlock is the failure's consequence, as in yamux's
// TestPing_Timeout, whose cleanup waits on a connection the failed test still blocks.
func failedThenStuck() {
	var blocker rt.Mutex
	ch := rt.MakeChan[int](0)
	rt.Go(func() {
		for range 3 {
			blocker.Lock()
			blocker.Unlock()
		}
		rt.Send(ch, 1)
	})
	timeout := rt.After(500 * time.Millisecond)
	if i, _, _ := rt.Select(false, rt.RecvCase(ch), rt.RecvCase(timeout)); i == 1 {
		blocker.Lock()
		rt.TestFailed()
		rt.Recv(ch)
	}
}

// TestTimeoutSearch: the timeout search asks, timeout by timeout, what if the timer fires
// before the work it waits for, and reports only what that breaks outside the timeout's own
// branch. Under the default time a 500 ms timeout never beats three lock steps, so the main
// search alone finds nothing.
func TestTimeoutSearch(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func()
		// kind is the bug expected, or "" for none; timing the start of its timing line.
		kind   rt.VerdictKind
		timing string
		// timeouts is how many timer sites the search asked about.
		timeouts int
	}{
		{"unbuffered", withinTimeout(0, false, 0), rt.VerdictLeak,
			"if the timer of 500ms set at timeout_test.go:34 fires before G1.1 reaches timeout_test.go:32, G1.1 blocks there forever", 1},
		{"buffered", withinTimeout(1, false, 0), rt.VerdictOK, "", 1},
		// The test's own handling of its timeout is not a bug.
		{"timeout branch fails", withinTimeout(1, true, 0), rt.VerdictOK, "", 1},
		// Nor is what follows once the test has failed.
		{"cleanup of a failed test", failedThenStuck, rt.VerdictOK, "", 1},
		{"another timer", withinTimeout(0, false, time.Millisecond), rt.VerdictLeak,
			"if the timer of 500ms set at timeout_test.go:34 fires before G1.2 reaches timeout_test.go:32, G1.2 blocks there forever", 2},
		// A timer of a second or more is not asked about (rt's timeoutLongest).
		{"a long timer", withinTimeout(0, false, time.Hour), rt.VerdictLeak,
			"if the timer of 500ms set at timeout_test.go:34 fires before G1.2 reaches timeout_test.go:32, G1.2 blocks there forever", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Explore(tc.body, Options{Strategy: "dpor", MaxRuns: 1000, Seed: 1})
			if r.Stats.Timeouts != tc.timeouts {
				t.Errorf("the timeout search asked about %d timeouts in %d runs, want %d", r.Stats.Timeouts, r.Stats.TimeoutRuns, tc.timeouts)
			}
			if tc.kind == rt.VerdictOK {
				if len(r.Bugs) > 0 {
					t.Fatalf("found %s: %s\n%s", r.Bugs[0].Kind, r.Bugs[0].Message, strings.Join(r.Bugs[0].Result.Verdict.Timing, "\n"))
				}
				return
			}
			if len(r.Bugs) != 1 || r.Bugs[0].Kind != tc.kind {
				t.Fatalf("bugs %v, want one %s", bugKinds(r.Bugs), tc.kind)
			}
			b := r.Bugs[0]
			timing := strings.Join(b.Result.Verdict.Timing, "\n")
			if !strings.HasPrefix(timing, tc.timing) {
				t.Errorf("timing %q, want it to start %q", timing, tc.timing)
			}
			// The bug replays, with the timeout it asked about.
			for range 20 {
				gd := scheduleGuide(b.Schedule)
				gd.Timeout = b.timeout
				res := RunGuided(Body(tc.body), gd, Options{}, false)
				if res.Verdict.Kind != tc.kind {
					t.Fatalf("replay: %s: %s", res.Verdict.Kind, res.Verdict.Message)
				}
			}
		})
	}
}

func bugKinds(bugs []*Bug) []rt.VerdictKind {
	var out []rt.VerdictKind
	for _, b := range bugs {
		out = append(out, b.Kind)
	}
	return out
}
