// Pattern: a counter whose increment is an atomic Load then an atomic Store, each operation
// atomic but the pair not: two concurrent increments both return the same new value. The
// test asserts nothing about the counter; the history of increments and reads, checked
// against a sequential counter, shows that no order of them gives those results.
// Modeled on: request and sequence-number counters in Prometheus and Kubernetes, and
// version counters of caches.
// Fix: lockedCounter, the lock-based counter, increments and reads under one mutex.
package lincounter

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heddledbg/heddle/lin"
)

type counter interface {
	inc() int // returns the new value
	get() int
}

// splitCounter increments with two atomic operations.
type splitCounter struct{ n atomic.Int64 }

func (c *splitCounter) inc() int {
	v := c.n.Load()
	c.n.Store(v + 1) // BUG: an increment between the Load and the Store is lost
	return int(v + 1)
}

func (c *splitCounter) get() int { return int(c.n.Load()) }

// lockedCounter increments and reads under one mutex.
type lockedCounter struct {
	mu sync.Mutex
	n  int
}

func (c *lockedCounter) inc() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

func (c *lockedCounter) get() int {
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

func run(t *testing.T, c counter) {
	h := lin.New(model)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Do(true, c.inc)
		}()
	}
	h.Do(false, c.get)
	wg.Wait()
	h.Check(t)
}

func TestBug(t *testing.T)   { run(t, &splitCounter{}) }
func TestFixed(t *testing.T) { run(t, &lockedCounter{}) }
