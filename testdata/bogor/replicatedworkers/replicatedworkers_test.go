// Package replicatedworkers is the replicated workers example of Hatcliff, Robby and Dwyer,
// "Verifying atomicity specifications for concurrent object-oriented software using
// model-checking" (Fig. 6(b), Table 1), translated to Go: Dwyer and Wallentine's framework
// for parallel adaptive grid simulations, in which a fixed set of workers take work items
// from a shared pool, process them (which may create new items) and put results into a
// shared collection; the computation ends when the pool is empty and every worker is idle.
// java.util.Vector is a slice under a mutex, a Java monitor a mutex with a condition variable.
//
// The methods annotated //heddle:atomic are the Vector's and the framework's methods that do
// not wait, as in Bogor's experiment; getWork waits for work, and is not annotated.
package replicatedworkers

import (
	"slices"
	"sync"
	"testing"
)

// vector is java.util.Vector: every method synchronized.
type vector struct {
	mu    sync.Mutex
	elems []int
}

//heddle:atomic
func (v *vector) size() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.elems)
}

//heddle:atomic
func (v *vector) addElement(x int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.elems = append(v.elems, x)
}

// take removes and returns the first element.
//
//heddle:atomic
func (v *vector) take() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	x := v.elems[0]
	v.elems = v.elems[1:]
	return x
}

//heddle:atomic
func (v *vector) elements() []int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.elems)
}

// pool is the work pool: theCollection is reached only through the pool, under its lock.
type pool struct {
	mu            sync.Mutex
	cond          *sync.Cond
	theCollection *vector
	idle, workers int
	done          bool
}

func newPool(workers int, items ...int) *pool {
	p := &pool{theCollection: &vector{}, workers: workers}
	p.cond = sync.NewCond(&p.mu)
	for _, x := range items {
		p.theCollection.addElement(x)
	}
	return p
}

// take removes up to n items (Fig. 6(b)): theCollection's lock is dominated by the pool's,
// and returnVal is the calling goroutine's own.
//
//heddle:atomic
func (p *pool) take(n int) *vector {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.takeLocked(n)
}

func (p *pool) takeLocked(n int) *vector {
	returnVal := &vector{}
	for p.theCollection.size() > 0 && returnVal.size() < n {
		returnVal.addElement(p.theCollection.take())
	}
	return returnVal
}

// put adds new work and wakes the idle workers.
//
//heddle:atomic
func (p *pool) put(items []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, x := range items {
		p.theCollection.addElement(x)
	}
	p.cond.Broadcast()
}

// isDone reports whether the computation has ended.
//
//heddle:atomic
func (p *pool) isDone() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// getWork waits until there is work or the computation has ended (every worker idle and no
// work left), and returns up to n items, none once it has ended.
func (p *pool) getWork(n int) *vector {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.theCollection.size() == 0 && !p.done {
		p.idle++
		if p.idle == p.workers {
			p.done = true
			p.cond.Broadcast()
			break
		}
		p.cond.Wait()
		p.idle--
	}
	return p.takeLocked(n)
}

// stats counts the items processed, under a lock of its own that the workers take without
// the pool's.
type stats struct {
	mu        sync.Mutex
	processed int
}

//heddle:atomic
func (s *stats) count(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.processed += n
}

// report reads the count under the pool's lock, so that no worker takes work meanwhile.
//
//heddle:atomic
func (p *pool) report(s *stats) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.processed, p.done
}

// process refines a grid cell: a cell of level n > 0 splits into two of level n-1; a cell of
// level 0 is a result.
func process(x int) (work, result []int) {
	if x > 0 {
		return []int{x - 1, x - 1}, nil
	}
	return nil, []int{x}
}

func worker(p *pool, s *stats, results *vector) {
	for {
		w := p.take(2)
		if w.size() == 0 {
			w = p.getWork(2)
		}
		items := w.elements()
		if len(items) == 0 {
			return
		}
		var more []int
		for _, x := range items {
			work, res := process(x)
			more = append(more, work...)
			for _, r := range res {
				results.addElement(r)
			}
		}
		if len(more) > 0 {
			p.put(more)
		}
		s.count(len(items))
	}
}

// TestReplicatedWorkers refines a cell of level 1 with two workers: three items in all, two
// results.
func TestReplicatedWorkers(t *testing.T) {
	p := newPool(2, 1)
	var s stats
	results := &vector{}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); worker(p, &s, results) }()
	}
	n, _ := p.report(&s)
	wg.Wait()
	if !p.isDone() || results.size() != 2 || n > 3 {
		t.Errorf("done=%v results=%v processed=%d", p.isDone(), results.elements(), n)
	}
}
