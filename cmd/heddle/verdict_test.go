package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddledbg/heddle/internal/golden"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/suite"
)

// TestVerdicts runs heddle test (and heddle run) on packages of every kind and compares what
// it prints, in text and in -json, with golden files: a transcript of the CLI. Every test gets
// one verdict, a bug hit by many runs gets one report, a package that does not build does not
// stop the others, and an exit, a hang and a panic say where they happened.
func TestVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores test modules")
	}
	wd, _ := os.Getwd()
	for _, tc := range []struct {
		name string
		dir  string
		cmd  string // heddle's command; "test" if empty
		args []string
		code int
	}{
		{"help", "testdata/mixed", "", []string{"-h"}, exitOK},
		{"clean", "testdata/mixed", "", []string{"./ok"}, exitOK},
		{"cut", "testdata/mixed", "", []string{"-steps", "5000", "-budget", "20", "./cut"}, exitOK},
		{"many", "testdata/mixed", "", []string{"./many"}, exitBug},
		{"broken", "testdata/mixed", "", []string{"./broken", "./ok"}, exitBug},
		{"outside", "testdata/outside", "", []string{"-run", "TestHandler", "."}, exitOK},
		{"http2", "testdata/http2", "", []string{"-budget", "runs=200", "."}, exitBug},
		{"reexec", "testdata/mixed", "", []string{"./reexec"}, exitOK},
		{"exit", "testdata/exits", "", []string{"."}, exitBug},
		{"hang", "testdata/loops", "", []string{"-hang", "1s", "."}, exitBug},
		{"panicmain", "testdata/panicmain", "run", []string{"."}, exitBug},
		{"subtests", "testdata/subtests", "", []string{"./bug"}, exitBug},
		{"subtests-clean", "testdata/subtests", "", []string{"-v", "./clean"}, exitOK},
	} {
		cmd := tc.cmd
		if cmd == "" {
			cmd = "test"
		}
		modes := []string{"text", "json"}
		if tc.args[0] == "-h" {
			modes = modes[:1] // help is for people
		}
		for _, mode := range modes {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				out := t.TempDir()
				args := append([]string{cmd, "-out", out}, tc.args...)
				if mode == "json" {
					args = append([]string{cmd, "-json", "-out", out}, tc.args...)
				}
				stdout, stderr, code := heddle(t, tc.dir, args...)
				if code != tc.code {
					t.Errorf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
				}
				got := stdout
				if mode == "json" {
					got = normalizeEvents(t, stdout)
				}
				got = normalize(got+"--- stderr\n"+stderr, out, filepath.Join(wd, tc.dir))
				golden.Check(t, filepath.Join("testdata", "verdicts", tc.name+"."+mode+".golden"), got)
			})
		}
	}
}

// TestOneReportPerBug checks the counts that the golden files leave out: each bug of the
// many package is hit by many runs, and has one report, one count and one trace file.
func TestOneReportPerBug(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	out := t.TempDir()
	stdout, stderr, code := heddle(t, "testdata/mixed", "test", "-json", "-out", out, "./many")
	if code != exitBug {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	bugs := map[string]int{}
	for _, e := range events(t, stdout) {
		if e.Bug != nil {
			if e.Bug.Hits < 2 {
				t.Errorf("%s: %s bug hit by %d runs, want many", e.Test, e.Bug.Kind, e.Bug.Hits)
			}
			bugs[e.Test]++
		}
	}
	for _, test := range []string{"TestLostUpdate", "TestLeak"} {
		if bugs[test] != 1 {
			t.Errorf("%s: %d bug reports, want 1", test, bugs[test])
		}
		traces, _ := filepath.Glob(filepath.Join(out, "example.com", "mixed", "many", test, "*"+record.TraceSuffix))
		if len(traces) != 1 {
			t.Errorf("%s: trace files %v, want one", test, traces)
		}
	}
}

// TestRuntimeTests runs heddle on the tests of its own runtime, which it does not instrument:
// they build (an internal test of rt imports a package of heddle's module that, rewritten,
// would import rt) and each says why heddle cannot explore it.
func TestRuntimeTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heddle's runtime for its tests")
	}
	stdout, stderr, code := heddle(t, "../..", "test", "-json", "-out", t.TempDir(), "-run", "^TestAtomicMirrors$", "./rt")
	if code != exitOK {
		t.Fatalf("exit %d, want %d (a skip)\n%s\n%s", code, exitOK, stdout, stderr)
	}
	var skipped int
	for _, e := range events(t, stdout) {
		if e.FailedBuild != "" {
			t.Errorf("%s does not build", e.FailedBuild)
		}
		if e.Action == "skip" && e.Test == "TestAtomicMirrors" {
			skipped++
			if e.Verdict != "unexplorable" || !strings.Contains(e.Reason, "rt is part of heddle's runtime") {
				t.Errorf("verdict %s: %s; want unexplorable, as part of heddle's runtime", e.Verdict, e.Reason)
			}
		}
	}
	if skipped != 1 {
		t.Errorf("%d verdicts for TestAtomicMirrors, want 1\n%s", skipped, stdout)
	}
}

