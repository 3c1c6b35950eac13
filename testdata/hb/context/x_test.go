// Cancelling a context happens before a receive from its Done channel returns. Bug: the write
// follows the cancel. Fixed: it precedes it.
package context

import (
	"context"
	"testing"
)

func run(before bool) {
	ctx, cancel := context.WithCancel(context.Background())
	x := 0
	done := make(chan bool)
	go func() {
		if before {
			x = 1
		}
		cancel()
		if !before {
			x = 1
		}
		done <- true
	}()
	<-ctx.Done()
	_ = x
	<-done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
