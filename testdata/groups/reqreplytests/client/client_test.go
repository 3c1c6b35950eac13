// Package client's test sends one request line to reqreplytests' server and checks the reply.
package client

import (
	"net"
	"testing"
)

func TestRequest(t *testing.T) {
	conn, err := net.Dial("tcp", "127.0.0.1:7071")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 64)
	n, err := conn.Read(reply)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(reply[:n]); got != "re: ping\n" {
		t.Fatalf("reply %q", got)
	}
}
