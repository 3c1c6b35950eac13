package net_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
	rtnet "github.com/heddledbg/heddle/rt/net"
)

// TestUnix: Unix sockets of the virtual network, their addresses, their errors, and what the
// file system sees of them.
func TestUnix(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(dir string) string // returns what went wrong, or ""
		want rt.VerdictKind
		msg  string // in the verdict's message
	}{
		{"echo and addresses", func(dir string) string {
			path := filepath.Join(dir, "s.sock")
			l, err := rtnet.Listen("unix", path)
			if err != nil {
				return err.Error()
			}
			ul, ok := l.(*rtnet.UnixListener)
			if !ok {
				return "Listen returned a " + reflect.TypeOf(l).String()
			}
			if a := l.Addr(); !reflect.DeepEqual(a, &net.UnixAddr{Name: path, Net: "unix"}) {
				return "listener's address " + a.String()
			}
			server := rt.MakeChan[[2]net.Addr](1)
			rt.Go(func() {
				c, _ := ul.AcceptUnix()
				rt.Send(server, [2]net.Addr{c.LocalAddr(), c.RemoteAddr()})
				io.Copy(c, c)
				c.Close()
			})
			c, err := rtnet.Dial("unix", path)
			if err != nil {
				return err.Error()
			}
			uc, ok := c.(*rtnet.UnixConn)
			if !ok {
				return "Dial returned a " + reflect.TypeOf(c).String()
			}
			// As a kernel gives them (and Go on Linux spells them): the client is unnamed, "@".
			if got, want := [2]net.Addr{uc.LocalAddr(), uc.RemoteAddr()}, [2]net.Addr{&net.UnixAddr{Name: "@", Net: "unix"}, &net.UnixAddr{Name: path, Net: "unix"}}; !reflect.DeepEqual(got, want) {
				return "client's addresses " + got[0].String() + ", " + got[1].String()
			}
			if got, want := rt.Recv(server), [2]net.Addr{&net.UnixAddr{Name: path, Net: "unix"}, &net.UnixAddr{Name: "@", Net: "unix"}}; !reflect.DeepEqual(got, want) {
				return "server's addresses " + got[0].String() + ", " + got[1].String()
			}
			io.WriteString(uc, "hello, ")
			io.WriteString(uc, "world")
			uc.CloseWrite()
			b, err := io.ReadAll(uc)
			if string(b) != "hello, world" || err != nil {
				return "echoed " + string(b)
			}
			if _, err := uc.File(); err == nil || !strings.Contains(err.Error(), "virtual network") {
				return "File of a virtual connection: " + errString(err)
			}
			uc.Close()
			l.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"read waits under control", func(dir string) string {
			// Nobody writes: a reader waiting on the empty connection is a goroutine blocked
			// on an object of the run, so the wait for it is a deadlock heddle reports.
			path := filepath.Join(dir, "s.sock")
			l, _ := rtnet.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
			read := rt.MakeChan[struct{}](0)
			rt.Go(func() {
				c, _ := l.Accept()
				c.Read(make([]byte, 1))
				rt.Send(read, struct{}{})
			})
			c, _ := rtnet.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
			defer c.Close()
			rt.Recv(read)
			return ""
		}, rt.VerdictDeadlock, ""},
		{"a write completes a waiting read", func(dir string) string {
			path := filepath.Join(dir, "s.sock")
			l, _ := rtnet.Listen("unix", path)
			got := rt.MakeChan[string](1)
			rt.Go(func() {
				c, _ := l.Accept()
				b := make([]byte, 10)
				n, err := c.Read(b)
				rt.Send(got, string(b[:n])+" "+errString(err))
				c.Close()
			})
			c, _ := rtnet.Dial("unix", path)
			rt.Sleep(time.Second) // the reader waits
			io.WriteString(c, "ping")
			if s := rt.Recv(got); s != "ping no error" {
				return "read " + s
			}
			c.Close()
			l.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"close", func(dir string) string {
			path := filepath.Join(dir, "s.sock")
			l, _ := rtnet.Listen("unix", path)
			if fi, err := os.Stat(path); err != nil || fi.Mode()&os.ModeSocket == 0 {
				return "the listener's path: " + errString(err)
			}
			rt.Go(func() {
				c, _ := l.Accept()
				c.Close()
			})
			c, _ := rtnet.Dial("unix", path)
			if _, err := c.Read(make([]byte, 1)); err != io.EOF {
				return "Read from a closed peer: " + errString(err)
			}
			c.Close()
			if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
				return "Read after Close: " + errString(err)
			}
			l.Close()
			if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
				return "Accept after Close: " + errString(err)
			}
			if err := l.Close(); !errors.Is(err, net.ErrClosed) {
				return "second Close: " + errString(err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				return "the path after Close: " + errString(err)
			}
			// The path is free again.
			l, err := rtnet.Listen("unix", path)
			if err != nil {
				return "Listen after Close: " + err.Error()
			}
			l.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"errors", func(dir string) string {
			path := filepath.Join(dir, "s.sock")
			// Nobody listens and no file: what Go gives for a missing file.
			_, err := rtnet.Dial("unix", path)
			if !errors.Is(err, syscall.ENOENT) || err.Error() != "dial unix "+path+": connect: no such file or directory" {
				return "Dial of a path nobody listens on: " + errString(err)
			}
			l, _ := rtnet.Listen("unix", path)
			_, err = rtnet.Listen("unix", path)
			if !errors.Is(err, syscall.EADDRINUSE) || err.Error() != "listen unix "+path+": bind: address already in use" {
				return "second Listen of a path: " + errString(err)
			}
			// The same file under another spelling of its path.
			if _, err := rtnet.Listen("unix", filepath.Join(dir, ".", "s.sock")); !errors.Is(err, syscall.EADDRINUSE) {
				return "Listen of the path spelled otherwise: " + errString(err)
			}
			if _, err := rtnet.Dial("unixpacket", path); !errors.Is(err, syscall.EPROTOTYPE) {
				return "unixpacket Dial of a unix listener: " + errString(err)
			}
			// Closed without unlinking: the file stays, as a stale socket file does.
			l.(*rtnet.UnixListener).SetUnlinkOnClose(false)
			l.Close()
			if _, err := rtnet.Dial("unix", path); !errors.Is(err, syscall.ECONNREFUSED) {
				return "Dial of a stale socket file: " + errString(err)
			}
			if _, err := rtnet.Listen("unix", path); !errors.Is(err, syscall.EADDRINUSE) {
				return "Listen on a stale socket file: " + errString(err)
			}
			if _, err := rtnet.Listen("unix", filepath.Join(dir, "nodir", "s.sock")); !errors.Is(err, syscall.ENOENT) {
				return "Listen in a missing directory: " + errString(err)
			}
			if _, err := rtnet.Dial("unix", ""); err == nil || err.Error() != "dial unix: missing address" {
				return "Dial of no path: " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"unixpacket keeps boundaries", func(dir string) string {
			path := filepath.Join(dir, "p.sock")
			l, _ := rtnet.Listen("unixpacket", path)
			rt.Go(func() {
				c, _ := l.Accept()
				io.WriteString(c, "hello")
				io.WriteString(c, "world")
				c.Close()
			})
			c, _ := rtnet.Dial("unixpacket", path)
			b := make([]byte, 3)
			n, _ := c.Read(b)
			m, _ := c.Read(make([]byte, 10))
			_, err := c.Read(b)
			if string(b[:n]) != "hel" || m != 5 || err != io.EOF {
				return "reads of two packets: " + string(b[:n]) + ", " + errString(err)
			}
			c.Close()
			l.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"ListenConfig", func(dir string) string {
			var lc rtnet.ListenConfig
			l, err := lc.Listen(context.Background(), "unix", filepath.Join(dir, "s.sock"))
			if _, ok := l.(*rtnet.UnixListener); !ok || err != nil {
				return "ListenConfig.Listen of unix: " + reflect.TypeOf(l).String() + " " + errString(err)
			}
			tl, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
			if _, ok := tl.(*rtnet.TCPListener); !ok || err != nil {
				return "ListenConfig.Listen of tcp: " + reflect.TypeOf(tl).String() + " " + errString(err)
			}
			pc, err := lc.ListenPacket(context.Background(), "udp", "127.0.0.1:0")
			if _, ok := pc.(*rtnet.UDPConn); !ok || err != nil {
				return "ListenConfig.ListenPacket of udp: " + reflect.TypeOf(pc).String() + " " + errString(err)
			}
			rt.Go(func() {
				c, _ := rtnet.Dial("tcp", tl.Addr().String())
				io.WriteString(c, "x")
				c.Close()
			})
			c, _ := tl.Accept()
			b, _ := io.ReadAll(c)
			if string(b) != "x" {
				return "read over ListenConfig's tcp listener: " + string(b)
			}
			c.Close()
			l.Close()
			tl.Close()
			pc.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"ListenConfig with Control", func(dir string) string {
			lc := rtnet.ListenConfig{Control: func(network, address string, c syscall.RawConn) error { return nil }}
			lc.Listen(context.Background(), "unix", filepath.Join(dir, "s.sock"))
			return "Listen with a Control hook returned"
		}, rt.VerdictUnsupported, "Control hook"},
		{"dial outside", func(dir string) string {
			rtnet.Dial("unix", filepath.Join(dir, "outside.sock"))
			return "Dial of a real listener returned"
		}, rt.VerdictUnsupported, "outside.sock outside the process"},
		{"real client", func(dir string) string {
			path := filepath.Join(dir, "s.sock")
			l, _ := rtnet.Listen("unix", path)
			defer l.Close()
			// Code heddle does not instrument: a real dial of the listener's path.
			c, err := net.Dial("unix", path)
			if err != nil {
				return "real dial: " + err.Error()
			}
			defer c.Close()
			c.Read(make([]byte, 1)) // until the listener's real socket closes it
			rt.Sleep(time.Second)
			return ""
		}, rt.VerdictUnsupported, "connected to the Unix socket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.name == "dial outside" {
				ln, err := net.Listen("unix", filepath.Join(dir, "outside.sock"))
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
			}
			var wrong string
			res := rt.Run(rt.Config{}, func() { wrong = tc.body(dir) })
			if wrong != "" {
				t.Error(wrong)
			}
			if res.Verdict.Kind != tc.want || !strings.Contains(res.Verdict.Message, tc.msg) {
				t.Errorf("verdict %s: %q, want %s with %q", res.Verdict.Kind, res.Verdict.Message, tc.want, tc.msg)
			}
		})
	}
}

// TestUnixLeftOpen: a run that leaves its listener open does not keep its path from the next
// run, which listens on it again.
func TestUnixLeftOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	for i := range 3 {
		var err error
		res := rt.Run(rt.Config{}, func() { _, err = rtnet.Listen("unix", path) })
		if res.Verdict.Kind != rt.VerdictOK || err != nil {
			t.Fatalf("run %d: verdict %s, Listen: %v", i, res.Verdict.Kind, err)
		}
	}
}

// TestUnixOutsideRun: outside a run, Unix sockets are the real ones, in rt/net's types.
func TestUnixOutsideRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := rtnet.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, ok := l.(*rtnet.UnixListener); !ok {
		t.Fatalf("Listen returned a %T", l)
	}
	go func() {
		c, err := l.Accept()
		if err == nil {
			io.WriteString(c, "real")
			c.Close()
		}
	}()
	c, err := (&rtnet.Dialer{}).DialContext(context.Background(), "unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*rtnet.UnixConn); !ok {
		t.Fatalf("Dial returned a %T", c)
	}
	if b, _ := io.ReadAll(c); string(b) != "real" {
		t.Errorf("read %q over a real Unix socket", b)
	}
	var lc rtnet.ListenConfig
	pc, err := lc.ListenPacket(context.Background(), "unixgram", filepath.Join(filepath.Dir(path), "g.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, ok := pc.(*rtnet.UnixConn); !ok {
		t.Errorf("ListenPacket of unixgram returned a %T", pc)
	}
}
