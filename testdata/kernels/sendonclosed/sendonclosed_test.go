// Pattern: use after close -- send on a channel closed by a racing goroutine. Publish snapshots
// the subscribers under the read lock and sends after unlocking; Evict closes a subscriber's
// channel in between.
// Modeled on: Docker/Moby pkg/pubsub and the daemon events service (send on closed channel
// panics reported in Tu et al.).
// Fix: PublishFixed sends while holding the read lock (non-blocking, the channels are
// buffered), so Evict's close, which needs the write lock, cannot interleave.
package sendonclosed

import (
	"sync"
	"testing"
)

type Publisher struct {
	mu   sync.RWMutex
	subs map[chan string]bool
}

func (p *Publisher) Subscribe() chan string {
	ch := make(chan string, 4)
	p.mu.Lock()
	p.subs[ch] = true
	p.mu.Unlock()
	return ch
}

func (p *Publisher) Evict(ch chan string) {
	p.mu.Lock()
	delete(p.subs, ch)
	close(ch)
	p.mu.Unlock()
}

func (p *Publisher) Publish(ev string) {
	p.mu.RLock()
	var subs []chan string
	for ch := range p.subs {
		subs = append(subs, ch)
	}
	p.mu.RUnlock()
	for _, ch := range subs {
		ch <- ev // BUG: ch may have been closed by Evict
	}
}

func (p *Publisher) PublishFixed(ev string) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for ch := range p.subs {
		select {
		case ch <- ev:
		default: // slow subscriber: drop
		}
	}
}

func run(publish func(*Publisher, string)) {
	p := &Publisher{subs: map[chan string]bool{}}
	ch := p.Subscribe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); publish(p, "container start") }()
	p.Evict(ch) // docker events client disconnects
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*Publisher).Publish) }
func TestFixed(t *testing.T) { run((*Publisher).PublishFixed) }
