// Package buffer has //heddle:atomic functions for the "check atomicity" lenses.
package buffer

import "sync"

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

// Append appends the contents of other.
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

//heddle:atomic
func Reset(b *Buffer) {
	b.mu.Lock()
	b.data = b.data[:0]
	b.mu.Unlock()
}

// Ring is a generic ring of values.
type Ring[T any] struct {
	mu   sync.Mutex
	vals []T
}

//heddle:atomic checked by every test that rotates
func (r Ring[T]) Rotate() {
	r.mu.Lock()
	defer r.mu.Unlock()
}

//heddle:atomic
func unused() {}

//heddle:atomic

// Detached has the directive in a comment that is not its doc comment: no lens.
func Detached() {}

// Misspelled has a directive of another name: no lens.
//
//heddle:atomically
func Misspelled() {}

// NotADirective says heddle:atomic in prose: no lens.
// //heddle:atomic
func NotADirective() {}
