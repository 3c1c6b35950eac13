// Pattern: the two-thread program of JPF's lock-tree figure (Havelund, "Using Runtime Analysis
// to Guide Model Checking of Java Programs", SPIN 2000, Figure 5), with its locks named L1 to
// L4 as there. Its lock trees (Figure 6) show three inversions: L2/L3 twice, each protected by
// a gate lock (L1 or L4), and L3/L4, unprotected: thread 2 can finish its L1 block and take L4
// while thread 1 holds L1 and L3 and is about to take L4.
// Modeled on: nested synchronized blocks whose lock order differs between code paths, the
// pattern a lock-order checker (JPF's, go-deadlock's) reports before it deadlocks.
// Fix: thread 1 takes L4 after releasing L3.
package jpffigure5

import (
	"sync"
	"testing"
)

var L1, L2, L3, L4 sync.Mutex

func thread1(fixed bool) {
	// synchronized(L1) { synchronized(L3) { synchronized(L2) {}; synchronized(L4) {} } }
	L1.Lock()
	L3.Lock()
	L2.Lock()
	L2.Unlock()
	if !fixed {
		L4.Lock() // BUG: L4 inside L3, while thread 2 takes L3 inside L4
		L4.Unlock()
	}
	L3.Unlock()
	if fixed {
		L4.Lock()
		L4.Unlock()
	}
	L1.Unlock()
	// synchronized(L4) { synchronized(L2) { synchronized(L3) {} } }
	L4.Lock()
	L2.Lock()
	L3.Lock()
	L3.Unlock()
	L2.Unlock()
	L4.Unlock()
}

func thread2() {
	// synchronized(L1) { synchronized(L2) { synchronized(L3) {} } }
	L1.Lock()
	L2.Lock()
	L3.Lock()
	L3.Unlock()
	L2.Unlock()
	L1.Unlock()
	// synchronized(L4) { synchronized(L3) { synchronized(L2) {} } }
	L4.Lock()
	L3.Lock()
	L2.Lock()
	L2.Unlock()
	L3.Unlock()
	L4.Unlock()
}

func run(fixed bool) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); thread1(fixed) }()
	go func() { defer wg.Done(); thread2() }()
	wg.Wait()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
