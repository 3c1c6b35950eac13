// Pattern: AB-BA lock order across two goroutines.
// Modeled on: gRPC-Go ClientConn / addrConn deadlocks (GoKer grpc kernels): an addrConn reports a
// state change to its ClientConn while holding ac.mu (ac.mu -> cc.mu), while ClientConn.Close
// tears down its addrConns while holding cc.mu (cc.mu -> ac.mu).
// Fix: updateStateFixed releases ac.mu before calling into the ClientConn.
package abbalock

import (
	"sync"
	"testing"
)

type ClientConn struct {
	mu    sync.Mutex
	state string
	conns map[*addrConn]bool
}

type addrConn struct {
	cc    *ClientConn
	mu    sync.Mutex
	state string
}

func newClientConn() (*ClientConn, *addrConn) {
	cc := &ClientConn{state: "idle", conns: map[*addrConn]bool{}}
	ac := &addrConn{cc: cc, state: "idle"}
	cc.conns[ac] = true
	return cc, ac
}

func (cc *ClientConn) Close() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.state = "shutdown"
	for ac := range cc.conns {
		ac.tearDown() // cc.mu -> ac.mu
	}
}

func (ac *addrConn) tearDown() {
	ac.mu.Lock()
	ac.state = "shutdown"
	ac.mu.Unlock()
}

func (cc *ClientConn) handleSubConnStateChange(s string) {
	cc.mu.Lock()
	if cc.state != "shutdown" {
		cc.state = s
	}
	cc.mu.Unlock()
}

func (ac *addrConn) updateState(s string) {
	ac.mu.Lock()
	defer ac.mu.Unlock()
	ac.state = s
	ac.cc.handleSubConnStateChange(s) // BUG: ac.mu -> cc.mu
}

func (ac *addrConn) updateStateFixed(s string) {
	ac.mu.Lock()
	ac.state = s
	ac.mu.Unlock()
	ac.cc.handleSubConnStateChange(s)
}

func TestBug(t *testing.T) {
	cc, ac := newClientConn()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); ac.updateState("ready") }()
	cc.Close()
	wg.Wait()
}

func TestFixed(t *testing.T) {
	cc, ac := newClientConn()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); ac.updateStateFixed("ready") }()
	cc.Close()
	wg.Wait()
}
