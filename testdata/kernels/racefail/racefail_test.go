// Pattern: a race that breaks an invariant -- a connection registers itself under the
// registry's lock, announces itself, and only then sets its handler, without the lock; the
// server, which counts connections under the lock, finds one without a handler. The race
// detector reports the race; the failure needs the server to run between the announcement and
// the handler's write, an order that dpor, which does not see plain memory, does not try.
// Modeled on: "registered before initialised" bugs in gRPC-Go and Kubernetes (a watcher or
// a stream added to a shared table, then its callback set).
// Fix: registerFixed sets the handler under the lock, before the count that publishes it,
// and the server reads both under the lock.
package racefail

import (
	"sync"
	"testing"
)

type registry struct {
	mu      sync.Mutex
	conns   int
	handler func() string
	events  chan string
}

func (r *registry) register(h func() string) {
	r.mu.Lock()
	r.conns++
	r.mu.Unlock()
	r.events <- "registered"
	r.handler = h // BUG: set after the connection is counted, without the lock
}

func (r *registry) registerFixed(h func() string) {
	r.mu.Lock()
	r.handler = h
	r.conns++
	r.mu.Unlock()
	r.events <- "registered"
}

func (r *registry) serve(t *testing.T, fixed bool) {
	r.mu.Lock()
	n := r.conns
	var h func() string
	if fixed {
		h = r.handler
	}
	r.mu.Unlock()
	if !fixed && n > 0 {
		h = r.handler // read without the lock
	}
	if n > 0 && h == nil {
		t.Error("a registered connection has no handler")
	}
}

func run(t *testing.T, fixed bool) {
	r := &registry{events: make(chan string, 1)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if fixed {
			r.registerFixed(func() string { return "ok" })
		} else {
			r.register(func() string { return "ok" })
		}
	}()
	r.serve(t, fixed)
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
