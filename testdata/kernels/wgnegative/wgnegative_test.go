// Pattern: negative WaitGroup counter. On failure the worker calls Done early ("don't make the
// caller wait for a failed probe") and the deferred Done runs again.
// Modeled on: Kubernetes prober / etcd fan-out code where Done is called both explicitly on an
// error path and via defer ("sync: negative WaitGroup counter" panics).
// Fix: probeFixed relies on the deferred Done only.
package wgnegative

import (
	"fmt"
	"sync"
	"testing"
)

type prober struct {
	mu      sync.Mutex
	targets map[string]bool
	wg      sync.WaitGroup
	results map[string]bool
}

func (p *prober) register(target string) {
	p.mu.Lock()
	p.targets[target] = true
	p.mu.Unlock()
}

func (p *prober) check(target string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.targets[target] {
		return fmt.Errorf("target %s not registered yet", target)
	}
	p.results[target] = true
	return nil
}

func (p *prober) probe(target string) {
	defer p.wg.Done()
	if err := p.check(target); err != nil {
		p.wg.Done() // BUG: the deferred Done runs too
		return
	}
}

func (p *prober) probeFixed(target string) {
	defer p.wg.Done()
	if err := p.check(target); err != nil {
		return
	}
}

func run(probe func(*prober, string)) {
	p := &prober{targets: map[string]bool{}, results: map[string]bool{}}
	p.wg.Add(1)
	go probe(p, "kube-dns:53")
	p.register("kube-dns:53") // usually before the probe runs
	p.wg.Wait()
}

func TestBug(t *testing.T)   { run((*prober).probe) }
func TestFixed(t *testing.T) { run((*prober).probeFixed) }
