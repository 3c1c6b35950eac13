package explorer_test

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/corpus"
	"github.com/heddledbg/heddle/internal/golden"
)

var countsFlag = flag.Bool("counts", false, "count the schedules per strategy of the corpus programs and check them against BENCHMARKS.md (Schedule counts)")

// absOp is an abstract operation of a program model: the step of goroutine g that touches obj.
// Two operations are dependent if they belong to the same goroutine or touch the same object.
type absOp struct{ g, obj int }

// performanceModel is the abstract program of corpus.Performance(k, n) as heddle schedules it:
// the root starts the goroutines and returns without a scheduling point, and each goroutine's
// steps are its n Lock calls, each with the following Unlock folded in (releases are not
// scheduling points), on the mutexes 0..n-1 in turn.
func performanceModel(k, n int) [][]absOp {
	gs := make([][]absOp, k)
	for g := range gs {
		for l := range n {
			gs[g] = append(gs[g], absOp{g: g, obj: l})
		}
	}
	return gs
}

// mazurkiewicz counts the Mazurkiewicz traces of a model, independently of the explorer: it
// enumerates every interleaving of the goroutines' operation sequences and counts the distinct
// Foata normal forms. An operation's Foata level is one more than the highest level of the
// earlier operations it depends on; two interleavings are equivalent (differ only in the order
// of commuting adjacent operations) exactly when every operation gets the same level.
func mazurkiewicz(gs [][]absOp) int {
	total := 0
	for _, ops := range gs {
		total += len(ops)
	}
	next := make([]int, len(gs))
	word := make([]absOp, 0, total)
	seen := map[string]bool{}
	var walk func()
	walk = func() {
		if len(word) == total {
			seen[foata(word, gs)] = true
			return
		}
		for g := range gs {
			if next[g] < len(gs[g]) {
				word = append(word, gs[g][next[g]])
				next[g]++
				walk()
				next[g]--
				word = word[:len(word)-1]
			}
		}
	}
	walk()
	return len(seen)
}

// foata returns a canonical form of word's trace: the Foata level of each operation, listed
// goroutine by goroutine in program order.
func foata(word []absOp, gs [][]absOp) string {
	level := make([]int, len(word))
	for i, a := range word {
		for j, b := range word[:i] {
			if a.g == b.g || a.obj == b.obj {
				level[i] = max(level[i], level[j]+1)
			}
		}
	}
	byG := make([][]int, len(gs))
	for i, a := range word {
		byG[a.g] = append(byG[a.g], level[i])
	}
	return fmt.Sprint(byG)
}

// TestMazurkiewiczCounter checks the independent trace counter on models whose counts are
// known in closed form.
func TestMazurkiewiczCounter(t *testing.T) {
	for _, tc := range []struct {
		name string
		gs   [][]absOp
		want int
	}{
		// Nothing shared: every interleaving is one trace.
		{"independent", [][]absOp{{{0, 0}, {0, 1}}, {{1, 2}, {1, 3}}}, 1},
		// Everything on one object: every interleaving is its own trace, C(4,2).
		{"one object", [][]absOp{{{0, 0}, {0, 0}}, {{1, 0}, {1, 0}}}, 6},
		// k goroutines with one step each on one mutex: k! orders.
		{"Performance(4,1)", performanceModel(4, 1), 24},
		// Two goroutines and n mutexes taken in the same order: the order at each mutex is
		// free, 2^n.
		{"Performance(2,3)", performanceModel(2, 3), 8},
	} {
		if got := mazurkiewicz(tc.gs); got != tc.want {
			t.Errorf("%s: %d traces, want %d", tc.name, got, tc.want)
		}
	}
}

