// Pattern: check-then-act on a map across two separately locked calls. Two workers both see the
// IP as free and both assign it (lost update / double allocation).
// Modeled on: Kubernetes IP/port allocators and controller "expectations" caches, where
// Has() and Assign() are individually thread-safe but not atomic together.
// Fix: AllocateFixed checks and assigns in one critical section.
package mapcheckact

import (
	"sync"
	"sync/atomic"
	"testing"
)

type ipAllocator struct {
	mu    sync.Mutex
	owner map[string]string
}

func (a *ipAllocator) Has(ip string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.owner[ip]
	return ok
}

func (a *ipAllocator) Assign(ip, pod string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.owner[ip] = pod
}

func (a *ipAllocator) Allocate(ip, pod string) bool {
	if a.Has(ip) { // BUG: the check and the assignment are separate critical sections
		return false
	}
	a.Assign(ip, pod)
	return true
}

func (a *ipAllocator) AllocateFixed(ip, pod string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.owner[ip]; ok {
		return false
	}
	a.owner[ip] = pod
	return true
}

func run(t *testing.T, alloc func(a *ipAllocator, ip, pod string) bool) {
	a := &ipAllocator{owner: map[string]string{}}
	var granted atomic.Int32
	var wg sync.WaitGroup
	for _, pod := range []string{"default/web-0", "default/web-1"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if alloc(a, "10.244.1.7", pod) {
				granted.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := granted.Load(); n != 1 {
		t.Errorf("10.244.1.7 granted to %d pods, want 1", n)
	}
}

func TestBug(t *testing.T)   { run(t, (*ipAllocator).Allocate) }
func TestFixed(t *testing.T) { run(t, (*ipAllocator).AllocateFixed) }
