// A select's chosen communication orders as the plain one. Bug: the sender writes after its
// send. Fixed: before.
package selects

import "testing"

func run(before bool) {
	x := 0
	ch := make(chan int)
	never := make(chan int)
	done := make(chan bool)
	go func() {
		if before {
			x = 1
		}
		select {
		case ch <- 1:
		case <-never:
		}
		if !before {
			x = 1
		}
		done <- true
	}()
	select {
	case <-ch:
	case never <- 0:
	}
	_ = x
	<-done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
