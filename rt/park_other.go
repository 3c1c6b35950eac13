//go:build !amd64 && !arm64

package rt

// A parker is what a carrier sleeps on between its turns: here, a channel of one, which keeps
// a wake that comes before the sleep.
type parker struct{ ch chan struct{} }

//go:norace
func (p *parker) park() { <-p.ch }

//go:norace
func (p *parker) unpark() { p.ch <- struct{}{} }

// init prepares a parker before its first use.
func (p *parker) init() { p.ch = make(chan struct{}, 1) }
