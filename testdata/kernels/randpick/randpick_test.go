// Pattern: check-then-act on a backend chosen at random: a request claims a backend with an
// atomic Load then Store, so two requests that pick the same backend can both claim it. Only
// some random picks (the same backend) combined with some interleaving (both checks before
// either claim) reach the bug.
// Modeled on: random load balancers and connection pickers (gRPC-Go pick_first/random pickers,
// Consul and Nomad client server selection) that mark a connection busy with a flag.
// Fix: claimFixed claims the backend with CompareAndSwap.
package randpick

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

type backend struct {
	busy     atomic.Bool
	inflight atomic.Int32
}

func (b *backend) claim() bool {
	if b.busy.Load() {
		return false
	}
	b.busy.Store(true) // BUG: another request may have passed the check on this backend
	return true
}

func (b *backend) claimFixed() bool { return b.busy.CompareAndSwap(false, true) }

// serve handles one request on a random backend, or rejects it if that backend is busy.
func serve(backends []*backend, claim func(*backend) bool) (overlap bool) {
	b := backends[rand.IntN(len(backends))]
	if !claim(b) {
		return false
	}
	overlap = b.inflight.Add(1) > 1
	b.inflight.Add(-1)
	b.busy.Store(false)
	return overlap
}

func run(t *testing.T, claim func(*backend) bool) {
	backends := []*backend{new(backend), new(backend), new(backend)}
	var wg sync.WaitGroup
	var overlaps atomic.Int32
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if serve(backends, claim) {
				overlaps.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := overlaps.Load(); n > 0 {
		t.Errorf("a backend served two requests at once")
	}
}

func TestBug(t *testing.T)   { run(t, (*backend).claim) }
func TestFixed(t *testing.T) { run(t, (*backend).claimFixed) }
