package rt

import (
	"sync"
	"unsafe"
)

// Pool is sync.Pool on heddle's runs: what a run puts in it does not outlive the run. A pooled
// object may hold the channels and locks of the run that made it, and a later run that took
// it from the pool would find them foreign, with none of their edges (conc's stream, which
// pools its callback channels). sync.Pool may drop any item at any time, so a pool that is
// empty at the start of each run is one Go could give too. Within a run it is a standard pool
// of the run's side table, with its happens-before edges from a Put to the Get that returns
// the value; outside any run it is the sync.Pool that its bytes are.
//
// Its fields mirror those of sync.Pool, New last (TestStandInLayout checks them).
type Pool struct {
	local      unsafe.Pointer
	localSize  uintptr
	victim     unsafe.Pointer
	victimSize uintptr

	// New optionally makes a value when Get would otherwise return nil.
	New func() any
}

// pool returns the standard pool of the caller, in run r (nil: none) on goroutine g: p's own
// bytes outside any run, else the pool of p in the run's side table, which starts empty in
// every run.
//
//go:norace
func (p *Pool) pool(r *run, g *goroutine) *sync.Pool {
	if r == nil {
		return (*sync.Pool)(unsafe.Pointer(p))
	}
	s := r.syncOf(unsafe.Pointer(p), objPool, g)
	if s.pool == nil {
		s.pool = new(sync.Pool)
	}
	return s.pool
}

// Get selects an item from the pool, removes it, and returns it, as sync.Pool's Get does.
func (p *Pool) Get() any {
	r, g := current()
	if x := p.pool(r, g).Get(); x != nil {
		if r != nil {
			r.accessPool(g, x, false)
		}
		return x
	}
	if p.New != nil {
		return p.New()
	}
	return nil
}

// Put adds x to the pool.
func (p *Pool) Put(x any) {
	r, g := current()
	if r != nil && x != nil {
		r.accessPool(g, x, true)
	}
	p.pool(r, g).Put(x)
}
