package explorer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/rt"
)

// Programs from chapters 2 and 4 of Bruening's thesis, written against rt. Every variable is
// created inside the body, since the body runs once per schedule. A Java thread is a goroutine;
// the root goroutine (main) waits for them with a WaitGroup, so that a stuck thread is a
// deadlock, as in Java, rather than a leak. "<arbitrary code>" sections are invisible code.

// twoThreads runs f1 and f2 as goroutines and waits for both.
func twoThreads(f ...func()) {
	var wg rt.WaitGroup
	wg.Add(len(f))
	for _, fn := range f {
		rt.Go(func() { defer wg.Done(); fn() })
	}
	wg.Wait()
}

// Fig. 2.6 / 2.11: thread 1 nests b inside a, thread 2 takes a then b. The only data
// dependency is between sections 2 and 7 (a counter protected by a, an atomic so that the
// thesis's data model can see it).
func fig26() {
	var a, b rt.Mutex
	var x rt.Int32
	twoThreads(
		func() { a.Lock(); x.Add(1); b.Lock(); b.Unlock(); a.Unlock() },
		func() { a.Lock(); x.Add(1); a.Unlock(); b.Lock(); b.Unlock() },
	)
}

// Fig. 4.2 SplitSync: the increment is split into two critical sections; the assertion fails
// when the other thread runs in between.
func splitSync() {
	var mu rt.Mutex
	x := 0
	inc := func() {
		mu.Lock()
		y := x
		mu.Unlock()
		mu.Lock()
		if x != y {
			rt.Fail(rt.VerdictAssert, "SplitSync.run: shared var was modified!", true)
		}
		x = y + 1
		mu.Unlock()
	}
	twoThreads(inc, inc)
}

// SplitSync's twin: one critical section.
func splitSyncFixed() {
	var mu rt.Mutex
	x := 0
	inc := func() {
		mu.Lock()
		y := x
		if x != y {
			rt.Fail(rt.VerdictAssert, "modified", true)
		}
		x = y + 1
		mu.Unlock()
	}
	twoThreads(inc, inc)
}

// Fig. 4.6 Deadlock (and Fig. 2.14): the first thread takes a then b, the second b then a.
func deadlock() {
	var a, b rt.Mutex
	twoThreads(
		func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() },
		func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() },
	)
}

// Deadlock's twin: both threads take a then b.
func deadlockFixed() {
	var a, b rt.Mutex
	twoThreads(
		func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() },
		func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() },
	)
}

// Fig. 4.8 Deadlock3: three threads take a,b / b,c / c,a.
func deadlock3() {
	var a, b, c rt.Mutex
	twoThreads(
		func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() },
		func() { b.Lock(); c.Lock(); c.Unlock(); b.Unlock() },
		func() { c.Lock(); a.Lock(); a.Unlock(); c.Unlock() },
	)
}

// Deadlock3's twin: the third thread takes a before c (a global lock order).
func deadlock3Fixed() {
	var a, b, c rt.Mutex
	twoThreads(
		func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() },
		func() { b.Lock(); c.Lock(); c.Unlock(); b.Unlock() },
		func() { a.Lock(); c.Lock(); c.Unlock(); a.Unlock() },
	)
}

// Fig. 4.10 DeadlockWait: the first thread waits on b while holding a; the second needs a
// before it can notify b. A condition deadlock.
func deadlockWait() {
	var a, b rt.Mutex
	cb := rt.NewCond(&b)
	twoThreads(
		func() { a.Lock(); b.Lock(); cb.Wait(); b.Unlock(); a.Unlock() },
		func() { a.Lock(); a.Unlock(); b.Lock(); cb.Signal(); b.Unlock() },
	)
}

