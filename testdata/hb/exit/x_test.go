// A goroutine's exit orders nothing. Bug: the goroutine writes after its Done and exits, and
// the waiter reads. Fixed: it writes before.
package exit

import (
	"sync"
	"testing"
)

func run(before bool) {
	x := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		if before {
			x = 1
		}
		wg.Done()
		if !before {
			x = 1
		}
	}()
	wg.Wait()
	_ = x
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
