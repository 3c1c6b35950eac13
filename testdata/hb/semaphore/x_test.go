// A buffered channel used as a semaphore: the kth receive happens before the (k+C)th send
// completes. Bug: capacity 2 admits both goroutines at once. Fixed: capacity 1. The elements
// are not empty structs: for those, Go's race detector orders every operation of the channel
// after every earlier one (runtime.racenotify), which would hide the bug.
package semaphore

import (
	"sync"
	"testing"
)

func run(capacity int) {
	sem := make(chan bool, capacity)
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			n++
			<-sem
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(2) }
func TestFixed(t *testing.T) { run(1) }
