// Pattern: lost update in a package-level worker -- a goroutine that a package variable's
// initialiser starts increments a shared counter without a lock, while the test increments it
// too: the two read-modify-writes race, and one of the updates can be lost.
// Modeled on: package-level statistics and worker pools started from var initialisers (ants'
// default pool, whose purging goroutine starts during init and runs beside every test).
// Fix: both increments take the mutex.
package initcounter

import (
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	count int
)

type job struct {
	locked bool
	done   chan struct{}
}

// work is served by a goroutine that package initialisation starts: it runs beside every test.
var work = func() chan job {
	c := make(chan job)
	go func() {
		for j := range c {
			bump(j.locked)
			close(j.done)
		}
	}()
	return c
}()

func bump(locked bool) {
	if locked {
		mu.Lock()
		defer mu.Unlock()
	}
	count++ // BUG when !locked: nothing orders it with the other goroutine's increment
}

// twice increments once on the package's worker and once on the test's goroutine, and checks
// that both updates count.
func twice(t *testing.T, locked bool) {
	mu.Lock()
	count = 0
	mu.Unlock()
	done := make(chan struct{})
	work <- job{locked: locked, done: done}
	bump(locked)
	<-done
	mu.Lock()
	defer mu.Unlock()
	if count != 2 {
		t.Errorf("count = %d after two increments, want 2: an update was lost", count)
	}
}

func TestBug(t *testing.T)   { twice(t, false) }
func TestFixed(t *testing.T) { twice(t, true) }