// TestPerformanceTraces checks DPOR against the independent trace count. Optimal DPOR
// explores each Mazurkiewicz trace of Performance(k, n) by exactly one run and abandons none;
// sleep-set DPOR makes one complete run per trace too, but abandons others when every enabled
// goroutine is asleep.
func TestPerformanceTraces(t *testing.T) {
	for _, kn := range [][2]int{{2, 1}, {2, 2}, {2, 3}, {3, 1}, {3, 2}, {3, 3}, {4, 1}, {4, 2}, {4, 3}} {
		p := corpus.Performance(kn[0], kn[1])
		want := mazurkiewicz(performanceModel(kn[0], kn[1]))
		for _, s := range []explorer.Strategy{"dpor", "dpor-sleep"} {
			rep := explorer.Explore(p.Body, explorer.Options{Strategy: s, Time: p.Time})
			st := rep.Stats
			if got := st.Runs - st.Aborted; !st.Complete || got != want || s == "dpor" && st.Aborted > 0 {
				t.Errorf("%s: %s made %d complete runs (%d aborted, complete=%v), want one per trace: %d",
					p.Name, s, got, st.Aborted, st.Complete, want)
			}
		}
	}
}

// thesisCounts quotes the numbers of paths of Tables 4.1 and 4.3 of Bruening's thesis, measured
// with Rivet on JDK 1.1.6. "normal" is ExitBlock-RWDD counting the JDK's own synchronized
// regions (thread start and death), "javasafe" ignores those, "deadlock" is ExitBlock-DD.
var thesisCounts = map[string]string{
	"Performance(2,1)":  "10 normal, 4 javasafe",
	"Performance(2,2)":  "11 normal, 5 javasafe",
	"Performance(2,3)":  "12 normal, 6 javasafe",
	"Performance(3,1)":  "67 normal, 13 javasafe",
	"Performance(3,2)":  "85 normal, 21 javasafe",
	"Performance(3,3)":  "105 normal, 31 javasafe",
	"Performance(4,1)":  "546 normal, 40 javasafe",
	"Performance(4,2)":  "784 normal, 85 javasafe",
	"Performance(4,3)":  "1080 normal, 156 javasafe",
	"Performance(5,1)":  "5447 normal, 121 javasafe",
	"Performance(5,2)":  "8632 normal, 341 javasafe",
	"Performance(2,10)": "—",
	"SplitSync":         "18",
	"NoEraser":          "16",
	"Deadlock":          "10; 841 deadlock",
	"Deadlock3":         "79; *207299 deadlock (out of memory); 2505 deadlock+javasafe",
	"DeadlockWait":      "7; 19 deadlock",
	"BufferIf":          "22958; 169 javasafe; 1781 deadlock+javasafe",
	"BufferNotify":      "29350; 79 javasafe; 574 deadlock+javasafe",
}

