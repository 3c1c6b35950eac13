// Package dep is a dependency outside the main module: it stays
// uninstrumented and runs as trusted atomic code.
package dep

import "sync"

var mu sync.Mutex

// Sum adds xs using a channel and a goroutine of its own.
func Sum(xs ...int) int {
	mu.Lock()
	defer mu.Unlock()
	ch := make(chan int)
	go func() {
		defer close(ch)
		for _, x := range xs {
			ch <- x
		}
	}()
	n := 0
	for x := range ch {
		n += x
	}
	return n
}

// Ready returns a channel made outside instrumented code.
func Ready() <-chan int {
	ch := make(chan int, 1)
	ch <- 42
	return ch
}
