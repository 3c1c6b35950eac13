// Pattern: ABA -- a lock-free stack over a fixed pool of nodes linked by index, whose popped
// nodes go back to a free list that reuses their link field, and the next push takes one of
// them again. A pop reads the head A and is preempted; another goroutine pops A, which now
// links into the free list, and the first pop reads that link; the other goroutine pushes a
// new value into A, which is the head again. The pop's CompareAndSwap of the head from A to
// the link it read succeeds, since the head is A once more, and installs a link that is not
// the stack's: the element under A vanishes. Every operation is one CAS loop and returns
// normally; only the history of pushes and pops, checked against a sequential stack, shows
// the lost element.
// Modeled on: fixed-capacity lock-free stacks and free lists with recycled slots (intrusive
// free lists of node pools; Go's runtime lfstack packs a counter with the node for this
// reason).
// Fix: the tagged head. The head is one uint64 holding the node's index and a version that
// every change of the head increments, so a head that came back to A no longer compares equal
// to the one the pop read.
package linaba

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heddledbg/heddle/lin"
)

// poolSize is the number of nodes: the stack never holds more elements. Index 0 is no node.
const poolSize = 3

type node struct {
	v    atomic.Int64
	next atomic.Uint32 // the next node of the stack, or of the free list
}

// stack is a lock-free stack of ints over a pool of nodes. Its heads, of the stack and of the
// free list, hold a node index in their low 32 bits; a tagged stack keeps in the high 32 bits
// a count of the head's changes.
type stack struct {
	nodes  [poolSize]node
	head   atomic.Uint64
	free   atomic.Uint64
	tagged bool
}

func newStack(tagged bool) *stack {
	s := &stack{tagged: tagged}
	for i := poolSize - 1; i > 0; i-- {
		s.put(&s.free, uint32(i))
	}
	return s
}

// link returns the new value of a head that was old, now pointing at node i.
func (s *stack) link(old uint64, i uint32) uint64 {
	if s.tagged {
		return (old>>32+1)<<32 | uint64(i)
	}
	return uint64(i) // BUG: a head that was popped and pushed back compares equal
}

// take removes the first node of the list at head and returns its index, 0 if it is empty.
func (s *stack) take(head *atomic.Uint64) uint32 {
	for {
		old := head.Load()
		i := uint32(old)
		if i == 0 {
			return 0
		}
		next := s.nodes[i].next.Load()
		if head.CompareAndSwap(old, s.link(old, next)) {
			return i
		}
	}
}

// put adds node i to the front of the list at head.
func (s *stack) put(head *atomic.Uint64, i uint32) {
	for {
		old := head.Load()
		s.nodes[i].next.Store(uint32(old))
		if head.CompareAndSwap(old, s.link(old, i)) {
			return
		}
	}
}

// push pushes v, and reports false if the pool has no free node.
func (s *stack) push(v int) bool {
	i := s.take(&s.free)
	if i == 0 {
		return false
	}
	s.nodes[i].v.Store(int64(v))
	s.put(&s.head, i)
	return true
}

func (s *stack) pop() (int, bool) {
	i := s.take(&s.head)
	if i == 0 {
		return 0, false
	}
	v := int(s.nodes[i].v.Load())
	s.put(&s.free, i)
	return v, true
}

// op is an operation on the stack: a push of v, or a pop.
type op struct {
	push bool
	v    int
}

// result is an operation's output: whether a push found a free node, or a pop's element.
type result struct {
	v  int
	ok bool
}

// model is a sequential stack of poolSize-1 elements at most: its state is the elements,
// top last.
var model = lin.Model[[]int, op, result]{
	Init: func() []int { return nil },
	Step: func(s []int, in op, out result) (bool, []int) {
		if in.push {
			if len(s) == poolSize-1 {
				return !out.ok, s
			}
			return out.ok, append(slices.Clip(s), in.v)
		}
		if len(s) == 0 {
			return !out.ok, s
		}
		top := s[len(s)-1]
		return out.ok && out.v == top, s[:len(s)-1]
	},
	Describe: func(in op, out result) (string, string) {
		switch {
		case in.push && out.ok:
			return fmt.Sprintf("push(%d)", in.v), "ok"
		case in.push:
			return fmt.Sprintf("push(%d)", in.v), "full"
		case !out.ok:
			return "pop()", "empty"
		}
		return "pop()", fmt.Sprint(out.v)
	},
}

// run fills the stack with 1 and 2, then one goroutine pops while another pops and pushes 3,
// then pops the stack empty.
func run(t *testing.T, tagged bool) {
	s := newStack(tagged)
	h := lin.New(model)
	push := func(v int) { h.Do(op{push: true, v: v}, func() result { return result{ok: s.push(v)} }) }
	pop := func() {
		h.Do(op{}, func() result { v, ok := s.pop(); return result{v, ok} })
	}
	push(1)
	push(2)
	var wg sync.WaitGroup
	wg.Go(pop)
	wg.Go(func() {
		pop()
		push(3)
	})
	wg.Wait()
	pop()
	pop()
	h.Check(t)
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
