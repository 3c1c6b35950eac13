// Pattern: a test starts watchers that report on a channel until a context ends, and gives
// them a context of its own that nobody cancels, so the watchers outlive the test.
// Modeled on: pion/transport's deadline tests, whose goroutines wait for either a deadline or
// t.Context(), which testing cancels when the test's function returns, just before its
// cleanups.
// Bug: the watchers' context is context.WithCancel's, and the test forgets the cancel: the
// watcher whose deadline was cancelled waits forever (goleak reports it).
// Fix: the watchers take t.Context(), which ends with the test.
package testcontext

import (
	"context"
	"testing"
	"time"
)

// watch reports val on dest when done is closed, and gives up when ctx ends.
func watch(ctx context.Context, done <-chan struct{}, dest chan<- int, val int) {
	select {
	case <-done:
	case <-ctx.Done():
		return
	}
	select {
	case dest <- val:
	case <-ctx.Done():
	}
}

func run(t *testing.T, ctx context.Context) {
	fired, cancelled := make(chan struct{}), make(chan struct{})
	got := make(chan int)
	go watch(ctx, fired, got, 1)
	go watch(ctx, cancelled, got, 2) // its deadline is cancelled: it waits for ctx
	time.AfterFunc(10*time.Millisecond, func() { close(fired) })
	if v := <-got; v != 1 {
		t.Errorf("got %d, want 1", v)
	}
}

func TestBug(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_ = cancel // BUG: never called
	run(t, ctx)
}

func TestFixed(t *testing.T) { run(t, t.Context()) }
