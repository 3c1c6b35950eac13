// Pattern: sync.Cond Signal before Wait is lost. The waiter checks the state without holding
// the lock and then waits; a Signal in between wakes nobody, and the waiter sleeps forever.
// Modeled on: Docker/Moby container State.WaitStop and similar "is it still running? then
// wait" helpers (GoKer moby kernels).
// Fix: check the predicate and wait under the same lock, in a loop.
package condlostsignal

import (
	"sync"
	"testing"
)

type State struct {
	mu      sync.Mutex
	cond    *sync.Cond
	running bool
}

func newState() *State {
	s := &State{running: true}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *State) IsRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

func (s *State) SetStopped() {
	s.mu.Lock()
	s.running = false
	s.cond.Signal()
	s.mu.Unlock()
}

func (s *State) WaitStop() {
	if s.IsRunning() { // BUG: the check and the Wait are not atomic
		s.mu.Lock()
		s.cond.Wait()
		s.mu.Unlock()
	}
}

func (s *State) WaitStopFixed() {
	s.mu.Lock()
	for s.running {
		s.cond.Wait()
	}
	s.mu.Unlock()
}

func run(wait func(*State)) {
	s := newState()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.SetStopped() }() // the container exits
	wait(s)
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*State).WaitStop) }
func TestFixed(t *testing.T) { run((*State).WaitStopFixed) }
