// Package outside has tests that heddle cannot control, because their goroutines wait for
// each other inside the standard library's code or the operating system.
package outside

import (
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"testing/synctest"

	"example.com/rendezvous"
)

// TestHandler's handler runs on a goroutine that net/http starts, not the test: the server's
// Serve is called through a method value, which the instrumenter leaves to net/http.
func TestHandler(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})}
	serve := srv.Serve
	go serve(ln)
	resp, err := http.Get("http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	srv.Close()
}

// TestPipe's goroutine waits in a read of a real pipe (the operating system's, outside heddle's
// control) for bytes that only the test writes.
func TestPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	read := make(chan bool)
	go func() {
		_, err := r.Read(make([]byte, 1))
		read <- err == nil
	}()
	var mu sync.Mutex
	mu.Lock()
	mu.Unlock()
	w.Write([]byte{1})
	<-read
}

// TestBubble's bubble hands a value to a goroutine of its own through a dependency's channel,
// which heddle does not instrument: the bubble's function waits in the dependency's select
// (jrpc2's TestSeq dials a listener of creachadair/mds/mnet so).
func TestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := rendezvous.New()
		got := make(chan int)
		go func() { got <- p.Recv() }()
		if err := p.Send(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		if v := <-got; v != 1 {
			t.Errorf("received %d, want 1", v)
		}
	})
}
