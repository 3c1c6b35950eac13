package rt

import (
	"sync"
	"sync/atomic"
)

// Pool is sync.Pool on heddle's runs: what a run puts in it does not outlive the run. A pooled
// object may hold the channels and locks of the run that made it, and a later run that took
// it from the pool would find them foreign, with none of their edges (conc's stream, which
// pools its callback channels). sync.Pool may drop any item at any time, so a pool emptied
// between runs is one Go could give too. Within a run it is the standard pool, with its
// happens-before edges from a Put to the Get that returns the value.
type Pool struct {
	// New optionally makes a value when Get would otherwise return nil.
	New func() any

	mu    sync.Mutex
	epoch atomic.Uint64 // the run (epoch) whose values pool holds
	pool  sync.Pool
}

// current returns the standard pool of the caller's run, emptied if it held another's.
//
//go:norace
func (p *Pool) current() *sync.Pool {
	e := uint64(0)
	if r := active; r != nil {
		e = r.epoch
	}
	// The check is heddle's: its atomics and lock must not order the program's goroutines
	// for the race detector, as Go's pool does not.
	raceHide()
	defer raceShow()
	if p.epoch.Load() != e {
		p.mu.Lock()
		if p.epoch.Load() != e {
			p.pool = sync.Pool{}
			p.epoch.Store(e)
		}
		p.mu.Unlock()
	}
	return &p.pool
}

// Get selects an item from the pool, removes it, and returns it, as sync.Pool's Get does.
func (p *Pool) Get() any {
	if x := p.current().Get(); x != nil {
		return x
	}
	if p.New != nil {
		return p.New()
	}
	return nil
}

// Put adds x to the pool.
func (p *Pool) Put(x any) { p.current().Put(x) }
