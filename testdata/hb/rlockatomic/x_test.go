// Readers under RLock count hits. Bug: one adds atomically and the other reads the counter
// plainly, which readers do not order. Fixed: both use atomics.
package rlockatomic

import (
	"sync"
	"sync/atomic"
	"testing"
)

type cache struct {
	mu   sync.RWMutex
	hits int64
}

func TestBug(t *testing.T) {
	c := new(cache)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.mu.RLock(); atomic.AddInt64(&c.hits, 1); c.mu.RUnlock() }()
	go func() { defer wg.Done(); c.mu.RLock(); _ = c.hits; c.mu.RUnlock() }()
	wg.Wait()
}

func TestFixed(t *testing.T) {
	c := new(cache)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.mu.RLock(); atomic.AddInt64(&c.hits, 1); c.mu.RUnlock() }()
	go func() { defer wg.Done(); c.mu.RLock(); _ = atomic.LoadInt64(&c.hits); c.mu.RUnlock() }()
	wg.Wait()
}
