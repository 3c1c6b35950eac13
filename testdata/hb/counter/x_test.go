// A counter incremented by two goroutines joined by a WaitGroup. Fixed: a channel of
// capacity 1 used as a semaphore, whose kth receive happens before the (k+1)th send completes.
package counter

import (
	"sync"
	"testing"
)

func TestBug(t *testing.T) {
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n++
		}()
	}
	wg.Wait()
	_ = n
}

func TestFixed(t *testing.T) {
	n := 0
	sem := make(chan struct{}, 1)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			n++
			<-sem
		}()
	}
	wg.Wait()
	_ = n
}
