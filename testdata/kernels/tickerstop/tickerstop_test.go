// Pattern: stopping a ticker the loop still reads. Ticker.Stop does not close the channel, so
// a "for range ticker.C" loop that only notices shutdown on the next tick waits forever once
// the ticker is stopped before that tick.
// Modeled on: lease keep-alive / heartbeat loops in Kubernetes and etcd that relied on
// ticker.Stop to end the loop.
// Fix: the loop also selects on a stop channel that Close closes.
package tickerstop

import (
	"sync"
	"testing"
	"time"
)

type leaseKeeper struct {
	mu       sync.Mutex
	closed   bool
	renewals int
	ticker   *time.Ticker
	stopc    chan struct{}
}

func newLeaseKeeper() *leaseKeeper {
	return &leaseKeeper{ticker: time.NewTicker(10 * time.Millisecond), stopc: make(chan struct{})}
}

func (k *leaseKeeper) keepAlive() {
	for range k.ticker.C { // BUG: never ends once the ticker is stopped
		k.mu.Lock()
		if k.closed {
			k.mu.Unlock()
			return
		}
		k.renewals++
		k.mu.Unlock()
	}
}

func (k *leaseKeeper) Close() {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
	k.ticker.Stop()
}

func (k *leaseKeeper) keepAliveFixed() {
	for {
		select {
		case <-k.ticker.C:
			k.mu.Lock()
			k.renewals++
			k.mu.Unlock()
		case <-k.stopc:
			return
		}
	}
}

func (k *leaseKeeper) CloseFixed() {
	k.ticker.Stop()
	close(k.stopc)
}

func TestBug(t *testing.T) {
	k := newLeaseKeeper()
	go k.keepAlive()
	k.Close() // keepAlive exits only if a tick arrives between closed=true and Stop
}

func TestFixed(t *testing.T) {
	k := newLeaseKeeper()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); k.keepAliveFixed() }()
	k.CloseFixed()
	wg.Wait()
}
