// Pattern: a test written with testing/synctest (Go 1.25) starts a component whose goroutine
// runs until Close, and registers Close with t.Cleanup. synctest.Test runs the cleanups that
// its function registers inside the bubble, as soon as the function returns, and only then
// waits for the bubble's goroutines; a cleanup registered on the test outside the bubble runs
// after synctest.Test returns, too late.
// Modeled on: pion/transport's vnet TestDelayFilter (a delay filter's processing goroutine,
// stopped by Close in a t.Cleanup inside the bubble).
// Bug: the cleanup is registered on the outer test, so the processing goroutine is still
// blocked when the bubble's function returns: synctest.Test reports a deadlock (heddle:
// deadlock).
// Fix: register the cleanup with the bubble's t.
package synctestcleanup

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// delayer passes each value on after a delay, on a goroutine of its own.
type delayer struct {
	in, out chan int
	done    chan struct{}
	wg      sync.WaitGroup
}

func newDelayer(d time.Duration) *delayer {
	l := &delayer{in: make(chan int), out: make(chan int), done: make(chan struct{})}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for {
			select {
			case v := <-l.in:
				time.Sleep(d)
				select {
				case l.out <- v:
				case <-l.done:
					return
				}
			case <-l.done:
				return
			}
		}
	}()
	return l
}

func (l *delayer) Close() {
	close(l.done)
	l.wg.Wait()
}

func run(t *testing.T, inBubble bool) {
	var outer *delayer
	t.Cleanup(func() {
		if outer != nil {
			outer.Close()
		}
	})
	synctest.Test(t, func(t *testing.T) {
		l := newDelayer(10 * time.Millisecond)
		if inBubble {
			t.Cleanup(l.Close)
		} else {
			outer = l // BUG: closed only after synctest.Test has waited for l's goroutine
		}
		start := time.Now()
		l.in <- 1
		if v := <-l.out; v != 1 || time.Since(start) != 10*time.Millisecond {
			t.Errorf("got %d after %v, want 1 after 10ms", v, time.Since(start))
		}
	})
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
