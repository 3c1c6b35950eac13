// Pattern: double-checked lazy initialisation without the second check. The fast path checks
// under RLock; the slow path takes the write lock but does not re-check, so two callers both
// dial and one connection is leaked.
// Modeled on: Kubernetes client/informer factories and Docker registry client caches.
// Fix: GetFixed re-checks under the write lock.
package doublecheckinit

import (
	"sync"
	"sync/atomic"
	"testing"
)

type client struct{ endpoint string }

type clientCache struct {
	mu     sync.RWMutex
	client *client
	dials  atomic.Int32
}

func (c *clientCache) dial() *client {
	c.dials.Add(1)
	return &client{endpoint: "https://10.96.0.1:443"}
}

func (c *clientCache) Get() *client {
	c.mu.RLock()
	cl := c.client
	c.mu.RUnlock()
	if cl != nil {
		return cl
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.client = c.dial() // BUG: no re-check; another caller may have dialed meanwhile
	return c.client
}

func (c *clientCache) GetFixed() *client {
	c.mu.RLock()
	cl := c.client
	c.mu.RUnlock()
	if cl != nil {
		return cl
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client == nil {
		c.client = c.dial()
	}
	return c.client
}

func run(t *testing.T, get func(*clientCache) *client) {
	c := &clientCache{}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); get(c) }()
	}
	wg.Wait()
	if n := c.dials.Load(); n != 1 {
		t.Errorf("dialed %d times, want 1", n)
	}
}

func TestBug(t *testing.T)   { run(t, (*clientCache).Get) }
func TestFixed(t *testing.T) { run(t, (*clientCache).GetFixed) }
