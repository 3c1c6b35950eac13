package explorer

import "math/bits"

// pcg is math/rand/v2's PCG (the same numbers from the same seed), with its state out of the
// race detector's sight. The guide draws from it at scheduling decisions, on whichever
// goroutine of the program is at one, across hand-offs that heddle hides from the detector; the
// detector would take every draw for a race with the previous one, and checking and
// suppressing those reports costs more than the run in programs of many goroutines.
type pcg struct{ hi, lo uint64 }

//go:norace
func (p *pcg) Seed(seed1, seed2 uint64) { p.hi, p.lo = seed1, seed2 }

// Uint64 is rand.PCG's: a 128-bit LCG step, then DXSM.
//
//go:norace
func (p *pcg) Uint64() uint64 {
	const (
		mulHi    = 2549297995355413924
		mulLo    = 4865540595714422341
		incHi    = 6364136223846793005
		incLo    = 1442695040888963407
		cheapMul = 0xda942042e4dd58b5
	)
	hi, lo := bits.Mul64(p.lo, mulLo)
	hi += p.hi*mulLo + p.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	p.lo, p.hi = lo, hi
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	hi *= lo | 1
	return hi
}
