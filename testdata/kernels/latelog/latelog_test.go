// Pattern: a goroutine logs through the test's t.Logf after the test completed. The watch
// server takes the test's logger; Stop signals the serving goroutine and returns without
// waiting for it, and the goroutine reports its shutdown after TestBug has returned: go test
// panics with "Log in goroutine after TestBug has completed".
// Modeled on: test servers and fixtures that log through t.Logf (gRPC-Go's test logger,
// zaptest, Kubernetes ktesting) whose Stop does not wait for their goroutines.
// Fix: Stop waits for the serving goroutine to return.
package latelog

import (
	"sort"
	"sync"
	"testing"
)

type watchServer struct {
	logf     func(format string, args ...any)
	mu       sync.Mutex
	watchers map[string]chan string
	quit     chan struct{}
	done     chan struct{}
}

func startWatchServer(logf func(string, ...any)) *watchServer {
	s := &watchServer{logf: logf, watchers: map[string]chan string{}, quit: make(chan struct{}), done: make(chan struct{})}
	go s.serve()
	return s
}

func (s *watchServer) Watch(key string) <-chan string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan string, 1)
	s.watchers[key] = ch
	return ch
}

func (s *watchServer) serve() {
	defer close(s.done)
	<-s.quit
	s.mu.Lock()
	keys := make([]string, 0, len(s.watchers))
	for k := range s.watchers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		close(s.watchers[k])
	}
	s.watchers = nil
	s.mu.Unlock()
	s.logf("watch server stopped; closed watchers %v", keys) // BUG: may run after the test returned
}

// Stop is the buggy one: it does not wait for serve.
func (s *watchServer) Stop() { close(s.quit) }

func (s *watchServer) StopFixed() {
	close(s.quit)
	<-s.done
}

func run(t *testing.T, stop func(*watchServer)) {
	s := startWatchServer(t.Logf)
	pods := s.Watch("/registry/pods")
	s.Watch("/registry/services")
	stop(s)
	for range pods {
		t.Error("event on a stopped server")
	}
}

func TestBug(t *testing.T)   { run(t, (*watchServer).Stop) }
func TestFixed(t *testing.T) { run(t, (*watchServer).StopFixed) }