// TestBudget checks that a test with more schedules than its budget allows reports no more
// time than the budget, replays and files included, and says the search was not complete.
func TestBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	const budget = 3 * time.Second
	stdout, stderr, code := heddle(t, "testdata/mixed", "test", "-json", "-out", t.TempDir(), "-budget", budget.String(), "./slow")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var verdicts int
	for _, e := range events(t, stdout) {
		if e.Test == "" || e.Action != "pass" {
			continue
		}
		verdicts++
		if e.Verdict != "clean" || e.Stats == nil || e.Stats.Complete {
			t.Errorf("verdict %q, stats %+v: want clean, search stopped by the budget", e.Verdict, e.Stats)
		}
		// The search stops at the budget, but a run in progress ends first, and on a loaded
		// machine a run and the report's replay of it took up to 0.4 s more.
		if e.Elapsed == nil || *e.Elapsed > 1.5*budget.Seconds() {
			t.Errorf("reported elapsed %v s, over the budget of %v by more than half", *e.Elapsed, budget)
		}
	}
	if verdicts != 1 {
		t.Errorf("%d verdicts, want 1:\n%s", verdicts, stdout)
	}
}

// TestBudgetEndsFirstRun: a correct test whose first run is longer than the budget has no
// verdict, where heddle called it clean having seen none of its runs end (smux's
// TestParallel, a thousand streams, which leaks goroutines, as goleak shows). The step bound
// is raised so that a fast machine does not cut the run instead.
func TestBudgetEndsFirstRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	stdout, stderr, code := heddle(t, "testdata/mixed", "test", "-json", "-out", t.TempDir(), "-budget", "1s", "-steps", "1000000000", "./long")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var verdicts []string
	for _, e := range events(t, stdout) {
		if e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			verdicts = append(verdicts, e.Action+" "+e.Verdict)
		}
	}
	if !slices.Equal(verdicts, []string{"skip unexplorable"}) || !strings.Contains(stdout, "no run of the test ended within the time budget (1 run stopped at its end") {
		t.Errorf("verdicts %q, want the test unexplorable: no run ended within the budget\n%s\n%s", verdicts, stdout, stderr)
	}
}

// TestInterrupted checks that Ctrl-C during an exploration still gives the test a verdict,
// with the statistics so far (those the worker reported before it was interrupted, maybe
// none), and the package its FAIL. The test under heddle says through a named pipe when its
// runs are under way (testdata/mixed/slow), and the interrupt follows.
func TestInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	fifo := filepath.Join(t.TempDir(), "started")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err) // and no os.Interrupt to send either
	}
	cmd := exec.Command(heddleBin, "test", "-json", "-out", t.TempDir(), "-budget", "2m", "./slow")
	cmd.Dir = "testdata/mixed"
	cmd.Env = append(os.Environ(), "SLOW_STARTED="+fifo)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	interrupted := make(chan struct{})
	go func() {
		defer close(interrupted)
		f, err := os.Open(fifo) // waits for a run to open it
		if err != nil {
			return
		}
		defer f.Close()
		if _, err := f.Read(make([]byte, 1)); err == nil {
			cmd.Process.Signal(os.Interrupt)
		}
	}()
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	if f, err := os.OpenFile(fifo, os.O_WRONLY|nonblock, 0); err == nil {
		f.Close() // releases the reader if no run ever told it
	}
	<-interrupted
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage {
		t.Errorf("exit: %v, want status %d\n%s", err, exitUsage, stderr.String())
	}
	var verdicts []string
	for _, e := range events(t, strings.Join(lines, "\n")) {
		switch {
		case e.Test != "" && e.Verdict != "":
			verdicts = append(verdicts, e.Action+" "+e.Verdict)
			if e.Stats == nil {
				t.Errorf("the interrupted verdict has no statistics")
			}
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail"):
			verdicts = append(verdicts, "package "+e.Action)
		}
	}
	if want := []string{"fail interrupted", "package fail"}; !slices.Equal(verdicts, want) {
		t.Errorf("verdicts %q, want %q\n%s", verdicts, want, strings.Join(lines, "\n"))
	}
}

