package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A raceWant is what one test of a race program must get from heddle and from go test -race:
// a race between accesses at two lines of file, or, with no lines, nothing.
type raceWant struct {
	file  string
	lines []int
}

var raceMessage = regexp.MustCompile(`^data race: \w+(?: \w+)? at (\S+):(\d+)(?: \(in \S+\))? by G[\d.]+, and \w+(?: \w+)? at (\S+):(\d+)(?: \(in \S+\))? by G[\d.]+`)

// checkRaces runs heddle test with default flags and go test -race -count=20 on pkgs of the
// module in dir, and checks each test named in want: a race is one race bug naming both accesses,
// whose schedule replays to it 100 times out of 100, and plain Go fails the test; a test without
// one is clean under both.
func checkRaces(t *testing.T, dir string, pkgs []string, want map[string]raceWant) {
	t.Helper()
	stdout, stderr, _ := heddle(t, dir, append([]string{"test", "-json", "-out", t.TempDir()}, pkgs...)...)
	verdicts := make(map[string]string)
	bugs := make(map[string][]string) // test → "kind: message"
	traces := make(map[string]string) // test → its bug's trace file
	for _, e := range events(t, stdout) {
		switch {
		case e.Bug != nil:
			bugs[e.Test] = append(bugs[e.Test], e.Bug.Kind+": "+e.Bug.Message)
			traces[e.Test] = e.Bug.Trace
		case e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			verdicts[e.Test] = e.Verdict
		}
	}
	goFailed := make(map[string]bool) // by test name: the tests' names differ across pkgs
	for k := range goTestRace(t, dir, 20, pkgs...) {
		_, test, _ := strings.Cut(k, ".")
		goFailed[test] = true
	}
	for test, w := range want {
		race := len(w.lines) > 0
		if goFailed[test] != race {
			t.Errorf("%s: go test -race -count=20 failed: %v, want %v", test, goFailed[test], race)
		}
		if !race {
			if verdicts[test] != "clean" || len(bugs[test]) > 0 {
				t.Errorf("%s: heddle says %q, bugs %q; want clean", test, verdicts[test], bugs[test])
			}
			continue
		}
		if verdicts[test] != "bug" || len(bugs[test]) != 1 {
			t.Errorf("%s: heddle says %q, bugs %q; want one race\n%s", test, verdicts[test], bugs[test], stderr)
			continue
		}
		kind, msg, _ := strings.Cut(bugs[test][0], ": ")
		m := raceMessage.FindStringSubmatch(msg)
		if kind != "race" || m == nil {
			t.Errorf("%s: bug %q, want a race naming both accesses", test, bugs[test][0])
			continue
		}
		l1, _ := strconv.Atoi(m[2])
		l2, _ := strconv.Atoi(m[4])
		got := []int{l1, l2}
		slices.Sort(got)
		if m[1] != w.file || m[3] != w.file || !slices.Equal(got, w.lines) {
			t.Errorf("%s: race %q, want accesses at %s lines %v", test, msg, w.file, w.lines)
		}
		if out, errOut, code := heddle(t, dir, "replay", "-count", "100", traces[test]); !strings.Contains(out, "reproduced 100/100 (verdict race)") {
			t.Errorf("%s: heddle replay -count 100 %s did not reproduce the race every time (exit %d):\n%s\n%s", test, traces[test], code, out, errOut)
		}
	}
}

// TestNoDotModule checks the races of modules whose path has no dot (hbcases, which
// TestDifferential compares with go test -race too, and r2), which are the program's whatever
// their name: heddle reports each of them as go test -race does, and
// leaves their twins, and contexts cancelled side by side, alone.
func TestNoDotModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module and runs go test -race")
	}
	checkRaces(t, "../../testdata/hbcases", []string{"./..."}, map[string]raceWant{
		"TestRaceCounter":         {"hbcases_test.go", []int{19, 19}},
		"TestRaceField":           {"hbcases_test.go", []int{40, 40}},
		"TestRaceFuncValue":       {"hbcases_test.go", []int{50, 51}},
		"TestRaceRLockWrite":      {"hbcases_test.go", []int{65, 65}},
		"TestRaceAtomicPlainRead": {"hbcases_test.go", []int{79, 80}},
		"TestNoRaceLock":          {},
		"TestNoRaceAtomicRLock":   {},
		"TestNoRaceSemaphore":     {},
	})
	checkRaces(t, "testdata/nodot", []string{"./cancel", "./stack"}, map[string]raceWant{
		"TestSiblingCancel":        {},
		"TestDebugStackFirstFrame": {},
	})
}

// TestStackShapes compares the traces a test reads of its own goroutine (debug.Stack,
// debug.PrintStack, runtime.Stack) under heddle with go test's: the same header and frames,
// function, file and line, none of heddle's. Go's end with the frames of package testing that
// run the test (testing.tRunner, created by testing.(*T).Run), which heddle's do not have:
// under heddle the test runs on a goroutine of heddle's runtime.
func TestStackShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	goDir, heddleDir := t.TempDir(), t.TempDir()
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestStackShapes$", "./stack")
	cmd.Dir = "testdata/nodot"
	cmd.Env = append(os.Environ(), "STACKS="+goDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	t.Setenv("STACKS", heddleDir)
	if stdout, stderr, code := heddle(t, "testdata/nodot", "test", "-out", t.TempDir(), "-run", "^TestStackShapes$", "./stack"); code != exitOK {
		t.Fatalf("heddle test: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, name := range []string{"debug.Stack", "debug.PrintStack", "runtime.Stack"} {
		goShape, err := os.ReadFile(filepath.Join(goDir, name))
		if err != nil {
			t.Fatal(err)
		}
		heddleShape, err := os.ReadFile(filepath.Join(heddleDir, name))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(strings.TrimSpace(string(goShape)), "\n")
		// A frame is two lines: its function's, and its file's.
		for len(want) >= 2 && strings.HasPrefix(strings.TrimPrefix(want[len(want)-2], "created by "), "testing.") {
			want = want[:len(want)-2]
		}
		if got := strings.Split(strings.TrimSpace(string(heddleShape)), "\n"); !slices.Equal(got, want) {
			t.Errorf("%s under heddle:\n%s\nunder go test, without package testing's frames:\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestModuleLanguage checks that the instrumented build keeps a module's language: at go 1.21
// a range loop has one variable, and goroutines that capture it race with the loop's write
// (go test -race reports it); at go 1.22 each iteration has its own, and the same code is clean.
func TestModuleLanguage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules and runs go test -race")
	}
	checkRaces(t, "testdata/loop121", []string{"./..."}, map[string]raceWant{
		"TestBugLoopCapture": {"loop_test.go", []int{16, 21}},
	})
	checkRaces(t, "testdata/loop122", []string{"./..."}, map[string]raceWant{
		"TestLoopCapture": {},
	})
}
