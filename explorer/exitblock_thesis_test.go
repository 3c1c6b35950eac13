package explorer_test

import (
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/corpus"
)

// TestExitBlockRWThesisPerformance checks that exitblock-rw-thesis explores §2.4.1's
// (n+1)^(k-1) paths of Performance(k, n), counting the paths cut by a delayed goroutine as
// paths, as the thesis does. The tables' ((n+2)^k-1)/(n+1) is not reached: see
// docs/exitblock.md.
func TestExitBlockRWThesisPerformance(t *testing.T) {
	for _, kn := range [][2]int{{2, 1}, {2, 2}, {2, 3}, {3, 1}, {3, 2}, {4, 1}, {4, 2}} {
		k, n := kn[0], kn[1]
		p := corpus.Performance(k, n)
		st := explorer.Explore(p.Body, explorer.Options{Strategy: "exitblock-rw-thesis"}).Stats
		want := 1
		for range k - 1 {
			want *= n + 1
		}
		if !st.Complete || st.Runs != want {
			t.Errorf("%s: %d paths (complete %v), want (n+1)^(k-1) = %d", p.Name, st.Runs, st.Complete, want)
		}
	}
}
