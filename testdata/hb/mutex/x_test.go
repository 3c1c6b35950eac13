// Bug: a write after Unlock. Fixed: under the lock.
package mutex

import (
	"sync"
	"testing"
)

func run(inside bool) {
	var mu sync.Mutex
	x := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			if inside {
				x++
			}
			mu.Unlock()
			if !inside {
				x++
			}
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
