// An atomic add against a plain copy of the struct that holds the counter. Fixed: the copy
// reads the counter atomically.
package atomic

import (
	"sync"
	"sync/atomic"
	"testing"
)

type stats struct{ Writes, Reads uint64 }

type conn struct{ stats stats }

func TestBug(t *testing.T) {
	c := new(conn)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); atomic.AddUint64(&c.stats.Writes, 1) }()
	go func() { defer wg.Done(); s := c.stats; _ = s }()
	wg.Wait()
}

func TestFixed(t *testing.T) {
	c := new(conn)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); atomic.AddUint64(&c.stats.Writes, 1) }()
	go func() { defer wg.Done(); s := stats{Writes: atomic.LoadUint64(&c.stats.Writes)}; _ = s }()
	wg.Wait()
}
