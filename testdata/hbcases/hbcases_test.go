// Package hbcases holds the races that go test -race reports in one run and their correct
// twins, in a module whose path has no dot.
package hbcases

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestRaceCounter: two goroutines increment a captured counter, joined by a WaitGroup.
func TestRaceCounter(t *testing.T) {
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n++
		}()
	}
	wg.Wait()
	_ = n
}

type hits struct {
	mu    sync.RWMutex
	count int
	total atomic.Int64
}

// TestRaceField: two goroutines increment a field of a shared struct.
func TestRaceField(t *testing.T) {
	var h hits
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.count++
		}()
	}
	wg.Wait()
}

// TestRaceFuncValue: one goroutine replaces a func value that another calls.
func TestRaceFuncValue(t *testing.T) {
	hook := func() int { return 1 }
	done := make(chan int)
	go func() { done <- hook() }()
	hook = func() int { return 2 }
	<-done
}

// TestRaceRLockWrite: two readers of an RWMutex each write the counter it guards. Read locks
// do not exclude each other, so the writes race.
func TestRaceRLockWrite(t *testing.T) {
	var h hits
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.mu.RLock()
			h.count++
			h.mu.RUnlock()
		}()
	}
	wg.Wait()
}

type stats struct{ writes, reads uint64 }

// TestRaceAtomicPlainRead: one goroutine adds atomically to a field of a struct that another
// copies with plain reads.
func TestRaceAtomicPlainRead(t *testing.T) {
	var s stats
	done := make(chan stats)
	go func() { done <- s }()
	atomic.AddUint64(&s.writes, 1)
	<-done
}

// TestNoRaceLock is TestRaceRLockWrite's twin: the writers take the write lock.
func TestNoRaceLock(t *testing.T) {
	var h hits
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.mu.Lock()
			h.count++
			h.mu.Unlock()
		}()
	}
	wg.Wait()
	if h.count != 2 {
		t.Errorf("count = %d, want 2", h.count)
	}
}

// TestNoRaceAtomicRLock: readers of an RWMutex update an atomic counter, which needs no
// exclusion; the reads after Wait are ordered by it.
func TestNoRaceAtomicRLock(t *testing.T) {
	var h hits
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.mu.RLock()
			h.total.Add(1)
			h.mu.RUnlock()
		}()
	}
	wg.Wait()
	if got := h.total.Load(); got != 2 {
		t.Errorf("total = %d, want 2", got)
	}
}

// TestNoRaceSemaphore: a buffered channel of capacity one used as a semaphore orders the
// increments: each goroutine's release happens before the next one's acquire completes.
func TestNoRaceSemaphore(t *testing.T) {
	n := 0
	sem := make(chan struct{}, 1)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			n++
			<-sem
		}()
	}
	wg.Wait()
	if n != 3 {
		t.Errorf("n = %d, want 3", n)
	}
}
