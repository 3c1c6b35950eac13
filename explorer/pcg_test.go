package explorer

import (
	"math/rand/v2"
	"testing"
)

// TestPCG checks that the guide's generator draws math/rand/v2's PCG numbers, so that a seed
// gives the schedules it gave before, and after a reseed too.
func TestPCG(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, 1<<63 + 5} {
		want := rand.NewPCG(seed, 0x5eed)
		var got pcg
		got.Seed(seed+1, 7)
		got.Uint64()
		got.Seed(seed, 0x5eed)
		for i := range 1000 {
			if g, w := got.Uint64(), want.Uint64(); g != w {
				t.Fatalf("seed %d, draw %d: %#x, want %#x", seed, i, g, w)
			}
		}
	}
}
