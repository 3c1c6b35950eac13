// Pattern: a background loop on a ticker that nothing stops. The cache starts a janitor that
// evicts expired entries on every tick; Close marks the cache closed but never tells the
// janitor, which keeps ticking after the test returned, for the life of the process.
// Modeled on: TTL caches whose janitor goroutine has no stop (patrickmn/go-cache needs a
// finalizer to end it; goleak reports of such janitors and pollers in Kubernetes and etcd
// test suites).
// Fix: Close closes a stop channel that the janitor selects on, stops the ticker and waits
// for the janitor to return.
package loopafterreturn

import (
	"sync"
	"testing"
	"time"
)

type entry struct {
	value   string
	expires time.Time
}

type ttlCache struct {
	mu      sync.Mutex
	entries map[string]entry
	closed  bool
	stop    chan struct{}
	wg      sync.WaitGroup
}

func newTTLCache(sweep time.Duration) *ttlCache {
	c := &ttlCache{entries: map[string]entry{}, stop: make(chan struct{})}
	c.wg.Add(1)
	go c.janitor(sweep)
	return c
}

func (c *ttlCache) janitor(sweep time.Duration) {
	defer c.wg.Done()
	ticker := time.NewTicker(sweep)
	defer ticker.Stop()
	for {
		select {
		case now := <-ticker.C:
			c.mu.Lock()
			for k, e := range c.entries {
				if now.After(e.expires) {
					delete(c.entries, k)
				}
			}
			c.mu.Unlock()
		case <-c.stop:
			return
		}
	}
}

func (c *ttlCache) Set(k, v string, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[k] = entry{v, time.Now().Add(ttl)}
}

func (c *ttlCache) Get(k string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	return e.value, ok && !c.closed
}

// Close is the buggy one: the janitor is never told.
func (c *ttlCache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true // BUG: the janitor keeps ticking
}

func (c *ttlCache) CloseFixed() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	close(c.stop)
	c.wg.Wait()
}

func run(t *testing.T, closeCache func(*ttlCache)) {
	c := newTTLCache(5 * time.Millisecond)
	defer closeCache(c)
	c.Set("session", "alice", time.Minute)
	if v, ok := c.Get("session"); !ok || v != "alice" {
		t.Errorf("Get(session) = %q, %v; want alice, true", v, ok)
	}
}

func TestBug(t *testing.T)   { run(t, (*ttlCache).Close) }
func TestFixed(t *testing.T) { run(t, (*ttlCache).CloseFixed) }
