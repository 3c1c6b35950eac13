package rt

import "runtime"

// AllocsPerRun is testing.AllocsPerRun, which the instrumenter rewrites into a call of
// AllocsPerRun: the average number of allocations of f over runs calls, after a warm-up call,
// measured as testing measures it. In a run the count includes heddle's own allocations, its
// scheduling and record of each operation of f, which no reading of the runtime's counters can
// tell from the program's; a test that then fails has failed on heddle's count, and the run
// says so (unsupported, not a bug of the program). A test that passes has passed on a count no
// smaller than Go's.
func AllocsPerRun(runs int, f func()) (avg float64) {
	if r, _ := current(); r != nil && r.allocsAt == "" {
		r.allocsAt = callerSite()
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	// Warm up the function.
	f()
	var memstats runtime.MemStats
	runtime.ReadMemStats(&memstats)
	mallocs := 0 - memstats.Mallocs
	for range runs {
		f()
	}
	runtime.ReadMemStats(&memstats)
	mallocs += memstats.Mallocs
	// Integer division, as testing's: the average rounds down.
	return float64(mallocs / uint64(runs))
}
