package rt

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// A program may read the real clock outside any run, in a package's initialization or in
// TestMain, and compare what it read with the virtual clock's readings in a run: puddle keeps
// `var globalStart = time.Now()` and measures every later reading as time.Since(globalStart).
// Go subtracts two readings by their monotonic clock when both have one, as real ones do. So
// the virtual clock's instants carry a monotonic reading too: the run's start is at least a
// second after every real reading the program took outside a run (rounded up to a whole
// second, so that the readings a run prints are the same from one process to the next), and
// its readings run on from there with the virtual clock. Their wall clock stays the virtual
// one (clockBase on), so that replays print the same dates. Without it, a time read at init
// in 2026 and one read in a run in 2025 are a year apart the wrong way round, and puddle's
// resources were last used at a negative time.

// outsideMono is the largest monotonic reading of the real clock that the program took
// outside any run.
var outsideMono atomic.Int64

// outside notes a reading of the real clock taken outside any run and returns it.
func outside(t time.Time) time.Time {
	if m, ok := monoOf(t); ok {
		for {
			old := outsideMono.Load()
			if m <= old || outsideMono.CompareAndSwap(old, m) {
				break
			}
		}
	}
	return t
}

// monoBase is the monotonic reading of a run's start: the next whole second after every
// reading taken outside a run, and never less than a second.
func monoBase() int64 {
	const s = int64(time.Second)
	return (outsideMono.Load()/s + 1) * s
}

// instant is the virtual time: the wall clock from clockBase, the monotonic from the run's
// start.
//
//go:norace
func (c *clock) instant() time.Time {
	d := c.now + c.read
	return withMono(clockBase.Add(time.Duration(d)), c.mono+d)
}

// timeLayout is time.Time's representation (time/time.go): with hasMonotonic set in wall,
// wall holds the seconds since 1885 and the nanoseconds, and ext the monotonic reading;
// without it, ext holds the seconds since year 1. TestMonotonic checks it against Go's.
type timeLayout struct {
	wall uint64
	ext  int64
	loc  *time.Location
}

const (
	hasMonotonic = 1 << 63
	nsecMask     = 1<<30 - 1
	nsecShift    = 30
	// wallToInternal is the seconds from year 1 to 1885, where a monotonic Time's wall starts.
	wallToInternal int64 = (1884*365 + 1884/4 - 1884/100 + 1884/400) * 86400
)

// monoOf returns t's monotonic reading, if it has one.
func monoOf(t time.Time) (int64, bool) {
	p := (*timeLayout)(unsafe.Pointer(&t))
	return p.ext, p.wall&hasMonotonic != 0
}

// withMono returns t, which has no monotonic reading, with mono as its reading. A t outside
// the years a monotonic Time can hold (1885 to 2157) is returned as it is.
func withMono(t time.Time, mono int64) time.Time {
	p := (*timeLayout)(unsafe.Pointer(&t))
	sec := p.ext - wallToInternal
	if p.wall&hasMonotonic != 0 || sec < 0 || sec >= 1<<33 {
		return t
	}
	p.wall = hasMonotonic | uint64(sec)<<nsecShift | p.wall&nsecMask
	p.ext = mono
	return t
}
