// Pattern: a retry loop that keeps starting goroutines after the test returned. The watcher
// reconnects with one dial goroutine per attempt (so that the attempt can be abandoned) and
// checks whether it was closed only once a dial succeeds. The server is down: no dial
// succeeds, the loop never looks at the stop channel, and it goes on spawning a goroutine
// per back-off for the life of the process.
// Modeled on: reconnect loops of watch and stream clients (Kubernetes reflectors' retry
// loops, etcd clientv3 watch streams, gRPC-Go addrConn.resetTransport) whose shutdown check
// sits on the success path.
// Fix: the back-off selects on the stop channel, and Close waits for the loop and its dials.
package spawnafterreturn

import (
	"errors"
	"sync"
	"testing"
	"time"
)

var errUnavailable = errors.New("connection refused")

type watcher struct {
	mu       sync.Mutex
	attempts int
	stop     chan struct{}
	loop     sync.WaitGroup
}

// dial stands for one connection attempt to a server that is down.
func (w *watcher) dial() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.attempts++
	return errUnavailable
}

func (w *watcher) reconnect(backoff time.Duration, fixed bool) {
	defer w.loop.Done()
	for {
		errc := make(chan error, 1)
		w.loop.Add(1)
		go func() { // one goroutine per attempt
			defer w.loop.Done()
			errc <- w.dial()
		}()
		if err := <-errc; err == nil {
			select {
			case <-w.stop: // BUG: the only check of stop, reached only once a dial succeeds
				return
			default:
			}
			continue
		}
		if !fixed {
			time.Sleep(backoff)
			continue
		}
		select {
		case <-time.After(backoff):
		case <-w.stop:
			return
		}
	}
}

func run(fixed bool) *watcher {
	w := &watcher{stop: make(chan struct{})}
	w.loop.Add(1)
	go w.reconnect(time.Millisecond, fixed)
	return w
}

func TestBug(t *testing.T) {
	w := run(false)
	close(w.stop) // the loop never sees it: no dial succeeds
}

func TestFixed(t *testing.T) {
	w := run(true)
	close(w.stop)
	w.loop.Wait()
}
