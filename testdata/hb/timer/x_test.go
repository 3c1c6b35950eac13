// Resetting a timer happens before the receive of its tick. Bug: the write follows Reset.
// Fixed: it precedes it.
package timer

import (
	"testing"
	"time"
)

func run(before bool) {
	x := 0
	t := time.NewTimer(time.Hour)
	done := make(chan bool)
	go func() {
		<-t.C
		_ = x
		done <- true
	}()
	if before {
		x = 1
	}
	t.Reset(time.Millisecond)
	if !before {
		x = 1
	}
	<-done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
