// Pattern: lock-order inversion across three locks, closed by an occasional path. Store.mu ->
// Replica.mu (metrics), Replica.mu -> raftMu (apply), and raftMu -> Store.mu only when the
// replica is pending GC. Each goroutine's own order looks fine; the cycle deadlocks only when
// all three are preempted right after their first lock, so executed schedules rarely deadlock.
// Modeled on: CockroachDB Store/Replica lock ordering (raftMu before Replica.mu before
// Store.mu is the documented order; several GoKer cockroach kernels violate it).
// Fix: applyRaftReadyFixed takes raftMu before Replica.mu, restoring a global order.
package threelockcycle

import (
	"sync"
	"testing"
)

type Replica struct {
	raftMu    sync.Mutex
	mu        sync.Mutex
	applied   int
	pendingGC bool
}

type Store struct {
	mu       sync.Mutex
	replicas map[int]*Replica
	metrics  int
}

func (s *Store) updateMetrics(r *Replica) { // Store.mu -> Replica.mu
	s.mu.Lock()
	r.mu.Lock()
	s.metrics = r.applied
	r.mu.Unlock()
	s.mu.Unlock()
}

func (r *Replica) applyRaftReady() { // BUG: Replica.mu -> raftMu
	r.mu.Lock()
	r.raftMu.Lock()
	r.applied++
	r.raftMu.Unlock()
	r.mu.Unlock()
}

func (r *Replica) applyRaftReadyFixed() { // raftMu -> Replica.mu
	r.raftMu.Lock()
	r.mu.Lock()
	r.applied++
	r.mu.Unlock()
	r.raftMu.Unlock()
}

func (s *Store) processGC(id int, r *Replica) { // raftMu -> Store.mu (occasional)
	r.raftMu.Lock()
	if r.pendingGC {
		s.mu.Lock()
		delete(s.replicas, id)
		s.mu.Unlock()
	}
	r.raftMu.Unlock()
}

func run(apply func(*Replica)) {
	r := &Replica{pendingGC: true}
	s := &Store{replicas: map[int]*Replica{7: r}}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.updateMetrics(r) }()
	go func() { defer wg.Done(); apply(r) }()
	go func() { defer wg.Done(); s.processGC(7, r) }()
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*Replica).applyRaftReady) }
func TestFixed(t *testing.T) { run((*Replica).applyRaftReadyFixed) }
