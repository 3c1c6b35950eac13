// Pattern: a hand-off to a waiter that already gave up. A caller waiting for a free connection
// leaves on ctx cancellation but its request stays registered; putConn hands the pool's only
// connection to that abandoned request, the connection is lost, and the next caller blocks
// forever.
// Modeled on: Go's database/sql connection-request handling (DB.conn / putConnDBLocked), which
// had to learn to remove the request and return a connection delivered after the cancel.
// Fix: on cancel, unregister the request and put back any connection already delivered to it.
package sqlconnleak

import (
	"context"
	"slices"
	"sync"
	"testing"
)

type conn struct{ id int }

type DB struct {
	mu       sync.Mutex
	free     []*conn
	numOpen  int
	maxOpen  int
	requests []chan *conn
	fixed    bool
}

func (db *DB) conn(ctx context.Context) (*conn, error) {
	db.mu.Lock()
	if n := len(db.free); n > 0 {
		c := db.free[n-1]
		db.free = db.free[:n-1]
		db.mu.Unlock()
		return c, nil
	}
	if db.numOpen < db.maxOpen {
		db.numOpen++
		db.mu.Unlock()
		return &conn{id: db.numOpen}, nil
	}
	req := make(chan *conn, 1)
	db.requests = append(db.requests, req)
	db.mu.Unlock()
	select {
	case c := <-req:
		return c, nil
	case <-ctx.Done():
		if db.fixed {
			db.mu.Lock()
			db.requests = slices.DeleteFunc(db.requests, func(r chan *conn) bool { return r == req })
			db.mu.Unlock()
			select {
			case c := <-req:
				db.putConn(c)
			default:
			}
		}
		return nil, ctx.Err() // BUG (unfixed): req stays registered; a conn sent to it is lost
	}
}

func (db *DB) putConn(c *conn) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if len(db.requests) > 0 {
		req := db.requests[0]
		db.requests = db.requests[1:]
		req <- c
		return
	}
	db.free = append(db.free, c)
}

func run(fixed bool) {
	db := &DB{maxOpen: 1, fixed: fixed}
	c1, _ := db.conn(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a query whose client disconnects
		defer wg.Done()
		if c, err := db.conn(ctx); err == nil {
			db.putConn(c)
		}
	}()
	cancel()
	db.putConn(c1)
	c2, _ := db.conn(context.Background()) // blocks forever if c1 was lost
	db.putConn(c2)
	wg.Wait()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
