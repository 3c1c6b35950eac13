// Pattern: a method documented as atomic that waits inside: Get blocks on a condition variable
// when the pool is empty, so a Put runs in the middle of it, and callers that relied on Get
// being one step (reading the pool's size around it) see another goroutine's effect.
// Modeled on: connection and buffer pools whose Get waits for a free item (database/sql-style
// pools, worker pools in Kubernetes and CockroachDB); Bogor reports a wait inside an atomic
// region as definitely not atomic (Hatcliff, Robby and Dwyer, §3, isWait).
// Fix: the atomic part is TryGet, which never waits; the wait is outside it, in GetFixed.
package atomicwait

import (
	"sync"
	"testing"
)

type Pool struct {
	mu    sync.Mutex
	cond  *sync.Cond
	items []int
}

func newPool() *Pool {
	p := &Pool{}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// Get takes an item, waiting for one if the pool is empty.
//
//heddle:atomic
func (p *Pool) Get() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.items) == 0 {
		p.cond.Wait() // BUG: waits inside an atomic method
	}
	x := p.items[len(p.items)-1]
	p.items = p.items[:len(p.items)-1]
	return x
}

// TryGet takes an item if there is one.
//
//heddle:atomic
func (p *Pool) TryGet() (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.items) == 0 {
		return 0, false
	}
	x := p.items[len(p.items)-1]
	p.items = p.items[:len(p.items)-1]
	return x, true
}

// GetFixed waits outside the atomic TryGet.
func (p *Pool) GetFixed() int {
	for {
		if x, ok := p.TryGet(); ok {
			return x
		}
		p.mu.Lock()
		for len(p.items) == 0 {
			p.cond.Wait()
		}
		p.mu.Unlock()
	}
}

// Put adds an item and wakes a waiter.
//
//heddle:atomic
func (p *Pool) Put(x int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.items = append(p.items, x)
	p.cond.Signal()
}

func run(t *testing.T, get func(*Pool) int) {
	p := newPool()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.Put(7) }()
	if x := get(p); x != 7 {
		t.Errorf("got %d, want 7", x)
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, (*Pool).Get) }
func TestFixed(t *testing.T) { run(t, (*Pool).GetFixed) }
