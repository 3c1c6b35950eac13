// Pattern: a counter whose increment is an atomic Load then an atomic Store, each operation
// atomic but the pair not: two concurrent increments both return the same new value. The
// test asserts nothing about the counter; the history of increments and reads, checked
// against a sequential counter, shows that no order of them gives those results.
// Modeled on: request and sequence-number counters in Prometheus and Kubernetes, and
// version counters of caches.
// Fix: the lock-based counter, incFixed, increments and reads under one mutex.
package lincounter

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heddledbg/heddle/lin"
)

type counter struct {
	mu sync.Mutex
	n  int
	a  atomic.Int64
}

func (c *counter) inc() int {
	v := c.a.Load()
	c.a.Store(v + 1) // BUG: an increment between the Load and the Store is lost
	return int(v + 1)
}

func (c *counter) get() int { return int(c.a.Load()) }

func (c *counter) incFixed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

func (c *counter) getFixed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// An operation's input says whether it increments or reads; its output is the value it
// returns.
var model = lin.Model[int, bool, int]{
	Init: func() int { return 0 },
	Step: func(n int, inc bool, out int) (bool, int) {
		if inc {
			return out == n+1, n + 1
		}
		return out == n, n
	},
	Describe: func(inc bool, out int) (string, string) {
		if inc {
			return "inc()", fmt.Sprint(out)
		}
		return "get()", fmt.Sprint(out)
	},
}

func run(t *testing.T, inc, get func(*counter) int) {
	var c counter
	h := lin.New(model)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Do(true, func() int { return inc(&c) })
		}()
	}
	h.Do(false, func() int { return get(&c) })
	wg.Wait()
	h.Check(t)
}

func TestBug(t *testing.T)   { run(t, (*counter).inc, (*counter).get) }
func TestFixed(t *testing.T) { run(t, (*counter).incFixed, (*counter).getFixed) }
