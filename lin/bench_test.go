package lin_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/lin"
	"github.com/heddledbg/heddle/rt"
)

type node struct {
	v    int
	next *node
}

// treiber is a lock-free stack written against rt, as the instrumenter would rewrite it.
type treiber struct{ head rt.Pointer[node] }

func (s *treiber) push(v int) {
	n := &node{v: v}
	for {
		old := s.head.Load()
		n.next = old
		if s.head.CompareAndSwap(old, n) {
			return
		}
	}
}

func (s *treiber) pop() (int, bool) {
	for {
		old := s.head.Load()
		if old == nil {
			return 0, false
		}
		if s.head.CompareAndSwap(old, old.next) {
			return old.v, true
		}
	}
}

// stackModel is a sequential stack of non-negative values; a pop's input is -1 and its
// output the value, or -1 when the stack is empty; a push's output is 0.
var stackModel = lin.Model[[]int, int, int]{
	Init: func() []int { return nil },
	Step: func(s []int, in, out int) (bool, []int) {
		if in >= 0 {
			return true, append(slices.Clip(s), in)
		}
		if len(s) == 0 {
			return out == -1, s
		}
		return out == s[len(s)-1], s[:len(s)-1]
	},
}

// stackRun is a test of the Treiber stack: two goroutines push and pop concurrently, then
// the root pops what is left; with check, every operation is recorded and the history
// checked at the end.
func stackRun(check bool) func() {
	return func() {
		var s treiber
		h := lin.New(stackModel)
		do := func(in int, f func() int) {
			if check {
				h.Do(in, f)
			} else {
				f()
			}
		}
		push := func(v int) func() int { return func() int { s.push(v); return 0 } }
		pop := func() int {
			v, ok := s.pop()
			if !ok {
				return -1
			}
			return v
		}
		var wg rt.WaitGroup
		wg.Add(2)
		for g := range 2 {
			rt.Go(func() {
				defer wg.Done()
				do(g, push(g))
				do(-1, pop)
			})
		}
		wg.Wait()
		do(-1, pop)
		if check {
			h.Check(fatal{new([]string)})
		}
	}
}

// BenchmarkCheck measures what checking linearizability costs an exploration: schedules per
// second of DPOR exploring the Treiber stack's test completely, with every operation recorded
// and the history checked by Porcupine at the end of each run, and without.
func BenchmarkCheck(b *testing.B) {
	for _, check := range []bool{false, true} {
		b.Run(fmt.Sprintf("check=%v", check), func(b *testing.B) {
			runs := 0
			start := time.Now()
			for range b.N {
				rep := explorer.Explore(stackRun(check), explorer.Options{Strategy: "dpor"})
				if len(rep.Bugs) > 0 || !rep.Stats.Complete {
					b.Fatalf("bugs %v, complete %v", rep.Bugs, rep.Stats.Complete)
				}
				runs += rep.Stats.Runs
			}
			b.ReportMetric(float64(runs)/time.Since(start).Seconds(), "schedules/s")
			b.ReportMetric(float64(runs)/float64(b.N), "schedules/op")
		})
	}
}
