package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/suite"
	"github.com/heddledbg/heddle/wire"
)

// The differential test runs every test function of the modules under testdata twice: with
// go test -race, many times, and with heddle test's exploration, and checks that heddle is
// never weaker than Go's race detector (docs/races.md, "The differential test").
const (
	// diffCountEnv sets how many times go test -race runs each test (its -count); the issue's
	// measure is 200. The default keeps CI's run within minutes: most of the corpus's tests
	// that plain Go fails at all, it fails in the first few runs.
	diffCountEnv = "HEDDLE_DIFF_COUNT"
	diffCount    = 20
	// diffRuns is heddle's budget per test, in runs, so that its verdict depends on the
	// program and the seed, not on the machine's load.
	diffRuns = 2000
	// diffHang ends a run of go test that has printed nothing for this long: the test hangs
	// (a deadlock that Go's runtime does not see, because a timer or a signal handler keeps
	// a goroutine alive). The slowest run of a test in the corpus takes about a second.
	diffHang = 10 * time.Second
	// diffStart is how long a go test process may print nothing before its first line. On a
	// loaded machine a race-built binary has taken over 10 s to start; a SIGQUIT before Go's
	// runtime installs its handlers kills it silently, with no run to compare.
	diffStart = 3 * time.Minute
	// diffFile lists the modules left out and the races that plain Go may not show.
	diffFile = "../../testdata/differential.txt"
)

// goOutcome is what go test -race did with one test function.
type goOutcome struct {
	runs  int // runs started
	fails int // runs that failed
	// kinds are the ways it failed: "race", "fail" (t.Error or t.Fatal without a race),
	// "panic", "fatal error", "deadlock" (fatal error: all goroutines are asleep), "hang"
	// (ended after printing nothing for diffHang), "exit" (the process ended otherwise).
	kinds []string
	first string // the output of the first failure, cut short
}

func (o goOutcome) failed() bool { return len(o.kinds) > 0 }

func (o goOutcome) String() string {
	if !o.failed() {
		return fmt.Sprintf("0/%d", o.runs)
	}
	return fmt.Sprintf("%d/%d %s", o.fails, o.runs, strings.Join(o.kinds, ","))
}

// heddleOutcome is what heddle's exploration of one test found.
type heddleOutcome struct {
	runs     int
	complete bool
	bugs     []*wire.Bug
	// unexplorable says why heddle did not explore the test.
	unexplorable string
}

func (o heddleOutcome) kinds() []string {
	var ks []string
	for _, b := range o.bugs {
		if !slices.Contains(ks, b.Kind) {
			ks = append(ks, b.Kind)
		}
	}
	slices.Sort(ks)
	return ks
}

func (o heddleOutcome) race() *wire.Bug {
	for _, b := range o.bugs {
		if b.Kind == "race" {
			return b
		}
	}
	return nil
}

func (o heddleOutcome) String() string {
	if o.unexplorable != "" {
		return "unexplorable"
	}
	search := "budget"
	if o.complete {
		search = "complete"
	}
	v := "clean"
	if len(o.bugs) > 0 {
		v = strings.Join(o.kinds(), ",")
	}
	return fmt.Sprintf("%s (%d runs, %s)", v, o.runs, search)
}

// diffList is testdata/differential.txt: the modules the test leaves out, and the races heddle
// reports that go test -race may never show, each with its reason.
type diffList struct {
	skip  map[string]string // module directory -> reason
	races map[string]string // test id -> reason
	// unmodelled are races that go test -race reports on a primitive's own memory, which
	// heddle does not reproduce, on tests where heddle reports the bug itself: test id ->
	// reason.
	unmodelled map[string]string
}

func readDiffList(file string) (diffList, error) {
	l := diffList{skip: map[string]string{}, races: map[string]string{}, unmodelled: map[string]string{}}
	data, err := os.ReadFile(file)
	if err != nil {
		return l, err
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		name, reason, ok := strings.Cut(rest, ": ")
		m := map[string]map[string]string{"skip": l.skip, "race": l.races, "unmodelled": l.unmodelled}[verb]
		if !ok || strings.TrimSpace(reason) == "" || m == nil {
			return l, fmt.Errorf("%s:%d: %q: want \"skip MODULE: reason\", \"race TEST: reason\" or \"unmodelled TEST: reason\"", file, i+1, line)
		}
		if _, dup := m[name]; dup {
			return l, fmt.Errorf("%s:%d: %s listed twice", file, i+1, name)
		}
		m[name] = reason
	}
	return l, nil
}

