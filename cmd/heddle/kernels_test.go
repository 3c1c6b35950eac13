package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddledbg/heddle/internal/golden"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/suite"
	"github.com/heddledbg/heddle/wire"
)

// buildKernels instruments and builds the test binaries of the bug-kernel corpus once, with
// the race detector, as heddle test does by default.
// TestMain removes the build (kernelsBuilt), which takes close to a gigabyte.
var buildKernels = sync.OnceValues(func() (*instrument.Result, error) {
	dir, _ := filepath.Abs("../../testdata/kernels")
	res, err := instrument.Build(context.Background(), instrument.Config{Dir: dir, Packages: []string{"./..."}, Test: true, BuildFlags: suite.WithRace(nil, true)})
	kernelsBuilt.Store(res)
	return res, err
})

var kernelsBuilt atomic.Pointer[instrument.Result]

func kernelWorker(bin instrument.Binary) *driver.Worker {
	res, _ := buildKernels()
	w, err := buildWorker(res, bin)
	if err != nil {
		panic(err)
	}
	return w
}

// buildWorker returns a worker for bin, one of the binaries of res built with the race
// detector, as heddle test starts it.
func buildWorker(res *instrument.Result, bin instrument.Binary) (*driver.Worker, error) {
	gorace, err := suite.RaceEnv(res.WorkDir)
	if err != nil {
		return nil, err
	}
	return &driver.Worker{Path: bin.Path, Dir: bin.Dir, Args: wire.TestArgs(true),
		Env: []string{wire.EnvPackage + "=" + bin.Package, gorace}}, nil
}

type found struct {
	stats    *record.Stats
	bugs     []*wire.Bug
	warnings []*record.Warning
	errors   []string // what the worker answered instead of an exploration
}

func explore(t *testing.T, w *driver.Worker, test string, tm rt.TimeModel) found {
	t.Helper()
	f, err := exploreWith(w, test, wire.Options{MaxTime: 60 * time.Second, Time: tm})
	for _, e := range f.errors {
		t.Errorf("worker: %s", e)
	}
	if err != nil {
		t.Fatalf("exploring %s: %v", test, err)
	}
	return f
}

// exploreWith explores test in one worker process with opts.
func exploreWith(w *driver.Worker, test string, opts wire.Options) (found, error) {
	var f found
	err := driver.Explore(context.Background(), w, test, opts, func(m *wire.Message) {
		switch m.Type {
		case "bug":
			f.bugs = append(f.bugs, m.Bug)
		case "done":
			f.stats = m.Stats
			f.warnings = m.Warnings
		case "error":
			f.errors = append(f.errors, m.Error)
		}
	})
	return f, err
}

