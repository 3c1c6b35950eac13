// Pattern: sync.Cond Wait without a loop. The consumer re-checks nothing after waking; another
// consumer that did not wait can take the item between the Signal and the waiter re-acquiring
// the lock, and the woken consumer indexes an empty queue (index out of range panic).
// Modeled on: work queues in Kubernetes (client-go workqueue predecessors) and CockroachDB.
// Fix: GetFixed waits in a for loop.
package condnoloop

import (
	"sync"
	"testing"
)

type queue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	items []string
}

func newQueue() *queue {
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queue) Add(item string) {
	q.mu.Lock()
	q.items = append(q.items, item)
	q.cond.Signal()
	q.mu.Unlock()
}

func (q *queue) Get() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 { // BUG: must be a loop
		q.cond.Wait()
	}
	item := q.items[0]
	q.items = q.items[1:]
	return item
}

func (q *queue) GetFixed() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 {
		q.cond.Wait()
	}
	item := q.items[0]
	q.items = q.items[1:]
	return item
}

func run(get func(*queue) string) {
	q := newQueue()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); get(q) }()
	}
	q.Add("default/web-0")
	q.Add("default/web-1")
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*queue).Get) }
func TestFixed(t *testing.T) { run((*queue).GetFixed) }
