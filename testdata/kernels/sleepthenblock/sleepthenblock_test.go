// Pattern: a goroutine that is not blocked when the test returns, but blocks forever later.
// A failed dial schedules a redial after a back-off; the redial goroutine sleeps, dials, and
// hands the connection to the client on an unbuffered channel. The client was closed during
// the back-off and nobody reads the channel any more, so the goroutine sleeps through the
// test's end and then blocks on the send for good. A leak check that looks only at the
// instant the test returns sees a sleeping goroutine, not a blocked one.
// Modeled on: reconnect-after-back-off goroutines of RPC and database clients (gRPC-Go
// addrConn reconnects, Docker/Moby's plugin client retries, lib/pq and go-redis redials).
// Fix: the hand-off selects on the client's done channel, and Close waits for the redial.
package sleepthenblock

import (
	"errors"
	"sync"
	"testing"
	"time"
)

type conn struct{ addr string }

type client struct {
	addr    string
	conns   chan *conn
	done    chan struct{}
	redials sync.WaitGroup
}

var errRefused = errors.New("connection refused")

func (c *client) dial(attempt int) (*conn, error) {
	if attempt == 0 {
		return nil, errRefused // the server is still starting
	}
	return &conn{addr: c.addr}, nil
}

// redial tries again after the back-off and hands the connection over.
func (c *client) redial(backoff time.Duration, fixed bool) {
	defer c.redials.Done()
	time.Sleep(backoff) // the back-off itself: the pattern's wait, not synchronization
	cn, err := c.dial(1)
	if err != nil {
		return
	}
	if !fixed {
		c.conns <- cn // BUG: nobody receives once the client is closed
		return
	}
	select {
	case c.conns <- cn:
	case <-c.done:
	}
}

func (c *client) connect(fixed bool) {
	if _, err := c.dial(0); err != nil {
		c.redials.Add(1)
		go c.redial(10*time.Millisecond, fixed)
	}
}

func TestBug(t *testing.T) {
	c := &client{addr: "10.0.0.1:2379", conns: make(chan *conn), done: make(chan struct{})}
	c.connect(false)
	close(c.done) // the client is closed before the redial
}

func TestFixed(t *testing.T) {
	c := &client{addr: "10.0.0.1:2379", conns: make(chan *conn), done: make(chan struct{})}
	c.connect(true)
	close(c.done)
	c.redials.Wait()
}
