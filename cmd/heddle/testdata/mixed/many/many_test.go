// Package many has bugs that many runs hit, each with other values and goroutines.
package many

import (
	"sync"
	"testing"
)

// TestLostUpdate loses increments: the final count differs from run to run, and so does the
// failure message, but it is one bug, at one line.
func TestLostUpdate(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			v := n
			mu.Unlock()
			mu.Lock()
			n = v + 1
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 3 {
		t.Fatalf("n = %d, want 3", n)
	}
}

// TestLeak leaks one of three senders: which one depends on the schedule, but every one
// blocks at the same send.
func TestLeak(t *testing.T) {
	ch := make(chan int)
	for i := 0; i < 3; i++ {
		go func() { ch <- i }()
	}
	<-ch
	<-ch
}