// diffModules returns the directories of the modules under testdata that the test compares:
// all of them but those the list skips, so that a module added there is compared without
// being named anywhere.
func diffModules(t *testing.T, l diffList) []string {
	mods, err := filepath.Glob("../../testdata/*/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	seen := map[string]bool{}
	for _, m := range mods {
		dir := filepath.Dir(m)
		seen[filepath.Base(dir)] = true
		if _, skip := l.skip[filepath.Base(dir)]; !skip {
			dirs = append(dirs, dir)
		}
	}
	for name := range l.skip {
		if !seen[name] {
			t.Errorf("%s skips %s, which is not a module under testdata", diffFile, name)
		}
	}
	return dirs
}

// diffCase is one test function to compare.
type diffCase struct {
	id     string // module directory, package path in the module, test: kernels/rarerace.TestBug
	test   string
	plain  string // the test binary that go test -race -c built
	heddle *driver.Worker
	dir    string      // the package's directory
	want   *kernelWant // the package's want.txt, if it has one
}

// TestDifferential compares heddle test with go test -race on every test function of the
// modules under testdata: the bug kernels, the programs of the happens-before issue, and any
// module added there. Go's race detector is the oracle. The test fails
//   - if go test -race fails a test (a race, a panic, a failed check, a hang) that heddle's
//     exploration calls clean;
//   - if heddle reports a race on a test that go test -race never failed in its runs, and
//     testdata/differential.txt does not explain it: a race that needs an interleaving Go's
//     scheduler rarely makes, in a test that is meant to have it;
//   - if that file explains a race that heddle no longer reports.
//
// With -v it prints the table of every test compared. HEDDLE_DIFF_COUNT=200 runs each test
// 200 times under go test -race; the default is diffCount.
func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every module under testdata, with go test -race and with heddle")
	}
	count := diffCount
	if s := os.Getenv(diffCountEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a number of runs", diffCountEnv, s)
		}
		count = n
	}
	list, err := readDiffList(diffFile)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	type row struct {
		id, goSide, heddleSide, note string
	}
	var (
		mu   sync.Mutex
		rows []row
	)
	for _, dir := range diffModules(t, list) {
		mod := filepath.Base(dir)
		t.Run(mod, func(t *testing.T) {
			cases := diffBuild(t, dir)
			ids := map[string]bool{}
			for _, c := range cases {
				ids[c.id] = true
			}
			for id := range list.races {
				if (strings.HasPrefix(id, mod+".") || strings.HasPrefix(id, mod+"/")) && !ids[id] {
					t.Errorf("%s explains a race of %s, which is not a test of the corpus", diffFile, id)
				}
			}
			for _, c := range cases {
				t.Run(strings.TrimLeft(strings.TrimPrefix(c.id, mod), "/."), func(t *testing.T) {
					t.Parallel()
					// Both at once: a run of go test that hangs waits idle for diffHang.
					heddle := make(chan heddleOutcome, 1)
					go func() { heddle <- exploreDiff(c) }()
					g := runPlain(t, c, count)
					h := <-heddle
					note := compare(t, c, g, h, list.races[c.id], list.unmodelled[c.id])
					mu.Lock()
					rows = append(rows, row{id: c.id, goSide: g.String(), heddleSide: h.String(), note: note})
					mu.Unlock()
				})
			}
		})
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.id, b.id) })
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d tests compared in %v; go test -race -count=%d, heddle %d runs each\n", len(rows), time.Since(start).Round(time.Second), count, diffRuns)
	w := 0
	for _, r := range rows {
		w = max(w, len(r.id))
	}
	fmt.Fprintf(&sb, "%-*s  %-22s  %-36s  %s\n", w, "test", "go -race failed/runs", "heddle", "")
	for _, r := range rows {
		fmt.Fprintf(&sb, "%-*s  %-22s  %-36s  %s\n", w, r.id, r.goSide, r.heddleSide, r.note)
	}
	t.Log("\n" + sb.String())
}

