// The receive of an unbuffered channel happens before its send completes; a buffered one
// does not order the first receive before the first send. Bug: capacity 1. Fixed: unbuffered.
package chanrecv

import "testing"

func run(capacity int) {
	x := 0
	ch := make(chan int, capacity)
	done := make(chan bool)
	go func() {
		ch <- 1
		_ = x
		done <- true
	}()
	x = 1
	<-ch
	<-done
}

func TestBug(t *testing.T)   { run(1) }
func TestFixed(t *testing.T) { run(0) }
