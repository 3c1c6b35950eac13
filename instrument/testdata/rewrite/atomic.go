package p

import "sync"

type Buffer struct {
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

type Pair[K comparable] struct{ k K }

//heddle:atomic
func (p Pair[K]) Key() K { return p.k }

//heddle:atomic
func Reset(b *Buffer) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.s = nil
	b.mu.Unlock()
}

// heddle:atomic is not the directive.
func Plain() {}

// Like Go's directives, the directive may carry text after a space.
//
//heddle:atomic callers rely on it
func Noted() {}

//heddle:atomically is another word.
func Other() {}
