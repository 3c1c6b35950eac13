// Package flags is a counter with one test that finds a lost update and one that is clean,
// for heddle test's flags.
package flags

import "sync"

type Counter struct {
	mu sync.Mutex
	n  int
}

// AddSplit reads and writes in two critical sections: two calls can lose an update.
func (c *Counter) AddSplit() {
	c.mu.Lock()
	v := c.n
	c.mu.Unlock()
	c.mu.Lock()
	c.n = v + 1
	c.mu.Unlock()
}

func (c *Counter) Add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
