// Pattern: lost push -- a lock-free (Treiber) stack whose Push reads the head and then writes
// the new head with a plain atomic Store instead of a CompareAndSwap, so a push that lands in
// between is overwritten. No single operation panics or fails; only the history of pushes
// and pops, checked against a sequential stack, shows that an element vanished.
// Modeled on: lock-free free lists and work stacks (Treiber, 1986), as in Go's own
// runtime lfstack and object pools.
// Fix: pushFixed retries a CompareAndSwap from the head it read, the Treiber stack.
package linstack

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heddledbg/heddle/lin"
)

type node struct {
	v    int
	next *node
}

type stack struct{ head atomic.Pointer[node] }

func (s *stack) push(v int) {
	n := &node{v: v, next: s.head.Load()}
	s.head.Store(n) // BUG: a push between the Load and the Store is lost
}

func (s *stack) pushFixed(v int) {
	n := &node{v: v}
	for {
		old := s.head.Load()
		n.next = old
		if s.head.CompareAndSwap(old, n) {
			return
		}
	}
}

func (s *stack) pop() (int, bool) {
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

// op is an operation on the stack: a push of v, or a pop.
type op struct {
	push bool
	v    int
}

// result is a pop's output; a push has none.
type result struct {
	v  int
	ok bool
}

// model is a sequential stack: its state is the elements, top last.
var model = lin.Model[[]int, op, result]{
	Init: func() []int { return nil },
	Step: func(s []int, in op, out result) (bool, []int) {
		if in.push {
			return true, append(slices.Clip(s), in.v)
		}
		if len(s) == 0 {
			return !out.ok, s
		}
		top := s[len(s)-1]
		return out.ok && out.v == top, s[:len(s)-1]
	},
	Describe: func(in op, out result) (string, string) {
		switch {
		case in.push:
			return fmt.Sprintf("push(%d)", in.v), "ok"
		case !out.ok:
			return "pop()", "empty"
		}
		return "pop()", fmt.Sprint(out.v)
	},
}

func run(t *testing.T, push func(*stack, int)) {
	var s stack
	h := lin.New(model)
	var wg sync.WaitGroup
	for _, v := range []int{1, 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Do(op{push: true, v: v}, func() result { push(&s, v); return result{} })
		}()
	}
	wg.Wait()
	for range 3 {
		h.Do(op{}, func() result { v, ok := s.pop(); return result{v, ok} })
	}
	h.Check(t)
}

func TestBug(t *testing.T)   { run(t, (*stack).push) }
func TestFixed(t *testing.T) { run(t, (*stack).pushFixed) }
