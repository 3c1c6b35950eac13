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
	measured("testing.AllocsPerRun")
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

// ReadMemStats is runtime.ReadMemStats, which the instrumenter rewrites into a call of
// ReadMemStats. A test that counts allocations itself, with MemStats.Mallocs around a call (as
// ttlcache's allocsPerSingleRun does), counts heddle's with the program's, as AllocsPerRun
// does: a test that fails after reading the counters is unsupported, not the program's bug.
func ReadMemStats(m *runtime.MemStats) {
	measured("runtime.ReadMemStats")
	runtime.ReadMemStats(m)
}

// measured records, once per run, that the program read the allocation counters with what,
// from its caller's caller.
func measured(what string) {
	if r, _ := current(); r != nil && r.allocsAt == "" {
		r.allocsAt, r.allocsWith = callerSite(), what
	}
}
