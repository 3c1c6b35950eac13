// Package slow has a correct test with more schedules than any budget explores.
package slow

import (
	"sync"
	"testing"
)

func TestManySchedules(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 6; j++ {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if n != 36 {
		t.Fatalf("n = %d, want 36", n)
	}
}
