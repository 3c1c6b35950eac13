// Pattern: lazy initialisation without sync.Once -- two goroutines find the configuration
// missing and both load it: a write and a read of the same field, unordered.
// Modeled on: lazily built clients and caches in Kubernetes and Docker/Moby ("if c.client ==
// nil { c.client = newClient() }" on a path that became concurrent).
// Fix: getFixed initialises under sync.Once, whose end happens before every Do that returns:
// a lockset check that trusts Once stays silent, though no lock protects the field.
package onceinit

import (
	"sync"
	"testing"
)

type config struct{ limit int }

type client struct {
	once sync.Once
	cfg  *config
}

func (c *client) get() *config {
	if c.cfg == nil { // BUG: unordered with the other goroutine's write
		c.cfg = &config{limit: 10}
	}
	return c.cfg
}

func (c *client) getFixed() *config {
	c.once.Do(func() { c.cfg = &config{limit: 10} })
	return c.cfg
}

func run(t *testing.T, get func(*client) *config) {
	c := new(client)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if get(c).limit != 10 {
				t.Error("wrong limit")
			}
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, (*client).get) }
func TestFixed(t *testing.T) { run(t, (*client).getFixed) }