// compare reports a disagreement between go test -race and heddle on one test, and returns
// the table's note on it. reason is the list's explanation of a race plain Go may not show,
// unmodelled its explanation of a race of go's that heddle does not reproduce.
func compare(t *testing.T, c *diffCase, g goOutcome, h heddleOutcome, reason, unmodelled string) string {
	if h.unexplorable != "" {
		t.Errorf("heddle did not explore %s: %s", c.id, h.unexplorable)
		return "DISAGREE: heddle did not explore it"
	}
	race := h.race()
	switch {
	case g.failed() && len(h.bugs) == 0:
		t.Errorf("go test -race fails %s (%s) but heddle calls it clean (%s); go's first failure:\n%s", c.id, g, h, g.first)
		return "DISAGREE: heddle misses what go shows"
	case unmodelled != "" && race != nil:
		t.Errorf("%s says heddle does not reproduce go's race of %s, but it does now (%s): remove the entry", diffFile, c.id, h)
		return "DISAGREE: the listed race is reproduced"
	case unmodelled != "" && slices.Contains(g.kinds, "race"):
		// g failed, and heddle reports bugs (the first case): the bug, not go's race on the
		// primitive's memory.
		return "race unmodelled: " + unmodelled
	case slices.Contains(g.kinds, "race") && race == nil:
		t.Errorf("go test -race reports a race in %s (%s) but heddle reports none (%s); go's first failure:\n%s", c.id, g, h, g.first)
		return "DISAGREE: heddle misses go's race"
	case reason != "" && race == nil:
		t.Errorf("%s explains a race of %s that heddle no longer reports (%s)", diffFile, c.id, h)
		return "DISAGREE: the listed race is gone"
	case reason != "" && !bugTwin(c):
		t.Errorf("%s explains a race of %s, which is not a test meant to have a bug: a TestBug, or a TestRace… in a package without want.txt", diffFile, c.id)
		return "DISAGREE: listed but not a racy twin"
	case reason != "":
		if !g.failed() {
			t.Logf("heddle's race, which go test -race did not show in %d runs:\n%s", g.runs, raceReport(race))
		}
		return "race listed: " + reason
	case race != nil && !g.failed():
		t.Errorf("heddle reports a race in %s that go test -race never showed in %d runs, and %s does not explain it; heddle's report:\n%s",
			c.id, g.runs, diffFile, raceReport(race))
		return "DISAGREE: a race go never showed"
	}
	return ""
}

// raceReport is heddle's report of a race: the accesses, the goroutines and the interleaving
// that ordered them so.
func raceReport(b *wire.Bug) string {
	var sb strings.Builder
	sb.WriteString(goldenReport(b))
	if b.Trace != nil && len(b.Trace.Events) > 0 {
		suite.PrintInterleaving(&sb, b.Trace, "", false)
	}
	return sb.String()
}

// bugTwin reports whether c is a test its corpus says is racy: a kernel's TestBug whose bug
// is a race or that breaks the locking discipline (warn: lockset), or a TestRace… elsewhere.
func bugTwin(c *diffCase) bool {
	if c.want != nil {
		// A buggy twin whose bug is another may race on its way there too (a send racing with
		// the close that makes it panic).
		return c.test == "TestBug"
	}
	return strings.HasPrefix(c.test, "TestRace")
}

// diffBuild builds the tests of the module in dir twice, as go test -race builds them and as
// heddle test does (the kernels' instrumented build is TestKernels's), and returns its test
// functions.
func diffBuild(t *testing.T, dir string) []*diffCase {
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Base(abs)
	plainDir := t.TempDir()
	var plainErr error
	var plainOut []byte
	var plainTook time.Duration
	start := time.Now()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		cmd := exec.Command("go", "test", "-race", "-c", "-o", plainDir+string(filepath.Separator), "./...")
		cmd.Dir = abs
		plainOut, plainErr = cmd.CombinedOutput()
		plainTook = time.Since(start)
	}()
	var res *instrument.Result
	if mod == "kernels" {
		res, err = buildKernels()
	} else {
		res, err = instrument.Build(context.Background(), instrument.Config{Dir: abs, Packages: []string{"./..."}, Test: true, BuildFlags: suite.WithRace(nil, true), KeepGoing: true})
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(res.WorkDir) })
		}
	}
	built := time.Since(start)
	wg.Wait()
	t.Logf("built by heddle in %v, by go test -race -c in %v", built.Round(time.Second), plainTook.Round(time.Second))
	if plainErr != nil {
		t.Fatalf("go test -race -c ./... in %s: %v\n%s", dir, plainErr, plainOut)
	}
	if err != nil {
		t.Fatalf("heddle's build of %s: %v", dir, err)
	}
	for _, be := range res.Failed {
		t.Errorf("heddle cannot build %s, which go test -race builds:\n%s", be.Package, be.Output)
	}
	var cases []*diffCase
	for _, bin := range res.Binaries {
		// go test -c names a binary after the last element of its package's path.
		plain := filepath.Join(plainDir, path.Base(bin.Package)+".test")
		if _, err := os.Stat(plain); err != nil {
			t.Errorf("go test -race -c built no %s for %s", filepath.Base(plain), bin.Package)
			continue
		}
		cmd := exec.Command(plain, "-test.list", ".")
		cmd.Dir = bin.Dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s -test.list: %v", plain, err)
		}
		w, err := buildWorker(res, bin)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(abs, bin.Dir)
		if err != nil {
			t.Fatal(err)
		}
		prefix := mod + "/" + filepath.ToSlash(rel)
		if rel == "." {
			prefix = mod
		}
		var want *kernelWant
		if data, err := os.ReadFile(filepath.Join(bin.Dir, "want.txt")); err == nil {
			w := parseWant(t, string(data))
			want = &w
		}
		for _, test := range strings.Fields(string(out)) {
			if !strings.HasPrefix(test, "Test") {
				continue // benchmarks, examples and fuzz targets
			}
			cases = append(cases, &diffCase{id: prefix + "." + test, test: test, plain: plain, heddle: w, dir: bin.Dir, want: want})
		}
	}
	return cases
}