// TestDivergence checks that runs whose schedules do not replay (map iteration order) are
// heddle's limitation: counted and placed, never a bug, and the search goes on.
func TestDivergence(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	stdout, stderr, code := heddle(t, "testdata/mixed", "test", "-json", "-out", t.TempDir(), "-budget", "2s", "./diverge")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	placed := false
	for _, e := range events(t, stdout) {
		placed = placed || strings.Contains(e.Output, "did not follow their schedule") && strings.Contains(e.Output, "diverge_test.go:")
		if e.Bug != nil {
			t.Errorf("bug reported: %s", e.Output)
		}
		if e.Test != "" && e.Verdict != "" {
			if e.Verdict != "clean" || e.Stats.Diverged == 0 || e.Stats.Runs <= e.Stats.Diverged {
				t.Errorf("verdict %s, %d runs, %d diverged: want clean, with runs beyond the diverging ones", e.Verdict, e.Stats.Runs, e.Stats.Diverged)
			}
		}
	}
	if !placed {
		t.Errorf("no note says where runs diverged:\n%s", stdout)
	}
}

func events(t *testing.T, stdout string) []suite.Event {
	t.Helper()
	var es []suite.Event
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var e suite.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		es = append(es, e)
	}
	return es
}

// normalizeEvents keeps the fields of -json events that do not change from run to run.
func normalizeEvents(t *testing.T, stdout string) string {
	var sb strings.Builder
	inReport := false
	for _, e := range events(t, stdout) {
		// A bug's report, but its first line, is in the text golden files: its interleaving
		// changes from run to run.
		if e.Bug != nil {
			inReport = true
		} else if inReport && e.Action == "output" && (strings.HasPrefix(e.Output, "        ") || e.Output == "    \n") {
			continue
		} else {
			inReport = false
		}
		fmt.Fprintf(&sb, "%s %s %s", e.Action, e.Package+e.ImportPath, e.Test)
		if e.Verdict != "" {
			fmt.Fprintf(&sb, " verdict=%s", e.Verdict)
		}
		if e.Reason != "" {
			fmt.Fprintf(&sb, " reason=%q", e.Reason)
		}
		if e.FailedBuild != "" {
			fmt.Fprintf(&sb, " failedbuild=%q", e.FailedBuild)
		}
		if e.Stats != nil {
			fmt.Fprintf(&sb, " complete=%v", e.Stats.Complete)
		}
		if e.Bug != nil {
			// The report itself is in the text golden files.
			e.Output, _, _ = strings.Cut(e.Output, "\n")
			fmt.Fprintf(&sb, " bug=%s", e.Bug.Kind)
		}
		if e.Output != "" {
			fmt.Fprintf(&sb, " output=%q", e.Output)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

var (
	durations = regexp.MustCompile(`\d+(\.\d+)?(ns|µs|ms|s)\b|\d+m\d+(\.\d+)?s`)
	// The lines of Go's sources change with the toolchain.
	gorootLines = regexp.MustCompile(`(\$GOROOT/src/[^:\s]+):\d+`)
	runCounts   = regexp.MustCompile(`\d+ (run|decision|preemption)s?\b`)
	// heddle's statistics under -v: how many runs hit a bug, and the rates, change from run
	// to run.
	rates     = regexp.MustCompile(`[\d.]+ runs/s, [\d.]+ steps/s`)
	buggyRuns = regexp.MustCompile(`\d+ buggy\b`)
	// Which of net/http's goroutines calls instrumented code first is a matter of timing: one
	// left over from an earlier run may call into the next. The package stays.
	foreignCall = regexp.MustCompile(`(did not start at \$GOROOT/src/\S+/)[^/:\s]+:N \(\S+\)`)
	// A table without decisions is the program's only interleaving, and stays.
	interleaving = regexp.MustCompile(`(?s)(\n +interleaving \()[1-9][^\n]*\n.*?\(\* marks[^\n]*\n`)
)

// goroot is the GOROOT of the go command that builds the tests' binaries.
var goroot = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return runtime.GOROOT()
	}
	return string(bytes.TrimSpace(out))
})

// normalize replaces what changes from run to run, or with the scheduler's choices: times,
// counts of runs, the interleaving tables that have decisions and the directories.
func normalize(s, out, dir string) string {
	s = strings.ReplaceAll(s, heddleBin, "heddle")
	s = strings.ReplaceAll(s, out, "$OUT")
	s = strings.ReplaceAll(s, dir, "$DIR")
	s = gorootLines.ReplaceAllString(strings.ReplaceAll(s, goroot(), "$GOROOT"), "${1}:N")
	s = foreignCall.ReplaceAllString(s, "${1}F:N (F)")
	s = interleaving.ReplaceAllString(s, "${1}…)\n")
	s = buggyRuns.ReplaceAllString(rates.ReplaceAllString(s, "R runs/s, S steps/s"), "N buggy")
	return durations.ReplaceAllString(counted(s), "T")
}

