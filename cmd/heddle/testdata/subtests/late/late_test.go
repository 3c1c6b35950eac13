// Package late has a test with two subtests: one that dials a server outside the process only
// when it looks before a goroutine it starts has run (heddle cannot explore that, and the
// exploration's first run, which runs a new goroutine first as Go's scheduler does, does not
// see it), and one that is clean.
// Heddle skips the first with its reason once a later run finds it, and explores the second
// anew without it.
package late

import (
	"net"
	"sync"
	"testing"
	"time"
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
	t.Run("count", func(t *testing.T) {
		if n := count(); n != 2 {
			t.Errorf("counted %d, want 2", n)
		}
	})
	t.Run("server", func(t *testing.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		ready := false
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			ready = true
			mu.Unlock()
		}()
		mu.Lock()
		ran := ready
		mu.Unlock()
		wg.Wait()
		if ran {
			return
		}
		conn, err := net.DialTimeout("tcp", "192.0.2.1:1", time.Second) // TEST-NET-1: no host answers
		if err != nil {
			t.Skipf("no server: %v", err)
		}
		conn.Close()
	})
}
