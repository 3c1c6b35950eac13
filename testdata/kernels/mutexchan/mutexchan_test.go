// Pattern: mixed channel-and-mutex cycle. The broadcaster holds its mutex while sending on a
// watcher's unbuffered channel; the watcher, instead of receiving, is trying to unregister,
// which needs the same mutex.
// Modeled on: Kubernetes watch.Broadcaster / apiserver watch cache (Tu et al. report several
// "blocking send under a lock" bugs in Kubernetes and Docker).
// Fix (what Kubernetes did): each watcher has a stopped channel that Stop closes before taking
// the lock, and the broadcaster's send selects on it.
package mutexchan

import (
	"sync"
	"testing"
)

type watcher struct {
	result   chan string
	stopped  chan struct{}
	stopOnce sync.Once
}

type Broadcaster struct {
	mu       sync.Mutex
	watchers map[*watcher]bool
}

func (b *Broadcaster) Watch() *watcher {
	w := &watcher{result: make(chan string), stopped: make(chan struct{})}
	b.mu.Lock()
	b.watchers[w] = true
	b.mu.Unlock()
	return w
}

func (b *Broadcaster) Action(ev string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.watchers {
		w.result <- ev // BUG: blocks while holding b.mu
	}
}

func (b *Broadcaster) StopWatching(w *watcher) {
	b.mu.Lock()
	delete(b.watchers, w)
	b.mu.Unlock()
}

func (b *Broadcaster) ActionFixed(ev string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.watchers {
		select {
		case w.result <- ev:
		case <-w.stopped:
		}
	}
}

func (b *Broadcaster) StopWatchingFixed(w *watcher) {
	w.stopOnce.Do(func() { close(w.stopped) }) // unblocks a pending send without the lock
	b.StopWatching(w)
}

func run(action func(*Broadcaster, string), stop func(*Broadcaster, *watcher)) {
	b := &Broadcaster{watchers: map[*watcher]bool{}}
	w := b.Watch()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); action(b, "ADDED pod/web") }()
	stop(b, w) // the client closes its watch without reading
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*Broadcaster).Action, (*Broadcaster).StopWatching) }
func TestFixed(t *testing.T) { run((*Broadcaster).ActionFixed, (*Broadcaster).StopWatchingFixed) }