// DeadlockWait's twin: wait for a condition in a loop, and do not hold a while waiting.
func deadlockWaitFixed() {
	var a, b rt.Mutex
	cb := rt.NewCond(&b)
	ready := false
	twoThreads(
		func() {
			a.Lock()
			a.Unlock()
			b.Lock()
			for !ready {
				cb.Wait()
			}
			b.Unlock()
		},
		func() {
			a.Lock()
			a.Unlock()
			b.Lock()
			ready = true
			cb.Signal()
			b.Unlock()
		},
	)
}

// Fig. 2.17: ExitBlock plus reverse lock chain analysis finds the deadlock (thread 1 holds a
// and wants b, thread 2 holds b and wants a); in the thesis ExitBlock-RW prunes the paths where
// the analysis would fire, because no region reads or writes data.
//
// heddle's search first continues the goroutine that ran last, which is the last one started;
// the threads are started in reverse so that the first path runs thread 1 first, as the trees
// of Fig. 2.18 and 2.19 do.
func fig217() {
	var a, b rt.Mutex
	twoThreads(
		func() {
			a.Lock()
			a.Unlock()
			b.Lock()
			a.Lock()
			a.Unlock()
			b.Unlock()
		}, // thread 2
		func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() }, // thread 1
	)
}

// Fig. 2.17's twin: thread 2's nested region takes a then b.
func fig217Fixed() {
	var a, b rt.Mutex
	twoThreads(
		func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() },
		func() {
			a.Lock()
			a.Unlock()
			a.Lock()
			b.Lock()
			b.Unlock()
			a.Unlock()
		},
	)
}

// Fig. 2.20: a condition deadlock if thread 2 runs first (it notifies nobody, then both wait).
// Started in reverse, like fig217, so that the first path runs thread 1 first (Fig. 2.22).
func fig220() {
	var a rt.Mutex
	c := rt.NewCond(&a)
	twoThreads(
		func() { a.Lock(); c.Signal(); c.Wait(); a.Unlock() }, // thread 2
		func() { a.Lock(); c.Wait(); c.Signal(); a.Unlock() }, // thread 1
	)
}

// Fig. 2.21: no condition deadlock, but ExitBlock-RW ends paths with a thread waiting and the
// other delayed; reporting those would be a false condition deadlock.
func fig221() {
	var a rt.Mutex
	c := rt.NewCond(&a)
	f := func() { a.Lock(); c.Signal(); c.Wait(); c.Signal(); a.Unlock() }
	twoThreads(f, f)
}

// A gate lock: both threads take g first, so the opposite orders of a and b cannot deadlock.
// Reverse lock chain analysis must not report the a/b cycle (the cut would need both threads
// to hold g).
func gateLock() {
	var g, a, b rt.Mutex
	twoThreads(
		func() {
			g.Lock()
			a.Lock()
			b.Lock()
			b.Unlock()
			a.Unlock()
			g.Unlock()
		},
		func() {
			g.Lock()
			b.Lock()
			a.Lock()
			a.Unlock()
			b.Unlock()
			g.Unlock()
		},
	)
}

