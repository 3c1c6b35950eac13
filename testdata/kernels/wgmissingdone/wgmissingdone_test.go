// Pattern: missing WaitGroup.Done on an error path. A worker returns early when the request
// context has expired and skips wg.Done, so the parent's Wait blocks forever.
// Modeled on: Kubernetes / etcd fan-out helpers (GoKer kubernetes and etcd kernels) where an
// early "return err" in a goroutine bypasses the Done at the end of the function. The helper
// limits the requests in flight; a worker that gets its turn after the deadline returns early.
// Fix: defer wg.Done() as the first statement of the goroutine.
package wgmissingdone

import (
	"context"
	"sync"
	"testing"
	"time"
)

// latency stands for the round trip of each GET to the apiserver (listing every pod is
// slow); whether the second request starts before the deadline depends on the order in which
// the workers get their turn.
var latency = map[string]time.Duration{
	"/api/v1/nodes": 100 * time.Millisecond,
	"/api/v1/pods":  600 * time.Millisecond,
}

func get(u string) string {
	time.Sleep(latency[u]) // stands for the HTTP request
	return "GET " + u
}

func fetchAll(ctx context.Context, urls []string) []string {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var out []string
	inflight := make(chan struct{}, 1) // one request at a time
	for _, u := range urls {
		wg.Add(1)
		go func() {
			inflight <- struct{}{}
			defer func() { <-inflight }()
			if ctx.Err() != nil {
				return // BUG: missing wg.Done()
			}
			r := get(u)
			mu.Lock()
			out = append(out, r)
			mu.Unlock()
			wg.Done()
		}()
	}
	wg.Wait()
	return out
}

func fetchAllFixed(ctx context.Context, urls []string) []string {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var out []string
	inflight := make(chan struct{}, 1)
	for _, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inflight <- struct{}{}
			defer func() { <-inflight }()
			if ctx.Err() != nil {
				return
			}
			r := get(u)
			mu.Lock()
			out = append(out, r)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func run(fetch func(context.Context, []string) []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	fetch(ctx, []string{"/api/v1/nodes", "/api/v1/pods"})
}

func TestBug(t *testing.T)   { run(fetchAll) }
func TestFixed(t *testing.T) { run(fetchAllFixed) }
