package explorer_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// The programs of the atomicity checks, written against rt as the instrumenter rewrites an
// annotated function: rt.AtomicEnter and a deferred rt.AtomicExit around its body.

type sbuf struct {
	mu rt.Mutex
	s  []byte
}

// appendFig1a is Fig. 1(a)'s StringBuffer.append: a's lock held throughout, b's length read
// under b's lock, then b's contents copied under b's lock taken again.
func appendFig1a(a, b *sbuf) {
	rt.AtomicEnter("(*sbuf).append", "sb.go:10")
	defer rt.AtomicExit()
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	n := len(*rt.Load(&b.s, "sb.go:13:1"))
	b.mu.Unlock()
	b.mu.Lock()
	s := *rt.Load(&b.s, "sb.go:15:1")
	a.s = rt.Store(&a.s, append(*rt.Load(&a.s, "sb.go:16:1"), s[:min(n, len(s))]...), "sb.go:16:1")
	b.mu.Unlock()
}

// appendChecked is appendFig1a with StringBuffer.getChars's bound check, which throws when
// the other buffer shrank in between.
func appendChecked(a, b *sbuf) {
	rt.AtomicEnter("(*sbuf).appendChecked", "sb.go:40")
	defer rt.AtomicExit()
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	n := len(*rt.Load(&b.s, "sb.go:43:1"))
	b.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	s := *rt.Load(&b.s, "sb.go:46:1")
	if n > len(s) {
		panic("chars: past the end")
	}
	a.s = rt.Store(&a.s, append(*rt.Load(&a.s, "sb.go:49:1"), s[:n]...), "sb.go:49:1")
}

// appendFig1b is Fig. 1(b): b's lock held across the whole copy, nested in a's.
func appendFig1b(a, b *sbuf) {
	rt.AtomicEnter("(*sbuf).appendLocked", "sb.go:20")
	defer rt.AtomicExit()
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	a.s = rt.Store(&a.s, append(*rt.Load(&a.s, "sb.go:24:1"), *rt.Load(&b.s, "sb.go:24:2")...), "sb.go:24:1")
}

func setLength(b *sbuf, n int) {
	rt.AtomicEnter("(*sbuf).setLength", "sb.go:30")
	defer rt.AtomicExit()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s = rt.Store(&b.s, (*rt.Load(&b.s, "sb.go:33:1"))[:n], "sb.go:33:1")
}

// workers is a collection whose vector is lock-dominated: every lock of v is taken under
// o's lock, as the replicated workers' theCollection (§3.1, Fig. 6(b)).
type workers struct {
	o, v  rt.Mutex
	items []int
}

func (w *workers) take() int {
	rt.AtomicEnter("(*workers).take", "w.go:1")
	defer rt.AtomicExit()
	w.o.Lock()
	defer w.o.Unlock()
	w.v.Lock()
	n := len(*rt.Load(&w.items, "w.go:5:1"))
	w.v.Unlock()
	if n == 0 {
		return -1
	}
	w.v.Lock()
	x := (*rt.Load(&w.items, "w.go:9:1"))[0]
	w.items = rt.Store(&w.items, (*rt.Load(&w.items, "w.go:10:1"))[1:], "w.go:10:1")
	w.v.Unlock()
	return x
}

type flagCounter struct{ n rt.Int64 }

// incBelow is a check-then-act on an atomic: Load, then Add.
func (c *flagCounter) incBelow(limit int64) {
	rt.AtomicEnter("(*flagCounter).incBelow", "f.go:1")
	defer rt.AtomicExit()
	if c.n.Load() < limit {
		c.n.Add(1)
	}
}

// both runs f and g in two goroutines and waits for them.
func both(f, g func()) {
	var wg rt.WaitGroup
	wg.Add(2)
	rt.Go(func() { defer wg.Done(); f() })
	rt.Go(func() { defer wg.Done(); g() })
	wg.Wait()
}

