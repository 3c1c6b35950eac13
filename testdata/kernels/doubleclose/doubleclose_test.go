// Pattern: close of a closed channel by two closers. Stop probes the channel with a
// select-default (or a flag) and then closes it; two concurrent Stop calls both pass the probe.
// Modeled on: etcd and gRPC-Go Stop/Close methods (close of closed channel panics fixed with
// sync.Once, GoKer etcd/grpc kernels).
// Fix: StopFixed closes through a sync.Once.
package doubleclose

import (
	"sync"
	"testing"
)

type server struct {
	stopc    chan struct{}
	stopOnce sync.Once
}

func (s *server) Stop() {
	select {
	case <-s.stopc:
		return // already stopped
	default:
	}
	close(s.stopc) // BUG: a concurrent Stop may have closed it after our probe
}

func (s *server) StopFixed() {
	s.stopOnce.Do(func() { close(s.stopc) })
}

func run(stop func(*server)) {
	s := &server{stopc: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); stop(s) }() // signal handler
	stop(s)                                  // deferred shutdown in main
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*server).Stop) }
func TestFixed(t *testing.T) { run((*server).StopFixed) }
