// Package helper imports the package under test, so that the go command compiles it again for
// selected's external tests, as coder/websocket's wstest is.
package helper

import "example.com/selected"

// AddTwice adds to c from two goroutines and waits for both.
func AddTwice(c *selected.Counter) {
	done := make(chan bool)
	for range 2 {
		go func() {
			c.Add()
			done <- true
		}()
	}
	<-done
	<-done
}