// counted replaces the counts of runs, decisions and preemptions with N, in the plural: a
// count may be 1 on one machine and 2 on another.
func counted(s string) string { return runCounts.ReplaceAllString(s, "N ${1}s") }

// TestSkips checks that a test that skips itself (t.Skip, t.Skipf, t.SkipNow), and a subtest
// that does, under a test that passes, are reported as go test reports them: go test's own output on the same package, in text, with -v, and in
// -json, test by test (heddle runs a package's tests in the order of their names), with
// times left out and without heddle's statistics line on the tests it explored, whether the
// test is explored in one process or with a fresh process per run (-isolate). The exit status
// is 0.
func TestSkips(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	const dir = "testdata/skips"
	for _, tc := range []struct {
		name   string
		flag   []string // go test's and heddle test's
		heddle []string // heddle test's own
	}{
		{"text", nil, nil},
		{"v", []string{"-v"}, nil},
		{"json", []string{"-json"}, nil},
		// A fresh process per run: the worker answers each run, not the exploration.
		{"isolate", []string{"-v"}, []string{"-isolate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flag, mode := tc.flag, tc.name
			gocmd := exec.Command("go", append(append([]string{"test", "-count=1"}, flag...), ".")...)
			gocmd.Dir = dir
			want, err := gocmd.Output()
			if err != nil {
				t.Fatalf("go test %s: %v\n%s", strings.Join(flag, " "), err, want)
			}
			stdout, stderr, code := heddle(t, dir, append(append(append([]string{"test", "-out", t.TempDir()}, tc.heddle...), flag...), ".")...)
			if code != exitOK {
				t.Errorf("exit %d, want %d\n%s\n%s", code, exitOK, stdout, stderr)
			}
			got, wantTests := byTest(t, stdout, mode == "json"), byTest(t, string(want), mode == "json")
			if len(got) != len(wantTests) {
				t.Errorf("heddle test reports %v, go test %v\n%s", mapKeys(got), mapKeys(wantTests), stdout)
			}
			for test, w := range wantTests {
				if g := got[test]; !slices.Equal(g, w) {
					t.Errorf("%s: heddle test prints\n%s\ngo test prints\n%s", cmp.Or(test, "package"), strings.Join(g, "\n"), strings.Join(w, "\n"))
				}
			}
		})
	}
}

// byTest splits go test's output, text or -json, into the lines of each test ("" for the
// package's), with the times left out, and heddle's statistics lines dropped.
func byTest(t *testing.T, out string, isJSON bool) map[string][]string {
	t.Helper()
	tests := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if isJSON {
			var e struct{ Action, Package, Test, Output string }
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
			if strings.HasPrefix(e.Output, "    heddle: ") {
				continue
			}
			tests[e.Test] = append(tests[e.Test], durations.ReplaceAllString(fmt.Sprintf("%s %s %q", e.Action, e.Package, e.Output), "T"))
			continue
		}
		if strings.HasPrefix(line, "    heddle: ") {
			continue
		}
		if name, ok := strings.CutPrefix(line, "=== RUN   "); ok {
			cur = name
		}
		tests[cur] = append(tests[cur], durations.ReplaceAllString(line, "T"))
		if strings.HasPrefix(line, "--- ") {
			cur = ""
		}
	}
	return tests
}

// TestUnexplorableSaved checks that a test heddle cannot explore has an exploration file that
// says why, in place of an earlier search's, so that the web view lists it as the CLI does.
func TestUnexplorableSaved(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	out := t.TempDir()
	path := filepath.Join(record.TestDir(out, "example.com/mixed/reexec", "TestChild"), record.ExplorationFile)
	// An earlier search's result, with a bug, which must not outlive the verdict.
	stale := &record.Exploration{Heddle: "exploration", Version: record.Version, Program: record.Program{Package: "example.com/mixed/reexec", Test: "TestChild"},
		Tree: []record.Node{}, Bugs: []record.Bug{{Kind: "deadlock"}}, Stats: record.Stats{Bugs: 1, Runs: 1}}
	if err := record.WriteFile(path, stale); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := heddle(t, "testdata/mixed", "test", "-out", out, "./reexec")
	if code != exitOK {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitOK, stdout, stderr)
	}
	_, reason, ok := strings.Cut(stdout, "heddle: cannot be explored: ")
	if !ok {
		t.Fatalf("no cannot be explored line:\n%s", stdout)
	}
	reason, _, _ = strings.Cut(reason, "\n")
	v, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := v.(*record.Exploration)
	if !ok {
		t.Fatalf("%s holds a %T", path, v)
	}
	if e.Unexplorable != reason || len(e.Bugs) != 0 || e.Stats.Bugs != 0 {
		t.Errorf("saved unexplorable %q with %d bugs, want %q and none", e.Unexplorable, len(e.Bugs), reason)
	}
}
