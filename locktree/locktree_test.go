package locktree

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
)

// parse turns a script into events. Each line is a goroutine id, a colon, and operations:
// +L locks L, -L unlocks it, r+L and r-L do the same for reading; >c publishes the
// goroutine's clock to object c and <c joins c's clock (a send and its receive, a close and a
// wait). Lines run in order, so a goroutine may appear on several lines to interleave it with
// others. An event's position is name.go at the event's 1-based index; its HB stamp counts
// each goroutine's operations, in slots by order of first appearance.
func parse(t testing.TB, name, script string) []Event {
	var events []Event
	slots := map[string]int{}
	var clocks [][]int32
	objs := map[string][]int32{}
	join := func(c, o []int32) []int32 {
		for len(c) < len(o) {
			c = append(c, 0)
		}
		for i, x := range o {
			c[i] = max(c[i], x)
		}
		return c
	}
	for n, line := range strings.Split(strings.TrimSpace(script), "\n") {
		if line == "" {
			continue
		}
		g, ops, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s: script line %d: missing colon after the goroutine: %q", name, n+1, line)
		}
		g = strings.TrimSpace(g)
		slot, ok := slots[g]
		if !ok {
			slot = len(clocks)
			slots[g] = slot
			clocks = append(clocks, make([]int32, slot+1))
		}
		for _, op := range strings.Fields(ops) {
			clocks[slot][slot]++
			switch {
			case strings.HasPrefix(op, ">"):
				objs[op[1:]] = join(objs[op[1:]], clocks[slot])
				continue
			case strings.HasPrefix(op, "<"):
				clocks[slot] = join(clocks[slot], objs[op[1:]])
				continue
			}
			e := Event{G: g, Pos: Pos{File: name + ".go", Line: len(events) + 1},
				HB: &Stamp{Slot: slot, Clock: slices.Clone(clocks[slot])}}
			switch {
			case strings.HasPrefix(op, "r+"):
				e.Op, e.Lock = RAcquire, op[2:]
			case strings.HasPrefix(op, "r-"):
				e.Op, e.Lock = RRelease, op[2:]
			case strings.HasPrefix(op, "+"):
				e.Op, e.Lock = Acquire, op[1:]
			case strings.HasPrefix(op, "-"):
				e.Op, e.Lock = Release, op[1:]
			default:
				t.Fatalf("%s: script line %d: bad operation %q", name, n+1, op)
			}
			events = append(events, e)
		}
	}
	return events
}

// figure5 is the program of JPF's Figure 5:
//
//	Thread 1: synchronized(L1){ synchronized(L3){ synchronized(L2){}; synchronized(L4){} } };
//	          synchronized(L4){ synchronized(L2){ synchronized(L3){} } }
//	Thread 2: synchronized(L1){ synchronized(L2){ synchronized(L3){} } };
//	          synchronized(L4){ synchronized(L3){ synchronized(L2){} } }
const figure5 = `
T1: +L1 +L3 +L2 -L2 +L4 -L4 -L3 -L1 +L4 +L2 +L3 -L3 -L2 -L4
T2: +L1 +L2 +L3 -L3 -L2 -L1 +L4 +L3 +L2 -L2 -L3 -L4`

