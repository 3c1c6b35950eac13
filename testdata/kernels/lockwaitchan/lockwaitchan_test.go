// Pattern: mixed channel-and-mutex cycle. Close holds the transport mutex while waiting for the
// reader goroutine to exit, and the reader needs that mutex for its per-frame bookkeeping.
// Modeled on: gRPC-Go http2Client/http2Server Close vs. reader-loop deadlocks (GoKer grpc
// kernels).
// Fix: CloseFixed updates the state under the lock but waits for the reader after unlocking.
package lockwaitchan

import (
	"sync"
	"testing"
)

type http2Client struct {
	mu         sync.Mutex
	state      string
	lastFrame  string
	framer     chan string
	handled    chan string
	readerDone chan struct{}
}

func newHTTP2Client() *http2Client {
	t := &http2Client{state: "reachable", framer: make(chan string, 1), handled: make(chan string), readerDone: make(chan struct{})}
	go t.reader()
	return t
}

func (t *http2Client) reader() {
	defer close(t.readerDone)
	for f := range t.framer {
		t.handled <- f // deliver to the stream
		t.mu.Lock()
		t.lastFrame = f
		t.mu.Unlock()
	}
}

func (t *http2Client) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state = "closing"
	close(t.framer)
	<-t.readerDone // BUG: waits for the reader while holding t.mu
}

func (t *http2Client) CloseFixed() {
	t.mu.Lock()
	t.state = "closing"
	t.mu.Unlock()
	close(t.framer)
	<-t.readerDone
}

func run(closeFn func(*http2Client)) {
	c := newHTTP2Client()
	c.framer <- "HEADERS stream=1"
	<-c.handled
	closeFn(c) // the reader is usually done with its bookkeeping by now
}

func TestBug(t *testing.T)   { run((*http2Client).Close) }
func TestFixed(t *testing.T) { run((*http2Client).CloseFixed) }
