// Pattern: recursive RLock with a writer waiting. sync.RWMutex blocks new readers once a writer
// is waiting, so a goroutine that already holds the read lock and read-locks again deadlocks
// when a writer arrives in between.
// Modeled on: etcd / CockroachDB bugs where a method holding RLock calls another exported
// method that RLocks the same RWMutex (GoKer etcd and cockroach "RWR" kernels).
// Fix: RangeFixed reads the map directly instead of calling the locking Get.
package rwrecursive

import (
	"sync"
	"testing"
)

type store struct {
	mu sync.RWMutex
	kv map[string]string
}

func (s *store) Get(k string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.kv[k]
}

func (s *store) Put(k, v string) {
	s.mu.Lock()
	s.kv[k] = v
	s.mu.Unlock()
}

func (s *store) Range(keys []string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for _, k := range keys {
		out = append(out, s.Get(k)) // BUG: recursive RLock
	}
	return out
}

func (s *store) RangeFixed(keys []string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for _, k := range keys {
		out = append(out, s.kv[k])
	}
	return out
}

func run(t *testing.T, rng func(*store, []string) []string) {
	s := &store{kv: map[string]string{"a": "1", "b": "2"}}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.Put("c", "3") }()
	if got := rng(s, []string{"a", "b"}); len(got) != 2 {
		t.Errorf("Range returned %d values, want 2", len(got))
	}
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, (*store).Range) }
func TestFixed(t *testing.T) { run(t, (*store).RangeFixed) }
