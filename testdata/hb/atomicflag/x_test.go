// An atomic store happens before the load that sees it. Bug: the data is written after the
// store. Fixed: before.
package atomicflag

import (
	"sync/atomic"
	"testing"
)

func run(before bool) {
	x := 0
	var flag atomic.Bool
	done := make(chan bool)
	go func() {
		if before {
			x = 1
		}
		flag.Store(true)
		if !before {
			x = 1
		}
		done <- true
	}()
	for !flag.Load() {
	}
	_ = x
	<-done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
