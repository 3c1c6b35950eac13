package main

import (
	"cmp"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/record"
)

// TestUnexplorableSubtest checks that a subtest that heddle cannot explore (it fails on an
// allocation count, which under heddle holds heddle's own, or dials outside the process) is
// skipped with heddle's reason, while the test's other subtests are explored: the deadlock of
// the bug package's lockorder subtest is found (exit 1) and its trace replays with the subtest
// left out again, the clean packages' tests pass (exit 0), in one process or with a fresh
// process per run, each test's exploration file lists the subtest among its skips and is not
// the whole test's unexplorable verdict, and the subtest is named as go test -v names it, in
// go test's order. A subtest found unexplorable by a later run, after the worker streamed the
// tree, is left out as well: the exploration starts again, and its tree is the new one's.
func TestUnexplorableSubtest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	const dir = "testdata/subtests"
	const allocs = "heddle: cannot be explored: the test failed after it measured allocations with testing.AllocsPerRun"
	const dial = "heddle: cannot be explored: dials 192.0.2.1:1 outside the process"
	for _, tc := range []struct {
		name, pkg string
		flags     []string
		code      int
		sub       string   // the subtest left out
		reason    string   // the start of its log
		bugs      []string // the kinds of the bugs found
		// deadlocked is the subtest that deadlocks, which go test -v cannot run to its end: it
		// is left out of the comparison of the names.
		deadlocked string
		// subG is a goroutine that only the subtest left out starts: the tree must not show it.
		subG string
	}{
		{"bug", "bug", nil, exitBug, "TestSubtests/allocs", allocs, []string{"deadlock"}, "TestSubtests/lockorder", ""},
		{"clean", "clean", nil, exitOK, "TestSubtests/allocs", allocs, nil, "", ""},
		{"dial", "dial", nil, exitOK, "TestSubtests/server", dial, nil, "", ""},
		// A fresh process per run: the controller explores, and leaves the subtest out.
		{"dial-isolate", "dial", []string{"-isolate"}, exitOK, "TestSubtests/server", dial, nil, "", ""},
		// Found by a later run, after the tree was streamed: the exploration starts again, and
		// the tree is the new one's.
		{"late", "late", nil, exitOK, "TestSubtests/server", dial, nil, "", "G1.3"},
		{"late-isolate", "late", []string{"-isolate"}, exitOK, "TestSubtests/server", dial, nil, "", "G1.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The names go test gives the tests and subtests, in its order. The bug package's
			// deadlock could hang go test: the clean one has the same subtests but the
			// deadlocked one.
			gopkg := cmp.Or(map[string]string{"bug": "clean"}[tc.pkg], tc.pkg)
			gocmd := exec.Command("go", "test", "-v", "-count=1", "./"+gopkg)
			gocmd.Dir = dir
			goOut, err := gocmd.Output()
			if err != nil {
				t.Fatalf("go test -v: %v\n%s", err, goOut)
			}
			goRuns := lineNames(string(goOut), "=== RUN   ")
			if !slices.Contains(goRuns, tc.sub) {
				t.Fatalf("go test -v runs %q, without %s", goRuns, tc.sub)
			}
			out := t.TempDir()
			stdout, stderr, code := heddle(t, dir, append(append([]string{"test", "-v", "-out", out}, tc.flags...), "./"+tc.pkg)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			if skips := lineNames(stdout, "    --- SKIP: "); !slices.Equal(skips, []string{tc.sub}) {
				t.Errorf("heddle test skips %q, want only %s\n%s", skips, tc.sub, stdout)
			}
			if !strings.Contains(stdout, "=== RUN   "+tc.sub+"\n    "+tc.reason) {
				t.Errorf("no %q under === RUN   %s\n%s", tc.reason, tc.sub, stdout)
			}
			// Every test and subtest that heddle names, go test names, in the same order.
			runs := slices.DeleteFunc(lineNames(stdout, "=== RUN   "), func(s string) bool { return s == tc.deadlocked })
			if !isSubsequence(runs, goRuns) {
				t.Errorf("heddle test runs %q, not in go test's %q", runs, goRuns)
			}
			// Each subtest has its result under the test, as go test -v gives it: the
			// deadlocked one failed.
			results := subtestResults.FindAllStringSubmatch(stdout, -1)
			if want := slices.DeleteFunc(slices.Clone(goRuns[1:]), func(s string) bool { return s == tc.deadlocked }); !isSubsequence(want, submatches(results)) {
				t.Errorf("heddle test gives results for %q, want %q", results, want)
			}
			if tc.deadlocked != "" && !strings.Contains(stdout, "\n    --- FAIL: "+tc.deadlocked+" (") {
				t.Errorf("no FAIL line for %s\n%s", tc.deadlocked, stdout)
			}
			path := filepath.Join(record.TestDir(out, "example.com/subtests/"+tc.pkg, "TestSubtests"), record.ExplorationFile)
			v, err := record.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			e, ok := v.(*record.Exploration)
			if !ok {
				t.Fatalf("%s holds a %T", path, v)
			}
			if e.Unexplorable != "" || e.Skipped {
				t.Errorf("exploration: unexplorable %q, skipped %v; want the test explored", e.Unexplorable, e.Skipped)
			}
			if len(e.Skips) != 1 || e.Skips[0].Test != tc.sub || !strings.HasPrefix(e.Skips[0].Output, tc.reason) {
				t.Errorf("exploration's skips %+v, want %s with %q", e.Skips, tc.sub, tc.reason)
			}
			var kinds []string
			for _, b := range e.Bugs {
				kinds = append(kinds, b.Kind)
			}
			if !slices.Equal(kinds, tc.bugs) {
				t.Errorf("exploration's bugs %q, want %q", kinds, tc.bugs)
			}
			for _, n := range e.Tree {
				if tc.subG != "" && (n.G == tc.subG || slices.Contains(n.Enabled, tc.subG)) {
					t.Errorf("exploration's tree shows %s, which only the subtest left out starts: node %+v", tc.subG, n)
					break
				}
			}
			// The count subtest's two goroutines have interleavings: it was explored.
			if !e.Stats.Complete || e.Stats.Runs < 2 {
				t.Errorf("exploration: %d runs, complete %v; want the other subtests explored to the end", e.Stats.Runs, e.Stats.Complete)
			}
			// The deadlock comes after the subtest left out: its trace says so, and a replay
			// skips the subtest again instead of ending in it.
			for _, b := range e.Bugs {
				trace := filepath.Join(filepath.Dir(path), b.Trace)
				v, err := record.ReadFile(trace)
				if err != nil {
					t.Fatal(err)
				}
				if tr := v.(*record.Trace); !slices.Equal(tr.LeftOut, []string{tc.sub}) {
					t.Errorf("%s leaves out %q, want %s", b.Trace, tr.LeftOut, tc.sub)
				}
				stdout, stderr, code := heddle(t, dir, "replay", trace)
				if code != exitBug || !strings.Contains(stdout, "verdict: "+b.Kind+":") {
					t.Errorf("heddle replay %s: exit %d, want %d with verdict %s\n%s\n%s", b.Trace, code, exitBug, b.Kind, stdout, stderr)
				}
			}
		})
	}
}

