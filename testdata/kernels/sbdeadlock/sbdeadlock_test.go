// Pattern: an "atomic" method that locks its receiver, then its argument: two goroutines that
// append two buffers to each other take the locks in opposite orders and deadlock inside it.
// Modeled on: Fig. 1(b) of Hatcliff, Robby and Dwyer, "Verifying atomicity specifications for
// concurrent object-oriented software using model-checking": the StringBuffer.append that
// synchronizes on its argument, which a type system verifies as atomic although it can
// deadlock (Lipton's condition R1: an atomic region must be able to end).
// Fix: AppendFixed takes the two locks in a fixed order (by id).
package sbdeadlock

import (
	"sync"
	"testing"
)

type Buffer struct {
	id int
	mu sync.Mutex
	s  []byte
}

// Append appends other's contents to b.
//
//heddle:atomic
func (b *Buffer) Append(other *Buffer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	other.mu.Lock() // BUG: b.Append(a) locks in the other order
	defer other.mu.Unlock()
	b.s = append(b.s, other.s...)
}

// AppendFixed appends other's contents to b under both locks, taken in the order of the ids.
//
//heddle:atomic
func (b *Buffer) AppendFixed(other *Buffer) {
	first, second := b, other
	if other.id < b.id {
		first, second = other, b
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	b.s = append(b.s, other.s...)
}

func run(appendTo func(b, other *Buffer)) {
	a := &Buffer{id: 1, s: []byte("a")}
	b := &Buffer{id: 2, s: []byte("b")}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); appendTo(a, b) }()
	go func() { defer wg.Done(); appendTo(b, a) }()
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*Buffer).Append) }
func TestFixed(t *testing.T) { run((*Buffer).AppendFixed) }
