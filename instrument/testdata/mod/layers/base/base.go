// Package base is the bottom of a chain of packages: mid imports it, and top imports mid.
package base

import "sync"

// Box holds a number under a mutex.
type Box struct {
	mu sync.Mutex
	n  int
}

// Add adds d to the number.
func (b *Box) Add(d int) {
	b.mu.Lock()
	b.n += d
	b.mu.Unlock()
}

// Get returns the number.
func (b *Box) Get() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}
