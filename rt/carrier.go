package rt

import "sync"

// A carrier is the real goroutine under a controlled one. When a controlled goroutine returns,
// its carrier waits in a pool for the next go statement of this run or a later one instead of
// ending: heddle's scheduler runs on the stacks of the program's goroutines, and a fresh
// goroutine would grow its stack to fit it again in every run. A goroutine that exits
// (runtime.Goexit, or teardown of a goroutine the run left blocked) takes its carrier with it.
type carrier struct {
	wake parker
	// Its runtime descriptor (getg) and id in stack traces, for the goroutines it carries.
	gp   uintptr
	goid int64
	// The goroutine to start at the first wake, set by the go statement.
	r *run
	g *goroutine
	f func()
}

// carriers holds the carriers waiting for a goroutine. Carriers return to it concurrently with
// the run that goes on, so it has a lock.
var carriers struct {
	sync.Mutex
	cs []*carrier
}

// maxIdle bounds the idle carriers, so that a run with many goroutines does not leave them
// all behind.
const maxIdle = 128

//go:norace
func takeCarrier() *carrier {
	if raceEnabled {
		// Carriers are not reused under the race detector (see carry), and the pool's lock
		// would order the go statements.
		return newCarrier()
	}
	carriers.Lock()
	if n := len(carriers.cs); n > 0 {
		c := carriers.cs[n-1]
		carriers.cs[n-1] = nil
		carriers.cs = carriers.cs[:n-1]
		carriers.Unlock()
		return c
	}
	carriers.Unlock()
	return newCarrier()
}

// newCarrier starts a carrier. It is called by the go statement, so the race detector orders
// the parent's past before the child.
//
//go:norace
func newCarrier() *carrier {
	c := new(carrier)
	c.wake.init()
	go c.loop()
	return c
}

//go:norace
func (c *carrier) loop() {
	c.gp, c.goid = getg(), goid()
	for c.carry() {
	}
}

// carry runs the goroutine that the first wake starts, and reports whether c went back to the
// pool. It does so before its goroutine is counted out of the run, so that once a run is torn
// down, its carriers are in the pool, and a later go statement of the same run can take it
// while it finishes.
//
//go:norace
func (c *carrier) carry() bool {
	raceHide()
	c.wake.park()
	raceShow()
	r, g, f := c.r, c.g, c.f
	c.r, c.g, c.f = nil, nil, nil
	raceWoken(g)
	defer r.retire()
	g.gp, g.goid, g.start = c.gp, c.goid, nil
	r.body(g, f)
	if raceEnabled {
		// A carrier that carried on would order the goroutines it carries for the race
		// detector, which sees it as one goroutine.
		return false
	}
	carriers.Lock()
	defer carriers.Unlock()
	if len(carriers.cs) >= maxIdle {
		return false
	}
	carriers.cs = append(carriers.cs, c)
	return true
}

// ownGoroutines is the number of goroutines that heddle keeps between runs: the idle carriers
// and the watchdog.
//
//go:norace
func ownGoroutines() int {
	carriers.Lock()
	n := len(carriers.cs)
	carriers.Unlock()
	watch.mu.Lock()
	if watch.started {
		n++
	}
	watch.mu.Unlock()
	return n
}
