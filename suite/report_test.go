package suite

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
	"github.com/heddledbg/heddle/record"
)

// TestInterleavingTable prints the verdict and the interleaving of traces that real runs saved
// (kernels' bugs, with their paths cut to /src) as a bug report does, and compares them with
// golden files: the operations read as Go code (defer wg.Done(), <-done blocks, select
// blocks, s.cond.Wait()), deferred calls at their defer statements, blocked goroutines in Go's
// terms, and of a long run (manyleak: 196 steps, 14 goroutines) only the leaked goroutine's
// and the root's steps.
func TestInterleavingTable(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "interleaving", "*.trace.json"))
	if len(files) == 0 {
		t.Fatal("no traces in testdata/interleaving")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".trace.json")
		t.Run(name, func(t *testing.T) {
			tr, err := record.ReadTrace(f)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			for _, g := range tr.Verdict.Goroutines {
				fmt.Fprintf(&sb, "%-8s %s\n", g.ID, tr.State(g))
			}
			printInterleaving(&sb, tr, "", newWindow(tr))
			golden.Check(t, filepath.Join("testdata", "interleaving", name+".golden"), sb.String())
		})
	}
}