// TestKernels runs heddle with default settings on every bug kernel: the buggy test must
// reveal the expected kind of bug, its saved schedule must reproduce it on every replay, and
// the fixed twin must report nothing, with the default model of time and, if it uses package time, with adversarial time. A timer kernel whose want.txt
// says "also: adversarial" must reveal its bug with -time=adversarial too.
func TestKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores the whole kernel corpus")
	}
	res, err := buildKernels()
	if err != nil {
		t.Fatal(err)
	}
	replays := 100
	if n := len(res.Binaries); n < 40 {
		t.Errorf("corpus has %d kernels, want at least 40", n)
	}
	for _, bin := range res.Binaries {
		name := path.Base(bin.Package)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join("../../testdata/kernels", name, "want.txt"))
			if err != nil {
				t.Fatal(err)
			}
			wt := parseWant(t, string(want))
			kind := wt.kind
			w := kernelWorker(bin)
			bug := explore(t, w, "TestBug", rt.TimeQuantum)
			// The golden shows the main search's bug when it found one: the timeout search
			// runs after it, under adversarial time.
			var match *wire.Bug
			for _, b := range bug.bugs {
				if (b.Kind == kind || kind == "lockorder" && b.Kind == "deadlock") && (match == nil || match.Strategy == "timeout-search" || b.Strategy != "timeout-search") {
					match = b
				}
			}
			if kind == "none" {
				// Only a warning: the test cannot fail.
				for _, b := range bug.bugs {
					t.Errorf("TestBug: %s: %s", b.Kind, b.Message)
				}
				match = &wire.Bug{Kind: kind}
			}
			if match == nil {
				var kinds []string
				for _, b := range bug.bugs {
					kinds = append(kinds, b.Kind+": "+b.Message)
				}
				t.Fatalf("TestBug: want a %s bug, found %q (%d runs)", kind, kinds, bug.stats.Runs)
			}
			if wt.adversarial {
				if _, ok := firstBug(bin, kind, rt.TimeAdversarial, "", 60*time.Second); !ok {
					t.Errorf("TestBug (time adversarial): no %s bug within 60s", kind)
				}
			}
			report := ""
			if kind != "none" {
				report = goldenReport(match)
			}
			for _, wk := range wt.warn {
				if !slices.ContainsFunc(bug.warnings, func(w *record.Warning) bool { return w.Kind == wk }) {
					t.Errorf("TestBug: no %s warning (%d runs)", wk, bug.stats.Runs)
				}
			}
			if len(wt.warn) > 0 {
				for _, w := range bug.warnings {
					report += "warning: " + w.Message + "\n"
					if w.Confirmed != "" {
						report += "  " + w.Confirmed + "\n"
					}
				}
			}
			if confirmed := slices.ContainsFunc(bug.warnings, func(w *record.Warning) bool { return w.Confirmed != "" }); confirmed != wt.confirmed {
				t.Errorf("TestBug: a warning confirmed by the race window: %v, want %v", confirmed, wt.confirmed)
			}
			checkGolden(t, filepath.Join("../../testdata/kernels", name, "heddle.golden"), report)
			for i := 0; i < replays && kind != "none"; i++ {
				s := match.Trace.Schedule()
				tr, err := driver.Replay(context.Background(), w, "TestBug", s, wire.Options{})
				if err != nil {
					t.Fatalf("replay %d: %v", i, err)
				}
				if tr.Verdict.Kind != match.Kind {
					t.Fatalf("replay %d: verdict %s (%s), want %s", i, tr.Verdict.Kind, tr.Verdict.Message, match.Kind)
				}
			}
			models := []rt.TimeModel{rt.TimeQuantum}
			if usesTime(t, name) {
				// Adversarial time differs from the default only where a timer is set.
				models = append(models, rt.TimeAdversarial)
			}
			for _, tm := range models {
				fixed := explore(t, w, "TestFixed", tm)
				if wt.synctestOnly && tm == rt.TimeAdversarial {
					// The kernel's point: a guard that adversarial time fires early.
					if len(fixed.bugs) == 0 {
						t.Errorf("TestFixed (time %s): no false alarm, though the work the guard waits for never waits", tm)
					}
					continue
				}
				for _, b := range fixed.bugs {
					t.Errorf("TestFixed (time %s): %s: %s", tm, b.Kind, b.Message)
				}
				for _, w := range fixed.warnings {
					t.Errorf("TestFixed (time %s): warning: %s", tm, w.Message)
				}
				if !fixed.stats.Complete {
					t.Logf("TestFixed (time %s): search not complete within the budget (%d runs)", tm, fixed.stats.Runs)
				}
			}
		})
	}
}

