// Pattern: a timer callback observes a broken invariant. Update replaces a service's endpoint
// as Remove then New, each its own critical section, so between them the service has no
// endpoint. A time.AfterFunc callback (a resync due after 1 ns, as tests configure it) takes
// the same mutex and may run in that window: it finds the service without an endpoint. The
// updates are real work, longer than the timer's 1 ns, so the callback fires in the middle of
// the loop of 1,000 updates.
// Modeled on: service registries that update an entry as delete then add (Kubernetes
// kube-proxy's service and endpoints maps, Docker/Moby libnetwork service records), read by a
// periodic resync.
// Fix: Replace removes and adds under one critical section, so the invariant holds whenever
// the mutex is free.
package afterfuncremove

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

type registry struct {
	mu        sync.Mutex
	endpoints map[string]string // service -> address; every service has one
}

func (r *registry) Remove(svc string) {
	r.mu.Lock()
	delete(r.endpoints, svc)
	r.mu.Unlock()
}

func (r *registry) New(svc, addr string) {
	r.mu.Lock()
	r.endpoints[svc] = addr
	r.mu.Unlock()
}

func endpoint(ip int) string { return fmt.Sprintf("10.0.%d.%d:80", ip/256, ip%256) }

// Update is the buggy two-step replacement.
func (r *registry) Update(svc string, ip int) {
	r.Remove(svc)
	addr := endpoint(ip)
	r.New(svc, addr) // BUG: the service has no endpoint until here
}

// Replace is the fixed one.
func (r *registry) Replace(svc string, ip int) {
	addr := endpoint(ip)
	r.mu.Lock()
	delete(r.endpoints, svc)
	r.endpoints[svc] = addr
	r.mu.Unlock()
}

// resync checks the registry's invariant as the periodic resync reads it.
func (r *registry) resync() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.endpoints["web"]; !ok {
		return fmt.Errorf("resync: service web has no endpoint (%d services)", len(r.endpoints))
	}
	return nil
}

func run(t *testing.T, update func(r *registry, svc string, ip int)) {
	r := &registry{endpoints: map[string]string{"web": "10.0.0.1:80"}}
	resynced := make(chan error, 1)
	time.AfterFunc(time.Nanosecond, func() { resynced <- r.resync() })
	for i := range 1000 {
		update(r, "web", i)
	}
	if err := <-resynced; err != nil {
		t.Fatal(err)
	}
}

func TestBug(t *testing.T)   { run(t, (*registry).Update) }
func TestFixed(t *testing.T) { run(t, (*registry).Replace) }
