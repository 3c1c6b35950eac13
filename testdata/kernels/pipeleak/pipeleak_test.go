// Pattern: a producer goroutine streams into an io.Pipe; the consumer stops reading when a
// concurrent shutdown is seen and returns without closing the read side, so the producer's
// pending Write blocks forever.
// Modeled on: streaming encoders that write into an io.Pipe from a goroutine while a consumer
// reads the other end (multipart uploads through http.Client, archive and log streaming in
// Docker/Moby and Kubernetes); goleak reports the writer parked in io.(*pipe).write.
// Fix: the consumer closes the reader on every path (defer r.Close()), which fails the
// pending Write with io.ErrClosedPipe, and the producer returns.
package pipeleak

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

type shutdown struct {
	mu      sync.Mutex
	stopped bool
}

func (s *shutdown) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
}

func (s *shutdown) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// produce writes n records, one Write each, then closes the stream.
func produce(w *io.PipeWriter, n int) {
	for i := range n {
		if _, err := fmt.Fprintf(w, "record %d\n", i); err != nil {
			w.CloseWithError(err)
			return
		}
	}
	w.Close()
}

// consume counts the records until the stream ends or the shutdown is seen.
func consume(s *shutdown, r *io.PipeReader) int {
	br := bufio.NewReader(r)
	n := 0
	for {
		if s.isStopped() {
			return n // BUG: the producer's pending Write is never read
		}
		if _, err := br.ReadString('\n'); err != nil {
			return n
		}
		n++
	}
}

func consumeFixed(s *shutdown, r *io.PipeReader) int {
	defer r.Close() // fails the producer's pending Write
	return consume(s, r)
}

func run(t *testing.T, consume func(*shutdown, *io.PipeReader) int, waitAll bool) {
	defer goleak.VerifyNone(t)
	var s shutdown
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.stop() }()
	r, w := io.Pipe()
	go func() { defer wg.Done(); produce(w, 3) }()
	consume(&s, r)
	if waitAll {
		wg.Wait()
	}
}

func TestBug(t *testing.T)   { run(t, consume, false) }
func TestFixed(t *testing.T) { run(t, consumeFixed, true) }