var tests = []struct {
	name   string
	script string
	// warnings are the lock pairs of the expected warnings, predicted the expected deadlock
	// cycles. The golden file testdata/NAME.json holds the whole report.
	warnings  [][2]string
	predicted [][]string
	// unknown drops the events' stamps, as for a run whose happens-before was not computed.
	unknown bool
}{
	{
		name: "no-events",
	},
	{
		// JPF, Figure 5: L3/L4 is inverted between thread 1's left branch and thread 2's right
		// one; the two L2/L3 inversions are gated by L1 and by L4.
		name:      "jpf-figure5",
		script:    figure5,
		warnings:  [][2]string{{"L3", "L4"}},
		predicted: [][]string{{"L3", "L4"}},
	},
	{
		name: "ab-ba",
		script: `
G1: +A +B -B -A
G2: +B +A -A -B`,
		warnings:  [][2]string{{"A", "B"}},
		predicted: [][]string{{"A", "B"}},
	},
	{
		// No two trees are inverted, so pairwise comparison is silent; the graph has the cycle.
		name: "three-cycle",
		script: `
G1: +A +B -B -A
G2: +B +C -C -B
G3: +C +A -A -C`,
		predicted: [][]string{{"A", "B", "C"}},
	},
	{
		// Two goroutines cannot wait at three places: a 3-cycle needs three goroutines.
		name: "three-cycle-two-goroutines",
		script: `
G1: +A +B -B -A +B +C -C -B
G2: +C +A -A -C`,
	},
	{
		name: "gated-ab-ba",
		script: `
G1: +G +A +B -B -A -G
G2: +G +B +A -A -B -G`,
	},
	{
		// A gate held only for reading by both goroutines does not keep them apart.
		name: "read-gate",
		script: `
G1: r+G +A +B -B -A r-G
G2: r+G +B +A -A -B r-G`,
		warnings:  [][2]string{{"A", "B"}},
		predicted: [][]string{{"A", "B"}},
	},
	{
		name: "consistent-order",
		script: `
G1: +A +B +C -C -B -A
G2: +A +C -C -A
G3: +B +C -C -B`,
	},
	{
		name: "read-inversion",
		script: `
G1: r+A r+B r-B r-A
G2: r+B r+A r-A r-B`,
	},
	{
		// With writer preference a queued Lock blocks new readers, so writers elsewhere make a
		// read-only inversion deadlock.
		name: "read-inversion-writers",
		script: `
G1: r+A r+B r-B r-A
G2: r+B r+A r-A r-B
G3: +A -A
G4: +B -B`,
		warnings:  [][2]string{{"A", "B"}},
		predicted: [][]string{{"A", "B"}},
	},
	{
		// A writer on only one of the locks is not enough: the other wait never blocks.
		name: "read-inversion-one-writer",
		script: `
G1: r+A r+B r-B r-A
G2: r+B r+A r-A r-B
G3: +A -A`,
	},
	{
		name: "read-write-inversion",
		script: `
G1: r+A +B -B r-A
G2: r+B +A -A r-B`,
		warnings:  [][2]string{{"A", "B"}},
		predicted: [][]string{{"A", "B"}},
	},
	{
		// G1 releases A before B, so it takes C holding only B: B→C, and no A→C.
		name: "out-of-order-unlock",
		script: `
G1: +A +B -A +C -C -B
G2: +C +A -A -C
G3: +C +B -B -C`,
		warnings:  [][2]string{{"B", "C"}},
		predicted: [][]string{{"B", "C"}},
	},
	{
		// G2 unlocks the mutex G1 locked, so G1 takes B holding nothing.
		name: "unlock-by-other-goroutine",
		script: `
G1: +A
G2: -A
G1: +B -B
G3: +B +A -A -B`,
	},
	{
		name: "self-reacquire",
		script: `
G1: +A +A -A -A r+B r+B +B -B r-B r-B
G2: +A -A`,
	},
	{
		// Each goroutine inverts A and B with itself, which is harmless alone; any two of them
		// can deadlock. One warning stands for all pairs.
		name: "identical-trees",
		script: `
G1: +A +B -B -A +B +A -A -B
G2: +A +B -B -A +B +A -A -B
G3: +A +B -B -A +B +A -A -B`,
		warnings:  [][2]string{{"A", "B"}},
		predicted: [][]string{{"A", "B"}},
	},
	{
		name: "one-goroutine-cycle",
		script: `
G1: +A +B -B -A +B +A -A -B`,
	},
	{
		// yamux's Session: the receive loop nests A→B and closes a channel as it ends; Close
		// waits for that channel before it nests B→A. The nestings cannot overlap.
		name: "ordered-ab-ba",
		script: `
G1: +A +B -B -A >done
G2: <done +B +A -A -B`,
	},
	{
		// G1 publishes before it nests A→B: G2's B→A may run beside it.
		name: "unordered-ab-ba",
		script: `
G1: >ready +A +B -B -A
G2: <ready +B +A -A -B`,
		warnings:  [][2]string{{"A", "B"}},
		predicted: [][]string{{"A", "B"}},
	},
	{
		// Only G1's first A→B is ordered before G2's B→A; its second may overlap it.
		name: "ordered-once-of-two",
		script: `
G1: +A +B -B -A >done +A +B -B -A
G2: <done +B +A -A -B`,
		warnings:  [][2]string{{"A", "B"}},
		predicted: [][]string{{"A", "B"}},
	},
	{
		// G1's edge comes before G2's, so the three edges of the cycle are never taken at once.
		name: "ordered-three-cycle",
		script: `
G1: +A +B -B -A >x
G2: <x +B +C -C -B
G3: +C +A -A -C`,
	},
	{
		// A stamp that is not known orders nothing: the inversion stays a warning.
		name: "unknown-stamps",
		script: `
G1: +A +B -B -A >done
G2: <done +B +A -A -B`,
		unknown:   true,
		warnings:  [][2]string{{"A", "B"}},
		predicted: [][]string{{"A", "B"}},
	},
	{
		name: "natural-order",
		script: `
G1.10: +G1#10 +G1#9 -G1#9 -G1#10
G1.2: +G1#9 +G1#10 -G1#10 -G1#9`,
		warnings:  [][2]string{{"G1#9", "G1#10"}},
		predicted: [][]string{{"G1#9", "G1#10"}},
	},
}

