package skips

import (
	"sync"
	"testing"
)

// count adds one twice, from two goroutines: a test that runs it has interleavings to explore
// before it skips.
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

func TestSkip(t *testing.T) {
	t.Skip("needs a database")
}

func TestSkipf(t *testing.T) {
	n := count()
	t.Skipf("counted %d, but the rest needs %s", n, "a network")
}

func TestSkipNow(t *testing.T) {
	t.Log("about to skip")
	t.SkipNow()
}

func TestRuns(t *testing.T) {
	if n := count(); n != 2 {
		t.Errorf("counted %d, want 2", n)
	}
}

// TestSubtestSkips explores its interleavings, and one of its subtests skips itself: go test
// reports the test as passed and the subtest as skipped, with its message, under it.
func TestSubtestSkips(t *testing.T) {
	if n := count(); n != 2 {
		t.Errorf("counted %d, want 2", n)
	}
	t.Run("windows", func(t *testing.T) {
		t.Skip("not on this system")
	})
}
