// Pattern: an "atomic" method made of two critical sections on its argument: append reads the
// other buffer's length under the other's lock, releases it, and copies that many bytes under
// the lock taken again; a concurrent SetLength in between shrinks the other buffer.
// Modeled on: java.lang.StringBuffer.append(StringBuffer), the example of Fig. 1(a) of Hatcliff,
// Robby and Dwyer, "Verifying atomicity specifications for concurrent object-oriented software
// using model-checking" (after Flanagan and Qadeer's atomicity type system), in Go: the same
// split shows up in Go types whose methods call each other's locked getters.
// Fix: AppendFixed holds the other buffer's lock across the read and the copy, taking the two
// locks in a fixed order (by id) so that two opposite appends cannot deadlock.
package sbappend

import (
	"fmt"
	"sync"
	"testing"
)

type Buffer struct {
	id int
	mu sync.Mutex
	s  []byte
}

// Len returns the length of b.
//
//heddle:atomic
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.s)
}

// chars appends b's first n bytes to dst, as StringBuffer.getChars, which throws
// StringIndexOutOfBoundsException past the buffer's length (a Go slice would silently reach
// into its capacity).
//
//heddle:atomic
func (b *Buffer) chars(n int, dst []byte) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > len(b.s) {
		panic(fmt.Sprintf("sbappend: chars(%d) of a %d-byte buffer", n, len(b.s)))
	}
	return append(dst, b.s[:n]...)
}

// SetLength truncates b to n bytes.
//
//heddle:atomic
func (b *Buffer) SetLength(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s = b.s[:n]
}

// Append appends other's contents to b.
//
//heddle:atomic
func (b *Buffer) Append(other *Buffer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := other.Len()          // BUG: other's lock is released here...
	b.s = other.chars(n, b.s) // ...and taken again here: SetLength may run in between
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

func run(t *testing.T, appendTo func(b, other *Buffer)) {
	a := &Buffer{id: 1, s: []byte("log: ")}
	b := &Buffer{id: 2, s: []byte("request done")}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); appendTo(a, b) }()
	go func() { defer wg.Done(); b.SetLength(0) }() // the request buffer is reset for reuse
	wg.Wait()
	if got := a.Len(); got != 5 && got != 17 {
		t.Errorf("a has %d bytes, want 5 or 17", got)
	}
}

func TestBug(t *testing.T)   { run(t, (*Buffer).Append) }
func TestFixed(t *testing.T) { run(t, (*Buffer).AppendFixed) }
