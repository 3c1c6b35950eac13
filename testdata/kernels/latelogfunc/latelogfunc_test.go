// Pattern: a test helper hands a component the test's log method as its logger, through an
// assertion library's interface (logf := tb.Logf). The component's goroutine logs when it is
// told to stop; the test's cleanup tells it and returns without waiting, so the message may be
// logged after the test completed, which go test answers with a panic: "Log in goroutine
// after TestBug has completed".
// Modeled on: clients built in tests with a logger option set to the test's Logf, whose
// background loop logs its shutdown.
// Fix: the test closes the component, which waits for its goroutine, before it returns.
package latelogfunc

import (
	"sync"
	"testing"
)

// Logger is the interface a test helper takes, as an assertion library's TestingT is.
type Logger interface {
	Logf(format string, args ...any)
}

type client struct {
	logf func(format string, args ...any)
	quit chan struct{}
	wg   sync.WaitGroup
}

func newClient(l Logger) *client {
	c := &client{logf: l.Logf, quit: make(chan struct{})} // the method value, taken while the test runs
	c.wg.Add(1)
	go c.loop()
	return c
}

func (c *client) loop() {
	defer c.wg.Done()
	<-c.quit
	c.logf("connection closed") // BUG: may run after the test completed
}

func (c *client) Close() {
	close(c.quit)
	c.wg.Wait()
}

func run(t *testing.T, fixed bool) {
	c := newClient(t)
	if fixed {
		c.Close()
		return
	}
	t.Cleanup(func() { close(c.quit) })
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
