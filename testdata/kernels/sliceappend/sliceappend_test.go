// Pattern: a race on a slice header -- workers append their results to a shared slice. Both
// read and write the header (pointer, length, capacity); one append can overwrite the other's
// element or lose it.
// Modeled on: result collection in fan-out code (Kubernetes e2e helpers, CockroachDB tests)
// fixed by "protect results with a mutex".
// Fix: collectFixed appends under the mutex.
package sliceappend

import (
	"sync"
	"testing"
)

type results struct {
	mu  sync.Mutex
	ids []int
}

func collect(r *results, id int) {
	r.ids = append(r.ids, id) // BUG: unprotected append
}

func collectFixed(r *results, id int) {
	r.mu.Lock()
	r.ids = append(r.ids, id)
	r.mu.Unlock()
}

func run(add func(*results, int)) {
	r := new(results)
	var wg sync.WaitGroup
	for id := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			add(r, id)
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(collect) }
func TestFixed(t *testing.T) { run(collectFixed) }
