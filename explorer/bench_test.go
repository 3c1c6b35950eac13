package explorer_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// small is the "small test" of the speed targets: two goroutines updating a counter under a
// mutex, joined by a WaitGroup.
func small() {
	var mu rt.Mutex
	var wg rt.WaitGroup
	n := 0
	for i := 0; i < 2; i++ {
		wg.Add(1)
		rt.Go(func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		})
	}
	wg.Wait()
}

// smallPlain is the same body on the real runtime.
func smallPlain() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
}

// BenchmarkSchedules measures schedules per second in process: b.N runs of the small test
// under random scheduling, on one core.
func BenchmarkSchedules(b *testing.B) { randomRuns(b, small) }

// randomRuns explores body for b.N runs under random scheduling, on one core, and reports
// the schedules per second.
func randomRuns(b *testing.B, body func()) *explorer.Report {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b.ReportAllocs()
	b.ResetTimer()
	rep := explorer.Explore(body, explorer.Options{Strategy: "random", MaxRuns: b.N})
	b.ReportMetric(float64(rep.Stats.Runs)/b.Elapsed().Seconds(), "schedules/s")
	return rep
}

// BenchmarkUninstrumented runs the same body on Go's own scheduler, for the overhead ratio.
func BenchmarkUninstrumented(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b.ReportAllocs()
	for b.Loop() {
		smallPlain()
	}
}

// parkedSelects has fifty goroutines parked in a select while fifty others take a lock in
// turn, as yamux's TestManyStreams parks its streams' readers: every decision offers the
// lockers, and none of them completes a select.
func parkedSelects() {
	done := rt.MakeChan[struct{}](0)
	var mu rt.Mutex
	var parked, lockers rt.WaitGroup
	for range 50 {
		own := rt.MakeChan[int](0)
		parked.Add(1)
		rt.Go(func() {
			defer parked.Done()
			rt.Select(false, rt.RecvCase(own), rt.RecvCase(done))
		})
	}
	for range 50 {
		lockers.Add(1)
		rt.Go(func() {
			defer lockers.Done()
			for range 4 {
				mu.Lock()
				mu.Unlock()
			}
		})
	}
	lockers.Wait()
	rt.Close(done)
	parked.Wait()
}

// BenchmarkParkedSelects measures the steps of a run with many selects parked (parkedSelects).
func BenchmarkParkedSelects(b *testing.B) {
	rep := randomRuns(b, parkedSelects)
	b.ReportMetric(float64(rep.Stats.Steps)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkDPOR measures a complete DPOR exploration of the small test.
func BenchmarkDPOR(b *testing.B) {
	for b.Loop() {
		explorer.Explore(small, explorer.Options{})
	}
}

// TestMemoryFlat runs the small test many times in one process and checks that the heap does
// not grow with the number of runs: every run's goroutines are torn down and its objects
// collected. HEDDLE_MEMRUNS sets the number of runs (default 100,000; the benchmark figure in
// BENCHMARKS.md uses 1,000,000).
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	runs := 100_000
	if s := os.Getenv("HEDDLE_MEMRUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	explorer.Explore(small, explorer.Options{Strategy: "random", MaxRuns: runs / 10})
	before, g0 := heap(), runtime.NumGoroutine()
	explorer.Explore(small, explorer.Options{Strategy: "random", MaxRuns: runs})
	after, g1 := heap(), runtime.NumGoroutine()
	t.Logf("%d runs: heap in use %d KiB before, %d KiB after; goroutines %d before, %d after", runs, before>>10, after>>10, g0, g1)
	if after > before+4<<20 {
		t.Errorf("heap grew by %d KiB over %d runs", (after-before)>>10, runs)
	}
	if g1 > g0 {
		t.Errorf("%d goroutines left behind", g1-g0)
	}
}

var _ = rt.Run

// lockLoop is the scaling test: two goroutines each lock and unlock one mutex n times.
func lockLoop(n int) func() { return lockLoops(2, n) }

// lockLoops is lockLoop with g goroutines.
func lockLoops(g, n int) func() {
	return func() {
		var mu rt.Mutex // one per run
		loops(g, n, func() { mu.Lock(); mu.Unlock() })()
	}
}

// sleepLoops is g goroutines that each sleep n times: most of them are asleep at any time, so a
// decision offers few of them.
func sleepLoops(g, n int) func() { return loops(g, n, func() { rt.Sleep(time.Millisecond) }) }

// loops is g goroutines that each do step n times, joined by a WaitGroup.
func loops(g, n int, step func()) func() {
	return func() {
		var wg rt.WaitGroup
		for range g {
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				for range n {
					step()
				}
			})
		}
		wg.Wait()
	}
}

