// Pattern: sync.Cond Signal instead of Broadcast. Several goroutines wait for a one-shot state
// change, but the notifier wakes only one of them; the others sleep forever.
// Modeled on: "ready" notifiers in etcd and CockroachDB (e.g. waiting for a store or raft
// group to be initialised).
// Fix: SetReadyFixed uses Broadcast.
package condsignal

import (
	"sync"
	"testing"
)

type readyNotifier struct {
	mu    sync.Mutex
	cond  *sync.Cond
	ready bool
}

func newNotifier() *readyNotifier {
	r := &readyNotifier{}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *readyNotifier) Wait() {
	r.mu.Lock()
	for !r.ready {
		r.cond.Wait()
	}
	r.mu.Unlock()
}

func (r *readyNotifier) SetReady() {
	r.mu.Lock()
	r.ready = true
	r.cond.Signal() // BUG: wakes only one waiter
	r.mu.Unlock()
}

func (r *readyNotifier) SetReadyFixed() {
	r.mu.Lock()
	r.ready = true
	r.cond.Broadcast()
	r.mu.Unlock()
}

func run(set func(*readyNotifier)) {
	r := newNotifier()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); r.Wait() }() // e.g. two RPC handlers waiting for the store
	}
	set(r)
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*readyNotifier).SetReady) }
func TestFixed(t *testing.T) { run((*readyNotifier).SetReadyFixed) }
