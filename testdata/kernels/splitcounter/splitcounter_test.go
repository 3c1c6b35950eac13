// Pattern: a method meant to be indivisible that reads a counter under its mutex, releases
// it, and writes the value back plus one under a second critical section: two concurrent
// calls can read the same value, and one increment is lost. The test has no assertion: the
// lost update shows in no output, only in the order of the two calls' conflicting steps,
// which no serial order of the calls has.
// Modeled on: counters and quota pools whose read and write-back were split by a refactoring
// that moved a slow computation out of the lock (gRPC-Go's transport quotaPool, hit counters
// in Prometheus and CockroachDB); the lostupdate kernel is the same bug with an assertion.
// Fix: IncFixed reads and writes under one critical section.
package splitcounter

import (
	"sync"
	"testing"
)

type Counter struct {
	mu sync.Mutex
	n  int
}

// Inc adds one to c.
//
//heddle:atomic
func (c *Counter) Inc() {
	c.mu.Lock()
	n := c.n
	c.mu.Unlock() // BUG: another Inc may read c.n here...
	c.mu.Lock()
	c.n = n + 1 // ...and its increment is overwritten
	c.mu.Unlock()
}

// IncFixed adds one to c.
//
//heddle:atomic
func (c *Counter) IncFixed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
}

func run(inc func(*Counter)) {
	var c Counter
	var wg sync.WaitGroup
	wg.Add(2)
	for range 2 {
		go func() { defer wg.Done(); inc(&c) }()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*Counter).Inc) }
func TestFixed(t *testing.T) { run((*Counter).IncFixed) }
