package rt

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestPtrTable runs random puts, gets, removes and clears on a ptrTable and on a map side by
// side: the table must answer as the map does, through its growth and the clusters its
// removals shift back.
func TestPtrTable(t *testing.T) {
	// Thirty keys in a table of 64 slots wrap clusters around its end often; 300 make it grow.
	for _, n := range []int{30, 300} {
		testPtrTable(t, n)
	}
}

func testPtrTable(t *testing.T, n int) {
	keys := make([]unsafe.Pointer, n)
	for i := range keys {
		keys[i] = unsafe.Pointer(new(int))
	}
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	var tab ptrTable[*chanState]
	want := map[unsafe.Pointer]*chanState{}
	for step := range 200_000 {
		k := keys[rng.IntN(len(keys))]
		switch rng.IntN(3) {
		case 0:
			st := new(chanState)
			tab.put(k, st)
			want[k] = st
		case 1:
			tab.remove(k)
			delete(want, k)
		}
		if step%10_000 == 9_999 {
			tab.clear()
			clear(want)
		}
		if got, ok := tab.get(k); got != want[k] || ok != (want[k] != nil) {
			t.Fatalf("%d keys, step %d: get = %p, want %p", n, step, got, want[k])
		}
		if tab.n != len(want) {
			t.Fatalf("%d keys, step %d: %d in the table, want %d", n, step, tab.n, len(want))
		}
	}
	for _, k := range keys {
		if got, _ := tab.get(k); got != want[k] {
			t.Fatalf("at the end: get(%p) = %p, want %p", k, got, want[k])
		}
	}
}
