// Package race holds data races that go test -race reports in one run, in a module whose path
// has no dot, with their twins that have none.
package race

import (
	"sync"
	"testing"
)

func TestBugCounter(t *testing.T) {
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

func TestCounter(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 2 {
		t.Errorf("n = %d, want 2", n)
	}
}

type stats struct {
	hits int
}

func (s *stats) hit() { s.hits++ }

func TestBugField(t *testing.T) {
	s := &stats{}
	done := make(chan bool)
	go func() {
		s.hit()
		done <- true
	}()
	s.hit()
	<-done
}

func TestField(t *testing.T) {
	s := &stats{}
	done := make(chan bool)
	go func() {
		s.hit()
		done <- true
	}()
	<-done
	s.hit()
}

func TestBugFunc(t *testing.T) {
	f := func() int { return 1 }
	done := make(chan bool)
	go func() {
		f = func() int { return 2 }
		done <- true
	}()
	_ = f()
	<-done
}

func TestFunc(t *testing.T) {
	f := func() int { return 1 }
	done := make(chan bool)
	go func() {
		f = func() int { return 2 }
		done <- true
	}()
	<-done
	if f() != 2 {
		t.Error("f() != 2")
	}
}
