// Pattern: double unlock on an error path. The slow path releases the mutex explicitly before
// re-acquiring the lease, and the deferred Unlock then unlocks an unlocked mutex ("fatal
// error: sync: unlock of unlocked mutex").
// Modeled on: CockroachDB / Kubernetes cache code that mixes defer mu.Unlock() with an early
// explicit Unlock on a rarely taken branch.
// Fix: RenewFixed unlocks explicitly on each path and does not defer.
package doubleunlock

import (
	"sync"
	"testing"
)

type leaseCache struct {
	mu          sync.Mutex
	leases      map[string]int
	invalidated map[string]bool
}

func (c *leaseCache) Invalidate(name string) {
	c.mu.Lock()
	c.invalidated[name] = true
	c.mu.Unlock()
}

func (c *leaseCache) acquire(name string) error {
	c.mu.Lock()
	delete(c.invalidated, name)
	c.leases[name] = 1
	c.mu.Unlock()
	return nil
}

func (c *leaseCache) Renew(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.invalidated[name] {
		c.mu.Unlock()          // release before re-acquiring from scratch
		return c.acquire(name) // BUG: the deferred Unlock runs again
	}
	c.leases[name]++
	return nil
}

func (c *leaseCache) RenewFixed(name string) error {
	c.mu.Lock()
	if c.invalidated[name] {
		c.mu.Unlock()
		return c.acquire(name)
	}
	c.leases[name]++
	c.mu.Unlock()
	return nil
}

func run(renew func(*leaseCache, string) error) {
	c := &leaseCache{leases: map[string]int{"node-1": 1}, invalidated: map[string]bool{}}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); c.Invalidate("node-1") }() // liveness expired concurrently
	renew(c, "node-1")
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*leaseCache).Renew) }
func TestFixed(t *testing.T) { run((*leaseCache).RenewFixed) }
