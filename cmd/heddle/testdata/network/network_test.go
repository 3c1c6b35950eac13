// Package network has tests of connections on heddle's virtual network.
package network

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// TestReadDeadline reads from a connection nobody writes to, with a read deadline a minute
// away: the read fails with the deadline error once the minute has passed, which under heddle
// is a minute of the virtual clock, and no real wait.
func TestReadDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(io.Discard, c)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	c.SetReadDeadline(start.Add(time.Minute))
	_, err = c.Read(make([]byte, 1))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read: %v, want the deadline error", err)
	}
	if waited := time.Since(start); waited < time.Minute {
		t.Fatalf("Read failed after %v, before its deadline", waited)
	}
}
