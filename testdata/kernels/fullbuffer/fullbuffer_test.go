// Pattern: producer blocked on a full buffered channel after the consumer exits early.
// Modeled on: Prometheus service discovery (a provider pushes target-group updates into a
// buffered channel; the discovery manager's loop returns on context cancellation and the
// provider blocks forever on the full channel).
// Fix: the provider's send also selects on ctx.Done().
package fullbuffer

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

func provider(ctx context.Context, up chan<- []string) {
	for i := range 3 {
		up <- []string{fmt.Sprintf("10.0.0.%d:9100", i)} // BUG: ignores ctx
	}
}

func providerFixed(ctx context.Context, up chan<- []string) {
	for i := range 3 {
		select {
		case up <- []string{fmt.Sprintf("10.0.0.%d:9100", i)}:
		case <-ctx.Done():
			return
		}
	}
}

type manager struct{ targets []string }

func (m *manager) run(ctx context.Context, up <-chan []string) {
	for {
		select {
		case <-ctx.Done():
			return
		case tg := <-up:
			m.targets = tg
		}
	}
}

func run(prov func(context.Context, chan<- []string), waitProvider bool) {
	ctx, cancel := context.WithCancel(context.Background())
	up := make(chan []string, 1)
	var wg, pwg sync.WaitGroup
	pwg.Add(1)
	go func() { defer pwg.Done(); prov(ctx, up) }()
	m := &manager{}
	wg.Add(1)
	go func() { defer wg.Done(); m.run(ctx, up) }()
	cancel() // shutdown
	wg.Wait()
	if waitProvider {
		pwg.Wait()
	}
}

func TestBug(t *testing.T)   { run(provider, false) }
func TestFixed(t *testing.T) { run(providerFixed, true) }
