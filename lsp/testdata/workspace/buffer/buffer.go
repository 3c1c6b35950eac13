// Package buffer is the StringBuffer of Bogor's Fig. 1 with //heddle:atomic methods: the
// result files under dot-heddle/example.com/buffer point at its lines.
package buffer

import "sync"

// Buffer is a string buffer whose methods each lock it.
type Buffer struct {
	mu   sync.Mutex
	data []byte
}

// Len returns the length of the buffer.
//
//heddle:atomic
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.data)
}

// Append appends the contents of other, reading its length and then its bytes under two
// separate locks: another goroutine may change other in between.
//
//heddle:atomic
func (b *Buffer) Append(other *Buffer) {
	n := other.Len()
	other.mu.Lock()
	chars := append([]byte(nil), other.data[:n]...)
	other.mu.Unlock()
	b.mu.Lock()
	b.data = append(b.data, chars...)
	b.mu.Unlock()
}

// Reset empties the buffer.
//
//heddle:atomic
func (b *Buffer) Reset() {
	b.mu.Lock()
	b.data = b.data[:0]
	b.mu.Unlock()
}

// Count counts the bytes appended by the exploration tests; nothing marks it atomic.
func Count(b *Buffer) int { return b.Len() }
