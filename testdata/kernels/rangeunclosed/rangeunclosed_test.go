// Pattern: a channel that is never closed on one path. The producer returns early when the
// build is cancelled without closing its output channel; the consumer ranging over it blocks
// forever.
// Modeled on: Hugo's content walker / page collector pipelines and similar producer-consumer
// code in Go tools.
// Fix: walkFixed closes the channel with defer on every path.
package rangeunclosed

import (
	"context"
	"errors"
	"testing"
	"time"
)

var errCancelled = errors.New("build cancelled")

func walk(ctx context.Context, files []string, out chan<- string) error {
	for _, f := range files {
		if ctx.Err() != nil {
			return errCancelled // BUG: out is never closed on this path
		}
		out <- f
	}
	close(out)
	return nil
}

func walkFixed(ctx context.Context, files []string, out chan<- string) error {
	defer close(out)
	for _, f := range files {
		if ctx.Err() != nil {
			return errCancelled
		}
		out <- f
	}
	return nil
}

func run(t *testing.T, w func(context.Context, []string, chan<- string) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	out := make(chan string)
	go w(ctx, []string{"content/_index.md", "content/posts/a.md"}, out)
	pages := 0
	for range out {
		pages++
	}
	if pages > 2 {
		t.Errorf("rendered %d pages, want at most 2", pages)
	}
}

func TestBug(t *testing.T)   { run(t, walk) }
func TestFixed(t *testing.T) { run(t, walkFixed) }
