package explorer_test

import (
	"slices"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/corpus"
)

// javasafe holds the javasafe paths of Tables 4.1 and 4.2 (Bruening) that an exploration
// reaches in seconds; all 42 rows fit ((n+2)^k-1)/(n+1).
var javasafe = map[[2]int]int{
	{2, 1}: 4, {2, 2}: 5, {2, 3}: 6, {2, 100}: 103, {3, 1}: 13, {3, 2}: 21, {3, 3}: 31,
	{4, 1}: 40, {4, 2}: 85, {4, 3}: 156, {4, 10}: 1885, {5, 1}: 121, {5, 2}: 341,
	{5, 3}: 781, {5, 4}: 1555, {5, 5}: 2801, {6, 1}: 364, {6, 2}: 1365, {6, 3}: 3906,
	{7, 1}: 1093, {7, 2}: 5461, {8, 1}: 3280,
}

// TestExitBlockRWThesisPerformance checks that exitblock-rw-thesis explores the javasafe
// number of paths of Tables 4.1 and 4.2 on Performance(k, n), counting the paths cut by a
// delayed goroutine as paths, as the thesis does. It does so because its runs have the
// thesis's thread blocks (rt.Config.ThreadBlocks): the root's i-th block ends where it starts
// goroutine i, and a goroutine's exit is a block of its own.
func TestExitBlockRWThesisPerformance(t *testing.T) {
	for kn, want := range javasafe {
		k, n := kn[0], kn[1]
		if testing.Short() && want > 200 {
			continue
		}
		p := corpus.Performance(k, n)
		st := explorer.Explore(p.Body, explorer.Options{Strategy: "exitblock-rw-thesis"}).Stats
		if !st.Complete || st.Runs != want {
			t.Errorf("%s: %d paths (complete %v), want the table's %d", p.Name, st.Runs, st.Complete, want)
		}
		if st.Runs-st.Aborted != 1 {
			t.Errorf("%s: %d paths not cut by a delay, want 1 (the blocks are independent)", p.Name, st.Runs-st.Aborted)
		}
	}
}

// rwPaths counts the paths of Fig. 2.12 (ExitBlock-RW) on a program of independent blocks
// (empty read/write sets, so a delayed thread is never re-enabled) in which thread 0 has main
// blocks, the i-th of which ends by starting thread i, and threads 1..len(workers) have the
// given numbers of blocks. A path ends when no enabled thread is undelayed, and such a path
// counts, as in the thesis. At every block end the running thread continues first; each
// other thread is tried next with the running thread and the threads tried before it delayed.
func rwPaths(main int, workers []int) int {
	blocks := append([]int{main}, workers...)
	pos := make([]int, len(blocks))
	enabled := func(t int) bool { return pos[t] < blocks[t] && (t == 0 || main == 0 || pos[0] >= t) }
	var walk func(cur int, delayed []bool) int
	walk = func(cur int, delayed []bool) int {
		order := []int{}
		if cur >= 0 && enabled(cur) && !delayed[cur] {
			order = append(order, cur)
		}
		for t := range blocks {
			if t != cur && enabled(t) && !delayed[t] {
				order = append(order, t)
			}
		}
		if len(order) == 0 {
			return 1
		}
		paths := 0
		d := slices.Clone(delayed)
		for _, t := range order {
			pos[t]++
			paths += walk(t, d)
			pos[t]--
			d[t] = true
		}
		return paths
	}
	start := -1
	if main > 0 {
		start = 0
	}
	return walk(start, make([]bool, len(blocks)))
}

// TestThesisPerformanceModel checks the model behind the javasafe columns of Tables 4.1 and
// 4.2, ((n+2)^k-1)/(n+1) paths for Performance(k, n): they are the paths of Fig. 2.12 when the
// main thread has k blocks, each ending where it starts a thread, and every thread has n+1
// blocks (its n lock exits and its exit end blocks). Without the main thread and the exit
// blocks the model gives §2.4.1's (n+1)^(k-1), which exitblock-rw-thesis explored before its
// runs had the thesis's thread blocks (rt.Config.ThreadBlocks).
func TestThesisPerformanceModel(t *testing.T) {
	for kn, want := range javasafe {
		k, n := kn[0], kn[1]
		if got := rwPaths(k, slices.Repeat([]int{n + 1}, k)); got != want {
			t.Errorf("Performance(%d,%d): live main and n+1 blocks per thread give %d paths, the table %d", k, n, got, want)
		}
		noMain := 1
		for range k - 1 {
			noMain *= n + 1
		}
		if got := rwPaths(0, slices.Repeat([]int{n}, k)); got != noMain {
			t.Errorf("Performance(%d,%d): no main and n blocks per thread give %d paths, want (n+1)^(k-1) = %d", k, n, got, noMain)
		}
	}
}