func TestAtomicity(t *testing.T) {
	rt.UseAccesses()
	cases := []struct {
		name string
		body func()
		// flagged are the checkers that must flag the function named fn (MC-ind, MC-mover,
		// W's movers); bug is the kind of bug the exploration must find ("" for none).
		fn      string
		flagged []string
		warn    bool // a warning under C, the default checker
		bug     rt.VerdictKind
		failure rt.VerdictKind // the failure of an atomicity bug that no serial order gives
		// cycle says that the bug is a run that passed with a cycle in its transactional
		// happens-before graph (Velodrome): the checkers' flags and warning are checked too.
		cycle bool
	}{
		{name: "fig1a", fn: "(*sbuf).append", flagged: []string{"MC-ind", "MC-mover", "W"}, warn: true, bug: rt.VerdictAtomicity, cycle: true, body: func() {
			a, b := &sbuf{s: []byte("a")}, &sbuf{s: []byte("bcd")}
			both(func() { appendFig1a(a, b) }, func() { setLength(b, 1) })
		}},
		{name: "fig1b", fn: "(*sbuf).appendLocked", flagged: []string{"MC-mover", "W"}, bug: rt.VerdictAtomicity, body: func() {
			a, b := &sbuf{s: []byte("a")}, &sbuf{s: []byte("b")}
			both(func() { appendFig1b(a, b) }, func() { appendFig1b(b, a) })
		}},
		{name: "fig1b-one-order", fn: "(*sbuf).appendLocked", body: func() {
			a, b := &sbuf{s: []byte("a")}, &sbuf{s: []byte("b")}
			both(func() { appendFig1b(a, b) }, func() { setLength(b, 0) })
		}},
		{name: "dominated", fn: "(*workers).take", flagged: []string{"MC-mover"}, body: func() {
			w := &workers{items: []int{1, 2}}
			both(func() { w.take() }, func() { w.take() })
		}},
		{name: "checkact", fn: "(*flagCounter).incBelow", flagged: []string{"MC-ind", "MC-mover", "W"}, warn: true, body: func() {
			c := &flagCounter{}
			both(func() { c.incBelow(5) }, func() { c.incBelow(5) })
		}},
		{name: "wait", fn: "recvInside", bug: rt.VerdictAtomicity, body: func() {
			ch := rt.MakeChan[int](0)
			both(func() {
				rt.AtomicEnter("recvInside", "r.go:1")
				defer rt.AtomicExit()
				rt.Recv(ch)
			}, func() { rt.Send(ch, 1) })
		}},
		{name: "fig1a-fails", fn: "(*sbuf).appendChecked", bug: rt.VerdictAtomicity, failure: rt.VerdictPanic, body: func() {
			a, b := &sbuf{s: []byte("a")}, &sbuf{s: []byte("bcd")}
			both(func() { appendChecked(a, b) }, func() { setLength(b, 1) })
		}},
		{name: "fails-serially-too", fn: "(*flagCounter).incBelow", bug: rt.VerdictPanic, body: func() {
			c := &flagCounter{}
			both(func() { c.incBelow(5) }, func() { c.incBelow(5) })
			if c.n.Load() != 3 {
				panic("two increments are not three")
			}
		}},
		{name: "no-wait", fn: "recvInside", body: func() {
			ch := rt.MakeChan[int](1)
			rt.Send(ch, 1)
			both(func() {
				rt.AtomicEnter("recvInside", "r.go:1")
				defer rt.AtomicExit()
				rt.Recv(ch)
			}, func() {})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := explorer.Explore(c.body, explorer.Options{Strategy: "dfs", MaxRuns: 5000})
			var kinds []rt.VerdictKind
			for _, b := range rep.Bugs {
				kinds = append(kinds, b.Kind)
			}
			if c.bug == "" && len(kinds) > 0 || c.bug != "" && !slices.Contains(kinds, c.bug) {
				t.Fatalf("bugs %v, want %q: %v", kinds, c.bug, rep.Bugs)
			}
			if c.bug != "" {
				for _, b := range rep.Bugs {
					if b.Kind != c.bug {
						continue
					}
					a := b.Result.Verdict.Atomicity
					if c.bug == rt.VerdictAtomicity && (a == nil || a.Func != c.fn || a.Failure != c.failure) {
						t.Errorf("verdict names %+v, want %s with failure %q: %s", a, c.fn, c.failure, b.Message)
					}
					// The saved schedule replays the verdict, every time.
					s := record.FromResult(b.Result, record.Program{}, "").Schedule()
					for range 100 {
						res, err := explorer.Replay(c.body, s, explorer.Options{})
						if err != nil || res.Verdict.Kind != c.bug {
							t.Fatalf("replay: %v, verdict %s (%s), want %s", err, res.Verdict.Kind, res.Verdict.Message, c.bug)
						}
					}
					if c.cycle != strings.Contains(b.Message, "cycle of the run's transactional happens-before graph") {
						t.Errorf("a cycle of Velodrome's graph: %v, want %v: %s", !c.cycle, c.cycle, b.Message)
					}
					t.Log(b.Message)
				}
				if !c.cycle {
					return
				}
			}
			var f *record.AtomicityCheck
			for _, a := range rep.Atomicity {
				if a.Func == c.fn {
					f = a
				}
			}
			if f == nil || f.Executions == 0 {
				t.Fatalf("%s was not checked: %v", c.fn, rep.Atomicity)
			}
			for _, k := range []string{"MC-ind", "MC-mover", "W"} {
				if got, want := f.Flagged[k] > 0, slices.Contains(c.flagged, k); got != want {
					t.Errorf("%s flagged %s in %d of %d executions, want flagged %v", k, c.fn, f.Flagged[k], f.Executions, want)
				}
			}
			var warned []string
			for _, w := range rep.Warnings {
				if w.Kind == "atomicity" {
					warned = append(warned, w.Message)
				}
			}
			if c.warn != (len(warned) > 0) {
				t.Errorf("atomicity warnings %q, want some: %v", warned, c.warn)
			}
			for _, m := range warned {
				if !strings.Contains(m, c.fn) || !strings.Contains(m, "possibly not atomic") {
					t.Errorf("warning %q does not name %s", m, c.fn)
				}
				t.Log(m)
			}
		})
	}
}

