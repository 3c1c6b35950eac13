// Pattern: a pool stamps each resource it takes back with the time since the process started
// (a package-level start read at init, as puddle's nanotime is) and an idle reaper closes
// the resources never used (no stamp) or idle too long; a release that puts the resource
// back before stamping it lets the reaper find it unstamped and close it, and the resource
// just given back is lost.
// Modeled on: connection and resource pools with idle reapers (jackc/puddle's
// LastUsedNanotime, database/sql's connection lifetime checks).
// Fix: the resource is stamped before it is put back, under the same lock.
package idlestamp

import (
	"sync"
	"testing"
	"time"
)

// start is read while the package initializes, outside any test.
var start = time.Now()

// nanotime is the time since the process started: positive in any test.
func nanotime() int64 { return int64(time.Since(start)) }

type resource struct {
	lastUsed int64 // 0: never used
	closed   bool
}

type pool struct {
	mu   sync.Mutex
	idle []*resource
}

func (p *pool) release(r *resource, fixed bool) {
	p.mu.Lock()
	if fixed {
		r.lastUsed = nanotime()
	}
	p.idle = append(p.idle, r)
	p.mu.Unlock()
	if !fixed {
		p.mu.Lock()
		r.lastUsed = nanotime()
		p.mu.Unlock()
	}
}

// reap closes the idle resources that were never used or have been idle over a minute.
func (p *pool) reap() {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.idle[:0]
	for _, r := range p.idle {
		if r.lastUsed <= 0 || nanotime()-r.lastUsed > int64(time.Minute) {
			r.closed = true
			continue
		}
		keep = append(keep, r)
	}
	p.idle = keep
}

func run(t *testing.T, fixed bool) {
	p := &pool{}
	r := &resource{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.reap()
	}()
	p.release(r, fixed)
	wg.Wait()
	if r.closed {
		t.Error("the reaper closed a resource that was just released")
	}
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