// BenchmarkDPORScaling measures the time per step of the lock loop as its length grows, for
// DPOR and for random scheduling, interleaved within each iteration so that both see the same
// machine. Each exploration makes three runs; the time is measured from the end of the first
// run to the end of the third, so it includes a run's race analysis but not the detailed
// replays at the end of an exploration. cpu-ns/step is the process's CPU time (all threads,
// garbage collection included), which a loaded machine disturbs less than the wall clock.
func BenchmarkDPORScaling(b *testing.B) {
	// The process's first explorations start carriers and grow the heap: not part of a run.
	for _, s := range []explorer.Strategy{"dpor", "random"} {
		explorer.Explore(lockLoop(1000), explorer.Options{Strategy: s, MaxRuns: 3})
	}
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			strategies := []explorer.Strategy{"dpor", "random"}
			wall := make([]time.Duration, len(strategies))
			cpu := make([]time.Duration, len(strategies))
			runs := 0
			for b.Loop() {
				for i, s := range strategies {
					var w0, w1, c0, c1 time.Duration
					seen := 0
					explorer.Explore(lockLoop(n), explorer.Options{
						Strategy: s, MaxRuns: 3, MaxSteps: 10 * n,
						Progress: func(st *record.Stats) {
							// Progress also reports the end of the exploration, after the
							// replays in detail mode, which are not runs of the search.
							if st.Runs == seen {
								return
							}
							seen = st.Runs
							if st.Runs == 1 {
								w0, c0 = st.Elapsed, cpuTime()
							}
							w1, c1 = st.Elapsed, cpuTime()
						},
					})
					wall[i] += w1 - w0
					cpu[i] += c1 - c0
				}
				runs += 2
			}
			steps := float64(runs * 2 * n) // each run: n Lock steps per goroutine
			for i, s := range strategies {
				b.ReportMetric(float64(wall[i].Nanoseconds())/steps, s.String()+"-ns/step")
				b.ReportMetric(float64(cpu[i].Nanoseconds())/steps, s.String()+"-cpu-ns/step")
			}
			b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "cpu-ratio")
		})
	}
}

// counters is the small test with its plain accesses reported, as instrumented code reports
// them: two goroutines that read a shared counter under the mutex and update it, then a read
// after the WaitGroup.
func counters() {
	var mu rt.Mutex
	var wg rt.WaitGroup
	n := 0
	for i := 0; i < 2; i++ {
		wg.Add(1)
		rt.Go(func() {
			defer wg.Done()
			mu.Lock()
			if *rt.Load(&n, "c.go:1:1") >= 0 {
				n += rt.Update(&n, 1, "c.go:2:1")
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	_ = *rt.Load(&n, "c.go:3:1")
}

// BenchmarkAccesses measures the cost of the lockset check: schedules per second of the same
// accesses with the check on and off (rt.Config.IgnoreAccesses), in one run.
func BenchmarkAccesses(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	rt.UseAccesses()
	for _, tc := range []struct {
		name   string
		ignore bool
	}{{"on", false}, {"off", true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			rep := explorer.Explore(counters, explorer.Options{Strategy: "random", MaxRuns: b.N, IgnoreAccesses: tc.ignore})
			b.ReportMetric(float64(rep.Stats.Runs)/b.Elapsed().Seconds(), "schedules/s")
			if !tc.ignore && len(rep.Warnings) > 0 {
				b.Fatalf("warnings on a locked counter: %s", rep.Warnings[0].Message)
			}
		})
	}
}

// BenchmarkRunCost measures how the cost of a run grows with its steps (two goroutines, 1,000
// to 1,000,000 steps) and with its goroutines (2 to 1,000 that contend for one mutex, about
// 20,000 steps in all; and 10 to 10,000 that sleep, most of them asleep at any time), for
// random scheduling and the default portfolio. Each exploration makes three runs; the time is
// taken from the end of the first run to the end of the third, as in BenchmarkDPORScaling.
func BenchmarkRunCost(b *testing.B) {
	for _, s := range []explorer.Strategy{explorer.Portfolio, explorer.Random} {
		explorer.Explore(lockLoop(1000), explorer.Options{Strategy: s, MaxRuns: 3})
	}
	type size struct {
		g, n  int
		body  func(g, n int) func()
		label string
	}
	var sizes []size
	for _, n := range []int{500, 5_000, 50_000, 500_000} {
		sizes = append(sizes, size{2, n, lockLoops, "goroutines"})
	}
	for _, g := range []int{10, 100, 1_000} {
		sizes = append(sizes, size{g, 20_000 / g, lockLoops, "goroutines"})
	}
	for _, g := range []int{10, 100, 1_000, 10_000} {
		sizes = append(sizes, size{g, max(1, 10_000/g), sleepLoops, "sleepers"})
	}
	for _, sz := range sizes {
		b.Run(fmt.Sprintf("%s=%d/steps=%d", sz.label, sz.g, sz.g*sz.n), func(b *testing.B) {
			strategies := []explorer.Strategy{explorer.Portfolio, explorer.Random}
			cpu := make([]time.Duration, len(strategies))
			runs := 0
			for b.Loop() {
				for i, s := range strategies {
					var c0, c1 time.Duration
					seen := 0
					explorer.Explore(sz.body(sz.g, sz.n), explorer.Options{
						Strategy: s, MaxRuns: 3, MaxSteps: 10 * sz.g * sz.n,
						Progress: func(st *record.Stats) {
							if st.Runs == seen {
								return
							}
							seen = st.Runs
							if st.Runs == 1 {
								c0 = cpuTime()
							}
							c1 = cpuTime()
						},
					})
					cpu[i] += c1 - c0
				}
				runs += 2
			}
			steps := float64(runs * sz.g * sz.n)
			for i, s := range strategies {
				b.ReportMetric(float64(cpu[i].Nanoseconds())/steps, s.String()+"-cpu-ns/step")
			}
		})
	}
}
