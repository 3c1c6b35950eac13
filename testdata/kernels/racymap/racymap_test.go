// Pattern: concurrent map writes -- two goroutines fill a shared cache map without a lock. The
// race is inside the runtime's map code (runtime.mapassign), which the race detector sees in
// every package, the standard library included.
// Modeled on: Kubernetes and Docker caches filled by concurrent requests ("fatal error:
// concurrent map writes" in production).
// Fix: the fixed cache takes its mutex around the map.
package racymap

import (
	"strconv"
	"sync"
	"testing"
)

type cache struct {
	mu     sync.Mutex
	locked bool
	m      map[string]int
}

func (c *cache) put(k string, v int) {
	if c.locked {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	c.m[k] = v // BUG when not locked
}

func run(locked bool) {
	c := &cache{locked: locked, m: map[string]int{}}
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.put("key"+strconv.Itoa(i), i)
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
