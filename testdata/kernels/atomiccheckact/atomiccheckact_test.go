// Pattern: atomic check-then-act -- Load followed by Store instead of CompareAndSwap, so two
// goroutines both move the connection from IDLE to CONNECTING and both dial.
// Modeled on: gRPC-Go addrConn/ClientConn connectivity-state handling and Kubernetes
// "started" flags implemented with separate atomic Load/Store.
// Fix: connectFixed uses CompareAndSwap.
package atomiccheckact

import (
	"sync"
	"sync/atomic"
	"testing"
)

const (
	idle int32 = iota
	connecting
)

type addrConn struct {
	state atomic.Int32
	dials atomic.Int32
}

func (ac *addrConn) connect() {
	if ac.state.Load() == idle { // BUG: not atomic with the Store below
		ac.state.Store(connecting)
		ac.dials.Add(1)
	}
}

func (ac *addrConn) connectFixed() {
	if ac.state.CompareAndSwap(idle, connecting) {
		ac.dials.Add(1)
	}
}

func run(t *testing.T, connect func(*addrConn)) {
	ac := &addrConn{}
	var wg sync.WaitGroup
	for range 2 { // e.g. ExitIdle from the balancer and a new RPC
		wg.Add(1)
		go func() { defer wg.Done(); connect(ac) }()
	}
	wg.Wait()
	if n := ac.dials.Load(); n != 1 {
		t.Errorf("dialed %d times, want 1", n)
	}
}

func TestBug(t *testing.T)   { run(t, (*addrConn).connect) }
func TestFixed(t *testing.T) { run(t, (*addrConn).connectFixed) }
