// Pattern: publishing before initialisation via an atomic pointer guarded only by a flag. The
// updater sets the "has config" flag before storing the config pointer; a reader that trusts
// the flag dereferences a nil config (nil pointer dereference).
// Modeled on: gRPC-Go service-config / Kubernetes dynamic-config holders that pair an atomic
// "ready" flag with an atomically swapped pointer.
// Fix: updateFixed stores the pointer before the flag (readers could also just check nil).
package publishatomic

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type serviceConfig struct{ timeout time.Duration }

type configHolder struct {
	ready atomic.Bool
	cfg   atomic.Pointer[serviceConfig]
}

func (h *configHolder) update(c *serviceConfig) {
	h.ready.Store(true) // BUG: flag published before the config
	h.cfg.Store(c)
}

func (h *configHolder) updateFixed(c *serviceConfig) {
	h.cfg.Store(c)
	h.ready.Store(true)
}

func (h *configHolder) callTimeout() time.Duration {
	if !h.ready.Load() {
		return 20 * time.Second // default
	}
	return h.cfg.Load().timeout
}

func run(update func(*configHolder, *serviceConfig)) {
	h := &configHolder{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); h.callTimeout() }()    // an RPC starting
	update(h, &serviceConfig{timeout: 5 * time.Second}) // the resolver delivers a config
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*configHolder).update) }
func TestFixed(t *testing.T) { run((*configHolder).updateFixed) }