// region brackets f with an execution of an annotated function named fn when annotate is set,
// as the instrumenter does.
func region(annotate bool, fn string, f func()) {
	if annotate {
		rt.AtomicEnter(fn, "bench.go:1")
		defer rt.AtomicExit()
	}
	f()
}

// sharedPool is the replicated workers' pool reduced to its locks: three goroutines take items
// from a collection dominated by the pool's lock and count them under a lock of their own.
func sharedPool(annotate bool) func() {
	return func() {
		w := &workers{items: []int{1, 2, 3, 4, 5, 6}}
		var st rt.Mutex
		count := 0
		var wg rt.WaitGroup
		for range 3 {
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				for range 2 {
					region(annotate, "take", func() {
						w.o.Lock()
						defer w.o.Unlock()
						w.v.Lock()
						n := len(*rt.Load(&w.items, "w.go:5:1"))
						w.v.Unlock()
						if n > 0 {
							w.v.Lock()
							w.items = rt.Store(&w.items, (*rt.Load(&w.items, "w.go:10:1"))[1:], "w.go:10:1")
							w.v.Unlock()
						}
					})
					region(annotate, "count", func() {
						st.Lock()
						count = rt.Store(&count, *rt.Load(&count, "c.go:1:1")+1, "c.go:1:1")
						st.Unlock()
					})
				}
			})
		}
		wg.Wait()
	}
}

// BenchmarkAtomicity measures what the atomicity checks cost: schedules per second of a dpor
// search of the same program, its functions annotated or not.
func BenchmarkAtomicity(b *testing.B) {
	rt.UseAccesses()
	for _, annotate := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "annotated"}[annotate], func(b *testing.B) {
			runs := 0
			for range b.N {
				rep := explorer.Explore(sharedPool(annotate), explorer.Options{Strategy: "dpor", MaxRuns: 2000})
				runs += rep.Stats.Runs
				if annotate != (len(rep.Atomicity) > 0) {
					b.Fatalf("annotated %v, checked %d functions", annotate, len(rep.Atomicity))
				}
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "schedules/s")
		})
	}
}