// Opposite orders separated by a go statement: the second goroutine starts after the first
// has left both locks, so they cannot deadlock.
func orderedByGo() {
	var a, b rt.Mutex
	var wg rt.WaitGroup
	wg.Add(1)
	a.Lock()
	b.Lock()
	b.Unlock()
	a.Unlock()
	rt.Go(func() { defer wg.Done(); b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
	wg.Wait()
}

// Opposite orders separated by a channel: the second thread waits for the first's message.
func orderedByChan() {
	var a, b rt.Mutex
	ch := rt.MakeChan[int](0)
	twoThreads(
		func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock(); rt.Send(ch, 1) },
		func() { rt.Recv(ch); b.Lock(); a.Lock(); a.Unlock(); b.Unlock() },
	)
}

// Fig. 2.16: opposite orders but no nesting: no deadlock, and no analysis is even triggered.
func fig216() {
	var a, b rt.Mutex
	twoThreads(
		func() { a.Lock(); a.Unlock(); b.Lock(); b.Unlock() },
		func() { b.Lock(); b.Unlock(); a.Lock(); a.Unlock() },
	)
}

// exploreBr runs a systematic search with brancher br, as Explore does for a strategy name.
func exploreBr(body func(), br brancher) *Report {
	e := &explorer{opts: Options{}, r: &inProcess{h: Body(body)}, rep: &Report{Outcomes: map[string]int{}}, start: time.Now(), bugs: map[string]*Bug{}}
	e.systematic(br, -1)
	e.finish()
	return e.rep
}

// exitblock-rwdd with the thesis's data model: locks and conds are not reads or writes.
const thesisRWDD Strategy = "exitblock-rwdd/thesis-data"

func run(body func(), strategy Strategy) *Report {
	if strategy == thesisRWDD {
		br := newExitBlockRW(true)
		br.thesisData = true
		return exploreBr(body, br)
	}
	return Explore(body, Options{Strategy: strategy})
}

func kinds(r *Report) []string {
	var k []string
	for _, b := range r.Bugs {
		k = append(k, string(b.Kind))
	}
	slices.Sort(k)
	return slices.Compact(k)
}

var ebStrategies = []Strategy{"dfs", "exitblock", "exitblock-rw", "exitblock-dd", "exitblock-rwdd", thesisRWDD}

// TestExitBlockFamily checks, for every program and strategy, which kinds of bugs are found.
// want maps a strategy to the sorted bug kinds it must report ("" for none).
func TestExitBlockFamily(t *testing.T) {
	none := ""
	dl, lc, as := "deadlock", "lockcycle", "assert"
	cases := []struct {
		name string
		body func()
		want map[Strategy]string
	}{
		{"Fig2.6", fig26, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		{"SplitSync", splitSync, map[Strategy]string{"dfs": as, "exitblock": as, "exitblock-rw": as, "exitblock-dd": as, "exitblock-rwdd": as, thesisRWDD: none}},
		{"SplitSyncFixed", splitSyncFixed, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		// ExitBlock never executes the lock-cycle deadlock (§2.5.1, Fig. 2.15): the
		// acquisitions of both locks are in one atomic block. The analysis predicts it.
		{"Deadlock", deadlock, map[Strategy]string{"dfs": dl, "exitblock": none, "exitblock-rw": none, "exitblock-dd": lc, "exitblock-rwdd": lc, thesisRWDD: lc}},
		{"DeadlockFixed", deadlockFixed, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		{"Deadlock3", deadlock3, map[Strategy]string{"dfs": dl, "exitblock": none, "exitblock-rw": none, "exitblock-dd": lc, "exitblock-rwdd": lc, thesisRWDD: lc}},
		{"Deadlock3Fixed", deadlock3Fixed, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		// A condition deadlock: every ExitBlock path ends with no enabled goroutine, and
		// rt's end-of-run check is the thesis's condition-deadlock check.
		{"DeadlockWait", deadlockWait, map[Strategy]string{"dfs": dl, "exitblock": dl, "exitblock-rw": dl, "exitblock-dd": dl, "exitblock-rwdd": dl, thesisRWDD: dl}},
		{"DeadlockWaitFixed", deadlockWaitFixed, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		// Fig. 2.17: ExitBlock-RW misses the deadlock; ExitBlock-DD predicts it. With the
		// thesis's data model ExitBlock-RWDD misses it too (Fig. 2.19); with locks counted as
		// writes (§2.6, heddle's default) ExitBlock-RWDD recovers it.
		{"Fig2.17", fig217, map[Strategy]string{"dfs": dl, "exitblock": none, "exitblock-rw": none, "exitblock-dd": lc, "exitblock-rwdd": lc, thesisRWDD: none}},
		{"Fig2.17Fixed", fig217Fixed, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		// Fig. 2.20: a real condition deadlock. With the thesis's data model RWDD ends the
		// deadlocking path with the other thread delayed and must not report it (§2.5.2).
		{"Fig2.20", fig220, map[Strategy]string{"dfs": dl, "exitblock": dl, "exitblock-rw": dl, "exitblock-dd": dl, "exitblock-rwdd": dl, thesisRWDD: none}},
		// Fig. 2.21: no deadlock; pruned paths that end with a waiting thread are not reported.
		{"Fig2.21", fig221, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		{"Fig2.16", fig216, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		{"GateLock", gateLock, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		{"OrderedByGo", orderedByGo, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
		{"OrderedByChan", orderedByChan, map[Strategy]string{"dfs": none, "exitblock": none, "exitblock-rw": none, "exitblock-dd": none, "exitblock-rwdd": none, thesisRWDD: none}},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-18s", "runs (bugs)")
	for _, s := range ebStrategies {
		fmt.Fprintf(&table, " %16s", s)
	}
	table.WriteString("\n")
	for _, c := range cases {
		fmt.Fprintf(&table, "%-18s", c.name)
		runs := map[Strategy]int{}
		for _, s := range ebStrategies {
			r := run(c.body, s)
			runs[s] = r.Stats.Runs
			got := strings.Join(kinds(r), ",")
			fmt.Fprintf(&table, " %16s", fmt.Sprintf("%d (%s)", r.Stats.Runs, got))
			if !r.Stats.Complete {
				t.Errorf("%s/%s: search incomplete", c.name, s)
			}
			if want, ok := c.want[s]; ok && got != want {
				t.Errorf("%s/%s: bugs %q, want %q", c.name, s, got, want)
				for _, b := range r.Bugs {
					t.Logf("  %s: %s", b.Kind, b.Message)
				}
			}
		}
		table.WriteString("\n")
		if runs["exitblock"] > runs["dfs"] || runs["exitblock-rw"] > runs["exitblock"] || runs["exitblock-dd"] != runs["exitblock"] || runs["exitblock-rwdd"] != runs["exitblock-rw"] {
			t.Errorf("%s: run counts out of order: %v", c.name, runs)
		}
	}
	t.Logf("run counts (bug kinds) per strategy:\n%s", table.String())
}

// TestLockCycleMessage checks that a predicted cycle names its goroutines and locks, with
// source positions from the detail replay, and that its schedule replays.
func TestLockCycleMessage(t *testing.T) {
	r := Explore(deadlock3, Options{Strategy: "exitblock-dd"})
	if len(r.Bugs) != 1 {
		t.Fatalf("got %d bugs, want 1", len(r.Bugs))
	}
	b := r.Bugs[0]
	if b.Kind != verdictLockCycle {
		t.Fatalf("kind %s", b.Kind)
	}
	for _, g := range []string{"G1.1", "G1.2", "G1.3"} {
		if !strings.Contains(b.Message, g+" holds ") {
			t.Errorf("message does not name %s: %s", g, b.Message)
		}
	}
	if strings.Count(b.Message, "exitblock_test.go:") != 6 {
		t.Errorf("message lacks positions: %s", b.Message)
	}
	if b.Result == nil || b.Result.Verdict.Kind == rt.VerdictDiverged {
		t.Errorf("schedule does not replay")
	}
	t.Log(b.Message)
}

// TestLockChainRealBlocking: a goroutine that really blocks on a held mutex inside a nest (the
// thesis's failing acquire, reached here because a channel operation ends the block between
// the inner and the outer release) is analysed with the owner's real wait and last lock.
func TestLockChainRealBlocking(t *testing.T) {
	body := func() {
		var a, b rt.Mutex
		ch := rt.MakeChan[int](1)
		twoThreads(
			func() { a.Lock(); b.Lock(); b.Unlock(); rt.Send(ch, 1); a.Unlock() },
			func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() },
		)
	}
	for _, s := range []Strategy{ExitBlockDD, ExitBlockRWDD} {
		r := Explore(body, Options{Strategy: s})
		if got := strings.Join(kinds(r), ","); !strings.Contains(got, "lockcycle") {
			t.Errorf("%s: bugs %q, want a lockcycle", s, got)
		}
	}
}

// TestExitBlockRWDelays checks the delay mechanism on the Performance program of Fig. 4.1
// (each thread takes its own n locks once): ExitBlock executes the interleavings of all blocks
// (§2.3.2, Equation 2.1), ExitBlock-RW close to the (n+1)^(k-1) of §2.4.1. It is not exactly
// that, because the threads' final WaitGroup.Done touch a common object, which the thesis's
// Java threads do not; with the thesis's data model (thesis-data) the WaitGroup is not data.
func TestExitBlockRWDelays(t *testing.T) {
	perf := func(k, n int) func() {
		return func() {
			var fs []func()
			for range k {
				fs = append(fs, func() {
					locks := make([]rt.Mutex, n)
					for i := range locks {
						locks[i].Lock()
						locks[i].Unlock()
					}
				})
			}
			twoThreads(fs...)
		}
	}
	for _, c := range []struct{ k, n int }{{2, 1}, {2, 2}, {2, 3}, {3, 2}} {
		eb := run(perf(c.k, c.n), "exitblock")
		rw := run(perf(c.k, c.n), "exitblock-rw")
		dfs := run(perf(c.k, c.n), "dfs")
		td := run(perf(c.k, c.n), thesisRWDD)
		t.Logf("Performance(%d threads, %d locks): dfs %d, exitblock %d, exitblock-rw %d (pruned %d, delayed alternatives %d), thesis-data %d",
			c.k, c.n, dfs.Stats.Runs, eb.Stats.Runs, rw.Stats.Runs, rw.Stats.Aborted, rw.Stats.PrunedDelayed, td.Stats.Runs)
		if rw.Stats.Runs >= eb.Stats.Runs && eb.Stats.Runs > 1 {
			t.Errorf("Performance(%d,%d): exitblock-rw %d runs, not fewer than exitblock %d", c.k, c.n, rw.Stats.Runs, eb.Stats.Runs)
		}
	}
}

// TestLockTreesHappensBefore checks that the lock trees' inversions leave out the nestings
// that happens-before without locks orders (a channel, a go statement), and only those: two
// atomic loads of a variable nobody stores order nothing, and neither does a lock. (The first
// run of dfs runs the last goroutine started first, so that its nesting comes
// before the other's load or lock; a random first run may deadlock instead.)
func TestLockTreesHappensBefore(t *testing.T) {
	loadsThenABBA := func() {
		var a, b rt.Mutex
		var x rt.Int32
		twoThreads(
			func() { x.Load(); b.Lock(); a.Lock(); a.Unlock(); b.Unlock() },
			func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock(); x.Load() },
		)
	}
	lockThenABBA := func() {
		var a, b, c rt.Mutex
		twoThreads(
			func() {
				c.Lock()
				c.Unlock()
				b.Lock()
				a.Lock()
				a.Unlock()
				b.Unlock()
			},
			func() {
				a.Lock()
				b.Lock()
				b.Unlock()
				a.Unlock()
				c.Lock()
				c.Unlock()
			},
		)
	}
	cases := []struct {
		name          string
		body          func()
		warn, ordered bool
	}{
		{"OrderedByChan", orderedByChan, false, true},
		{"OrderedByGo", orderedByGo, false, true},
		{"LoadsOrderNothing", loadsThenABBA, true, false},
		{"LocksOrderNothing", lockThenABBA, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lt := Explore(c.body, Options{Strategy: "dfs", MaxRuns: 20}).LockTrees
			ordered := slices.ContainsFunc(lt.Suppressed, func(sp locktree.Suppressed) bool { return sp.Ordered })
			if got := len(lt.Warnings) > 0; got != c.warn || ordered != c.ordered {
				t.Errorf("warnings %v, suppressed %v; want a warning %v, ordered %v", lt.Warnings, lt.Suppressed, c.warn, c.ordered)
			}
		})
	}
}
