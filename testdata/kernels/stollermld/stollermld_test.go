// Pattern: Stoller's example of a violation of the mutex locking discipline that a lockset
// check with Eraser's liberal initialization misses ("Model-checking multi-threaded distributed
// Java programs", §9), in its original form: τ1 performs sem.up(); v := 1, and τ2 performs
// sem.down(); o.acquire(); v := 2; o.release(). v is protected by o in τ2 only; τ1's write
// after the up is unordered with τ2's write, in every schedule.
// Modeled on: a goroutine that signals readiness and then finishes its setup of a field that
// others already use under a lock (init-then-publish done in the wrong order).
// Fix: τ1 writes v under o, as τ2 does.
package stollermld

import (
	"sync"
	"testing"
)

type system struct {
	sem chan struct{} // a semaphore, initially zero
	o   sync.Mutex
	v   int
}

func tau1(s *system, fixed bool) {
	s.sem <- struct{}{} // sem.up()
	if fixed {
		s.o.Lock()
		s.v = 1
		s.o.Unlock()
		return
	}
	s.v = 1 // BUG: without o, after the up that lets τ2 go on
}

func tau2(s *system) {
	<-s.sem // sem.down()
	s.o.Lock()
	s.v = 2
	s.o.Unlock()
}

func run(fixed bool) {
	s := &system{sem: make(chan struct{}, 1)}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); tau1(s, fixed) }()
	go func() { defer wg.Done(); tau2(s) }()
	wg.Wait()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
