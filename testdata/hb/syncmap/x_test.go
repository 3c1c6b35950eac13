// A sync.Map's Store happens before the Load that returns the value. Bug: the write follows
// the Store. Fixed: it precedes it, and the reader reads only what it found.
package syncmap

import (
	"sync"
	"testing"
)

func run(before bool) {
	var m sync.Map
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if before {
			x = 1
		}
		m.Store("k", 1)
		if !before {
			x = 1
		}
	}()
	go func() {
		defer wg.Done()
		if _, ok := m.Load("k"); ok || !before {
			_ = x
		}
	}()
	wg.Wait()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
