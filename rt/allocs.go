package rt

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
)

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
	if r, _ := current(); r != nil {
		r.differ(fmt.Sprintf("measured allocations with %s at %s, whose count under heddle holds heddle's own (each operation's scheduling and record) with the program's: heddle cannot check an allocation count", what, filepath.Base(callerSite())), true)
	}
}

// Differs records that heddle gave the program something other than what Go gives it, for a
// reason heddle cannot avoid: what says, as a clause after "the program", what happened,
// Differs adds where in the program's code, and why says what heddle did instead. A run in
// which the program's own checks then fail (a test failure, an assertion, a panic) ends as
// unsupported, with the first difference and the failure: heddle cannot tell a failure of the
// program from one its difference caused, and never reports its own as the program's bug. A
// run whose checks pass keeps its verdict.
//
//go:norace
func Differs(what, why string) {
	r, _ := current()
	if r == nil {
		return
	}
	site := programSite()
	if site != "" {
		what += " at " + site
	}
	r.differ(what+", "+why, site != "")
}

// differ records msg as the run's difference, unless it has one already; a difference
// without a place in the program gives way to the first one with it.
//
//go:norace
func (r *run) differ(msg string, sited bool) {
	if r.differs == "" || !r.differsSited && sited {
		r.differs, r.differsSited = msg, sited
	}
}

// programSite is the position of the first frame of the program's own code on the calling
// goroutine's stack: not heddle's, nor the standard library's.
//
//go:norace
func programSite() string {
	var buf [64]uintptr
	n := runtime.Callers(2, buf[:])
	frames := runtime.CallersFrames(buf[:n])
	for {
		f, more := frames.Next()
		if !internalFrame(f.Function) && !stdFunc(f.Function) && f.Function != "" {
			return filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}

// differed turns the verdict of a run in which the program's checks failed after heddle
// differed from Go into unsupported (Differs).
//
//go:norace
func (r *run) differed() {
	switch r.verdict.Kind {
	case VerdictFatal, VerdictAssert, VerdictPanic:
	default:
		return
	}
	if r.differs != "" {
		r.verdict = Verdict{Kind: VerdictUnsupported, Message: fmt.Sprintf("the test failed after it %s (the failure: %s)", r.differs, r.verdict.Message)}
	}
}
