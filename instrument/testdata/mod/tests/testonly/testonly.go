// Package testonly is imported only by the tests of package xonly.
package testonly

// Go runs f in a goroutine and returns a channel closed when it returns.
func Go(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return done
}
