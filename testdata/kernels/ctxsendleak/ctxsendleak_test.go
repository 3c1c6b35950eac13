// Pattern: send with no partner after a context cancel.
// Modeled on: gRPC-Go / Kubernetes client helpers (GoKer grpc kernels) that run a lookup in a
// goroutine and select on the result channel and ctx.Done(); when the caller's context is
// cancelled the helper goroutine blocks forever on the unbuffered send.
// Fix: the goroutine's send also selects on ctx.Done().
package ctxsendleak

import (
	"context"
	"sync"
	"testing"
)

type resolver struct{ wg sync.WaitGroup }

func (r *resolver) dnsLookup(host string) string { return "10.0.0.1" }

func (r *resolver) lookup(ctx context.Context, host string) (string, error) {
	resc := make(chan string)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		resc <- r.dnsLookup(host) // BUG: nobody receives once ctx is done
	}()
	select {
	case addr := <-resc:
		return addr, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (r *resolver) lookupFixed(ctx context.Context, host string) (string, error) {
	resc := make(chan string)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		select {
		case resc <- r.dnsLookup(host):
		case <-ctx.Done():
		}
	}()
	select {
	case addr := <-resc:
		return addr, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func run(lookup func(*resolver, context.Context, string) (string, error), waitAll bool) {
	r := &resolver{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); cancel() }() // the client goes away concurrently
	lookup(r, ctx, "backend.svc")
	wg.Wait()
	if waitAll {
		r.wg.Wait()
	}
}

func TestBug(t *testing.T)   { run((*resolver).lookup, false) }
func TestFixed(t *testing.T) { run((*resolver).lookupFixed, true) }
