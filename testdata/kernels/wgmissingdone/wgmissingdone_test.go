// Pattern: missing WaitGroup.Done on an error path. A worker returns early when the request
// context has expired and skips wg.Done, so the parent's Wait blocks forever.
// Modeled on: Kubernetes / etcd fan-out helpers (GoKer kubernetes and etcd kernels) where an
// early "return err" in a goroutine bypasses the Done at the end of the function.
// Fix: defer wg.Done() as the first statement of the goroutine.
package wgmissingdone

import (
	"context"
	"sync"
	"testing"
	"time"
)

func fetchAll(ctx context.Context, urls []string) []string {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var out []string
	for _, u := range urls {
		wg.Add(1)
		go func() {
			if ctx.Err() != nil {
				return // BUG: missing wg.Done()
			}
			mu.Lock()
			out = append(out, "GET "+u)
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
	for _, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ctx.Err() != nil {
				return
			}
			mu.Lock()
			out = append(out, "GET "+u)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func run(fetch func(context.Context, []string) []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	fetch(ctx, []string{"/api/v1/pods", "/api/v1/nodes"})
}

func TestBug(t *testing.T)   { run(fetchAll) }
func TestFixed(t *testing.T) { run(fetchAllFixed) }
