// Pattern: lock-order inversion through an RWMutex read lock. cache.mu(R) -> queue.lock in the
// scheduling path, queue.lock -> cache.mu(R) in an event handler. Two readers never block each
// other, so the two paths alone never deadlock; it takes a writer queued on cache.mu between
// them (RWMutex blocks new readers behind a waiting writer) -- a rare three-goroutine schedule.
// Modeled on: the Kubernetes scheduler cache (RWMutex) vs. scheduling queue lock.
// Fix: the handler reads the cache before taking the queue lock (no nesting).
package rwlockorder

import (
	"sync"
	"testing"
)

type schedulerCache struct {
	mu      sync.RWMutex
	assumed map[string]bool
	nodes   []string
}

type schedulingQueue struct {
	lock      sync.Mutex
	nominated map[string]string
}

type scheduler struct {
	cache schedulerCache
	queue schedulingQueue
}

func (s *scheduler) scheduleOne(pod string) { // cache.mu(R) -> queue.lock
	s.cache.mu.RLock()
	defer s.cache.mu.RUnlock()
	s.queue.lock.Lock()
	s.queue.nominated[pod] = "node-1"
	s.queue.lock.Unlock()
}

func (s *scheduler) onPodDelete(pod string) { // BUG: queue.lock -> cache.mu(R)
	s.queue.lock.Lock()
	defer s.queue.lock.Unlock()
	s.cache.mu.RLock()
	assumed := s.cache.assumed[pod]
	s.cache.mu.RUnlock()
	if !assumed {
		delete(s.queue.nominated, pod)
	}
}

func (s *scheduler) onPodDeleteFixed(pod string) {
	s.cache.mu.RLock()
	assumed := s.cache.assumed[pod]
	s.cache.mu.RUnlock()
	s.queue.lock.Lock()
	defer s.queue.lock.Unlock()
	if !assumed {
		delete(s.queue.nominated, pod)
	}
}

func (s *scheduler) onNodeAdd(node string) { // writer
	s.cache.mu.Lock()
	s.cache.nodes = append(s.cache.nodes, node)
	s.cache.mu.Unlock()
}

func run(onDelete func(*scheduler, string)) {
	s := &scheduler{
		cache: schedulerCache{assumed: map[string]bool{}},
		queue: schedulingQueue{nominated: map[string]string{}},
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.scheduleOne("default/web-0") }()
	go func() { defer wg.Done(); onDelete(s, "default/web-1") }()
	go func() { defer wg.Done(); s.onNodeAdd("node-2") }()
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*scheduler).onPodDelete) }
func TestFixed(t *testing.T) { run((*scheduler).onPodDeleteFixed) }
