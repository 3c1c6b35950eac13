package net_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
	rtnet "github.com/heddledbg/heddle/rt/net"
)

type first struct{}

func (first) Choose(p *rt.Point) int { return 0 }

type last struct{}

func (last) Choose(p *rt.Point) int { return len(p.Alts) - 1 }

// TestReadDeadline: a read whose deadline passes with nobody writing fails with
// os.ErrDeadlineExceeded, a net.Error that is a timeout, once the virtual clock reaches the
// deadline: an hour of virtual time, and no real wait.
func TestReadDeadline(t *testing.T) {
	var err error
	var waited time.Duration
	start := time.Now()
	res := rt.Run(rt.Config{}, func() {
		l, _ := rtnet.Listen("tcp", "127.0.0.1:0")
		defer l.Close()
		rt.Go(func() {
			c, err := l.Accept()
			if err == nil {
				defer c.Close()
				io.Copy(io.Discard, c) // reads, never writes
			}
		})
		c, _ := rtnet.Dial("tcp", l.Addr().String())
		defer c.Close()
		t0 := rt.Now()
		c.SetReadDeadline(t0.Add(time.Hour))
		_, err = c.Read(make([]byte, 1))
		waited = rt.Now().Sub(t0)
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("Read past the deadline: %v, want a timeout with os.ErrDeadlineExceeded", err)
	}
	// Each reading of the clock moves it on by 100 ns (rt.Now).
	if waited < time.Hour || waited > time.Hour+time.Millisecond {
		t.Errorf("Read returned after %v of virtual time, want 1h and the readings' nanoseconds", waited)
	}
	if real := time.Since(start); real > time.Minute {
		t.Errorf("the run took %v of real time", real)
	}
}

// TestConn: what a connection carries, and how its ends close.
func TestConn(t *testing.T) {
	// A listener of another program, which the run's dial must not take for its own.
	outsider, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer outsider.Close()
	for _, tc := range []struct {
		name string
		body func() string // returns what went wrong, or ""
		want rt.VerdictKind
		msg  string // in the verdict's message
	}{
		{"echo", func() string {
			l, _ := rtnet.Listen("tcp", "localhost:8080")
			rt.Go(func() {
				c, _ := l.Accept()
				io.Copy(c, c)
				c.Close()
			})
			c, err := rtnet.Dial("tcp", "127.0.0.1:8080")
			if err != nil {
				return err.Error()
			}
			io.WriteString(c, "hello, ")
			io.WriteString(c, "world")
			c.(interface{ CloseWrite() error }).CloseWrite()
			b, err := io.ReadAll(c)
			if string(b) != "hello, world" || err != nil {
				return "echoed " + string(b)
			}
			c.Close()
			l.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"closed listener", func() string {
			l, _ := rtnet.Listen("tcp", ":0")
			addr := l.Addr().String()
			l.Close()
			if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
				return "Accept after Close: " + errString(err)
			}
			if _, err := rtnet.Dial("tcp", addr); err == nil || !strings.Contains(err.Error(), "connection refused") {
				return "Dial of a closed listener: " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"write to closed peer", func() string {
			l, _ := rtnet.Listen("tcp", ":0")
			rt.Go(func() {
				c, _ := l.Accept()
				c.Close()
			})
			c, _ := rtnet.Dial("tcp", l.Addr().String())
			if _, err := c.Read(make([]byte, 1)); err != io.EOF {
				return "Read from a closed peer: " + errString(err)
			}
			c.Close()
			if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
				return "Read after Close: " + errString(err)
			}
			l.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"deadline moved while reading", func() string {
			l, _ := rtnet.Listen("tcp", ":0")
			rt.Go(func() {
				c, _ := l.Accept()
				io.Copy(io.Discard, c)
				c.Close()
			})
			c, _ := rtnet.Dial("tcp", l.Addr().String())
			done := rt.MakeChan[error](1)
			rt.Go(func() {
				_, err := c.Read(make([]byte, 1))
				rt.Send(done, err)
			})
			rt.Sleep(time.Second) // the reader waits
			c.SetReadDeadline(time.Unix(1, 0))
			err := rt.Recv(done)
			c.Close()
			l.Close()
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				return "Read aborted by a deadline in the past: " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"ListenTCP and DialTCP", func() string {
			l, err := rtnet.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				return err.Error()
			}
			rt.Go(func() {
				c, _ := l.AcceptTCP()
				c.SetNoDelay(true)
				io.Copy(c, c)
				c.Close()
			})
			c, err := rtnet.DialTCP("tcp", nil, l.Addr().(*net.TCPAddr))
			if err != nil {
				return err.Error()
			}
			io.WriteString(c, "hello")
			c.CloseWrite()
			b, err := io.ReadAll(c)
			if string(b) != "hello" || err != nil {
				return "echoed " + string(b)
			}
			if _, err := c.File(); err == nil || !strings.Contains(err.Error(), "virtual network") {
				return "File of a virtual connection: " + errString(err)
			}
			c.Close()
			l.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"Listen returns a TCPListener", func() string {
			l, _ := rtnet.Listen("tcp", ":0")
			rt.Go(func() {
				c, _ := rtnet.Dial("tcp", l.Addr().String())
				if _, ok := c.(*rtnet.TCPConn); !ok {
					panic("Dial returned a " + reflect.TypeOf(c).String())
				}
				c.Close()
			})
			tl, ok := l.(*rtnet.TCPListener)
			if !ok {
				return "Listen returned a " + reflect.TypeOf(l).String()
			}
			c, err := tl.Accept()
			if err != nil {
				return err.Error()
			}
			c.Close()
			l.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"accept deadline", func() string {
			l, _ := rtnet.ListenTCP("tcp", nil)
			l.SetDeadline(rt.Now().Add(time.Minute))
			_, err := l.Accept()
			l.Close()
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				return "Accept past its deadline: " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"net.Pipe", func() string {
			a, b := rtnet.Pipe()
			rt.Go(func() {
				io.WriteString(a, "hello")
				a.Close()
			})
			got, err := io.ReadAll(b)
			if string(got) != "hello" || err != nil {
				return "read " + string(got) + ", " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"net.Pipe read deadline", func() string {
			a, _ := rtnet.Pipe()
			a.SetReadDeadline(rt.Now().Add(time.Hour))
			if _, err := a.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
				return "Read past its deadline: " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"net.Pipe writer nobody reads", func() string {
			a, _ := rtnet.Pipe()
			rt.Go(func() { a.Write([]byte("x")) })
			return ""
		}, rt.VerdictLeak, ""},
		{"dial outside", func() string {
			rtnet.Dial("tcp", "192.0.2.1:80")
			return "Dial of an address outside the process returned"
		}, rt.VerdictUnsupported, "dials 192.0.2.1:80 outside the process"},
		// go-retryablehttp's TestClient_Do dials, and retries, before its server listens on
		// a given port: refused, as net's dial is, then connected.
		{"dial before listen", func() string {
			port := freePort(t)
			addr := "127.0.0.1:" + strconv.Itoa(port)
			_, want := net.Dial("tcp", addr)
			_, err := rtnet.Dial("tcp", addr)
			if !errors.Is(err, syscall.ECONNREFUSED) || errString(err) != errString(want) {
				return fmt.Sprintf("Dial before Listen: %v, want %v", err, want)
			}
			l, err := rtnet.Listen("tcp", addr)
			if err != nil {
				return err.Error()
			}
			defer l.Close()
			c, err := rtnet.Dial("tcp", addr)
			if err != nil {
				return "Dial after Listen: " + err.Error()
			}
			c.Close()
			return ""
		}, rt.VerdictOK, ""},
		{"dial of a port another program holds", func() string {
			rtnet.Dial("tcp", outsider.Addr().String())
			return "Dial of a port outside the process returned"
		}, rt.VerdictUnsupported, "dials " + outsider.Addr().String() + " outside the process"},
		{"real client of port 0", func() string {
			l, err := rtnet.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err.Error()
			}
			return realClient(l.Addr().(*net.TCPAddr).Port)
		}, rt.VerdictUnsupported, "connected to 127.0.0.1:"},
		// retryablehttp's TestClient_Do: a dependency's http.Transport dials the port the
		// test's server listens on.
		{"real client of a given port", func() string {
			port := freePort(t)
			if _, err := rtnet.Listen("tcp", ":"+strconv.Itoa(port)); err != nil {
				return err.Error()
			}
			return realClient(port)
		}, rt.VerdictUnsupported, "connected to 127.0.0.1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wrong string
			res := rt.Run(rt.Config{}, func() { wrong = tc.body() })
			if wrong != "" {
				t.Error(wrong)
			}
			if res.Verdict.Kind != tc.want || !strings.Contains(res.Verdict.Message, tc.msg) {
				t.Errorf("verdict %s: %q, want %s with %q", res.Verdict.Kind, res.Verdict.Message, tc.want, tc.msg)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// TestAcceptOrder: which of two pending connections a server accepts first is a decision, on
// TCP and on Unix sockets.
func TestAcceptOrder(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			address := ":0"
			if network == "unix" {
				address = filepath.Join(t.TempDir(), "s.sock")
			}
			seen := map[string]bool{}
			for _, ch := range []rt.Chooser{first{}, last{}} {
				var got string
				res := rt.Run(rt.Config{Chooser: ch}, func() {
					l, _ := rtnet.Listen(network, address)
					done := rt.MakeChan[struct{}](2)
					for _, name := range []string{"a", "b"} {
						rt.Go(func() {
							c, _ := rtnet.Dial(network, l.Addr().String())
							io.WriteString(c, name)
							c.Close()
							rt.Send(done, struct{}{})
						})
					}
					c, _ := l.Accept()
					b, _ := io.ReadAll(c)
					got = string(b)
					c.Close()
					c, _ = l.Accept()
					io.ReadAll(c)
					c.Close()
					rt.Recv(done)
					rt.Recv(done)
					l.Close()
				})
				if res.Verdict.Kind != rt.VerdictOK {
					t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
				}
				seen[got] = true
			}
			if !seen["a"] || !seen["b"] {
				t.Errorf("first accepted: %v, want both a and b under some schedule", seen)
			}
		})
	}
}

// TestWriteAfterPeerClose: a write racing with the peer's close either is buffered and lost or
// fails with EPIPE, as on a socket; which is a decision, so both are explored.
func TestWriteAfterPeerClose(t *testing.T) {
	seen := map[string]bool{}
	for _, ch := range []rt.Chooser{first{}, last{}} {
		res := rt.Run(rt.Config{Chooser: ch}, func() {
			l, _ := rtnet.Listen("tcp", ":0")
			rt.Go(func() {
				c, _ := l.Accept()
				c.Close()
			})
			c, _ := rtnet.Dial("tcp", l.Addr().String())
			io.ReadAll(c)
			_, err := c.Write([]byte("x"))
			seen[errString(err)] = true
			c.Close()
			l.Close()
		})
		if res.Verdict.Kind != rt.VerdictOK {
			t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
		}
	}
	if !seen["no error"] || len(seen) != 2 {
		t.Errorf("outcomes of the write: %v, want no error and broken pipe", seen)
	}
	for out := range seen {
		if out != "no error" && !strings.Contains(out, "broken pipe") {
			t.Errorf("write to a closed peer: %s, want broken pipe", out)
		}
	}
}

// TestDialTrace: a dial with an httptrace.ClientTrace in its context tells it of the
// connection, as net's dial does.
func TestDialTrace(t *testing.T) {
	var events []string
	res := rt.Run(rt.Config{}, func() {
		l, _ := rtnet.Listen("tcp", "127.0.0.1:0")
		defer l.Close()
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			ConnectStart: func(network, addr string) { events = append(events, "start "+network) },
			ConnectDone: func(network, addr string, err error) {
				events = append(events, "done "+network+" "+errString(err))
			},
		})
		c, err := (&rtnet.Dialer{}).DialContext(ctx, "tcp", l.Addr().String())
		if err == nil {
			c.Close()
		}
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	if want := []string{"start tcp", "done tcp no error"}; !reflect.DeepEqual(events, want) {
		t.Errorf("trace %q, want %q", events, want)
	}
}

// TestListenAddr compares a virtual listener's address with a real one's, on this machine, for
// the hosts programs listen on: code reads it (raft's transport refuses to advertise an
// unspecified address, a server prints where it listens). The ports differ; the addresses
// must not.
func TestListenAddr(t *testing.T) {
	for _, network := range []string{"tcp", "tcp4", "tcp6"} {
		for _, address := range []string{":0", "0.0.0.0:0", "[::]:0", "localhost:0", "127.0.0.1:0"} {
			real, err := net.Listen(network, address)
			if err != nil {
				continue // as Go: tcp6 on an IPv4 address
			}
			want := real.Addr().(*net.TCPAddr).IP.String()
			real.Close()
			var got string
			res := rt.Run(rt.Config{}, func() {
				l, err := rtnet.Listen(network, address)
				if err != nil {
					got = err.Error()
					return
				}
				got = l.Addr().(*net.TCPAddr).IP.String()
				l.Close()
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("%s %s: verdict %s: %s", network, address, res.Verdict.Kind, res.Verdict.Message)
			}
			if got != want {
				t.Errorf("Listen(%q, %q).Addr() has IP %s, want %s as a real listener has", network, address, got, want)
			}
		}
	}
}

// realClient connects to the loopback port over a real socket, as code heddle does not
// instrument does, and waits for the connection to end.
func realClient(port int) string {
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return "a real client's dial of a listener of the run: " + err.Error()
	}
	defer c.Close()
	io.ReadAll(c)
	return ""
}

// freePort returns a loopback port that nothing listens on.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