// exploreDiff explores c's test with heddle test's defaults and a budget of diffRuns runs.
func exploreDiff(c *diffCase) heddleOutcome {
	f, err := exploreWith(c.heddle, c.test, wire.Options{MaxRuns: diffRuns})
	var o heddleOutcome
	if f.stats != nil {
		o.runs, o.complete = f.stats.Runs, f.stats.Complete
	}
	var we *driver.ExitError
	switch {
	case errors.As(err, &we):
		// The program took its worker down, a bug as heddle test reports it.
		o.bugs = append(f.bugs, &wire.Bug{Kind: "exit", Message: we.Error()})
		return o
	case err != nil:
		o.unexplorable = err.Error()
		return o
	case len(f.errors) > 0:
		o.unexplorable = strings.Join(f.errors, "; ")
		return o
	}
	for _, b := range f.bugs {
		if b.Kind == string(rt.VerdictUnsupported) {
			o.unexplorable = b.Message
			return o
		}
		if fn := suite.HeddleFrame(b.Message); fn != "" && b.Kind == string(rt.VerdictFatal) {
			o.unexplorable = "the test read heddle's own goroutines (" + fn + ")"
			return o
		}
	}
	o.bugs = f.bugs
	return o
}

// runPlain runs c's test count times in one go test -race process, as
// go test -race -count=count -run '^Test$' does, and says how it failed. The race detector is
// told to report every race, not only the first of each pair of stacks, so that every run
// that races fails. A process that dies (a panic, a fatal error, a hang) ends the runs.
func runPlain(t *testing.T, c *diffCase, count int) goOutcome {
	cmd := exec.Command(c.plain, "-test.run=^"+regexp.QuoteMeta(c.test)+"$", "-test.count="+strconv.Itoa(count), "-test.v", "-test.timeout=0")
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "GORACE=suppress_equal_stacks=0 suppress_equal_addresses=0")
	var out bytes.Buffer
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var o goOutcome
	kind := func(k string) {
		if !slices.Contains(o.kinds, k) {
			o.kinds = append(o.kinds, k)
		}
	}
	hung := false
	var run strings.Builder // the current run's output
	raced, failed := false, false
	endRun := func() {
		if failed || raced {
			o.fails++
			if o.first == "" {
				o.first = cut(run.String(), 40)
			}
		}
		run.Reset()
		raced, failed = false, false
	}
	timer := time.NewTimer(diffStart)
	defer timer.Stop()
	killed := false
loop:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break loop
			}
			timer.Reset(diffHang)
			out.WriteString(line + "\n")
			switch {
			case strings.HasPrefix(line, "=== RUN   "+c.test) && !strings.Contains(line, "/"):
				endRun()
				o.runs++
			case line == "WARNING: DATA RACE":
				raced = true
				kind("race")
			case strings.HasPrefix(line, "--- FAIL: "+c.test+" "):
				failed = true
				if !raced {
					kind("fail")
				}
			case strings.HasPrefix(line, "fatal error: all goroutines are asleep"):
				failed = true
				kind("deadlock")
			case strings.HasPrefix(line, "fatal error: "):
				failed = true
				kind("fatal error")
			case strings.HasPrefix(line, "panic: ") && !strings.HasPrefix(line, "panic: test timed out"):
				failed = true
				kind("panic")
			}
			run.WriteString(line + "\n")
		case <-timer.C:
			if !killed {
				// A goroutine dump, as go test's -timeout gives, then a kill if it does not end.
				hung, killed = true, true
				cmd.Process.Signal(syscall.SIGQUIT)
				timer.Reset(diffHang)
			} else {
				cmd.Process.Kill()
			}
		}
	}
	err = cmd.Wait()
	if hung {
		failed = true
		kind("hang")
	}
	if err != nil && !failed && !slices.Contains(o.kinds, "fail") && !slices.Contains(o.kinds, "race") {
		// Not a test's failure go test prints: os.Exit, or a signal.
		failed = true
		kind("exit")
	}
	endRun()
	if o.runs == 0 {
		t.Errorf("%s ran no test %s:\n%s", c.plain, c.test, cut(out.String(), 40))
	}
	return o
}

// cut returns the first n lines of s.
func cut(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("… (%d more lines)\n", len(lines)-n)
}
