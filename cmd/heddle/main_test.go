package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/record"
)

var heddleBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "heddle-cli-")
	if err != nil {
		panic(err)
	}
	heddleBin = filepath.Join(dir, "heddle")
	if out, err := exec.Command("go", "build", "-o", heddleBin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	if res := kernelsBuilt.Load(); res != nil {
		os.RemoveAll(res.WorkDir)
	}
	os.Exit(code)
}

// heddle runs the heddle binary in dir and returns its stdout, stderr and exit code.
func heddle(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(heddleBin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// demoDir writes the demo module to a temporary directory.
func demoDir(t *testing.T) string {
	dir := t.TempDir()
	ents, _ := demoFS.ReadDir("demo")
	for _, e := range ents {
		data, _ := demoFS.ReadFile("demo/" + e.Name())
		os.WriteFile(filepath.Join(dir, strings.TrimSuffix(e.Name(), ".txt")), data, 0o644)
	}
	return dir
}

func TestDemoFindsBothBugs(t *testing.T) {
	dir := demoDir(t)
	out, errOut, code := heddle(t, dir, "test", "-v", ".")
	if code != exitBug {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitBug, out, errOut)
	}
	for _, want := range []string{
		"--- FAIL: TestTransfer (",
		"\n    BUG: deadlock (",
		"--- FAIL: TestDeposit (",
		"\n    BUG: fatal (",
		"balance = 50, want 100",
		"wait-for cycle:",
		"replay:   " + heddleBin + " replay", // heddle is not on PATH in the test
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Positions are exact: every blocked goroutine of the deadlock is reported at a line of
	// bank.go that locks a mutex.
	src, _ := os.ReadFile(filepath.Join(dir, "bank.go"))
	lines := strings.Split(string(src), "\n")
	traces, _ := filepath.Glob(filepath.Join(dir, ".heddle", "example.com", "bank", "TestTransfer", "deadlock-*"+record.TraceSuffix))
	if len(traces) != 1 {
		t.Fatalf("deadlock traces: %v", traces)
	}
	tr, err := record.ReadTrace(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	blocked := 0
	for _, g := range tr.Verdict.Goroutines {
		if g.Op != "lock" {
			continue
		}
		blocked++
		if g.Pos == nil || filepath.Base(g.Pos.File) != "bank.go" || !strings.Contains(lines[g.Pos.Line-1], ".mu.Lock()") {
			t.Errorf("%s blocked at %v, not at a Lock call in bank.go", g.ID, g.Pos)
		}
	}
	if blocked != 2 {
		t.Errorf("%d goroutines blocked in lock, want 2", blocked)
	}
	// Every event position is a line of the user's own files.
	for _, e := range tr.Events {
		if e.Pos == nil {
			continue
		}
		if b := filepath.Base(e.Pos.File); b != "bank.go" && b != "bank_test.go" {
			t.Errorf("step %d at %s: not the user's file", e.Step, e.Pos)
		}
	}
	// The saved schedule replays to the same verdict.
	out, errOut, code = heddle(t, dir, "replay", traces[0])
	if code != exitBug || !strings.Contains(out, "verdict: deadlock") {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestJSONEvents(t *testing.T) {
	dir := demoDir(t)
	out, _, code := heddle(t, dir, "test", "-json", "-run", "TestTransfer", ".")
	if code != exitBug {
		t.Fatalf("exit %d", code)
	}
	actions := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Action, Test string
			Bug          *struct{ Kind, Trace string }
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if e.Test == "" {
			continue // the package's events
		}
		actions[e.Action]++
		if e.Bug != nil {
			actions["bug"]++
			if e.Action != "output" || e.Bug.Kind != "deadlock" || e.Bug.Trace == "" {
				t.Errorf("bug event without kind or trace: %s", line)
			}
		}
	}
	if actions["run"] != 1 || actions["bug"] != 1 || actions["fail"] != 1 {
		t.Errorf("actions %v, want one run, one bug, one fail", actions)
	}
}

func TestBadInput(t *testing.T) {
	demo := demoDir(t)
	wd, _ := os.Getwd()
	for _, tc := range []struct {
		name string
		dir  string
		args []string
		code int
		want string
	}{
		// A package that does not build or load fails, as in go test.
		{"does not compile", "testdata/broken", []string{"test", "."}, exitBug, "broken.go:4:17: undefined: c"},
		{"no such package", demo, []string{"test", "./nothere"}, exitBug, "FAIL\t./nothere [setup failed]"},
		{"no test matches", demo, []string{"test", "-run", "TestNothing", "."}, exitOK, "ok  \texample.com/bank\t"},
		{"bad strategy", demo, []string{"test", "-strategy", "best", "."}, exitUsage, `-strategy: unknown strategy "best" (want one of portfolio, dpor,`},
		{"bad budget", demo, []string{"test", "-budget", "forever", "."}, exitUsage, `-budget: "forever" is not a duration`},
		{"os.Exit", "testdata/exits", []string{"test", "-run", "TestExit", "."}, exitBug, "os.Exit(3) called by G1.1 at exits_test.go:15"},
		{"log.Fatal", "testdata/exits", []string{"test", "-run", "TestLogFatal", "."}, exitBug, "the test process exit status 1:\n        giving up"},
		{"killed", "testdata/exits", []string{"test", "-run", "TestKilled", "."}, exitOK, "cannot be explored: the test process ended on a signal (killed) without a Go traceback"},
		{"infinite loop", "testdata/loops", []string{"test", "-hang", "2s", "."}, exitBug, "without reaching a scheduling point"},
		// A test heddle cannot explore is a skip, as t.Skip is.
		{"handler net/http runs", "testdata/outside", []string{"test", "-run", "TestHandler", "."}, exitOK,
			"    heddle: cannot be explored: instrumented code was called from a goroutine heddle did not start at " + filepath.Join(runtime.GOROOT(), "src/net/http/server.go")},
		{"waits on a real pipe", "testdata/outside", []string{"test", "-run", "TestPipe", "."}, exitOK,
			"    heddle: cannot be explored: goroutine G1.1 has waited for over 1s in uninstrumented code (os.(*File).Read, called at " + filepath.Join(wd, "testdata/outside/outside_test.go") + ":48; IO wait)"},
		// The bubble's function waits in a dependency's select: heddle's synctest stand-in is
		// only the caller of the program's function, not where it waits (jrpc2's TestSeq was
		// reported as a hang).
		{"a bubble waits in a dependency", "testdata/outside", []string{"test", "-run", "TestBubble", "."}, exitOK,
			"    heddle: cannot be explored: goroutine G1.1 has waited for over 1s outside heddle's control (select at " + filepath.Join(wd, "testdata/outside/rendezvous/rendezvous.go") + ":15)"},
		{"unknown command", demo, []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"unknown flag", demo, []string{"run", "-bench", ".", "."}, exitUsage, "heddle run: flag provided but not defined: -bench"},
		{"corrupt schedule", demo, []string{"replay", "go.mod"}, exitUsage, "go.mod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := heddle(t, tc.dir, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out+errOut, tc.want) {
				t.Errorf("output lacks %q:\n%s\n%s", tc.want, out, errOut)
			}
		})
	}
}

// TestOwnPackages runs heddle on heddle's own packages: nothing false may be reported.
func TestOwnPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("explores heddle's own tests")
	}
	// The engine's own packages (rt, explorer, record, locktree) are linked into every
	// worker, so their internal tests cannot be instrumented against themselves.
	out, errOut, code := heddle(t, "../..", "test", "-budget", "runs=20,time=20s", "./web", "./bidir")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// The web view's server serves HTTP and websockets on heddle's virtual network: every test
	// is explored and clean, but the four subtests that run heddle's engine itself, which
	// cannot be explored: each is a skip, as go test reports one (exit status 0).
	out, errOut, code = heddle(t, "../..", "test", "-v", "-budget", "runs=20,time=20s", "./server")
	if code != exitOK || strings.Contains(out+errOut, "BUG") || strings.Count(out, "cannot be explored") != 4 ||
		!strings.Contains(out, "    heddle: cannot be explored: the test runs heddle's scheduler itself") ||
		!strings.Contains(out, "--- PASS: TestPublishExplorerOutput (") || !strings.Contains(out, "--- SKIP: TestPublishExplorerOutput/portfolio (") ||
		!strings.Contains(out, "--- PASS: TestAPI (") || !strings.Contains(out, "--- PASS: TestWebSocketReplayAndBroadcast (") {
		t.Fatalf("heddle test ./server: exit %d, want %d, every test clean but TestPublishExplorerOutput\n%s\n%s", code, exitOK, out, errOut)
	}
	// The debugger's tests drive it with a fake debuggee over a Unix socket: every one is
	// explored and clean (a search of 10 s once found a step back taking another incarnation
	// than the one the test expects, in its second run). procgroup's TestHang waits for a
	// child process on a real pipe, which the goroutine's state shows.
	out, errOut, code = heddle(t, "../..", "test", "-v", "-budget", "runs=200,time=20s", "./debugger", "./procgroup")
	if code != exitOK || strings.Contains(out+errOut, "BUG") || strings.Count(out, "cannot be explored") != 1 ||
		!strings.Contains(out, "--- SKIP: TestHang (") || !strings.Contains(out, "procgroup/proc.go:84; IO wait)") ||
		!strings.Contains(out, "--- PASS: TestBackAndForth (") || !strings.Contains(out, "ok  \tgithub.com/heddledbg/heddle/debugger") {
		t.Fatalf("heddle test ./debugger ./procgroup: exit %d, want %d, every test clean but procgroup's TestHang\n%s\n%s", code, exitOK, out, errOut)
	}
}

