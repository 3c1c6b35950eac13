// Pattern: a race behind a rare interleaving -- two workers take turns on a lock six times
// each, counting how often the lock changes hands. Only a perfect alternation (2 of the 924
// orders of the twelve acquisitions) makes the last worker publish a flag without the lock,
// while the other reads it without the lock after its loop. Under the Go scheduler a worker
// usually runs its whole loop at once, so the race is almost never seen.
// Modeled on: handoff counters and "every Nth request" paths in load balancers (gRPC-Go
// round robin), where the racy branch needs an exact interleaving.
// Fix: the fixed workers publish and read the flag under the lock.
package rarerace

import (
	"sync"
	"testing"
)

type state struct {
	mu       sync.Mutex
	last     int
	switches int
	flag     bool
}

const rounds = 6

func worker(s *state, id int, fixed bool) {
	alternated := false
	for range rounds {
		s.mu.Lock()
		if s.last != 0 && s.last != id {
			s.switches++
		}
		s.last = id
		alternated = s.switches == 2*rounds-1
		s.mu.Unlock()
	}
	if fixed {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	if alternated {
		s.flag = true // BUG: published without the lock
	} else {
		_ = s.flag // read without the lock
	}
}

func run(fixed bool) {
	s := new(state)
	var wg sync.WaitGroup
	for id := 1; id <= 2; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker(s, id, fixed)
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
