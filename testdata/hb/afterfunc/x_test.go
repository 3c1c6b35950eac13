// Setting a timer happens before its function runs. Bug: the write follows AfterFunc. Fixed:
// it precedes it.
package afterfunc

import (
	"testing"
	"time"
)

func run(before bool) {
	x := 0
	done := make(chan bool)
	if before {
		x = 1
	}
	time.AfterFunc(time.Millisecond, func() { _ = x; done <- true })
	if !before {
		x = 1
	}
	<-done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
