// Pattern: a ticker branch of a select takes a lock that the goroutine feeding the same
// select holds while it sends. The writer appends under the buffer's mutex and hands the
// entry to the flush loop on an unbuffered channel without unlocking; when the tick wins the
// loop's select instead, the loop waits for the mutex, and the writer waits for the loop.
// Modeled on: buffered audit and log backends that batch on a ticker (Kubernetes apiserver
// audit buffered backend, Docker/Moby log drivers' ring buffers): a send to the batching loop
// made while holding the buffer's lock.
// Fix: the writer releases the lock before it sends.
package tickerselect

import (
	"sync"
	"testing"
	"time"
)

type auditBuffer struct {
	mu      sync.Mutex
	written int // entries accepted, guarded by mu
	flushed int // entries flushed, guarded by mu
	events  chan string
	stop    chan struct{}
	done    chan struct{}
}

func newAuditBuffer(flushEvery time.Duration) *auditBuffer {
	b := &auditBuffer{events: make(chan string), stop: make(chan struct{}), done: make(chan struct{})}
	go b.loop(time.NewTicker(flushEvery))
	return b
}

func (b *auditBuffer) loop(ticker *time.Ticker) {
	defer close(b.done)
	defer ticker.Stop()
	var batch []string
	for {
		select {
		case <-ticker.C:
			b.mu.Lock()
			b.flushed += len(batch)
			b.mu.Unlock()
			batch = batch[:0]
		case e := <-b.events:
			batch = append(batch, e)
		case <-b.stop:
			return
		}
	}
}

func (b *auditBuffer) Write(e string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.written++
	b.events <- e // BUG: the flush branch needs mu
}

func (b *auditBuffer) WriteFixed(e string) {
	b.mu.Lock()
	b.written++
	b.mu.Unlock()
	b.events <- e
}

func (b *auditBuffer) Close() {
	close(b.stop)
	<-b.done
}

func run(write func(b *auditBuffer, e string)) {
	b := newAuditBuffer(time.Nanosecond)
	for _, e := range []string{"create pod", "update pod", "delete pod"} {
		write(b, e)
	}
	b.Close()
}

func TestBug(t *testing.T)   { run((*auditBuffer).Write) }
func TestFixed(t *testing.T) { run((*auditBuffer).WriteFixed) }
