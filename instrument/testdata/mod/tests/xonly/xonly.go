// Package xonly has only external tests.
package xonly

// Double sends 2*v on a new channel.
func Double(v int) <-chan int {
	ch := make(chan int, 1)
	ch <- 2 * v
	return ch
}
