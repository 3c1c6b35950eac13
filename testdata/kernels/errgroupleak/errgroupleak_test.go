// Pattern: errgroup-like "first error wins" fan-out that leaks the other workers. Results go
// to an unbuffered channel and the collector returns on the first error, so workers that finish
// later block forever on their send.
// Modeled on: Kubernetes and CockroachDB parallel checks written before errgroup was adopted
// (the "return on first error from an unbuffered channel" leak in Tu et al.).
// Fix: an inline errgroup: a WaitGroup, a Once-guarded first error, and Wait for all workers.
package errgroupleak

import (
	"errors"
	"sync"
	"testing"
)

func checkAll(checks []func() error) error {
	errc := make(chan error)
	for _, c := range checks {
		go func() { errc <- c() }()
	}
	for range checks {
		if err := <-errc; err != nil {
			return err // BUG: the remaining workers block on errc forever
		}
	}
	return nil
}

type group struct {
	wg   sync.WaitGroup
	once sync.Once
	err  error
}

func (g *group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.once.Do(func() { g.err = err })
		}
	}()
}

func (g *group) Wait() error { g.wg.Wait(); return g.err }

func checkAllFixed(checks []func() error) error {
	var g group
	for _, c := range checks {
		g.Go(c)
	}
	return g.Wait()
}

var checks = []func() error{
	func() error { return nil },                                // etcd healthy
	func() error { return errors.New("scheduler: unhealthy") }, // scheduler
	func() error { return nil },                                // controller-manager healthy
}

func TestBug(t *testing.T) {
	if err := checkAll(checks); err == nil {
		t.Errorf("checkAll: no error, want one")
	}
}

func TestFixed(t *testing.T) {
	if err := checkAllFixed(checks); err == nil {
		t.Errorf("checkAllFixed: no error, want one")
	}
}
