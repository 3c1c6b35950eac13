// Pattern: an "atomic" check-then-act on an atomic counter, a Load then an Add: two callers can
// both pass the check. This test's two callers stay below the limit, so nothing fails; the
// atomicity checkers still see that the method's two atomic operations can be split by the
// other caller's, and say that it is possibly not atomic.
// Modeled on: connection and request limiters (gRPC-Go and Kubernetes "max in flight" counters)
// that check the count before incrementing it.
// Fix: AcquireFixed does the check and the increment under one lock.
package atomicflag

import (
	"sync"
	"sync/atomic"
	"testing"
)

type Limiter struct {
	max      int64
	inFlight atomic.Int64

	mu sync.Mutex
	n  int64
}

// Acquire takes a slot if fewer than max are taken.
//
//heddle:atomic
func (l *Limiter) Acquire() bool {
	if l.inFlight.Load() >= l.max { // BUG: the check and the increment are two steps
		return false
	}
	l.inFlight.Add(1)
	return true
}

// AcquireFixed takes a slot if fewer than max are taken, in one critical section.
//
//heddle:atomic
func (l *Limiter) AcquireFixed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n >= l.max {
		return false
	}
	l.n++
	return true
}

func run(t *testing.T, acquire func(*Limiter) bool) {
	l := &Limiter{max: 10}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !acquire(l) {
				t.Error("no slot among 10 for 2 callers")
			}
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, (*Limiter).Acquire) }
func TestFixed(t *testing.T) { run(t, (*Limiter).AcquireFixed) }
