package net_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
	rtnet "github.com/heddledbg/heddle/rt/net"
)

// TestUDP: datagrams between sockets of the virtual network, as a program on loopback sees
// them.
func TestUDP(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func() string // returns what went wrong, or ""
		want rt.VerdictKind
		msg  string // in the verdict's message
	}{
		{"echo", func() string {
			srv, err := rtnet.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				return err.Error()
			}
			defer srv.Close()
			rt.Go(func() {
				b := make([]byte, 64)
				n, from, err := srv.ReadFromUDP(b)
				if err == nil {
					srv.WriteToUDP(append([]byte("re: "), b[:n]...), from)
				}
			})
			c, err := rtnet.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
			if err != nil {
				return err.Error()
			}
			defer c.Close()
			c.Write([]byte("ping"))
			b := make([]byte, 64)
			n, err := c.Read(b)
			if string(b[:n]) != "re: ping" || err != nil {
				return "read " + string(b[:n])
			}
			if c.RemoteAddr().String() != srv.LocalAddr().String() {
				return "remote address " + c.RemoteAddr().String()
			}
			return ""
		}, rt.VerdictOK, ""},
		{"listen packet and dial", func() string {
			pc, err := rtnet.ListenPacket("udp", "localhost:9053")
			if err != nil {
				return err.Error()
			}
			defer pc.Close()
			c, err := rtnet.Dial("udp", "127.0.0.1:9053")
			if err != nil {
				return err.Error()
			}
			defer c.Close()
			if _, ok := c.(*rtnet.UDPConn); !ok {
				return "Dial of udp returned a " + typeName(c)
			}
			c.Write([]byte("a datagram longer than the buffer"))
			b := make([]byte, 11)
			n, from, err := pc.ReadFrom(b)
			if string(b[:n]) != "a datagram " || err != nil || from.String() != c.LocalAddr().String() {
				return "read " + string(b[:n]) + " from " + from.String()
			}
			return ""
		}, rt.VerdictOK, ""},
		{"nobody bound", func() string {
			c, _ := rtnet.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9999})
			defer c.Close()
			if n, err := c.Write([]byte("lost")); n != 4 || err != nil {
				return "a datagram to a port nobody has bound is lost silently, not " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"read deadline", func() string {
			c, _ := rtnet.ListenUDP("udp", nil)
			defer c.Close()
			c.SetReadDeadline(rt.Now().Add(time.Minute))
			_, _, err := c.ReadFrom(make([]byte, 1))
			var ne net.Error
			if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
				return "ReadFrom past the deadline: " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"close wakes a read", func() string {
			c, _ := rtnet.ListenUDP("udp", nil)
			rt.Go(func() { c.Close() })
			if _, _, err := c.ReadFrom(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
				return "ReadFrom of a closed socket: " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"address in use", func() string {
			a, _ := rtnet.ListenPacket("udp", "127.0.0.1:9054")
			defer a.Close()
			if _, err := rtnet.ListenPacket("udp", "127.0.0.1:9054"); err == nil || !strings.Contains(err.Error(), "address already in use") {
				return "a second bind of the port: " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"outside", func() string {
			c, _ := rtnet.ListenUDP("udp", nil)
			c.WriteTo([]byte("query"), &net.UDPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 53})
			return ""
		}, rt.VerdictUnsupported, "sends UDP to 192.0.2.1:53, outside the process"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wrong string
			res := rt.Run(rt.Config{}, func() { wrong = tc.body() })
			if res.Verdict.Kind != tc.want || !strings.Contains(res.Verdict.Message, tc.msg) {
				t.Fatalf("verdict %s (%s), want %s with %q", res.Verdict.Kind, res.Verdict.Message, tc.want, tc.msg)
			}
			if wrong != "" {
				t.Error(wrong)
			}
		})
	}
}

// TestUDPOrder: which of two senders' datagrams a socket reads first is a decision.
func TestUDPOrder(t *testing.T) {
	seen := map[string]bool{}
	for _, ch := range []rt.Chooser{first{}, last{}} {
		var got string
		res := rt.Run(rt.Config{Chooser: ch}, func() {
			srv, _ := rtnet.ListenUDP("udp", nil)
			defer srv.Close()
			for _, name := range []string{"a", "b"} {
				rt.Go(func() {
					c, _ := rtnet.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
					c.Write([]byte(name))
					c.Close()
				})
			}
			b := make([]byte, 1)
			srv.Read(b)
			got = string(b)
			srv.Read(b)
		})
		if res.Verdict.Kind != rt.VerdictOK {
			t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
		}
		seen[got] = true
	}
	if !seen["a"] || !seen["b"] {
		t.Errorf("first read: %v, want both a and b under some schedule", seen)
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
