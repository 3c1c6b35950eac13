package rt

import (
	"sync"
	"sync/atomic"
	"time"
)

// The hang watchdog checks the run in progress from a goroutine of its own that sleeps in the
// operating system rather than on a Go timer: while a Go timer is set, the Go scheduler reads
// the clock at every goroutine switch, and a run switches goroutines at most of its steps.

var watch struct {
	mu      sync.Mutex
	started bool
	r       *run          // the run the driver waits for
	ch      chan struct{} // what it waits on
	hung    bool          // the watchdog gave up on r
	outside string        // why: a goroutine waits outside heddle (blockedOutside), or ""
}

// await receives from ch, one of r's signals, unless r's goroutines make no step for
// cfg.Hang first, or the running goroutine waits in uninstrumented code for outsideAfter: it
// then reports that they hung, and where the goroutine waits in the second case.
//
//go:norace
func (r *run) await(ch chan struct{}) (hung bool, outside string) {
	watch.mu.Lock()
	if !watch.started {
		watch.started = true
		go watchdog()
	}
	watch.r, watch.ch, watch.hung, watch.outside = r, ch, false, ""
	watch.mu.Unlock()
	awaited.Add(1)
	<-ch
	watch.mu.Lock()
	hung, outside = watch.hung, watch.outside
	watch.r, watch.ch = nil, nil
	watch.mu.Unlock()
	return hung, outside
}

// giveUp wakes the driver of the run watched, saying that it hung, and why. watch.mu is held.
//
//go:norace
func giveUp(outside string) {
	select {
	case watch.ch <- struct{}{}:
		watch.hung, watch.outside = true, outside
	default: // the signal has just come
	}
	watch.r = nil
}

// watchdog wakes the driver of a run whose step counter has not moved for cfg.Hang while its
// running goroutine executed no instrumented code either: a goroutine of the run has not
// reached a scheduling point, nor accessed memory, or has not exited during teardown, for that
// long. A goroutine that keeps executing instrumented code computes, and is given
// computeLimit times as long before the run is given up: a loop that never reaches a
// scheduling point would otherwise run forever, as it does under go test until its -timeout.
//
//go:norace
func watchdog() {
	var w watcher
	period := time.Second
	for {
		sleepOS(period)
		watch.mu.Lock()
		r := watch.r
		switch w.check(r, time.Now()) {
		case giveUpHang:
			giveUp(r.atLimit())
		case giveUpCompute:
			r.computed = computeLimit * r.cfg.Hang
			giveUp(r.atLimit())
		case giveUpOutside:
			// Read while the run may go on: a stale answer only delays the verdict.
			if where := r.blockedOutside(); where != "" {
				giveUp(where)
				w.last = nil
			}
		}
		period = time.Second
		if r != nil {
			period = max(min(period, r.cfg.Hang/4), 10*time.Millisecond)
		}
		watch.mu.Unlock()
	}
}

// A watcher is what the watchdog knows of the run it watches: what it saw at its last look,
// and since when nothing changed.
type watcher struct {
	last             *run
	steps            int64
	busy, waits      uint64
	since, stepSince time.Time
}

// The watchdog's findings, from watcher.check.
const (
	giveUpNot     = iota
	giveUpHang    // no step and no instrumented code for the hang limit
	giveUpCompute // instrumented code without a step for computeLimit hang limits
	giveUpOutside // no step for the outside limit: look for a wait outside heddle
)

// check looks at run r (nil between runs) at now. A run is new to it when it is another run,
// or the same storage reused (Run keeps a spare) since the driver waited again (awaited): a
// run that made as many steps as the last one seen must not inherit its time.
//
//go:norace
func (w *watcher) check(r *run, now time.Time) int {
	switch {
	case r == nil:
		w.last = nil
	case r != w.last || r.progress.Load() != w.steps || awaited.Load() != w.waits:
		w.last, w.steps, w.busy, w.waits = r, r.progress.Load(), r.activity.Load(), awaited.Load()
		w.since, w.stepSince = now, now
	case now.Sub(w.stepSince) >= computeLimit*r.cfg.Hang:
		w.last = nil
		return giveUpCompute
	case r.activity.Load() != w.busy:
		w.busy, w.since = r.activity.Load(), now
	case now.Sub(w.since) >= r.cfg.Hang:
		w.last = nil
		return giveUpHang
	case watch.ch == r.done && now.Sub(w.since) >= r.outsideLimit():
		return giveUpOutside
	}
	return giveUpNot
}

// computeLimit is how many hang limits a goroutine may execute instrumented code without
// reaching a scheduling point.
const computeLimit = 10

// awaited counts the waits of runs' drivers: a new run, or a run's next phase, is progress.
var awaited atomic.Uint64

// analysed counts the signs of heddle's own work on runs that ended (Analysing).
var analysed atomic.Uint64

// Analysing tells Activity that heddle is analysing a run that ended: DPOR's race analysis or
// the lock trees of a run of millions of steps take seconds, tens on a loaded machine, during
// which no run makes progress and the process is not stuck.
func Analysing() { analysed.Add(1) }

// Activity returns a number that changes while the process's runs make progress: a step, a
// memory access the watchdog heard of, a new run, heddle's analysis of a run. It is the same
// while a run hangs, and while the process waits outside any run.
//
//go:norace
func Activity() uint64 {
	watch.mu.Lock()
	defer watch.mu.Unlock()
	a := awaited.Load()<<40 + analysed.Load()<<20
	if r := watch.r; r != nil {
		a += uint64(r.progress.Load()) + r.activity.Load()
	}
	return a
}

// Heartbeat calls beat every period, from a goroutine that sleeps in the operating system as
// the watchdog does, whenever Activity changed since the last call: a worker tells its
// controller so that a run that takes long, but makes progress, is not taken for a stuck
// process.
//
//go:norace
func Heartbeat(period time.Duration, beat func()) {
	go func() {
		last := Activity()
		for {
			sleepOS(period)
			if a := Activity(); a != last {
				last = a
				beat()
			}
		}
	}()
}
