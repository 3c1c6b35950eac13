// Pattern: timer race -- ignoring time.Timer.Stop's result for a time.AfterFunc timer. Stop
// returns false when the callback has already been started; Close then closes the channel
// the callback is about to send on ("send on closed channel").
// Modeled on: gRPC-Go keepalive / idleness timers and net/http idle-connection timers, where
// code assumed Stop guarantees the callback will not run. The bug needs Close to come as the
// timer fires: here the RPC takes as long as the keepalive interval, and either may go first.
// Fix: track the callback with a WaitGroup; if Stop returns false, wait for it before closing.
package afterfuncstop

import (
	"sync"
	"testing"
	"time"
)

type keepalive struct {
	pings chan string
	timer *time.Timer
	wg    sync.WaitGroup
}

func startKeepalive(d time.Duration) *keepalive {
	k := &keepalive{pings: make(chan string, 1)}
	k.wg.Add(1)
	k.timer = time.AfterFunc(d, func() {
		defer k.wg.Done()
		k.pings <- "PING"
	})
	return k
}

func (k *keepalive) Close() {
	k.timer.Stop() // BUG: the callback may already be running
	close(k.pings)
}

func (k *keepalive) CloseFixed() {
	if k.timer.Stop() {
		k.wg.Done() // the callback will never run
	}
	k.wg.Wait()
	close(k.pings)
}

// rpc stands for one RPC on the transport, as long as the keepalive interval.
func rpc() { time.Sleep(100 * time.Millisecond) }

func TestBug(t *testing.T) {
	k := startKeepalive(100 * time.Millisecond)
	rpc()
	k.Close() // the transport closes right after the RPC finished
}

func TestFixed(t *testing.T) {
	k := startKeepalive(100 * time.Millisecond)
	rpc()
	k.CloseFixed()
}
