// A counter incremented under RLock: readers do not order each other, so the increments race.
// Fixed: under Lock.
package rlock

import (
	"sync"
	"testing"
)

type cache struct {
	mu   sync.RWMutex
	hits int
}

func run(lock, unlock func(*cache)) {
	c := new(cache)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lock(c)
			c.hits++
			unlock(c)
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T) {
	run(func(c *cache) { c.mu.RLock() }, func(c *cache) { c.mu.RUnlock() })
}

func TestFixed(t *testing.T) {
	run(func(c *cache) { c.mu.Lock() }, func(c *cache) { c.mu.Unlock() })
}
