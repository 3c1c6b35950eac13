// Pattern: WaitGroup.Wait inside a goroutine that must itself call Done. A task that fails
// calls Stop(), and Stop waits for all tasks -- including the failing one.
// Modeled on: CockroachDB stop.Stopper misuse and the Docker plugin manager bug class
// (moby#25384 in Tu et al.: group.Wait() where the waiter is part of the group).
// Fix: a failing task only requests quiescence (non-blocking); the owner's Stop does the Wait.
package wgwaitinside

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

type Stopper struct {
	wg       sync.WaitGroup
	stopOnce sync.Once
	quiesce  sync.Once
	stopc    chan struct{}
}

func NewStopper() *Stopper { return &Stopper{stopc: make(chan struct{})} }

func (s *Stopper) RunAsyncTask(f func() error, fixed bool) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := f(); err != nil {
			if fixed {
				s.Quiesce()
			} else {
				s.Stop() // BUG: waits for this very task
			}
		}
	}()
}

func (s *Stopper) Quiesce() { s.quiesce.Do(func() { close(s.stopc) }) }

func (s *Stopper) Stop() {
	s.stopOnce.Do(func() {
		s.Quiesce()
		s.wg.Wait()
	})
}

func run(fixed bool) {
	s := NewStopper()
	var ready atomic.Bool
	s.RunAsyncTask(func() error {
		if !ready.Load() {
			return errors.New("raft group not initialised")
		}
		return nil
	}, fixed)
	ready.Store(true) // usually before the task runs
	s.Stop()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
