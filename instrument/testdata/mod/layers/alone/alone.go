// Package alone imports none of the module's other packages.
package alone

// Relay returns the value received from a channel that a goroutine sends v on.
func Relay(v int) int {
	ch := make(chan int)
	go func() { ch <- v }()
	return <-ch
}
