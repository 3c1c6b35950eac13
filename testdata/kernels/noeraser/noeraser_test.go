// Pattern: NoEraser, from Stoller's thesis (Figure 2.2), in its original form: two workers read
// a shared counter under its lock, and worker B, when it reads zero, increments it without
// the lock. Whether that happens depends on the schedule (B must read before A increments),
// and nothing checks the result: the only symptom is the data race itself.
// Modeled on: the thesis's example of a race that Eraser's lockset check sees only on some
// schedules; the same shape appears as "fast path skips the lock" in many Go caches.
// Fix: incrementFixed always takes the lock.
package noeraser

import (
	"sync"
	"testing"
)

type resource struct {
	mu sync.Mutex
	x  int
}

func worker(r *resource, name string, fixed bool) {
	r.mu.Lock()
	y := r.x
	r.mu.Unlock()
	if y == 0 && name == "B" && !fixed {
		r.x++ // BUG: unprotected when B reads first
	} else {
		r.mu.Lock()
		r.x++
		r.mu.Unlock()
	}
}

func run(fixed bool) {
	r := new(resource)
	var wg sync.WaitGroup
	for _, name := range []string{"A", "B"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker(r, name, fixed)
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
