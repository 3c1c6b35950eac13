// Pattern: check-then-act on a struct field -- a plain bool says whether a component has
// started, and Start checks it and sets it without a lock, so two concurrent calls both see
// false and both start it.
// Modeled on: "started"/"closed" flags of gRPC-Go and Docker components read and written
// outside their mutex.
// Fix: startFixed checks and sets the flag under the mutex.
package checkactfield

import (
	"sync"
	"testing"
)

type component struct {
	mu      sync.Mutex
	started bool
	starts  int
}

func (c *component) start() {
	if !c.started { // BUG: check and act are not under a lock
		c.started = true
		c.mu.Lock()
		c.starts++
		c.mu.Unlock()
	}
}

func (c *component) startFixed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		c.started = true
		c.starts++
	}
}

func run(start func(*component)) {
	c := new(component)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start(c)
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*component).start) }
func TestFixed(t *testing.T) { run((*component).startFixed) }
