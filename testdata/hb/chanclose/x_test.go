// A close happens before a receive that sees it. Bug: the write follows the close. Fixed: it
// precedes it.
package chanclose

import "testing"

func run(before bool) {
	x := 0
	ch := make(chan int)
	done := make(chan bool)
	go func() {
		if before {
			x = 1
		}
		close(ch)
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
