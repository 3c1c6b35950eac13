// Package loop captures a range loop's variable in goroutines. The module is at go 1.22, where
// each iteration has its own variable: there is no race.
package loop

import (
	"sync"
	"testing"
)

func TestLoopCapture(t *testing.T) {
	checks := []string{"disk", "net", "cpu"}
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
	if len(seen) != len(checks) {
		t.Errorf("saw %d checks, want %d", len(seen), len(checks))
	}
}
