// An RUnlock orders a later Lock and an Unlock a later RLock, but an RUnlock does not order a
// later RLock. Bug: a reader writes under RLock what another reader reads under RLock. Fixed: the
// writer writes under Lock, and the readers read under RLock.
package rwmutex

import (
	"sync"
	"testing"
)

func TestBug(t *testing.T) {
	var mu sync.RWMutex
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); mu.RLock(); x = 1; mu.RUnlock() }()
	go func() { defer wg.Done(); mu.RLock(); _ = x; mu.RUnlock() }()
	wg.Wait()
}

func TestFixed(t *testing.T) {
	var mu sync.RWMutex
	x := 0
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); mu.Lock(); x = 1; mu.Unlock() }()
	for range 2 {
		go func() { defer wg.Done(); mu.RLock(); _ = x; mu.RUnlock() }()
	}
	wg.Wait()
}
