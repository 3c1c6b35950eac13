// Package outside has tests that heddle cannot control, because their goroutines wait for
// each other inside the standard library's networking code.
package outside

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
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

// TestAccept's goroutine waits in Accept on a real socket (a ListenConfig's listener is not
// one of heddle's virtual network) for a connection that only the test can make.
func TestAccept(t *testing.T) {
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan bool)
	go func() {
		conn, err := ln.Accept()
		if err == nil {
			conn.Close()
		}
		accepted <- err == nil
	}()
	var mu sync.Mutex
	mu.Lock()
	mu.Unlock()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	<-accepted
}
