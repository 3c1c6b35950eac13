// Pattern: a goroutine loops without bound, on every tick of a ticker, offering its state
// with a select-default send; a caller waiting for that state gives up when its context's
// deadline expires, while the watcher goroutine it started holds a state it cannot hand over.
// The deadline falls due with a tick, so the hand-over and the deadline race.
// Modeled on: status reporters and readiness waits in Kubernetes (kubelet probe workers) and
// Docker/Moby (container health monitor): the reporter loops until it is stopped, offering
// each status with a non-blocking send; waitReady starts a watcher and returns on ctx.Done(),
// leaving the watcher blocked on the unbuffered ready channel.
// Fix: buffer the ready channel, so the watcher's hand-over never blocks.
package spinsend

import (
	"context"
	"sync"
	"testing"
	"time"
)

// period is the interval of the status reports.
const period = time.Millisecond

type service struct {
	status chan int
	stop   chan struct{}
	wg     sync.WaitGroup
}

// report loops until stop is closed: on each tick it offers its counter to a listener
// without blocking.
func (s *service) report() {
	defer s.wg.Done()
	tick := time.NewTicker(period)
	defer tick.Stop()
	for i := 0; ; {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		select {
		case s.status <- i:
			i++
		default:
		}
	}
}

// waitReady waits for a status report until ctx is cancelled.
func (s *service) waitReady(ctx context.Context, buffer int) bool {
	ready := make(chan int, buffer) // BUG when buffer == 0: nobody receives once waitReady returned
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		select {
		case v := <-s.status:
			ready <- v
		case <-s.stop:
		}
	}()
	select {
	case <-ready:
		return true
	case <-ctx.Done():
		return false
	}
}

func run(buffer int) {
	s := &service{status: make(chan int), stop: make(chan struct{})}
	s.wg.Add(1)
	go s.report()
	ctx, cancel := context.WithTimeout(context.Background(), period) // wait one report period
	defer cancel()
	s.waitReady(ctx, buffer)
	close(s.stop)
	s.wg.Wait()
}

func TestBug(t *testing.T) { run(0) }

func TestFixed(t *testing.T) { run(1) }