// TestCounts counts the runs each systematic strategy needs to exhaust the Performance
// programs and the thesis's error programs, next to the thesis's numbers and, for
// Performance, the number of Mazurkiewicz traces, and checks the table against the one
// recorded in BENCHMARKS.md under "Schedule counts": a strategy that now needs a different
// number of runs, or finds other bugs, fails it. go test -update rewrites the recorded table.
// It takes minutes, so it runs only when asked for.
func TestCounts(t *testing.T) {
	if !*countsFlag && os.Getenv("HEDDLE_COUNTS") == "" {
		t.Skip("schedule counts are logged with -counts or HEDDLE_COUNTS=1")
	}
	var strategies []explorer.Strategy
	// The portfolio runs several members in turn: its count is not one search's.
	// exitblock-rw-thesis stands next to the thesis's own numbers, counted its way.
	for _, s := range explorer.Strategies {
		if s != "pct" && s != "random" && s != "portfolio" && s != thesisStrategy {
			strategies = append(strategies, s)
		}
	}
	var progs []corpus.Program
	for _, kn := range [][2]int{{2, 1}, {2, 2}, {2, 3}, {2, 10}, {3, 1}, {3, 2}, {3, 3}, {4, 1}, {4, 2}, {4, 3}, {5, 1}, {5, 2}} {
		progs = append(progs, corpus.Performance(kn[0], kn[1]))
	}
	for _, name := range []string{"SplitSync", "NoEraser", "Deadlock", "Deadlock3", "DeadlockWait", "BufferIf", "BufferNotify", "StollerComposition"} {
		p, ok := corpus.Lookup(name)
		if !ok {
			t.Fatalf("%s is not in the corpus", name)
		}
		progs = append(progs, p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| program | thesis | %s | traces | %s |\n|---|---|---|---|%s\n", thesisStrategy, strings.Join(strategyNames(strategies), " | "), strings.Repeat("---|", len(strategies)))
	for _, p := range progs {
		traces := "—"
		var k, n int
		if _, err := fmt.Sscanf(p.Name, "Performance(%d,%d)", &k, &n); err == nil {
			traces = fmt.Sprint(mazurkiewicz(performanceModel(k, n)))
		}
		thesis := thesisCounts[p.Name]
		if thesis == "" {
			thesis = "—"
		}
		row := fmt.Sprintf("| %s | %s | %s | %s |", p.Name, thesis, countRuns(p, thesisStrategy), traces)
		for _, s := range strategies {
			row += " " + countRuns(p, s) + " |"
		}
		t.Log(row) // progress: the larger programs take minutes
		b.WriteString(row + "\n")
	}
	checkCounts(t, b.String())
}

// benchmarksPath is the file that records the schedule counts.
const benchmarksPath = "../BENCHMARKS.md"

// checkCounts compares table, the Markdown table of TestCounts, with the one recorded in
// BENCHMARKS.md (the table whose header starts with countsHeader), or rewrites that one
// under -update.
func checkCounts(t *testing.T, table string) {
	const countsHeader = "| program | thesis | "
	doc, err := os.ReadFile(benchmarksPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "\n"+countsHeader)
	if start < 0 {
		t.Fatalf("%s has no schedule count table (a line starting %q)", benchmarksPath, countsHeader)
	}
	start++
	end := start
	for end < len(text) && text[end] == '|' {
		nl := strings.IndexByte(text[end:], '\n')
		if nl < 0 {
			end = len(text)
			break
		}
		end += nl + 1
	}
	if golden.Updating() {
		if err := os.WriteFile(benchmarksPath, []byte(text[:start]+table+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := strings.Split(strings.TrimSuffix(text[start:end], "\n"), "\n")
	got := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("schedule counts differ from %s (go test -update rewrites it):\ngot  %s\nwant %s", benchmarksPath, g, w)
		}
	}
}

// thesisStrategy is ExitBlock-RW as the thesis measured it.
const thesisStrategy = explorer.ExitBlockRWThesis

// countRuns explores p with strategy s and formats its number of runs: complete runs, then
// aborted (sleep-set blocked) runs if any, and the bugs found. For thesisStrategy it counts
// as the thesis does: every path, with those cut by delays in parentheses.
func countRuns(p corpus.Program, s explorer.Strategy) string {
	// A bound of runs, not of time, so that the counts do not depend on the machine's load.
	opts := explorer.Options{Strategy: s, MaxRuns: 2_000_000}
	if s == "bounded" {
		// A bound above any program's number of preemptions: the iterative deepening ends
		// when a bound cuts nothing, so the count includes every shallower iteration.
		opts.Bound = 1000
	}
	rep := explorer.Explore(p.Body, opts)
	st := rep.Stats
	out := fmt.Sprint(st.Runs - st.Aborted)
	switch {
	case s == thesisStrategy:
		out = fmt.Sprintf("%d (%d cut)", st.Runs, st.Aborted)
	case st.Aborted > 0:
		out += fmt.Sprintf(" +%d aborted", st.Aborted)
	}
	if !st.Complete {
		out = "≥" + out + " (incomplete)"
	}
	var kinds []string
	for _, b := range rep.Bugs {
		if !slices.Contains(kinds, string(b.Kind)) {
			kinds = append(kinds, string(b.Kind))
		}
	}
	if len(kinds) > 0 {
		out += " " + strings.Join(kinds, ",")
	}
	return out
}

// strategyNames returns the names of ss.
func strategyNames(ss []explorer.Strategy) []string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.String()
	}
	return names
}