// usesTime reports whether kernel name imports package time.
func usesTime(t *testing.T, name string) bool {
	src, err := os.ReadFile(filepath.Join("../../testdata/kernels", name, name+"_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(src), "\t\"time\"\n") || strings.Contains(string(src), "import \"time\"")
}

// A kernelWant is a kernel's want.txt: the kind of bug on the first line, then optionally
//   - "time: synctest": TestFixed is correct only with synctest time, and adversarial time
//     must raise the false alarm that the kernel documents (a guard timer fired before work
//     that never waits);
//   - "also: adversarial": TestBug's bug is a timer beating work, which adversarial time, where
//     a timer may fire at any step, must find too;
//   - "warn: lockset": TestBug breaks Eraser's locking discipline, and must get the lockset
//     warning (its message is in heddle.golden). A TestFixed never gets a warning;
//   - "warn: atomicity": a //heddle:atomic function of TestBug is possibly not atomic, and it
//     must get the atomicity warning (in heddle.golden). The kind "none" on the first line
//     says that TestBug has no bug at all, only the warnings;
//   - "warn: confirmed": the race window confirms TestBug's lockset warning with a failure.
//     Without this line, no warning may be confirmed: the race is the whole bug.
//
// TestBug is always explored with the default (synctest) time.
type kernelWant struct {
	kind         string
	synctestOnly bool
	adversarial  bool
	warn         []string // the kinds of warning TestBug must get
	confirmed    bool
}

func parseWant(t testing.TB, s string) kernelWant {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	w := kernelWant{kind: strings.TrimSpace(lines[0])}
	for _, l := range lines[1:] {
		switch strings.Join(strings.Fields(l), " ") {
		case "time: synctest":
			w.synctestOnly = true
		case "also: adversarial":
			w.adversarial = true
		case "warn: lockset":
			w.warn = append(w.warn, "lockset")
		case "warn: atomicity":
			w.warn = append(w.warn, "atomicity")
		case "warn: confirmed":
			w.confirmed = true
		default:
			t.Fatalf("want.txt: unknown line %q (want \"time: synctest\", \"also: adversarial\", \"warn: lockset\", \"warn: atomicity\" or \"warn: confirmed\")", l)
		}
	}
	return w
}

// BenchmarkKernelsFirstBug measures, for the dpor strategy and for the default (the
// portfolio), the time from the start of TestBug's exploration to the first report of the bug
// its want.txt names, in one worker per kernel, one kernel at a time, with the 60 s budget of
// TestKernels. It reports the median over the corpus (a kernel not found counts as the
// budget) and how many kernels were found. Run it with -benchtime=1x; it takes minutes.
func BenchmarkKernelsFirstBug(b *testing.B) {
	res, err := buildKernels()
	if err != nil {
		b.Fatal(err)
	}
	const budget = 60 * time.Second
	for _, strategy := range []string{"dpor", ""} {
		name := strategy
		if name == "" {
			name = "default"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var times []time.Duration
				found := 0
				for _, bin := range res.Binaries {
					kernel := path.Base(bin.Package)
					want, err := os.ReadFile(filepath.Join("../../testdata/kernels", kernel, "want.txt"))
					if err != nil {
						b.Fatal(err)
					}
					kind := parseWant(b, string(want)).kind
					if kind == "none" {
						continue
					}
					d, ok := firstBug(bin, kind, rt.TimeQuantum, strategy, budget)
					if ok {
						found++
					}
					b.Logf("%s %s: %v found=%v", name, kernel, d.Round(time.Millisecond), ok)
					times = append(times, d)
				}
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
				b.ReportMetric(float64(found), "found")
				b.ReportMetric(float64(len(times)), "kernels")
			}
		})
	}
}

// firstBug explores TestBug until the first bug of the wanted kind is reported, and returns the
// time that took (budget if it was not found).
func firstBug(bin instrument.Binary, kind string, tm rt.TimeModel, strategy string, budget time.Duration) (time.Duration, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), budget+20*time.Second)
	defer cancel()
	start := time.Now()
	var took time.Duration
	driver.Explore(ctx, kernelWorker(bin), "TestBug", wire.Options{Strategy: strategy, MaxTime: budget, Time: tm}, func(m *wire.Message) {
		// A lock-order inversion is reported once the exploration ends, the others as found.
		if (m.Type == wire.MsgFound || m.Type == wire.MsgBug) && took == 0 && (m.Bug.Kind == kind || kind == "lockorder" && m.Bug.Kind == "deadlock") {
			took = time.Since(start)
			cancel()
		}
	})
	if took == 0 {
		return budget, false
	}
	return took, true
}

// goldenReport is the part of a bug report that must not change: its kind, message, and each
// goroutine involved with what it was doing and where.
func goldenReport(b *wire.Bug) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "kind: %s\nmessage: %s\n", b.Kind, b.Message)
	for _, g := range b.Trace.Verdict.Goroutines {
		fmt.Fprintf(&sb, "%s %s\n", g.ID, b.Trace.State(g))
	}
	for _, l := range b.Trace.Verdict.Timing {
		fmt.Fprintf(&sb, "timing: %s\n", l)
	}
	sb.WriteString(record.DrawHistory(b.Trace.Verdict.History))
	return sb.String()
}

func checkGolden(t *testing.T, path, got string) { golden.Check(t, path, got) }

