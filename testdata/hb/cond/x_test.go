// sync.Cond orders nothing by itself: only its lock does. Bug: the signaller writes after
// unlocking and signals without the lock, and the woken waiter reads. Fixed: the write is
// under the lock.
package cond

import (
	"sync"
	"testing"
)

func run(locked bool) {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	x := 0
	waiting := make(chan bool)
	done := make(chan bool)
	go func() {
		mu.Lock()
		waiting <- true
		c.Wait()
		_ = x
		mu.Unlock()
		done <- true
	}()
	<-waiting
	mu.Lock() // the waiter is in Wait once its lock is free
	if locked {
		x = 1
		c.Signal()
		mu.Unlock()
	} else {
		mu.Unlock()
		x = 1
		c.Signal()
	}
	<-done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
