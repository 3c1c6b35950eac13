package race

import (
	"sync"
	"sync/atomic"
	"testing"
)

type cache struct {
	mu   sync.RWMutex
	hits int
	n    atomic.Int64
}

// Two readers write under RLock: the read lock does not order them.
func TestBugRLockWrite(t *testing.T) {
	var c cache
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.mu.RLock()
			c.hits++
			c.mu.RUnlock()
		}()
	}
	wg.Wait()
}

// The twin takes the write lock.
func TestLockWrite(t *testing.T) {
	var c cache
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.mu.Lock()
			c.hits++
			c.mu.Unlock()
		}()
	}
	wg.Wait()
}

// The twin counts with an atomic under RLock.
func TestRLockAtomic(t *testing.T) {
	var c cache
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.mu.RLock()
			c.n.Add(1)
			c.mu.RUnlock()
		}()
	}
	wg.Wait()
}

type counters struct{ Writes, Reads uint64 }

// An atomic add against a plain copy of the struct it is in.
func TestBugAtomicPlain(t *testing.T) {
	var s counters
	done := make(chan counters)
	go func() { done <- s }()
	atomic.AddUint64(&s.Writes, 1)
	<-done
}

// The twin uses a buffered channel as a semaphore around a plain counter.
func TestSemaphore(t *testing.T) {
	var n int
	sem := make(chan struct{}, 1)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			n++
			<-sem
		}()
	}
	wg.Wait()
	_ = n
}
