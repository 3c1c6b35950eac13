// Pattern: a net/rpc service keeps a count of pending jobs as a read and a write under its
// lock, taken twice; two clients' calls, which the server runs on goroutines of their own, read
// the same count and one job is lost.
// Modeled on: job and lease counters behind net/rpc services (HashiCorp's go-plugin and the
// RPC servers it serves, and Go's net/rpc examples), called concurrently by one client.
// Fix: the service adds to the count under one lock (jobs.add).
package rpcpending

import (
	"net"
	"net/rpc"
	"sync"
	"testing"
)

// Jobs is the service.
type Jobs struct {
	mu    sync.Mutex
	n     int
	fixed bool
}

func (j *Jobs) get() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.n
}

func (j *Jobs) set(n int) {
	j.mu.Lock()
	j.n = n
	j.mu.Unlock()
}

func (j *Jobs) add(d int) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.n += d
	return j.n
}

// Submit adds d jobs and returns the count.
func (j *Jobs) Submit(d int, count *int) error {
	if j.fixed {
		*count = j.add(d)
		return nil
	}
	n := j.get()
	j.set(n + d) // BUG: another call may have counted its jobs since the get
	*count = n + d
	return nil
}

func run(t *testing.T, fixed bool) {
	srv := rpc.NewServer()
	if err := srv.Register(&Jobs{fixed: fixed}); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Accept(l)
	}()
	c, err := rpc.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n int
			if err := c.Call("Jobs.Submit", 1, &n); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var n int
	if err := c.Call("Jobs.Submit", 0, &n); err != nil {
		t.Fatal(err)
	}
	c.Close()
	l.Close()
	<-served
	if n != 2 {
		t.Errorf("%d jobs pending, want 2", n)
	}
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
