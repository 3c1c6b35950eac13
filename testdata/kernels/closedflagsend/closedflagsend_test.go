// Pattern: use after close -- the closed flag is checked under the lock but the send happens
// after unlocking, so Close can close the queue in between ("send on closed channel").
// Modeled on: Prometheus notifier / remote-write queues and gRPC-Go's controlbuf, which check
// a "closed" flag and enqueue outside the critical section.
// Fix: SendFixed checks the flag and enqueues (non-blocking) in one critical section.
package closedflagsend

import (
	"errors"
	"sync"
	"testing"
)

var errClosed = errors.New("notifier closed")

type notifier struct {
	mu     sync.Mutex
	closed bool
	queue  chan string
}

func (n *notifier) Send(alert string) error {
	n.mu.Lock()
	closed := n.closed
	n.mu.Unlock()
	if closed {
		return errClosed
	}
	n.queue <- alert // BUG: Close may have run since the check
	return nil
}

func (n *notifier) SendFixed(alert string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return errClosed
	}
	select {
	case n.queue <- alert:
		return nil
	default:
		return errors.New("queue full, alert dropped")
	}
}

func (n *notifier) Close() {
	n.mu.Lock()
	n.closed = true
	close(n.queue)
	n.mu.Unlock()
}

func run(send func(*notifier, string) error) {
	n := &notifier{queue: make(chan string, 8)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); send(n, "HighLatency firing") }() // rule evaluation
	n.Close()                                                      // config reload stops the old notifier
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*notifier).Send) }
func TestFixed(t *testing.T) { run((*notifier).SendFixed) }
