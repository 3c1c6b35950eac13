// Pattern: "keep only the latest value" channel updated with drain-then-send by two goroutines.
// Both drain the (empty) capacity-1 channel, both send: the second send blocks until someone
// receives, but the consumer first waits for both updaters to finish.
// Modeled on: gRPC-Go balancer/resolver wrappers that passed the latest state through a
// capacity-1 channel with "select { case <-ch: default: }; ch <- s" (later replaced by a
// mutex-protected or unbounded buffer).
// Fix: updateFixed makes drain+send atomic with a mutex.
package drainsend

import (
	"sync"
	"testing"
)

type balancerWrapper struct {
	mu       sync.Mutex
	updateCh chan string
}

func (b *balancerWrapper) update(s string) {
	select {
	case <-b.updateCh: // drop the stale state
	default:
	}
	b.updateCh <- s // BUG: a concurrent updater may have filled the slot in between
}

func (b *balancerWrapper) updateFixed(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.updateCh:
	default:
	}
	b.updateCh <- s
}

func run(t *testing.T, update func(*balancerWrapper, string)) {
	b := &balancerWrapper{updateCh: make(chan string, 1)}
	var wg sync.WaitGroup
	for _, s := range []string{"READY", "TRANSIENT_FAILURE"} {
		wg.Add(1)
		go func() { defer wg.Done(); update(b, s) }()
	}
	wg.Wait()
	if s := <-b.updateCh; s == "" {
		t.Errorf("empty state")
	}
}

func TestBug(t *testing.T)   { run(t, (*balancerWrapper).update) }
func TestFixed(t *testing.T) { run(t, (*balancerWrapper).updateFixed) }
