// Package client's test sends one request line to reqreplytests' server and checks the reply.
// It dials through a net.Dialer, which reaches the group by rt/net's hook for addresses
// outside the process, where net.Dial reaches it directly.
package client

import (
	"net"
	"testing"
)

func TestRequest(t *testing.T) {
	var d net.Dialer
	conn, err := d.Dial("tcp", "127.0.0.1:7071")
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
