// Pattern: lost update in a package-level worker -- a goroutine that a package variable's
// initialiser starts serves jobs for the whole process, and one of them updates a counter in
// two critical sections while the test updates it too.
// Modeled on: package-level worker pools and flushers started from var initialisers (ants'
// default pool, loggers' background flushers).
// Fix: addFixed does the read-modify-write under one lock.
package initworker

import (
	"sync"
	"testing"
)

var (
	mu   sync.Mutex
	hits int
)

// jobs is served by a goroutine that package initialisation starts: it runs beside every test.
var jobs = func() chan func() {
	c := make(chan func())
	go func() {
		for f := range c {
			f()
		}
	}()
	return c
}()

func addSplit() {
	mu.Lock()
	v := hits
	mu.Unlock()
	mu.Lock()
	hits = v + 1
	mu.Unlock()
}

func addFixed() {
	mu.Lock()
	hits++
	mu.Unlock()
}

// twice adds once on the package's worker, sent from a goroutine of the test, and once on the
// test's own goroutine, and checks that both updates count.
func twice(t *testing.T, add func()) {
	mu.Lock()
	hits = 0
	mu.Unlock()
	done := make(chan struct{})
	go func() { jobs <- func() { add(); close(done) } }()
	add()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if hits != 2 {
		t.Errorf("hits = %d after two adds, want 2: an update was lost", hits)
	}
}

func TestBug(t *testing.T)   { twice(t, addSplit) }
func TestFixed(t *testing.T) { twice(t, addFixed) }
