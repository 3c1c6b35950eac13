// Pattern: a test written with testing/synctest (Go 1.25) of an expiring cache: a janitor
// goroutine evicts entries on a ticker and reports each eviction on a channel, and the test
// drives the bubble's fake clock with time.Sleep and synctest.Wait.
// Bug: the janitor's report is a bare send; after the test has read the first eviction and
// closed the cache, the janitor evicts the second entry and blocks on the send forever, so the
// bubble never empties: synctest.Test panics with a deadlock (heddle: deadlock).
// Fix: the janitor selects on the stop channel while it reports.
package synctestcache

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

type cache struct {
	mu      sync.Mutex
	m       map[string]time.Time
	ttl     time.Duration
	evicted chan string
	stop    chan struct{}
	done    chan struct{}
	fixed   bool
}

func newCache(ttl time.Duration, fixed bool) *cache {
	c := &cache{m: map[string]time.Time{}, ttl: ttl, evicted: make(chan string), stop: make(chan struct{}), done: make(chan struct{}), fixed: fixed}
	go c.janitor()
	return c
}

func (c *cache) janitor() {
	defer close(c.done)
	tick := time.NewTicker(c.ttl)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case now := <-tick.C:
			c.mu.Lock()
			var gone []string
			for k, t := range c.m {
				if now.Sub(t) >= c.ttl {
					delete(c.m, k)
					gone = append(gone, k)
				}
			}
			c.mu.Unlock()
			for _, k := range gone {
				if !c.fixed {
					c.evicted <- k // BUG: blocks once nobody reads
					continue
				}
				select {
				case c.evicted <- k:
				case <-c.stop:
					return
				}
			}
		}
	}
}

func (c *cache) put(k string) {
	c.mu.Lock()
	c.m[k] = time.Now()
	c.mu.Unlock()
}

func (c *cache) close() {
	close(c.stop)
	<-c.done
}

func test(t *testing.T, fixed bool) {
	synctest.Test(t, func(t *testing.T) {
		c := newCache(time.Second, fixed)
		c.put("a")
		time.Sleep(time.Second)
		synctest.Wait()
		if k := <-c.evicted; k != "a" {
			t.Errorf("evicted %q", k)
		}
		c.put("b")
		time.Sleep(time.Second)
		synctest.Wait()
		c.close()
	})
}

func TestBug(t *testing.T) { test(t, false) }

func TestFixed(t *testing.T) { test(t, true) }
