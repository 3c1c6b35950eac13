// Pattern: an object is made reachable before its map is allocated; a concurrent writer that
// finds it through the registry writes to a nil map ("assignment to entry in nil map").
// Modeled on: Prometheus target/metric registries and Kubernetes caches that register a
// struct first and initialise its fields afterwards.
// Fix: addFixed allocates the map before registering the target.
package nilmapinit

import (
	"sync"
	"testing"
)

type target struct {
	mu     sync.Mutex
	labels map[string]string
}

type registry struct {
	mu      sync.Mutex
	targets map[string]*target
}

func (r *registry) add(name string) {
	tg := &target{}
	r.mu.Lock()
	r.targets[name] = tg // BUG: reachable before labels is allocated
	r.mu.Unlock()
	tg.mu.Lock()
	tg.labels = map[string]string{"job": "node"}
	tg.mu.Unlock()
}

func (r *registry) addFixed(name string) {
	tg := &target{labels: map[string]string{"job": "node"}}
	r.mu.Lock()
	r.targets[name] = tg
	r.mu.Unlock()
}

func (r *registry) setLabel(name, k, v string) {
	r.mu.Lock()
	tg := r.targets[name]
	r.mu.Unlock()
	if tg == nil {
		return
	}
	tg.mu.Lock()
	tg.labels[k] = v
	tg.mu.Unlock()
}

func run(add func(*registry, string)) {
	r := &registry{targets: map[string]*target{}}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.setLabel("node-1:9100", "instance", "node-1") }() // relabeling
	add(r, "node-1:9100")
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*registry).add) }
func TestFixed(t *testing.T) { run((*registry).addFixed) }
