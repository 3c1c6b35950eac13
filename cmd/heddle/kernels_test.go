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
	"github.com/heddledbg/heddle/rt"
)

// buildKernels instruments and builds the test binaries of the bug-kernel corpus once.
var buildKernels = sync.OnceValues(func() (*instrument.Result, error) {
	dir, _ := filepath.Abs("../../testdata/kernels")
	return instrument.Build(context.Background(), instrument.Config{Dir: dir, Packages: []string{"./..."}, Test: true})
})

func worker(bin instrument.Binary) *explorer.Worker {
	return &explorer.Worker{Path: bin.Path, Dir: bin.Dir, Args: []string{"-test.run=^TestHeddleWorker$", "-test.v=true", "-test.timeout=0"},
		Env: []string{"HEDDLE_PACKAGE=" + bin.Package}}
}

type found struct {
	stats *explorer.WireStats
	bugs  []*explorer.WireBug
}

func explore(t *testing.T, w *explorer.Worker, test string, tm rt.TimeModel) found {
	t.Helper()
	var f found
	err := explorer.Remote(context.Background(), w, test, explorer.WireOptions{Strategy: "dpor", MaxTime: 60 * time.Second, Time: tm}, func(m *explorer.Message) {
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
// the fixed twin must report nothing, with either model of time. A kernel whose bug needs a
// timer to fire before work that does not wait says so in want.txt ("time: adversarial"), and
// is explored with -time=adversarial.
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
			kind, tm, only := parseWant(t, string(want))
			w := worker(bin)
			bug := explore(t, w, "TestBug", tm)
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
			for _, tm := range []rt.TimeModel{rt.TimeSynctest, rt.TimeAdversarial} {
				fixed := explore(t, w, "TestFixed", tm)
				if only && tm != rt.TimeSynctest {
					// The kernel's point: a guard that adversarial time fires early.
					if len(fixed.bugs) == 0 {
						t.Errorf("TestFixed (time %s): no false alarm, though the work the guard waits for never waits", tm)
					}
					continue
				}
				for _, b := range fixed.bugs {
					t.Errorf("TestFixed (time %s): %s: %s", tm, b.Kind, b.Message)
				}
				if !fixed.stats.Complete {
					t.Logf("TestFixed (time %s): search not complete within the budget (%d runs)", tm, fixed.stats.Runs)
				}
			}
		})
	}
}

// parseWant reads a kernel's want.txt: the kind of bug on the first line, then optionally
// "time: <model>", the model the bug is explored with. "time: synctest" says more: TestFixed
// is correct only with synctest time, and adversarial time must raise the false alarm that
// the kernel documents (a guard timer fired before work that never waits).
func parseWant(t *testing.T, s string) (kind string, tm rt.TimeModel, synctestOnly bool) {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines[1:] {
		v, ok := strings.CutPrefix(strings.TrimSpace(l), "time:")
		if !ok {
			t.Fatalf("want.txt: unknown line %q", l)
		}
		var err error
		if tm, err = rt.ParseTimeModel(strings.TrimSpace(v)); err != nil {
			t.Fatalf("want.txt: %v", err)
		}
		synctestOnly = tm == rt.TimeSynctest
	}
	return strings.TrimSpace(lines[0]), tm, synctestOnly
}

// goldenReport is the part of a bug report that must not change: its kind, message, and each
// goroutine involved with what it was doing and where.
func goldenReport(b *explorer.WireBug) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "kind: %s\nmessage: %s\n", b.Kind, b.Message)
	for _, g := range b.Trace.Verdict.Goroutines {
		fmt.Fprintf(&sb, "%s %s\n", g.ID, describe(g))
	}
	for _, l := range b.Trace.Verdict.Timing {
		fmt.Fprintf(&sb, "timing: %s\n", l)
	}
	return sb.String()
}

func checkGolden(t *testing.T, path, got string) { golden.Check(t, path, got) }
