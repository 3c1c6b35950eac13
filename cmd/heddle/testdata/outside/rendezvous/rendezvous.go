// Package rendezvous is a dependency of the outside tests, which heddle does not instrument:
// its channel is a real one, and a goroutine that waits on it waits outside heddle's control.
package rendezvous

import "context"

// A Point hands values from one goroutine to another.
type Point struct{ c chan int }

// New returns a Point.
func New() *Point { return &Point{c: make(chan int)} }

// Send waits until v is received, or ctx ends.
func (p *Point) Send(ctx context.Context, v int) error {
	select {
	case p.c <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Recv waits for a value.
func (p *Point) Recv() int { return <-p.c }
