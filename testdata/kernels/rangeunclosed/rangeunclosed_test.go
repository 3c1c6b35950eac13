// Pattern: a channel that is never closed on one path. The producer returns early when the
// build is cancelled without closing its output channel; the consumer ranging over it blocks
// forever. The walker reads each file before it hands it on; when the build's deadline expires
// as a read completes, the walker may see it before the next file.
// Modeled on: Hugo's content walker / page collector pipelines (hugolib's pagesCollector)
// and similar producer-consumer code in Go tools.
// Fix: walkFixed closes the channel with defer on every path.
package rangeunclosed

import (
	"context"
	"errors"
	"testing"
	"time"
)

var errCancelled = errors.New("build cancelled")

// read stands for reading a content file from disk.
func read(f string) string {
	time.Sleep(250 * time.Millisecond)
	return f
}

func walk(ctx context.Context, files []string, out chan<- string) error {
	for _, f := range files {
		if ctx.Err() != nil {
			return errCancelled // BUG: out is never closed on this path
		}
		out <- read(f)
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
		out <- read(f)
	}
	return nil
}

func run(t *testing.T, w func(context.Context, []string, chan<- string) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	out := make(chan string)
	// The deadline expires as the second read completes.
	files := []string{"content/_index.md", "content/posts/a.md", "content/posts/b.md"}
	go w(ctx, files, out)
	pages := 0
	for range out {
		pages++
	}
	if pages > len(files) {
		t.Errorf("rendered %d pages, want at most %d", pages, len(files))
	}
}

func TestBug(t *testing.T)   { run(t, walk) }
func TestFixed(t *testing.T) { run(t, walkFixed) }