func TestAnalyze(t *testing.T) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := parse(t, tt.name, tt.script)
			if tt.unknown {
				for i := range evs {
					evs[i].HB = nil
				}
			}
			r := Analyze(evs)

			var warnings [][2]string
			for _, w := range r.Warnings {
				warnings = append(warnings, w.Locks)
			}
			if !slices.Equal(warnings, tt.warnings) {
				t.Errorf("warnings = %v, want %v", warnings, tt.warnings)
			}
			var predicted [][]string
			for _, d := range r.Predicted {
				predicted = append(predicted, d.Locks)
			}
			if !reflect.DeepEqual(predicted, tt.predicted) {
				t.Errorf("predicted = %v, want %v", predicted, tt.predicted)
			}
			checkInvariants(t, r)

			got, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Check(t, filepath.Join("testdata", tt.name+".json"), string(got))
		})
	}
}

// TestFigure5 spells out the paper's expected result for Figure 5, which the golden file
// would only show.
func TestFigure5(t *testing.T) {
	r := Analyze(parse(t, "fig5", figure5))
	want := []Warning{{
		Locks:  [2]string{"L3", "L4"},
		First:  Side{G: "T1", Path: []string{"L1", "L3", "L4"}},
		Second: Side{G: "T2", Path: []string{"L4", "L3"}},
	}}
	if !reflect.DeepEqual(r.Warnings, want) {
		t.Errorf("warnings = %+v, want %+v", r.Warnings, want)
	}
	wantSup := []Suppressed{
		{Locks: [2]string{"L2", "L3"}, Gates: []string{"L1"}},
		{Locks: [2]string{"L2", "L3"}, Gates: []string{"L4"}},
	}
	if !reflect.DeepEqual(r.Suppressed, wantSup) {
		t.Errorf("suppressed = %+v, want %+v", r.Suppressed, wantSup)
	}
	// Figure 6: thread 1's tree has nodes 1–7, thread 2's nodes 8–13.
	var count func(n Node) int
	count = func(n Node) int {
		c := len(n.Children)
		for _, ch := range n.Children {
			c += count(ch)
		}
		return c
	}
	if n1, n2 := count(r.Trees[0].Root), count(r.Trees[1].Root); n1 != 7 || n2 != 6 {
		t.Errorf("trees have %d and %d nodes, want 7 and 6", n1, n2)
	}
}

func TestPredictedSteps(t *testing.T) {
	r := Analyze(parse(t, "abba", `
G1: +A +B -B -A
G2: +B +A -A -B`))
	want := []Deadlock{{
		Locks: []string{"A", "B"},
		Steps: []Step{
			{G: "G1", Holds: "A", HoldPos: Pos{"abba.go", 1}, Acquires: "B", Pos: Pos{"abba.go", 2}},
			{G: "G2", Holds: "B", HoldPos: Pos{"abba.go", 5}, Acquires: "A", Pos: Pos{"abba.go", 6}},
		},
	}}
	if !reflect.DeepEqual(r.Predicted, want) {
		t.Errorf("predicted = %+v, want %+v", r.Predicted, want)
	}
}

