// Package bug has a test with three subtests: one that heddle cannot explore (it checks an
// allocation count, which under heddle holds heddle's own), one with a lock-order deadlock and
// one that is clean. Heddle skips the first with its reason, and explores the other two: it
// reports the deadlock, and its trace replays with the first subtest skipped again.
package bug

import (
	"sync"
	"testing"
)

// transfer locks a then b on one goroutine, b then a on another: they deadlock when each
// holds its first lock.
func transfer() {
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}

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
	t.Run("lockorder", func(t *testing.T) {
		transfer()
	})
	t.Run("count", func(t *testing.T) {
		if n := count(); n != 2 {
			t.Errorf("counted %d, want 2", n)
		}
	})
}
