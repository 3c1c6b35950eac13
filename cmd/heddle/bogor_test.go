package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/suite"
	"github.com/heddledbg/heddle/wire"
)

// TestBogorTable explores the readers/writers and replicated workers examples of Bogor's
// atomicity checking (testdata/bogor, translated to Go) with each atomicity checker, and
// writes their counts as Table 1 of Hatcliff, Robby and Dwyer gives them: of the annotated
// functions that the test executes, check is those verified, noise those flagged as possibly
// not atomic (these programs are correct, so every flag is the checker's imprecision), error
// those found definitely not atomic. testdata/bogor/table.golden holds the counts (BENCHMARKS.md puts
// them next to the paper's); -update rewrites it.
func TestBogorTable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores the Bogor examples four times each")
	}
	dir, _ := filepath.Abs("../../testdata/bogor")
	res, err := instrument.Build(context.Background(), instrument.Config{Dir: dir, Packages: []string{"./..."}, Test: true, BuildFlags: suite.WithRace(nil, true)})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(res.WorkDir)
	gorace, err := suite.RaceEnv(res.WorkDir)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{"readerswriters": "TestReadersWriters", "replicatedworkers": "TestReplicatedWorkers"}
	var sb strings.Builder
	sb.WriteString("| example | annotated | executed | checker | check | noise | error | flagged |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, bin := range res.Binaries {
		name := path.Base(bin.Package)
		annotated := countAnnotated(t, filepath.Join(dir, name))
		w := &driver.Worker{Path: bin.Path, Dir: bin.Dir, Args: wire.TestArgs(true), Env: []string{wire.EnvPackage + "=" + bin.Package, gorace}}
		for _, checker := range explorer.AtomicCheckers {
			var flagged, definite []string
			var checks []*record.AtomicityCheck
			complete := false
			err := driver.Explore(context.Background(), w, tests[name], wire.Options{MaxTime: 60 * time.Second, Atomicity: checker}, func(m *wire.Message) {
				switch m.Type {
				case "bug":
					if m.Bug.Kind != string(rt.VerdictAtomicity) {
						t.Errorf("%s: %s: %s", name, m.Bug.Kind, m.Bug.Message)
					} else if a := m.Bug.Trace.Verdict.Atomicity; a != nil && !slices.Contains(definite, a.Func) {
						definite = append(definite, a.Func)
					}
				case "done":
					complete, checks = m.Stats.Complete, m.Atomicity
					for _, w := range m.Warnings {
						if w.Kind == "atomicity" && w.Atomicity != nil {
							flagged = append(flagged, w.Atomicity.Func)
						}
					}
				case "error":
					t.Errorf("worker: %s", m.Error)
				}
			})
			if err != nil {
				t.Fatalf("exploring %s: %v", name, err)
			}
			if !complete {
				t.Errorf("%s (%s): the search did not complete within its budget", name, checker)
			}
			// The warnings must be those that the counts of every checker give.
			var want []string
			for _, c := range checks {
				ind, mov, w := c.Flagged[explorer.AtomicInd] > 0, c.Flagged[explorer.AtomicMover] > 0, c.Flagged[explorer.AtomicW] > 0
				if map[string]bool{explorer.AtomicC: ind && mov, explorer.AtomicInd: ind, explorer.AtomicMover: mov, explorer.AtomicW: ind && w}[checker] {
					want = append(want, c.Func)
				}
			}
			slices.Sort(flagged)
			slices.Sort(want)
			if !slices.Equal(flagged, want) {
				t.Errorf("%s (%s): warnings for %q, but the checkers' counts flag %q", name, checker, flagged, want)
			}
			executed := len(checks)
			fmt.Fprintf(&sb, "| %s | %d | %d | %s | %d | %d | %d | %s |\n", name, annotated, executed, checker,
				executed-len(flagged)-len(definite), len(flagged), len(definite), strings.Join(flagged, ", "))
		}
	}
	checkGolden(t, filepath.Join(dir, "table.golden"), sb.String())
}

// countAnnotated counts the //heddle:atomic functions of the package in dir.
func countAnnotated(t *testing.T, dir string) int {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(src), "\n") {
			if strings.TrimSpace(l) == "//heddle:atomic" {
				n++
			}
		}
	}
	return n
}
