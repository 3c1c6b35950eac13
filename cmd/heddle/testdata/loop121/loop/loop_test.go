// Package loop captures a range loop's variable in goroutines. The module is at go 1.21, where
// the loop has one variable for all its iterations: the loop's write of it races with the
// goroutines' reads.
package loop

import (
	"sync"
	"testing"
)

func TestBugLoopCapture(t *testing.T) {
	checks := names()
	var mu sync.Mutex
	var seen []string
	var wg sync.WaitGroup
	for _, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			seen = append(seen, c)
			mu.Unlock()
		}()
	}
	wg.Wait()
}
