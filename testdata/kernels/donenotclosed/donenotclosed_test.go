// Pattern: a goroutine waits on a done channel that is never closed on one path.
// Modeled on: Docker/Moby container start: a monitor goroutine waits for the container's
// done/exit channel, but Start returns early (container removed concurrently) without closing
// it, so the monitor leaks (GoKer moby kernels).
// Fix: StartFixed closes done on every path (defer close(c.done)).
package donenotclosed

import (
	"errors"
	"sync"
	"testing"
)

type container struct {
	mu       sync.Mutex
	removed  bool
	exitCode int
	done     chan struct{}
}

func (c *container) Remove() {
	c.mu.Lock()
	c.removed = true
	c.mu.Unlock()
}

func (c *container) Start() error {
	c.mu.Lock()
	if c.removed {
		c.mu.Unlock()
		return errors.New("container is marked for removal") // BUG: done is never closed
	}
	c.mu.Unlock()
	c.exitCode = 0 // run to completion
	close(c.done)
	return nil
}

func (c *container) StartFixed() error {
	defer close(c.done)
	c.mu.Lock()
	if c.removed {
		c.mu.Unlock()
		return errors.New("container is marked for removal")
	}
	c.mu.Unlock()
	c.exitCode = 0
	return nil
}

func run(start func(*container) error, waitMonitor bool) {
	c := &container{exitCode: -1, done: make(chan struct{})}
	var wg, mon sync.WaitGroup
	mon.Add(1)
	go func() { defer mon.Done(); <-c.done }() // monitor: release resources on exit
	wg.Add(1)
	go func() { defer wg.Done(); c.Remove() }() // docker rm -f racing with docker start
	start(c)
	wg.Wait()
	if waitMonitor {
		mon.Wait()
	}
}

func TestBug(t *testing.T)   { run((*container).Start, false) }
func TestFixed(t *testing.T) { run((*container).StartFixed, true) }
