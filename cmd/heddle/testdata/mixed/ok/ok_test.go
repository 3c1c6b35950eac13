// Package ok has a correct test: heddle must report nothing.
package ok

import (
	"sync"
	"testing"
)

func TestCounter(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 2 {
		t.Fatalf("n = %d, want 2", n)
	}
}
