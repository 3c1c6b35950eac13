package main

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestTotalBudget runs heddle test -budget total=D on a module whose tests complete, find
// bugs, or have more schedules than any budget explores: every test gets one verdict, the
// search that cannot complete gets the time that the others left, and the run ends within
// its total plus the build, as measured here and as heddle counts it.
func TestTotalBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	const total = 20 * time.Second
	began := time.Now()
	stdout, stderr, code := heddle(t, "testdata/mixed", "test", "-json", "-v", "-out", t.TempDir(), "-budget", "total="+total.String(), "./ok", "./many", "./slow")
	wall := time.Since(began)
	if code != exitBug {
		t.Fatalf("exit %d, want %d (./many has bugs)\n%s\n%s", code, exitBug, stdout, stderr)
	}
	m := regexp.MustCompile(`heddle: budget total=20s: 4 tests in ([0-9.]+)s, .*; the build took ([0-9.]+)s before it`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no summary line for 4 tests on standard error:\n%s", stderr)
	}
	spent, _ := strconv.ParseFloat(m[1], 64)
	build, _ := strconv.ParseFloat(m[2], 64)
	// The slack covers what neither the total nor the build counts: starting heddle, loading
	// the packages, and the last exploration's reports.
	const slack = 15 * time.Second
	if s := time.Duration(spent * float64(time.Second)); s > total+slack/2 {
		t.Errorf("heddle counts %v spent of a total of %v", s, total)
	}
	if limit := total + time.Duration(build*float64(time.Second)) + slack; wall > limit {
		t.Errorf("the run took %v, more than the total (%v), the build (%.1fs) and %v", wall, total, build, slack)
	}
	want := map[string]string{"TestCounter": "clean", "TestLostUpdate": "bug", "TestLeak": "bug", "TestManySchedules": "clean"}
	got := map[string]int{}
	for _, e := range events(t, stdout) {
		if e.Test == "" || e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
			continue
		}
		got[e.Test]++
		if e.Verdict != want[e.Test] {
			t.Errorf("%s: verdict %q, want %q", e.Test, e.Verdict, want[e.Test])
		}
		b := e.Budget
		if b == nil {
			t.Errorf("%s: no Budget field", e.Test)
			continue
		}
		switch e.Test {
		case "TestManySchedules":
			// Its search never completes and keeps finding new schedules: the time that the
			// others did not use goes to it.
			if b.Extra < 2*b.First {
				t.Errorf("%s: first %.2fs, extra %.2fs: want extra time, at least twice the first", e.Test, b.First, b.Extra)
			}
		default:
			if b.Extra != 0 {
				t.Errorf("%s: extra time %.2fs (%s), want none: its search completed or found a bug", e.Test, b.Extra, b.Reason)
			}
		}
	}
	for test := range want {
		if got[test] != 1 {
			t.Errorf("%s: %d verdicts, want 1\n%s", test, got[test], stdout)
		}
	}
	t.Logf("wall %v, build %.1fs, heddle's count %.1fs", wall.Round(100*time.Millisecond), build, spent)
}
