// Pattern: a method meant to be indivisible that copies another buffer's items under that
// buffer's lock, releases it, and appends the copy to its own items under its own lock: two
// opposite calls each copy the other's items before either appends, so each buffer gets the
// other's old contents, which no serial order of the two calls gives (one of them would see
// the items the other appended). The test has no assertion.
// Modeled on: merging two buffers, caches or sets whose methods call each other's locked
// getters (java.lang.StringBuffer.append(StringBuffer), and Go types with a locked Items()
// that a Merge method calls before locking its own receiver).
// Fix: AppendFromFixed holds both locks across the copy and the append, taken in the order
// of the buffers' ids so that two opposite calls cannot deadlock.
package splitappend

import (
	"slices"
	"sync"
	"testing"
)

type Buffer struct {
	id    int
	mu    sync.Mutex
	items []string
}

// AppendFrom appends b's items to a's.
//
//heddle:atomic
func (a *Buffer) AppendFrom(b *Buffer) {
	b.mu.Lock()
	items := slices.Clone(b.items)
	b.mu.Unlock() // BUG: b may change, and a may be read, before the append below
	a.mu.Lock()
	a.items = append(a.items, items...)
	a.mu.Unlock()
}

// AppendFromFixed appends b's items to a's.
//
//heddle:atomic
func (a *Buffer) AppendFromFixed(b *Buffer) {
	first, second := a, b
	if b.id < a.id {
		first, second = b, a
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	a.items = append(a.items, b.items...)
}

func run(appendFrom func(a, b *Buffer)) {
	a := &Buffer{id: 1, items: []string{"a1"}}
	b := &Buffer{id: 2, items: []string{"b1"}}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); appendFrom(a, b) }()
	go func() { defer wg.Done(); appendFrom(b, a) }()
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*Buffer).AppendFrom) }
func TestFixed(t *testing.T) { run((*Buffer).AppendFromFixed) }
