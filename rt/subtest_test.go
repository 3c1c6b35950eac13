package rt_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// subtest runs f as t.Run runs a subtest: on a goroutine of its own, which the caller waits
// for. It reports whether that goroutine ended the way the testing package requires, by
// returning or by calling end; a bare runtime.Goexit or a panic makes testing crash the process.
func subtest(f func()) (clean bool) {
	done := make(chan bool)
	go func() {
		finished := false
		defer func() {
			recover()
			done <- finished
		}()
		rt.Subtest(f, func() {
			finished = true
			runtime.Goexit()
		})
		finished = true
	}()
	return <-done
}

// abba deadlocks when each goroutine takes its first lock before the other takes its second.
func abba() {
	var a, b rt.Mutex
	var wg rt.WaitGroup
	wg.Add(2)
	rt.Go(func() { defer wg.Done(); a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
	rt.Go(func() { defer wg.Done(); b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
	wg.Wait()
}

type chooser func(p *rt.Point) int

func (c chooser) Choose(p *rt.Point) int { return c(p) }

// switcher preempts the current goroutine whenever it can, which deadlocks abba.
var switcher = chooser(func(p *rt.Point) int {
	for i := len(p.Alts) - 1; i > 0; i-- {
		if i != p.Current {
			return i
		}
	}
	return 0
})

// TestSubtestTeardown ends runs while a subtest waits, with the subtest's goroutines blocked
// or pending: its goroutine must always be ended by end, never by a bare Goexit.
func TestSubtestTeardown(t *testing.T) {
	for _, tc := range []struct {
		name    string
		chooser rt.Chooser
		want    rt.VerdictKind
	}{
		{"deadlock", switcher, rt.VerdictDeadlock},
		{"pruned", chooser(func(p *rt.Point) int { return -1 }), rt.VerdictPruned},
		{"step bound", nil, rt.VerdictCut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rt.Config{Chooser: tc.chooser}
			body := abba
			if tc.want == rt.VerdictCut {
				cfg.MaxSteps = 4
			}
			var outer, inner bool
			res := rt.Run(cfg, func() {
				outer = subtest(func() { inner = subtest(body) })
			})
			if res.Verdict.Kind != tc.want {
				t.Errorf("verdict %s (%s), want %s", res.Verdict.Kind, res.Verdict.Message, tc.want)
			}
			if !outer || !inner {
				t.Errorf("subtests ended cleanly: outer %v, inner %v", outer, inner)
			}
		})
	}
}

// TestSubtestPanic checks that a panic in a subtest is the run's verdict, reported against the
// goroutine that started the subtest, with the stack of the panic.
func TestSubtestPanic(t *testing.T) {
	var line int
	clean := false
	res := rt.Run(rt.Config{Detail: true}, func() {
		clean = subtest(func() {
			ch := rt.MakeChan[int](1)
			rt.Go(func() { rt.Send(ch, 1) })
			var m map[int]int
			line = here()
			m[rt.Recv(ch)] = 1
		})
	})
	if !clean {
		t.Error("the subtest's goroutine did not end cleanly")
	}
	v := res.Verdict
	if v.Kind != rt.VerdictPanic || len(v.Goroutines) != 1 {
		t.Fatalf("verdict %+v, want a panic of one goroutine", v)
	}
	g := v.Goroutines[0]
	if res.Name(g.ID) != "G1" || g.State != "panicked" {
		t.Errorf("reported against %s, %s; want G1, panicked", res.Name(g.ID), g.State)
	}
	if len(g.Stack) == 0 || filepath.Base(g.Stack[0].File) != "subtest_test.go" || g.Stack[0].Line != line {
		t.Errorf("stack starts at %+v, want subtest_test.go:%d", g.Stack, line)
	}
}

// TestSubtestOutsideRun checks that a subtest outside a run is a plain call.
func TestSubtestOutsideRun(t *testing.T) {
	called := false
	if !subtest(func() { called = true }) || !called {
		t.Error("the subtest did not run to its end")
	}
}
