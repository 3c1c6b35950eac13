// Pattern: lost update -- a read-modify-write split across two critical sections; the mutex is
// released between the read and the write, so a concurrent update is overwritten.
// Modeled on: gRPC-Go transport quotaPool / flow-control window accounting (and similar
// counters in Prometheus and CockroachDB).
// Fix: addFixed does the read-modify-write under one lock.
package lostupdate

import (
	"sync"
	"testing"
)

type quotaPool struct {
	mu    sync.Mutex
	quota int
}

func (p *quotaPool) get() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.quota
}

func (p *quotaPool) set(v int) {
	p.mu.Lock()
	p.quota = v
	p.mu.Unlock()
}

func (p *quotaPool) add(n int) {
	v := p.get()
	p.set(v + n) // BUG: another add may have run between get and set
}

func (p *quotaPool) addFixed(n int) {
	p.mu.Lock()
	p.quota += n
	p.mu.Unlock()
}

func run(t *testing.T, add func(*quotaPool, int)) {
	p := &quotaPool{quota: 65535}
	var wg sync.WaitGroup
	for _, n := range []int{1024, 4096} { // WINDOW_UPDATEs on two streams
		wg.Add(1)
		go func() { defer wg.Done(); add(p, n) }()
	}
	wg.Wait()
	if got := p.get(); got != 65535+1024+4096 {
		t.Errorf("quota = %d, want %d", got, 65535+1024+4096)
	}
}

func TestBug(t *testing.T)   { run(t, (*quotaPool).add) }
func TestFixed(t *testing.T) { run(t, (*quotaPool).addFixed) }
