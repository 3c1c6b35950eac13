// Pattern: read lock "upgraded" to a write lock. On a cache miss the reader calls Lock while it
// still holds RLock; Lock waits for all readers, including itself.
// Modeled on: lazily populated caches in Hugo (template/partial caches) and Kubernetes
// (GoKer-style RWMutex self-deadlock).
// Fix: LookupFixed releases the read lock, takes the write lock and re-checks.
package rwupgrade

import (
	"sync"
	"testing"
)

type template struct{ name string }

type templateCache struct {
	mu sync.RWMutex
	m  map[string]*template
}

func (c *templateCache) Add(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[name] == nil {
		c.m[name] = &template{name}
	}
}

func (c *templateCache) Lookup(name string) *template {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if tpl := c.m[name]; tpl != nil {
		return tpl
	}
	c.mu.Lock() // BUG: still holding the read lock
	defer c.mu.Unlock()
	c.m[name] = &template{name}
	return c.m[name]
}

func (c *templateCache) LookupFixed(name string) *template {
	c.mu.RLock()
	tpl := c.m[name]
	c.mu.RUnlock()
	if tpl != nil {
		return tpl
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[name] == nil {
		c.m[name] = &template{name}
	}
	return c.m[name]
}

func run(lookup func(*templateCache, string) *template) {
	c := &templateCache{m: map[string]*template{}}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); lookup(c, "baseof.html") }()
	c.Add("baseof.html") // warm the cache; the lookup usually hits
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*templateCache).Lookup) }
func TestFixed(t *testing.T) { run((*templateCache).LookupFixed) }
