// Package dial has a test with two subtests: one that dials a server outside the process
// (heddle cannot explore it, and go test skips it when it cannot reach it) and one that
// is clean. Heddle skips the first with its reason and explores the second, whether it
// explores in one process or with a fresh process per run.
package dial

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
	t.Run("server", func(t *testing.T) {
		conn, err := net.DialTimeout("tcp", "192.0.2.1:1", time.Second) // TEST-NET-1: no host answers
		if err != nil {
			t.Skipf("no server: %v", err)
		}
		conn.Close()
	})
	t.Run("count", func(t *testing.T) {
		if n := count(); n != 2 {
			t.Errorf("counted %d, want 2", n)
		}
	})
}
