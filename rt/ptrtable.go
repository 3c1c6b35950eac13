package rt

import (
	"math/bits"
	"unsafe"
)

// A ptrTable maps pointers to values, as a map[unsafe.Pointer]V would, for heddle's state that
// the goroutines of a run look up in turn across hand-offs hidden from the race detector (the
// side table of the stand-ins of package sync, the registry of channels, the lockset check's
// variables, the atomics by address). A map's accesses are the runtime's,
// which the detector checks whoever calls them: each lookup from another goroutine was a race
// of heddle's own, suppressed only after the detector had rebuilt both stacks
// (RaceSuppressions). The table's loads and stores are in functions the detector does not
// instrument.
//
// It is an open-addressing table with linear probing and Fibonacci hashing, at most half
// full, whose deletion shifts the rest of a cluster back rather than leaving tombstones. The
// nil pointer is no key.
type ptrTable[V any] struct {
	keys  []unsafe.Pointer
	vals  []V
	n     int
	shift uint // 64 minus log2(len(keys))
}

//go:norace
func (t *ptrTable[V]) home(addr uintptr) int {
	return int((uint64(addr) * 0x9E3779B97F4A7C15) >> t.shift)
}

// slot returns where the key at addr is, or the empty slot where it would go.
//
//go:norace
func (t *ptrTable[V]) slot(addr uintptr) (int, bool) {
	mask := len(t.keys) - 1
	for i := t.home(addr); ; i = (i + 1) & mask {
		switch {
		case t.keys[i] == nil:
			return i, false
		case uintptr(t.keys[i]) == addr:
			return i, true
		}
	}
}

// get returns k's value, and whether k is in t.
//
//go:norace
func (t *ptrTable[V]) get(k unsafe.Pointer) (v V, ok bool) { return t.at(uintptr(k)) }

// at returns the value of the key at addr, and whether there is one.
//
//go:norace
func (t *ptrTable[V]) at(addr uintptr) (v V, ok bool) {
	if t.n == 0 {
		return v, false
	}
	if i, ok := t.slot(addr); ok {
		return t.vals[i], true
	}
	return v, false
}

// put sets k's value.
//
//go:norace
func (t *ptrTable[V]) put(k unsafe.Pointer, v V) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	i, ok := t.slot(uintptr(k))
	if !ok {
		t.keys[i] = k
		t.n++
	}
	t.vals[i] = v
}

// grow doubles the table, element by element: copy and append are the runtime's, which the
// race detector checks.
//
//go:norace
func (t *ptrTable[V]) grow() {
	keys, vals := t.keys, t.vals
	size := max(64, 2*len(keys))
	t.keys, t.vals, t.n = make([]unsafe.Pointer, size), make([]V, size), 0
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for i, k := range keys {
		if k != nil {
			j, _ := t.slot(uintptr(k))
			t.keys[j], t.vals[j] = k, vals[i]
			t.n++
		}
	}
}

// remove deletes k, and moves back each key after it in its cluster that may stand closer to
// its home slot, so that no lookup stops early at the hole.
//
//go:norace
func (t *ptrTable[V]) remove(k unsafe.Pointer) {
	if t.n == 0 {
		return
	}
	i, ok := t.slot(uintptr(k))
	if !ok {
		return
	}
	var zero V
	t.keys[i], t.vals[i] = nil, zero
	t.n--
	mask := len(t.keys) - 1
	for j := (i + 1) & mask; t.keys[j] != nil; j = (j + 1) & mask {
		h := t.home(uintptr(t.keys[j]))
		// The key at j stays if its home is cyclically in (i, j].
		if i <= j && i < h && h <= j || i > j && (h > i || h <= j) {
			continue
		}
		t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
		t.keys[j], t.vals[j] = nil, zero
		i = j
	}
}

// clear removes every key, keeping the storage.
//
//go:norace
func (t *ptrTable[V]) clear() {
	if t.n > 0 {
		clear(t.keys)
		clear(t.vals)
		t.n = 0
	}
}
