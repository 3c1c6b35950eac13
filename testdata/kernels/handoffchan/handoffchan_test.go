// Pattern: hand-off over a channel, then a write after the hand-off -- a producer fills a
// request and sends it to a worker, which owns it from then on, but the producer still stamps
// a field after the send. Go's memory model orders only what the producer did before the
// send; the late write races with the worker's read.
// Modeled on: "modified after being sent on a channel" races in Kubernetes controllers and
// gRPC-Go transports (a request or buffer reused after it was handed to another goroutine).
// Fix: sendFixed fills every field before the send, and the worker is then the only owner: a
// lockset check that trusts the channel's hand-off stays silent.
package handoffchan

import (
	"sync"
	"testing"
)

type request struct {
	id    int
	retry bool
}

func send(ch chan<- *request) {
	r := &request{id: 1}
	ch <- r
	r.retry = true // BUG: the worker owns r now
}

func sendFixed(ch chan<- *request) {
	r := &request{id: 1}
	r.retry = true
	ch <- r
}

func run(t *testing.T, produce func(chan<- *request)) {
	ch := make(chan *request, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := <-ch
		if r.retry {
			r.id++
		}
	}()
	produce(ch)
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, send) }
func TestFixed(t *testing.T) { run(t, sendFixed) }
