// Pattern: a timeout race in which the racing work itself waits: the worker sleeps (a retry
// back-off) before it sends its result on an unbuffered channel, and the caller gives up first.
// Modeled on: the retry loops of HTTP and RPC clients (a back-off of time.Sleep between
// attempts) called under a context deadline shorter than the back-off.
// Bug: when the caller's deadline expires during the back-off, it returns and the worker's
// send blocks forever. Found with synctest's time: the deadline beats work that sleeps.
// Fix: a result channel with room for the result.
package slowtimeout

import (
	"context"
	"errors"
	"testing"
	"time"
)

var errTemporary = errors.New("temporary failure")

// fetch retries an attempt that fails once, sleeping backoff between attempts.
func fetch(backoff time.Duration) string {
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			time.Sleep(backoff)
		}
		if attempt == 0 {
			continue // errTemporary
		}
		return "result"
	}
}

func call(ctx context.Context, buffered int) (string, error) {
	ch := make(chan string, buffered) // BUG when buffered == 0
	go func() { ch <- fetch(200 * time.Millisecond) }()
	select {
	case res := <-ch:
		return res, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func test(t *testing.T, buffered int) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := call(ctx, buffered); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	_ = errTemporary
}

func TestBug(t *testing.T) { test(t, 0) }

func TestFixed(t *testing.T) { test(t, 1) }
