// Pattern: a test guards against a hang with select { case <-done: case <-time.After(d): t.Fatal }.
// Modeled on: golang.org/x/sync singleflight TestPanicDo / TestGoexitDo, which start several
// callers that never wait and fail the test if they have not all returned within a second.
// Bug: one caller blocks forever on a result nobody sends (the leader forgets to broadcast on
// an early error return), so the guard fires: the test fails with "Do hangs".
// Fix: the leader closes the call's done channel on every path (defer). With synctest's time
// the guard never fires in the fixed test: the callers never wait on the clock.
package guardedwait

import (
	"errors"
	"sync"
	"testing"
	"time"
)

type call struct {
	done chan struct{}
	err  error
}

type group struct {
	mu sync.Mutex
	m  map[string]*call
}

// do runs fn once for concurrent callers of the same key; the others wait for its result.
func (g *group) do(key string, fn func() error, deferClose bool) error {
	g.mu.Lock()
	if c, ok := g.m[key]; ok {
		g.mu.Unlock()
		<-c.done
		return c.err
	}
	c := &call{done: make(chan struct{})}
	g.m[key] = c
	g.mu.Unlock()
	if deferClose {
		defer close(c.done)
	}
	c.err = fn()
	if c.err != nil && !deferClose {
		return c.err // BUG: the waiters are never released
	}
	if !deferClose {
		close(c.done)
	}
	return c.err
}

func run(t *testing.T, deferClose bool) {
	g := &group{m: map[string]*call{}}
	const n = 3
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.do("key", func() error { return errors.New("boom") }, deferClose)
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatalf("do hangs")
	}
}

func TestBug(t *testing.T) { run(t, false) }

func TestFixed(t *testing.T) { run(t, true) }
