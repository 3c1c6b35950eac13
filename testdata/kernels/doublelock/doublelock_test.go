// Pattern: double locking. A method holding a mutex calls a helper that locks the same mutex
// again, on a path taken only when another goroutine changed the state in between.
// Modeled on: the Kubernetes kubelet volume manager (desired-state-of-world cache); GoKer's
// kubernetes kernels contain several "exported helper re-acquires the lock" bugs of this kind.
// Fix: the locked caller uses the lock-free helper podExistsLocked.
package doublelock

import (
	"sync"
	"testing"
)

type desiredStateOfWorld struct {
	mu      sync.Mutex
	pods    map[string]bool
	removed map[string]bool
}

func newDSW() *desiredStateOfWorld {
	return &desiredStateOfWorld{pods: map[string]bool{}, removed: map[string]bool{}}
}

func (d *desiredStateOfWorld) PodExists(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.podExistsLocked(name)
}

func (d *desiredStateOfWorld) podExistsLocked(name string) bool { return d.pods[name] }

func (d *desiredStateOfWorld) DeletePod(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.pods, name)
	d.removed[name] = true
}

func (d *desiredStateOfWorld) AddPod(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.removed[name] && !d.PodExists(name) { // BUG: PodExists locks d.mu again
		delete(d.removed, name)
	}
	d.pods[name] = true
}

func (d *desiredStateOfWorld) AddPodFixed(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.removed[name] && !d.podExistsLocked(name) {
		delete(d.removed, name)
	}
	d.pods[name] = true
}

func TestBug(t *testing.T) {
	d := newDSW()
	d.AddPod("web")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); d.DeletePod("web") }()
	d.AddPod("web") // self-deadlocks if DeletePod ran first
	wg.Wait()
}

func TestFixed(t *testing.T) {
	d := newDSW()
	d.AddPodFixed("web")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); d.DeletePod("web") }()
	d.AddPodFixed("web")
	wg.Wait()
}
