// A send happens before the receive completes. Bug: the sender writes after its send.
// Fixed: before.
package chansend

import "testing"

func run(before bool) {
	x := 0
	ch := make(chan int)
	done := make(chan bool)
	go func() {
		if before {
			x = 1
		}
		ch <- 1
		if !before {
			x = 1
		}
		done <- true
	}()
	<-ch
	_ = x
	<-done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
