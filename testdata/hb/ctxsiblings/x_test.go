// Sibling contexts cancelled by three goroutines: each cancel edits the parent's children
// inside heddle, which the race detector must not see. Bug: the goroutines also count their
// cancels in a plain variable. Fixed: they do not.
package ctxsiblings

import (
	"context"
	"sync"
	"testing"
)

func run(count bool) {
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()
	var cancels []context.CancelCauseFunc
	for i := 0; i < 4; i++ {
		_, cancel := context.WithCancelCause(parent)
		cancels = append(cancels, cancel)
	}
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(cancel context.CancelCauseFunc) {
			defer wg.Done()
			cancel(nil)
			if count {
				n++
			}
		}(cancels[i])
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(true) }
func TestFixed(t *testing.T) { run(false) }
