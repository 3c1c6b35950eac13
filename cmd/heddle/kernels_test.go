package main

import (
	"context"
	"fmt"
	"github.com/heddledbg/heddle/internal/golden"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/instrument"
)

// buildKernels instruments and builds the test binaries of the bug-kernel corpus once, with
// the race detector, as heddle test does by default.
var buildKernels = sync.OnceValues(func() (*instrument.Result, error) {
	dir, _ := filepath.Abs("../../testdata/kernels")
	return instrument.Build(context.Background(), instrument.Config{Dir: dir, Packages: []string{"./..."}, Test: true, BuildFlags: withRace(nil, true)})
})

func worker(bin instrument.Binary) *explorer.Worker {
	res, _ := buildKernels()
	gorace, err := raceEnv(res.WorkDir)
	if err != nil {
		panic(err)
	}
	return &explorer.Worker{Path: bin.Path, Dir: bin.Dir, Args: []string{"-test.run=^TestHeddleWorker$", "-test.v=true", "-test.timeout=0"},
		Env: []string{"HEDDLE_PACKAGE=" + bin.Package, gorace}}
}

type found struct {
	stats *explorer.WireStats
	bugs  []*explorer.WireBug
}

func explore(t *testing.T, w *explorer.Worker, test string) found {
	t.Helper()
	var f found
	err := explorer.Remote(context.Background(), w, test, explorer.WireOptions{Strategy: "dpor", MaxTime: 60 * time.Second}, func(m *explorer.Message) {
		switch m.Type {
		case "bug":
			f.bugs = append(f.bugs, m.Bug)
		case "done":
			f.stats = m.Stats
		case "error":
			t.Errorf("worker: %s", m.Error)
		}
	})
	if err != nil {
		t.Fatalf("exploring %s: %v", test, err)
	}
	return f
}

// TestKernels runs heddle with default settings on every bug kernel: the buggy test must
// reveal the expected kind of bug, its saved schedule must reproduce it on every replay, and
// the fixed twin must report nothing.
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
			kind := strings.TrimSpace(string(want))
			w := worker(bin)
			bug := explore(t, w, "TestBug")
			var match *explorer.WireBug
			for _, b := range bug.bugs {
				if b.Kind == kind || kind == "lockorder" && b.Kind == "deadlock" {
					match = b
				}
			}
			if match == nil {
				var kinds []string
				for _, b := range bug.bugs {
					kinds = append(kinds, b.Kind+": "+b.Message)
				}
				t.Fatalf("TestBug: want a %s bug, found %q (%d runs)", kind, kinds, bug.stats.Runs)
			}
			checkGolden(t, filepath.Join("../../testdata/kernels", name, "heddle.golden"), goldenReport(match))
			s := match.Trace.Schedule()
			for i := 0; i < replays; i++ {
				tr, err := explorer.RemoteReplay(context.Background(), w, "TestBug", s, explorer.WireOptions{})
				if err != nil {
					t.Fatalf("replay %d: %v", i, err)
				}
				if tr.Verdict.Kind != match.Kind {
					t.Fatalf("replay %d: verdict %s (%s), want %s", i, tr.Verdict.Kind, tr.Verdict.Message, match.Kind)
				}
			}
			fixed := explore(t, w, "TestFixed")
			for _, b := range fixed.bugs {
				t.Errorf("TestFixed: %s: %s", b.Kind, b.Message)
			}
			if !fixed.stats.Complete {
				t.Logf("TestFixed: search not complete within the budget (%d runs)", fixed.stats.Runs)
			}
		})
	}
}

// goldenReport is the part of a bug report that must not change: its kind, message, and each
// goroutine involved with what it was doing and where.
func goldenReport(b *explorer.WireBug) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "kind: %s\nmessage: %s\n", b.Kind, b.Message)
	for _, g := range b.Trace.Verdict.Goroutines {
		fmt.Fprintf(&sb, "%s %s\n", g.ID, describe(g))
	}
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
			res, err := instrument.Build(context.Background(), instrument.Config{Dir: dir, Packages: []string{"./rarerace"}, Test: true, BuildFlags: withRace(nil, race)})
			if err != nil {
				b.Fatal(err)
			}
			defer os.RemoveAll(res.WorkDir)
			bin := res.Binaries[0]
			gorace, err := raceEnv(res.WorkDir)
			if err != nil {
				b.Fatal(err)
			}
			w := &explorer.Worker{Path: bin.Path, Dir: bin.Dir, Args: []string{"-test.run=^TestHeddleWorker$", "-test.v=true", "-test.timeout=0"},
				Env: []string{"HEDDLE_PACKAGE=" + bin.Package, gorace}}
			var runs int
			b.ResetTimer()
			err = explorer.Remote(context.Background(), w, "TestFixed", explorer.WireOptions{Strategy: "random", MaxRuns: b.N}, func(m *explorer.Message) {
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
