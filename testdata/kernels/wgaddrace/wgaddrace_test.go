// Pattern: racy WaitGroup.Add -- Add runs inside the spawned goroutine, so Wait may return
// before the goroutines have registered and the caller reads incomplete results.
// Modeled on: Docker/Moby daemon restore and Kubernetes volume code ("wg.Add inside go func"
// is one of the most common misuse patterns in Tu et al. and GoKer).
// Fix: call wg.Add(1) before the go statement.
package wgaddrace

import (
	"sync"
	"testing"
)

type daemon struct {
	mu       sync.Mutex
	restored []string
}

func (d *daemon) restoreContainer(id string) {
	d.mu.Lock()
	d.restored = append(d.restored, id)
	d.mu.Unlock()
}

// initNetworkController loads the network store in the background.
func (d *daemon) initNetworkController() <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- nil }()
	return errc
}

func (d *daemon) restore(ids []string) {
	netErr := d.initNetworkController()
	var wg sync.WaitGroup
	for _, id := range ids {
		go func() {
			c := "container " + id
			wg.Add(1) // BUG: may run after wg.Wait() below has returned
			defer wg.Done()
			d.restoreContainer(c)
		}()
	}
	<-netErr
	wg.Wait()
}

func (d *daemon) restoreFixed(ids []string) {
	netErr := d.initNetworkController()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.restoreContainer("container " + id)
		}()
	}
	<-netErr
	wg.Wait()
}

func run(t *testing.T, restore func(*daemon, []string)) {
	d := &daemon{}
	restore(d, []string{"3f2a"})
	d.mu.Lock()
	n := len(d.restored)
	d.mu.Unlock()
	if n != 1 {
		t.Errorf("restored %d containers before starting the API, want 1", n)
	}
}

func TestBug(t *testing.T)   { run(t, (*daemon).restore) }
func TestFixed(t *testing.T) { run(t, (*daemon).restoreFixed) }