// subtestResults finds the lines of a subtest's result under its test's in go test -v's output.
var subtestResults = regexp.MustCompile(`(?m)^    --- (?:PASS|FAIL|SKIP): (\S+)`)

// submatches returns the first submatch of each match.
func submatches(ms [][]string) []string {
	var s []string
	for _, m := range ms {
		s = append(s, m[1])
	}
	return s
}

// testName is the test's name on a line of go test -v's output after its prefix.
var testName = regexp.MustCompile(`^\S+`)

// lineNames returns the test names of the lines of out that start with prefix, in order.
func lineNames(out, prefix string) []string {
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			names = append(names, testName.FindString(rest))
		}
	}
	return names
}

// isSubsequence reports whether the elements of sub appear in seq in the same order.
func isSubsequence(sub, seq []string) bool {
	for _, s := range sub {
		i := slices.Index(seq, s)
		if i < 0 {
			return false
		}
		seq = seq[i+1:]
	}
	return true
}

// resultLine finds a test's or subtest's result line, with its indentation, without its time.
var resultLine = regexp.MustCompile(`(?m)^( *--- (?:PASS|FAIL|SKIP): \S+) \(`)

// TestSubtestResultsAsGo compares the result lines of heddle test with go test's on
// testdata/subtests/nested, whose subtests pass, skip themselves, and fail in every run two
// levels down. Without -v the lines are go test's. With -v heddle's are go test's in order,
// without those of the subtests after the failing one: heddle ends a run where a subtest fails,
// so in a test whose subtest fails in every run they never run.
func TestSubtestResultsAsGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	const dir = "testdata/subtests"
	lines := func(out string) []string {
		var ls []string
		for _, m := range resultLine.FindAllStringSubmatch(out, -1) {
			ls = append(ls, m[1])
		}
		return ls
	}
	for _, verbose := range []bool{false, true} {
		args := []string{"-count=1", "./nested"}
		if verbose {
			args = append([]string{"-v"}, args...)
		}
		gocmd := exec.Command("go", append([]string{"test"}, args...)...)
		gocmd.Dir = dir
		goOut, _ := gocmd.CombinedOutput()
		want := lines(string(goOut))
		if len(want) < 3 {
			t.Fatalf("go test %v: %d result lines, want the failure's three at least\n%s", args, len(want), goOut)
		}
		stdout, stderr, code := heddle(t, dir, append([]string{"test", "-out", t.TempDir()}, args...)...)
		if code != exitBug {
			t.Fatalf("heddle test %v: exit %d, want %d\n%s\n%s", args, code, exitBug, stdout, stderr)
		}
		got := lines(stdout)
		if !verbose && !slices.Equal(got, want) {
			t.Errorf("heddle test: result lines\n%s\nwant go test's\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// The parent, logs, skips, outer and inner: up to the failure.
		if verbose && (len(want) < 5 || !slices.Equal(got, want[:5])) {
			t.Errorf("heddle test -v: result lines\n%s\nwant go test's up to the failure\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
