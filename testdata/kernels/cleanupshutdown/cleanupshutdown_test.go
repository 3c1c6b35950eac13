// Pattern: a worker pool that the test shuts down in t.Cleanup. Close closes quit and waits
// for the workers, but a worker whose result nobody reads is blocked on an unbuffered send and
// never sees quit: the cleanup waits for it for ever.
// Modeled on: test fixtures that start a component and register its Stop with t.Cleanup
// (Kubernetes controllers, etcd integration members, gRPC-Go test servers), where Stop waits for
// goroutines that can be stuck on a channel nobody drains any more.
// Fix: the worker sends in a select that also watches quit.
package cleanupshutdown

import (
	"sync"
	"testing"
)

type pool struct {
	results chan int
	quit    chan struct{}
	wg      sync.WaitGroup
}

func start(n int, work func(p *pool, i int)) *pool {
	p := &pool{results: make(chan int), quit: make(chan struct{})}
	for i := 0; i < n; i++ {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			work(p, i)
		}()
	}
	return p
}

func work(p *pool, i int) {
	p.results <- i // BUG: blocks for ever once the reader has gone
}

func workFixed(p *pool, i int) {
	select {
	case p.results <- i:
	case <-p.quit:
	}
}

func (p *pool) close() {
	close(p.quit)
	p.wg.Wait()
}

func TestBug(t *testing.T) {
	p := start(2, work)
	t.Cleanup(p.close)
	<-p.results // the first result is enough
}

func TestFixed(t *testing.T) {
	p := start(2, workFixed)
	t.Cleanup(p.close)
	<-p.results
}
