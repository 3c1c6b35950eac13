package rt

import (
	"sync"
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
}

// await receives from ch, one of r's signals, unless r's goroutines make no step for
// cfg.Hang first: it then reports that they hung.
func (r *run) await(ch chan struct{}) (hung bool) {
	watch.mu.Lock()
	if !watch.started {
		watch.started = true
		go watchdog()
	}
	watch.r, watch.ch, watch.hung = r, ch, false
	watch.mu.Unlock()
	<-ch
	watch.mu.Lock()
	hung = watch.hung
	watch.r, watch.ch = nil, nil
	watch.mu.Unlock()
	return hung
}

// watchdog wakes the driver of a run whose step counter has not moved for cfg.Hang: a
// goroutine of the run has not reached a scheduling point, or has not exited during teardown,
// for that long.
func watchdog() {
	var (
		last  *run
		steps int64
		since time.Time
	)
	period := time.Second
	for {
		sleepOS(period)
		watch.mu.Lock()
		r := watch.r
		period = time.Second
		switch {
		case r == nil:
			last = nil
		case r != last || r.progress.Load() != steps:
			last, steps, since = r, r.progress.Load(), time.Now()
		case time.Since(since) >= r.cfg.Hang:
			select {
			case watch.ch <- struct{}{}:
				watch.hung = true
			default: // the signal has just come
			}
			watch.r, last = nil, nil
		}
		if r != nil {
			period = max(min(period, r.cfg.Hang/4), 10*time.Millisecond)
		}
		watch.mu.Unlock()
	}
}