// BenchmarkRace measures what race detection costs: schedules per second of one worker
// exploring the rarerace kernel's correct twin (two goroutines taking a lock twelve times),
// built without and with the race detector.
func BenchmarkRace(b *testing.B) {
	dir, _ := filepath.Abs("../../testdata/kernels")
	for _, race := range []bool{false, true} {
		b.Run(fmt.Sprintf("race=%v", race), func(b *testing.B) {
			res, err := instrument.Build(context.Background(), instrument.Config{Dir: dir, Packages: []string{"./rarerace"}, Test: true, BuildFlags: suite.WithRace(nil, race)})
			if err != nil {
				b.Fatal(err)
			}
			defer os.RemoveAll(res.WorkDir)
			bin := res.Binaries[0]
			gorace, err := suite.RaceEnv(res.WorkDir)
			if err != nil {
				b.Fatal(err)
			}
			w := &driver.Worker{Path: bin.Path, Dir: bin.Dir, Args: wire.TestArgs(true),
				Env: []string{wire.EnvPackage + "=" + bin.Package, gorace}}
			var runs int
			b.ResetTimer()
			err = driver.Explore(context.Background(), w, "TestFixed", wire.Options{Strategy: "random", MaxRuns: b.N}, func(m *wire.Message) {
				switch m.Type {
				case "done":
					runs = m.Stats.Runs
				case "bug":
					b.Errorf("%s: %s", m.Bug.Kind, m.Bug.Message)
				}
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "schedules/s")
		})
	}
}

// TestStollerKernel explores Stoller's §9 example (the stollermld kernel) with the stoller
// strategy, whose reduction assumes the locking discipline MLD′: TestBug breaks it and must
// get the warning that says the search is not sound for it, TestFixed must not.
func TestStollerKernel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the kernel corpus")
	}
	res, err := buildKernels()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Binaries, func(b instrument.Binary) bool { return path.Base(b.Package) == "stollermld" })
	if i < 0 {
		t.Fatal("no stollermld kernel")
	}
	w := kernelWorker(res.Binaries[i])
	for _, tc := range []struct {
		test string
		want bool
	}{{"TestBug", true}, {"TestFixed", false}} {
		var mld []*record.Warning
		err := driver.Explore(context.Background(), w, tc.test, wire.Options{Strategy: "stoller", MaxTime: 60 * time.Second}, func(m *wire.Message) {
			if m.Type == wire.MsgDone {
				for _, w := range m.Warnings {
					if w.Kind == "mld" {
						mld = append(mld, w)
					}
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(mld) > 0; got != tc.want {
			t.Errorf("%s: %d MLD′ warnings, want some: %v", tc.test, len(mld), tc.want)
		}
		if tc.want && (len(mld) != 1 || !strings.Contains(mld[0].Message, "the stoller search is not sound for this program") || !strings.Contains(mld[0].Message, "stollermld_test.go:30 by G1.1 holding no lock")) {
			t.Errorf("%s: MLD′ warnings %+v", tc.test, mld)
		}
	}
}

// TestInstrumentCachedModule instruments a dependency that the go command reads from the module
// cache, whose files an overlay may not replace: the build uses a copy of the module, and the
// kernel built with it still finds its bug and passes its twin.
func TestInstrumentCachedModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a kernel")
	}
	dir, _ := filepath.Abs("../../testdata/kernels")
	res, err := instrument.Build(context.Background(), instrument.Config{Dir: dir, Packages: []string{"./goleakworker"}, Test: true,
		Instrument: []string{"go.uber.org/goleak/..."}})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(res.WorkDir)
	if len(res.Binaries) != 1 || len(res.Failed) != 0 {
		t.Fatalf("built %d binaries, %d failed: %v", len(res.Binaries), len(res.Failed), res.Failed)
	}
	bin := res.Binaries[0]
	w := &driver.Worker{Path: bin.Path, Dir: bin.Dir, Args: wire.TestArgs(true), Env: []string{wire.EnvPackage + "=" + bin.Package}}
	if bug := explore(t, w, "TestBug", rt.TimeQuantum); len(bug.bugs) == 0 || bug.bugs[0].Kind != "leak" {
		t.Errorf("TestBug: %d bugs, want a leak", len(bug.bugs))
	}
	if fixed := explore(t, w, "TestFixed", rt.TimeQuantum); len(fixed.bugs) != 0 {
		t.Errorf("TestFixed: %s, want none", fixed.bugs[0].Kind)
	}
}
