package server

import (
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/corpus"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// What the explorer produces is what Publish accepts: every node of the schedule tree (but
// the ones sent again with their pruned alternatives, which the stream leaves out, as the
// producers do), progress and the final statistics, for strategies whose trees differ.
func TestPublishExplorerOutput(t *testing.T) {
	p, ok := corpus.Lookup("WaitGroupAddInside")
	if !ok {
		t.Fatal("corpus program WaitGroupAddInside is missing")
	}
	for _, strategy := range []explorer.Strategy{explorer.DFS, explorer.DPOR, explorer.Bounded, explorer.Portfolio} {
		t.Run(strategy.String(), func(t *testing.T) {
			s := start(t)
			nodes, revisits := 0, 0
			publish := func(msg any) {
				t.Helper()
				if err := s.Publish(msg); err != nil {
					t.Fatal(err)
				}
			}
			rep := explorer.Explore(p.Body, explorer.Options{Strategy: strategy, MaxRuns: 200, Seed: 1, Time: p.Time,
				OnNode: func(n record.Node) {
					if n.Parent == record.Revisit {
						revisits++
						return
					}
					nodes++
					publish(n)
				},
				Progress: func(st *record.Stats) { publish(&record.Progress{Stats: *st}) },
			})
			publish(record.Done{Stats: rep.Stats})
			if nodes == 0 || rep.Stats.Runs == 0 {
				t.Fatalf("%d nodes in %d runs published, want some", nodes, rep.Stats.Runs)
			}
			if len(rep.Bugs) == 0 || rep.Bugs[0].Kind != rt.VerdictAssert {
				t.Errorf("bugs = %v, want the assertion failure", rep.Bugs)
			}
			t.Logf("%s: %d nodes published, %d revisits left out, %d runs", strategy, nodes, revisits, rep.Stats.Runs)
		})
	}
}
