package buffer

import (
	"sync"
	"testing"
)

func TestAppend(t *testing.T) {
	a, b := &Buffer{data: []byte("ab")}, &Buffer{}
	var wg sync.WaitGroup
	wg.Go(func() { b.Append(a) })
	wg.Go(func() { Reset(a) })
	wg.Wait()
}

// TestLen reaches Len through a helper.
func TestLen(t *testing.T) {
	if size(&Buffer{}) != 0 {
		t.Fatal("not empty")
	}
}

func size(b *Buffer) int { return b.Len() }

func TestRing(t *testing.T) {
	var c counter
	c.inc()
	Ring[int]{}.Rotate()
}

type counter struct {
	mu sync.Mutex
	n  int
}

// inc is a helper of the tests, annotated too.
//
//heddle:atomic
func (c *counter) inc() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func TestNone(t *testing.T) {}
