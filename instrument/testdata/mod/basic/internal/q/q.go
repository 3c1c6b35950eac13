// Package q is an instrumented dependency inside the main module.
package q

import "sync"

// Counter counts under a mutex.
type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Inc() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Pipe forwards the values of in to a new channel until in is closed.
func Pipe[T any](in <-chan T) <-chan T {
	out := make(chan T)
	go func() {
		defer close(out)
		for v := range in {
			out <- v
		}
	}()
	return out
}