func TestCompareIDs(t *testing.T) {
	sorted := []string{"", "G1", "G1#2", "G1#10", "G1.2", "G1.2.1", "G1.10", "G2", "G10", "L01", "L1", "a"}
	for i, a := range sorted {
		for j, b := range sorted {
			if got, want := compareIDs(a, b), cmp.Compare(i, j); got != want {
				t.Errorf("compareIDs(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestUnknownOp(t *testing.T) {
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.Contains(msg, "event 1 (G1 on A at x.go:2): unknown op Op(9)") {
			t.Errorf("panic = %q, want one naming the event and the op", msg)
		}
	}()
	Analyze([]Event{
		{G: "G1", Lock: "A", Op: Acquire, Pos: Pos{"x.go", 1}},
		{G: "G1", Lock: "A", Op: 9, Pos: Pos{"x.go", 2}},
	})
}

// checkInvariants checks what every report must satisfy.
func checkInvariants(t *testing.T, r *Report) {
	t.Helper()
	for _, c := range r.Graph.Cycles {
		if len(c) < 2 {
			t.Errorf("cycle %v is shorter than 2", c)
		}
		for _, v := range c[1:] {
			if compareIDs(v, c[0]) <= 0 {
				t.Errorf("cycle %v does not start at its smallest lock", c)
			}
		}
	}
	for i := 1; i < len(r.Graph.Cycles); i++ {
		a, b := r.Graph.Cycles[i-1], r.Graph.Cycles[i]
		if len(a) > len(b) || len(a) == len(b) && slices.CompareFunc(a, b, compareIDs) >= 0 {
			t.Errorf("cycles %v and %v are out of order or repeated", a, b)
		}
	}
	inCycle := func(a, b string) bool {
		for _, c := range r.Graph.Cycles {
			if slices.Contains(c, a) && slices.Contains(c, b) {
				return true
			}
		}
		return false
	}
	warned := make(map[[2]string]bool)
	for _, w := range r.Warnings {
		warned[w.Locks] = true
		if !inCycle(w.Locks[0], w.Locks[1]) {
			t.Errorf("warning for %v is on no cycle of the graph", w.Locks)
		}
		if w.First.G == w.Second.G {
			t.Errorf("warning for %v is within goroutine %s", w.Locks, w.First.G)
		}
	}
	for _, s := range r.Suppressed {
		if warned[s.Locks] {
			t.Errorf("%v is both a warning and suppressed", s.Locks)
		}
		if (len(s.Gates) == 0) != s.Ordered {
			t.Errorf("%v is suppressed with gates %v, ordered %v: want one reason", s.Locks, s.Gates, s.Ordered)
		}
	}
	for _, d := range r.Predicted {
		if !slices.ContainsFunc(r.Graph.Cycles, func(c []string) bool { return slices.Equal(c, d.Locks) }) {
			t.Errorf("predicted cycle %v is not a cycle of the graph", d.Locks)
		}
		gs := make(map[string]bool)
		for _, s := range d.Steps {
			if gs[s.G] {
				t.Errorf("predicted cycle %v uses goroutine %s twice", d.Locks, s.G)
			}
			gs[s.G] = true
		}
	}
}

// fuzzEvents decodes two bytes into one event over 4 goroutines and 5 locks.
func fuzzEvents(data []byte) []Event {
	var events []Event
	for i := 0; i+1 < len(data); i += 2 {
		events = append(events, Event{
			G:    fmt.Sprintf("G%d", data[i]%4+1),
			Op:   Op(data[i] / 4 % 4),
			Lock: fmt.Sprintf("L%d", data[i+1]%5+1),
			Pos:  Pos{File: "fuzz.go", Line: int(data[i+1])},
		})
	}
	return events
}

func FuzzAnalyze(f *testing.F) {
	f.Add([]byte{})
	// G1: +L1 +L2, G2: +L2 +L1.
	f.Add([]byte{0, 0, 0, 1, 1, 1, 1, 0})
	// Out-of-order release, a handoff and a reentry.
	f.Add([]byte{0, 0, 0, 1, 4, 0, 0, 2, 1, 2, 5, 1, 1, 0, 1, 0, 2, 3, 6, 3})
	// Read locks with a writer.
	f.Add([]byte{8, 0, 8, 1, 9, 1, 9, 0, 2, 0, 6, 0, 3, 1})
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		data := make([]byte, 2*rng.IntN(40))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		events := fuzzEvents(data)
		r1, r2 := Analyze(events), Analyze(events)
		j1, err := json.Marshal(r1)
		if err != nil {
			t.Fatal(err)
		}
		j2, _ := json.Marshal(r2)
		if !bytes.Equal(j1, j2) || !reflect.DeepEqual(r1.Predicted, r2.Predicted) {
			t.Fatalf("two analyses of the same events differ:\n%s\n%s", j1, j2)
		}
		checkInvariants(t, r1)
	})
}

// benchEvents makes n events over the given numbers of locks and goroutines. Goroutines take
// turns running critical sections of one to three locks, mostly in increasing order, sometimes
// inverted, sometimes released out of order, sometimes for reading.
func benchEvents(n, locks, goroutines int) []Event {
	rng := rand.New(rand.NewPCG(7, 11))
	var events []Event
	add := func(g int, op Op, l int) {
		events = append(events, Event{
			G:    fmt.Sprintf("G1.%d", g),
			Lock: fmt.Sprintf("G1#%d", l),
			Op:   op,
			Pos:  Pos{File: "bench.go", Line: len(events) + 1},
		})
	}
	for len(events) < n {
		g := rng.IntN(goroutines)
		held := make([]int, 0, 3)
		read := rng.IntN(4) == 0
		for range 1 + rng.IntN(3) {
			l := rng.IntN(locks)
			if slices.Contains(held, l) {
				continue
			}
			held = append(held, l)
		}
		if rng.IntN(10) != 0 {
			slices.Sort(held)
		}
		acquire, release := Acquire, Release
		if read {
			acquire, release = RAcquire, RRelease
		}
		for _, l := range held {
			add(g, acquire, l)
		}
		if rng.IntN(5) != 0 {
			slices.Reverse(held)
		}
		for _, l := range held {
			add(g, release, l)
		}
	}
	return events[:n]
}

func BenchmarkAnalyze(b *testing.B) {
	events := benchEvents(10_000, 50, 20)
	b.ReportAllocs()
	for b.Loop() {
		Analyze(events)
	}
}

// complete returns the adjacency lists of the complete directed graph on n vertices.
func complete(n int) [][]int {
	adj := make([][]int, n)
	for v := range adj {
		for w := range n {
			if w != v {
				adj[v] = append(adj[v], w)
			}
		}
	}
	return adj
}

func TestElementaryCycles(t *testing.T) {
	// The complete graph on 4 vertices has C(4,k)·(k-1)! cycles of length k: 6 + 8 + 6.
	cycles, truncated := elementaryCycles(complete(4))
	if len(cycles) != 20 || truncated {
		t.Errorf("complete graph on 4 vertices: %d cycles, truncated %v; want 20, false", len(cycles), truncated)
	}
	seen := make(map[string]bool)
	for _, c := range cycles {
		k := fmt.Sprint(c)
		if seen[k] {
			t.Errorf("cycle %v listed twice", c)
		}
		seen[k] = true
	}

	// On 8 vertices there are 16064; the 28 2-cycles come first, then maxCycles others.
	cycles, truncated = elementaryCycles(complete(8))
	if len(cycles) != 28+maxCycles || !truncated {
		t.Errorf("complete graph on 8 vertices: %d cycles, truncated %v; want %d, true", len(cycles), truncated, 28+maxCycles)
	}
	if n := len(cycles[27]); n != 2 {
		t.Errorf("cycle 27 has length %d, want 2", n)
	}
}

// TestManyChildren: a goroutine that takes 100 locks one after the other, twice, has one
// child per lock and mode at its root, in the order of first acquisition, whether the root
// finds its children by a search or, past indexFrom of them, by its index.
func TestManyChildren(t *testing.T) {
	var evs []Event
	for range 2 {
		for i := range 100 {
			for _, op := range []Op{RAcquire, RRelease, Acquire, Release} {
				evs = append(evs, Event{G: "G1", Lock: fmt.Sprintf("G1#%d", i), Op: op})
			}
		}
	}
	r := Analyze(evs)
	if len(r.Trees) != 1 {
		t.Fatalf("%d trees, want 1", len(r.Trees))
	}
	kids := r.Trees[0].Root.Children
	if len(kids) != 200 {
		t.Fatalf("%d children, want 200", len(kids))
	}
	for i, c := range kids {
		if want := fmt.Sprintf("G1#%d", i/2); c.Lock != want || c.Read != (i%2 == 0) {
			t.Errorf("child %d: %s (read %v), want %s (read %v)", i, c.Lock, c.Read, want, i%2 == 0)
		}
	}
}
