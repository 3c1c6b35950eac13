// Package clean has a test with two subtests: one that heddle cannot explore (it checks an
// allocation count, which under heddle holds heddle's own) and one that is clean. Heddle skips
// the first with its reason and explores the second.
package clean

import (
	"sync"
	"testing"
)

// count adds one twice, from two goroutines, under a lock.
func count() int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return n
}

func TestSubtests(t *testing.T) {
	t.Run("allocs", func(t *testing.T) {
		var mu sync.Mutex
		n := 0
		if a := testing.AllocsPerRun(100, func() {
			mu.Lock()
			n++
			mu.Unlock()
		}); a != 0 {
			t.Fatal("an increment allocates, want no allocation")
		}
	})
	t.Run("count", func(t *testing.T) {
		if n := count(); n != 2 {
			t.Errorf("counted %d, want 2", n)
		}
	})
}
