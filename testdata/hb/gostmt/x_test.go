// A go statement happens before the goroutine starts. Bug: the write follows it. Fixed: it
// precedes it.
package gostmt

import "testing"

func run(before bool) {
	x := 0
	done := make(chan bool)
	if before {
		x = 1
	}
	go func() { _ = x; done <- true }()
	if !before {
		x = 1
	}
	<-done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