// BenchmarkSubprocessRuns measures runs per second when every run is a fresh worker process
// (heddle test -isolate), on the demo's deadlocking test.
func BenchmarkSubprocessRuns(b *testing.B) {
	dir := b.TempDir()
	ents, _ := demoFS.ReadDir("demo")
	for _, e := range ents {
		data, _ := demoFS.ReadFile("demo/" + e.Name())
		os.WriteFile(filepath.Join(dir, strings.TrimSuffix(e.Name(), ".txt")), data, 0o644)
	}
	res, err := instrument.Build(context.Background(), instrument.Config{Dir: dir, Packages: []string{"."}, Test: true})
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(res.WorkDir)
	w := kernelWorker(res.Binaries[0])
	b.ResetTimer()
	rep := driver.Isolated(context.Background(), w, "TestTransfer", explorer.Options{Strategy: "random", MaxRuns: b.N})
	b.ReportMetric(float64(rep.Stats.Runs)/b.Elapsed().Seconds(), "runs/s")
}

// TestExplorationFilesLoad checks that the exploration file of every strategy is one the web
// view's server accepts: unique node ids, parents first, known pruning reasons.
func TestExplorationFilesLoad(t *testing.T) {
	dir := demoDir(t)
	for _, s := range explorer.Strategies {
		t.Run(s.String(), func(t *testing.T) {
			out := t.TempDir()
			if _, errOut, code := heddle(t, dir, "test", "-strategy", s.String(), "-budget", "runs=300", "-out", out, "-run", "TestDeposit", "."); code == exitUsage {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if _, err := record.ReadFile(filepath.Join(out, "example.com", "bank", "TestDeposit", record.ExplorationFile)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestHelp checks that every way of asking for help prints heddle's own usage, with the flags
// of the subcommand, and succeeds, whatever other arguments come with it.
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		// heddle's own flags, and go test's with what they mean under heddle.
		{[]string{"test", "-h"}, []string{"usage: heddle test", "-budget", "-strategy", "-skip", "-no-instrument", "-workers", "-count", "-failfast", "-timeout", "-parallel", "-shuffle", "-cpu", "-C", "-o", "Exit status"}},
		{[]string{"test", "-help"}, []string{"usage: heddle test", "-budget"}},
		{[]string{"test", "--help", "-tags", "x", "./..."}, []string{"usage: heddle test", "-budget"}},
		{[]string{"run", "-h"}, []string{"usage: heddle run", "-budget"}},
		{[]string{"replay", "-h"}, []string{"usage: heddle replay", "-count", "-v"}},
		{[]string{"help"}, []string{"heddle test -h", "heddle dap", "heddle lsp"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := heddle(t, t.TempDir(), tc.args...)
			if code != exitOK {
				t.Errorf("exit %d, want 0\n%s\n%s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s\n%s", w, out, errOut)
				}
			}
		})
	}
}

// TestNetwork explores a test on heddle's virtual network whose read deadline passes with
// nobody writing: the search completes with the test clean, the deadline having passed on
// the virtual clock (the test checks the error and the time it waited), in less real time
// than the deadline.
func TestNetwork(t *testing.T) {
	start := time.Now()
	out, errOut, code := heddle(t, "testdata/network", "test", "-v", "-budget", "runs=100", ".")
	if code != exitOK || !strings.Contains(out, "--- PASS: TestReadDeadline (") || !strings.Contains(out, "heddle: clean; ") || !strings.Contains(out, "search complete") {
		t.Fatalf("exit %d, want TestReadDeadline clean and the search complete\n%s\n%s", code, out, errOut)
	}
	if real := time.Since(start); real >= time.Minute {
		t.Errorf("heddle took %v, as long as the deadline", real)
	}
}

// TestReplayShowsOutput checks that heddle replay shows what the program printed on its
// standard error in the replayed run, without the worker's own test lines, and that what it
// printed on its standard output is in the verdict, as in the test's log.
func TestReplayShowsOutput(t *testing.T) {
	dir := copyModule(t, "printing")
	if out, errOut, code := heddle(t, dir, "test", "-budget", "runs=200", "."); code != exitBug {
		t.Fatalf("heddle test: exit %d, want the lost update\n%s\n%s", code, out, errOut)
	}
	traces, _ := filepath.Glob(filepath.Join(dir, ".heddle", "example.com", "printing", "TestLostUpdate", "fatal-*"+record.TraceSuffix))
	if len(traces) != 1 {
		t.Fatalf("fatal traces: %v", traces)
	}
	out, errOut, code := heddle(t, dir, "replay", traces[0])
	if code != exitBug {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
	section, verdict, ok := strings.Cut(out, "\nverdict: ")
	_, section, _ = strings.Cut(section, "output of the program:\n")
	if !ok {
		t.Fatalf("no verdict:\n%s", out)
	}
	for i := range 2 {
		if want := fmt.Sprintf("    worker %d done\n", i); !strings.Contains(section, want) {
			t.Errorf("the program's output lacks %q:\n%s", want, section)
		}
		if want := fmt.Sprintf(" worker %d wrote 1\n", i); !strings.Contains(section, want) {
			t.Errorf("the program's output lacks log's %q:\n%s", want, section)
		}
		if want := fmt.Sprintf("worker %d read 0", i); !strings.Contains(verdict, want) {
			t.Errorf("the verdict lacks the test's output %q:\n%s", want, verdict)
		}
	}
	if strings.Contains(section, "TestHeddleWorker") || strings.Contains(section, "PASS") || strings.Contains(section, "read 0") {
		t.Errorf("the program's output has the worker's test lines or the test's log:\n%s", section)
	}
}

// TestLeftBehind checks that a test that leaves state behind in its process (go test -count=2
// fails, go test passes) is explored with a fresh process per run instead of being reported
// for what an earlier run left, and that a bug found in a later run of a process that a fresh
// process reproduces is still reported.
func TestLeftBehind(t *testing.T) {
	dir := copyModule(t, "leftbehind")
	out, errOut, code := heddle(t, dir, "test", "-v", "-budget", "runs=200", ".")
	if code != exitBug {
		t.Fatalf("exit %d, want the lost update\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"--- PASS: TestRegistry (",
		"heddle: explored with a fresh process per run: the panic found in run ",
		"the test leaves state behind for the next run in the same process",
		"--- FAIL: TestLostUpdate (",
		"BUG: fatal (",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "duplicate registration") {
		t.Errorf("the registry's panic is reported:\n%s", out)
	}
}

// copyModule copies the module testdata/name, whose files are all at its root, into a
// temporary directory, where heddle writes its results, and returns the directory.
func copyModule(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := os.ReadDir(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("testdata", name, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
