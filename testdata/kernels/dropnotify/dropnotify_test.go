// Pattern: lost wake-up through a non-blocking send. The notifier uses select-with-default on
// an unbuffered channel; if the waiter is not parked on the receive at that instant the
// notification is dropped and the waiter blocks forever.
// Modeled on: config-reload and "resync" notifications in Kubernetes and etcd (the
// "select { case ch <- x: default: }" on an unbuffered channel bug class).
// Fix: a buffer of one, so a notification sent before the waiter parks is kept (coalesced).
package dropnotify

import (
	"sync"
	"testing"
)

type reloader struct {
	mu     sync.Mutex
	config string
	notify chan struct{}
}

func (r *reloader) Set(cfg string) {
	r.mu.Lock()
	r.config = cfg
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default: // BUG with an unbuffered channel: dropped unless the waiter is parked right now
	}
}

func run(t *testing.T, buffer int) {
	r := &reloader{notify: make(chan struct{}, buffer)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.Set("scrape_interval: 15s") }()
	<-r.notify // wait for the reload
	r.mu.Lock()
	if r.config == "" {
		t.Errorf("notified before the config was set")
	}
	r.mu.Unlock()
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, 0) }
func TestFixed(t *testing.T) { run(t, 1) }
