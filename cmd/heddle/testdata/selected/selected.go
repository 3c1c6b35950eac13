// Package selected has tests whose subtests go test's -run and -skip select, and a helper
// package that imports it, which its external tests use.
package selected

import "sync"

// Counter counts under a lock.
type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *Counter) N() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
