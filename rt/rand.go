package rt

import (
	mrand "math/rand"
	"math/rand/v2"
)

// The top-level functions of math/rand and math/rand/v2 draw from a source of the run, so that
// a schedule is the same program when replayed. The source is seeded at a run's first draw by
// a choice among randSeeds seeds (a decision of the schedule, as heddle.Choose makes): the
// schedule records it, replay makes the same choice, and an exhaustive exploration tries every
// seed, so that a bug that needs some random values as well as some interleaving is found.
// Goroutines draw in the order the schedule runs them, so every draw is determined too.
// Outside a run, and in goroutines heddle does not control, the functions are the standard
// ones.

// randSeeds is the number of seeds a run chooses from: a data choice multiplies the schedules
// after it, so it is small, but more than one, so that values do vary.
const randSeeds = 4

// randState is the source of the run numbered epoch. Only the running goroutine touches it,
// but goroutines take turns across hand-offs hidden from the race detector, so every access
// to it is hidden as well (runSource). The generators are made at initialization, before any
// goroutine of a run draws from them.
var randState struct {
	epoch uint64
	pcg   rand.PCG
	// val and pos are RandRead's bytes left over from the last draw, as math/rand.Read keeps.
	val uint64
	pos int
}

var (
	randV1 = mrand.New(runSource{})
	randV2 = rand.New(runSource{})
)

// runSource is the run's source, for both generators.
type runSource struct{}

//go:norace
func (runSource) Int63() int64 { return int64(runSource{}.Uint64() >> 1) }

//go:norace
func (runSource) Uint64() uint64 {
	raceHide()
	defer raceShow()
	return randState.pcg.Uint64()
}

//go:norace
func (runSource) Seed(seed int64) {
	raceHide()
	defer raceShow()
	randState.pcg.Seed(uint64(seed), randStream)
	randState.val, randState.pos = 0, 0
}

// randStream is the second word of every run's PCG state.
const randStream = 0x686564646c65 // "heddle"

// runRand seeds the current run's source at its first use and reports whether the caller is
// in a run.
//
//go:norace
func runRand() bool {
	r, _ := current()
	if r == nil {
		return false
	}
	if randState.epoch != r.epoch {
		seed := Choose(randSeeds)
		randState.epoch = r.epoch
		runSource{}.Seed(int64(seed))
	}
	return true
}

// stdSource64 is math/rand's global source, for calls outside a run.
type stdSource64 struct{}

//go:norace
func (stdSource64) Int63() int64 { return mrand.Int63() }

//go:norace
func (stdSource64) Uint64() uint64 { return mrand.Uint64() }

//go:norace
func (stdSource64) Seed(seed int64) { mrand.Seed(seed) }

// stdSource is math/rand/v2's global source, for calls outside a run.
type stdSource struct{}

//go:norace
func (stdSource) Uint64() uint64 { return rand.Uint64() }

var stdRand = rand.New(stdSource{})

// RandV1 returns the generator of math/rand's top-level functions for the caller.
//
//go:norace
func RandV1() *mrand.Rand {
	if runRand() {
		return randV1
	}
	// A Rand of its own: Read keeps state in the Rand, and callers may be concurrent.
	return mrand.New(stdSource64{})
}

// RandV2 returns the generator of math/rand/v2's top-level functions for the caller.
//
//go:norace
func RandV2() *rand.Rand {
	if runRand() {
		return randV2
	}
	return stdRand
}

// RandN is math/rand/v2.N, drawing from RandV2.
//
//go:norace
func RandN[Int ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](n Int) Int {
	if n <= 0 {
		panic("invalid argument to N")
	}
	return Int(RandV2().Uint64N(uint64(n)))
}

// RandRead is math/rand.Read. In a run it fills p from the run's source, keeping the bytes
// of a draw that p did not take for the next call, as math/rand does; the generator's state
// is hidden from the race detector, and p is not.
//
//go:norace
func RandRead(p []byte) (int, error) {
	if !runRand() {
		return mrand.New(stdSource64{}).Read(p)
	}
	for i := range p {
		p[i] = randByte()
	}
	return len(p), nil
}

//go:norace
func randByte() byte {
	raceHide()
	defer raceShow()
	if randState.pos == 0 {
		randState.val, randState.pos = randState.pcg.Uint64(), 8
	}
	b := byte(randState.val)
	randState.val >>= 8
	randState.pos--
	return b
}
