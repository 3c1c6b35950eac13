//go:build amd64 || arm64

package rt

import "unsafe"

// A parker is what a carrier sleeps on between its turns. Control passes from goroutine to
// goroutine at every scheduling point, so the hand-off is the scheduler's hottest path: a
// parker parks and readies the carrier with the runtime's own gopark and goready, as sync's
// semaphores do, where a channel would add its lock, its queue of waiters and a second park
// of the waker's side. A wake that comes before the sleep is kept (pending) and makes the sleep
// return at once, as a buffered channel of one would.
//
// Its state changes by cas32, which the race detector does not see: the commit runs on the
// system stack, where the race runtime has no goroutine to charge an atomic to, and the
// hand-off orders nothing of the program's (race.go says what does).
type parker struct {
	state uint32
	gp    uintptr // the sleeper's runtime descriptor (getg), set before it parks
}

const (
	parkAwake   = iota // running, or about to park
	parkAsleep         // parked in gopark: a wake readies it
	parkPending        // woken before it parked: the next sleep returns at once
)

// cas32 is an atomic compare-and-swap of *p from old to new (park_amd64.s, park_arm64.s).
//
//go:noescape
func cas32(p *uint32, old, new uint32) bool

//go:linkname gopark runtime.gopark
func gopark(unlockf func(gp, state unsafe.Pointer) bool, state unsafe.Pointer, reason uint8, traceReason uint8, traceskip int)

//go:linkname goready runtime.goready
func goready(gp uintptr, traceskip int)

// park waits for p's wake. It is called by the carrier p belongs to, and only by it.
//
//go:norace
func (p *parker) park() {
	if cas32(&p.state, parkPending, parkAwake) {
		return
	}
	p.gp = getg()
	// waitReasonZero: tracebacks show the carrier as "waiting".
	gopark(parkCommit, unsafe.Pointer(&p.state), 0, 0, 1)
	// Either the wake readied it (state awake again) or the commit found a wake pending.
	cas32(&p.state, parkPending, parkAwake)
}

// parkCommit runs on the system stack once the carrier is off its thread: it parks unless a
// wake came in between.
//
//go:nosplit
//go:norace
func parkCommit(_, state unsafe.Pointer) bool {
	return cas32((*uint32)(state), parkAwake, parkAsleep)
}

// unpark wakes p's carrier, at most once per park.
//
//go:norace
func (p *parker) unpark() {
	for {
		switch {
		case cas32(&p.state, parkAsleep, parkAwake):
			goready(p.gp, 1)
			return
		case cas32(&p.state, parkAwake, parkPending), cas32(&p.state, parkPending, parkPending):
			return
		}
		// The commit moved the state between the two tries.
	}
}

// init prepares a parker before its first use.
func (p *parker) init() {}
