package http_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	stdhttptest "net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/rt"
	rttls "github.com/heddledbg/heddle/rt/crypto/tls"
	rtnet "github.com/heddledbg/heddle/rt/net"
	rthttp "github.com/heddledbg/heddle/rt/net/http"
	"github.com/heddledbg/heddle/rt/net/http/httptest"
)

// serve starts srv on a listener of the virtual network and returns its base URL and a
// function that closes it and waits for Serve to return.
func serve(srv *http.Server) (string, func()) {
	l, err := rtnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	served := rt.MakeChan[error](1)
	rt.Go(func() { rt.Send(served, rthttp.ServerServe(srv, l)) })
	return "http://" + l.Addr().String(), func() {
		rthttp.ServerClose(srv)
		if err := rt.Recv(served); err != http.ErrServerClosed {
			panic("Serve returned " + err.Error())
		}
	}
}

// againstNetHTTP runs body in a run, which must end with one of the verdicts ok (rt.VerdictOK
// if none), and compares what body returned with want, what the same code gave with net/http.
func againstNetHTTP(t *testing.T, want string, body func() string, ok ...rt.VerdictKind) {
	t.Helper()
	var got string
	res := rt.Run(rt.Config{}, func() { got = body() })
	if ok = append(ok, rt.VerdictOK); !slices.Contains(ok, res.Verdict.Kind) {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	if got != want {
		t.Errorf("in a run:\n%s\nwith net/http:\n%s", got, want)
	}
}

// A connLog is a server's ConnState hook that records the requests each connection served,
// in the order the connections came.
type connLog struct {
	conns  map[net.Conn]int
	served []int
}

func (l *connLog) hook(c net.Conn, s http.ConnState) {
	if l.conns == nil {
		l.conns = map[net.Conn]int{}
	}
	if _, ok := l.conns[c]; !ok {
		l.conns[c] = len(l.conns)
		l.served = append(l.served, 0)
	}
	if s == http.StateActive {
		l.served[l.conns[c]]++
	}
}

// locked has srv's ConnState hook, which net/http calls on goroutines of its own, take mu.
func locked(srv *http.Server, mu *sync.Mutex) {
	hook := srv.ConnState
	srv.ConnState = func(c net.Conn, s http.ConnState) { mu.Lock(); hook(c, s); mu.Unlock() }
}

// TestExchange: requests and responses as net/http's clients and handlers see them.
func TestExchange(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		do      func(url string) (*http.Response, error)
		status  int
		body    string
		header  map[string]string
	}{
		{"get", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "<html>"+r.URL.Query().Get("q"))
		}, func(url string) (*http.Response, error) { return http.Get(url + "/?q=hi") },
			200, "<html>hi", map[string]string{"Content-Type": "text/html; charset=utf-8", "Content-Length": "8"}},
		{"post", func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusCreated)
			w.Write(append(b, '!'))
		}, func(url string) (*http.Response, error) {
			return http.Post(url, "text/plain", strings.NewReader("body"))
		}, 201, "body!", map[string]string{"Content-Type": "text/plain"}},
		{"streamed", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "one ")
			w.(http.Flusher).Flush()
			io.WriteString(w, "two")
		}, func(url string) (*http.Response, error) { return http.Get(url) },
			200, "one two", map[string]string{"Content-Length": ""}},
		{"panic", func(w http.ResponseWriter, r *http.Request) {
			panic(http.ErrAbortHandler)
		}, func(url string) (*http.Response, error) { return http.Get(url) },
			0, "", nil},
		{"not found", http.NotFound, func(url string) (*http.Response, error) { return http.Get(url) },
			404, "404 page not found\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var resp *http.Response
			var body []byte
			var err error
			res := rt.Run(rt.Config{}, func() {
				url, stop := serve(&http.Server{Handler: tc.handler})
				defer stop()
				if resp, err = tc.do(url); err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if tc.status == 0 {
				if err == nil {
					t.Errorf("a handler that aborted: %s, want an error", resp.Status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status || string(body) != tc.body {
				t.Errorf("%s %q, want %d %q", resp.Status, body, tc.status, tc.body)
			}
			for k, v := range tc.header {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("header %s: %q, want %q", k, got, v)
				}
			}
		})
	}
}

// TestHijack: a handler that takes the connection talks on it as it likes.
func TestHijack(t *testing.T) {
	var got string
	res := rt.Run(rt.Config{}, func() {
		url, stop := serve(&http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, rw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			rw.WriteString("HTTP/1.1 101 Switching Protocols\r\n\r\n")
			rw.Flush()
			line, _ := rw.ReadString('\n')
			io.WriteString(c, "echo "+line)
			c.Close()
		})})
		defer stop()
		c, err := rtnet.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			panic(err)
		}
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			panic("no upgrade")
		}
		io.WriteString(c, "ping\n")
		b, _ := io.ReadAll(br)
		got = string(b)
		c.Close()
	})
	if res.Verdict.Kind != rt.VerdictOK || got != "echo ping\n" {
		t.Errorf("verdict %s %s, read %q, want echo ping", res.Verdict.Kind, res.Verdict.Message, got)
	}
}

// TestShutdown: Shutdown waits for the request in progress, and the client gets its response.
func TestShutdown(t *testing.T) {
	var body string
	res := rt.Run(rt.Config{}, func() {
		entered, release := rt.MakeChan[struct{}](0), rt.MakeChan[struct{}](0)
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rt.Send(entered, struct{}{})
			rt.Recv(release)
			io.WriteString(w, "done")
		})}
		l, _ := rtnet.Listen("tcp", ":0")
		rt.Go(func() { rthttp.ServerServe(srv, l) })
		got := rt.MakeChan[string](1)
		rt.Go(func() {
			resp, err := http.Get("http://" + l.Addr().String())
			if err != nil {
				rt.Send(got, err.Error())
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			rt.Send(got, string(b))
		})
		rt.Recv(entered)
		rt.Go(func() { rt.Send(release, struct{}{}) })
		if err := rthttp.ServerShutdown(srv, context.Background()); err != nil {
			panic(err)
		}
		body = rt.Recv(got)
	})
	if res.Verdict.Kind != rt.VerdictOK || body != "done" {
		t.Errorf("verdict %s %s, body %q, want done", res.Verdict.Kind, res.Verdict.Message, body)
	}
}

// exchange starts a server, makes one request and closes the server: under rt.Run on the
// virtual network, outside a run on the real one.
func exchange() {
	url, stop := serve(&http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})})
	resp, err := http.Get(url)
	if err != nil {
		panic(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	stop()
}

// BenchmarkRun measures a run of exchange under heddle.
func BenchmarkRun(b *testing.B) {
	steps := 0
	for b.Loop() {
		res := rt.Run(rt.Config{Reuse: true}, exchange)
		if res.Verdict.Kind != rt.VerdictOK {
			b.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
		}
		steps = res.Steps
	}
	b.ReportMetric(float64(steps), "steps/run")
}

// BenchmarkReal measures exchange outside a run: net/http on loopback sockets.
func BenchmarkReal(b *testing.B) {
	for b.Loop() {
		exchange()
	}
}

// TestDefaultTransportAssertion: a program that asserts that http.DefaultTransport is
// net/http's (to clone it) panics only because heddle stands in for it: the run cannot be
// explored, and is no panic of the program's. Other failed assertions are the program's.
func TestDefaultTransportAssertion(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func()
		want rt.VerdictKind
		msg  string
	}{
		{"DefaultTransport", func() { _ = http.DefaultTransport.(*http.Transport).Clone() },
			rt.VerdictUnsupported, "asserts that http.DefaultTransport is net/http's"},
		{"another type", func() {
			var tr http.RoundTripper = &rthttp.Transport{}
			_ = tr.(*http.Transport)
		}, rt.VerdictUnsupported, "asserts that http.DefaultTransport is net/http's"},
		{"the program's", func() {
			var v any = "text"
			_ = v.(int)
		}, rt.VerdictPanic, "interface conversion: interface {} is string, not int"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Run(rt.Config{}, tc.body)
			if res.Verdict.Kind != tc.want || !strings.Contains(res.Verdict.Message, tc.msg) {
				t.Errorf("verdict %s (%s), want %s with %q", res.Verdict.Kind, res.Verdict.Message, tc.want, tc.msg)
			}
		})
	}
}

// TestShutdownHijacked: a connection is the handler's from its Hijack on, as in net/http:
// Shutdown returns while the handler still reads the hijacked connection, which the client
// closes after.
func TestShutdownHijacked(t *testing.T) {
	res := rt.Run(rt.Config{}, func() {
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, rw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			rw.WriteString("HTTP/1.1 101 Switching Protocols\r\n\r\n")
			rw.Flush()
			io.Copy(io.Discard, rw) // until the client closes
			c.Close()
		})}
		l, _ := rtnet.Listen("tcp", "127.0.0.1:0")
		served := rt.MakeChan[error](1)
		rt.Go(func() { rt.Send(served, rthttp.ServerServe(srv, l)) })
		c, err := rtnet.Dial("tcp", l.Addr().String())
		if err != nil {
			panic(err)
		}
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			panic("no upgrade")
		}
		if err := rthttp.ServerShutdown(srv, context.Background()); err != nil {
			panic(err)
		}
		rt.Recv(served)
		c.Close()
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Errorf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
}

// TestTimeouts: a client's Timeout and a request's context end the exchange on the virtual
// clock, as go test's run sees them end on the real one: a handler that sleeps five seconds
// outlasts a three-second timeout.
func TestTimeouts(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		rt.Sleep(5 * time.Second)
		io.WriteString(w, "late")
	}
	slowBody := func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "early ")
		w.(http.Flusher).Flush()
		rt.Sleep(5 * time.Second)
		io.WriteString(w, "late")
	}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		do      func(url string) (*http.Response, error)
		want    string // in the error, of the request or of its body's read; "" for none
	}{
		{"client timeout", slow, func(url string) (*http.Response, error) {
			return rthttp.ClientGet(&http.Client{Timeout: 3 * time.Second}, url)
		}, "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"},
		{"client timeout not reached", slow, func(url string) (*http.Response, error) {
			return rthttp.ClientGet(&http.Client{Timeout: 10 * time.Second}, url)
		}, ""},
		{"client timeout while reading the body", slowBody, func(url string) (*http.Response, error) {
			return rthttp.ClientGet(&http.Client{Timeout: 3 * time.Second}, url)
		}, "context deadline exceeded"},
		{"context deadline", slow, func(url string) (*http.Response, error) {
			ctx, cancel := rt.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
			return rthttp.ClientDo(&http.Client{}, req)
		}, "context deadline exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			res := rt.Run(rt.Config{}, func() {
				// The handler goes on after the client gave up: wait for it, so that the
				// run does not end with it asleep.
				handled := rt.MakeChan[struct{}](1)
				h := func(w http.ResponseWriter, r *http.Request) {
					defer rt.Send(handled, struct{}{})
					tc.handler(w, r)
				}
				url, stop := serve(&http.Server{Handler: http.HandlerFunc(h)})
				defer stop()
				var resp *http.Response
				if resp, err = tc.do(url); err == nil {
					_, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				rt.Recv(handled)
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one with %q", err, tc.want)
			case tc.want != "" && !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("error %v is not context.DeadlineExceeded", err)
			}
		})
	}
}

// TestRealTransport: a client whose Transport is net/http's own has its requests carried in a
// run as net/http carries them outside one: TLS with its configuration, gzip asked for and
// decompressed unless DisableCompression. Each exchange runs with net/http and net/http/httptest
// outside a run, and under heddle in one, and what the handler and the client saw must match.
func TestRealTransport(t *testing.T) {
	gzipped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := "accept=" + r.Header.Get("Accept-Encoding")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			io.WriteString(w, seen)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, seen)
		zw.Close()
	})
	for _, tc := range []struct {
		name      string
		tls       bool
		transport *http.Transport
	}{
		{"tls", true, &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}},
		{"gzip", false, &http.Transport{}},
		{"no compression", false, &http.Transport{DisableCompression: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exchange := func(start func(http.Handler) string, get func(*http.Client, string) (*http.Response, error)) string {
				url := start(gzipped)
				resp, err := get(&http.Client{Transport: tc.transport}, url)
				if err != nil {
					return "error: " + err.Error()
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				return fmt.Sprintf("%s %q (err %v), uncompressed %v, encoding %q, length %d, tls %v",
					resp.Status, b, err, resp.Uncompressed, resp.Header.Get("Content-Encoding"), resp.ContentLength, resp.TLS != nil)
			}
			want := exchange(func(h http.Handler) string {
				s := stdhttptest.NewUnstartedServer(h)
				if tc.tls {
					s.StartTLS()
				} else {
					s.Start()
				}
				t.Cleanup(s.Close)
				return s.URL
			}, (*http.Client).Get)
			againstNetHTTP(t, want, func() string {
				return exchange(func(h http.Handler) string {
					s := httptest.NewUnstartedServer(h)
					if tc.tls {
						s.StartTLS()
					} else {
						s.Start()
					}
					return s.URL
				}, rthttp.ClientGet)
			}, rt.VerdictLeak)
		})
	}
}

// roundTripper is a RoundTripper of the program's own.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestWrappedTransport: a RoundTripper of the program's that calls an *http.Transport through
// the interface (resty's digest authentication) has its request carried in a run as the
// transport's own RoundTrip has (the instrumenter rewrites the call into
// RoundTripperRoundTrip); any other RoundTripper is called as it is. Before, net/http's own
// transport ran in the run and dialed the test's listener from a goroutine of its own: the
// run could not be explored.
func TestWrappedTransport(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Method+" auth="+r.Header.Get("Authorization"))
	})
	exchange := func(url string, roundTrip func(http.RoundTripper, *http.Request) (*http.Response, error)) string {
		var out []string
		for _, inner := range []http.RoundTripper{
			&http.Transport{},
			roundTripper(func(req *http.Request) (*http.Response, error) {
				req.Header.Set("Authorization", "Digest y")
				return roundTrip(&http.Transport{DisableKeepAlives: true}, req)
			}),
		} {
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("Authorization", "Digest x")
			resp, err := roundTrip(inner, req)
			if err != nil {
				out = append(out, "error: "+err.Error())
				continue
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			out = append(out, fmt.Sprintf("%s %q (err %v)", resp.Status, b, err))
			if tr, ok := inner.(*http.Transport); ok {
				tr.CloseIdleConnections()
			}
		}
		return strings.Join(out, "\n")
	}
	s := stdhttptest.NewServer(h)
	t.Cleanup(s.Close)
	want := exchange(s.URL, http.RoundTripper.RoundTrip)
	againstNetHTTP(t, want, func() string {
		s := httptest.NewServer(h)
		defer s.Close()
		return exchange(s.URL, rthttp.RoundTripperRoundTrip)
	})
}

// TestConnReuse: a client's sequential requests reuse its connection, as net/http's transport
// does: the server's ConnState hook sees as many connections as under net/http, each serving
// as many requests: soheilhy/cmux's tests record their server's connections with the hook and close
// them at the end, which failed under heddle only while its client closed each connection
// after one exchange. A connection the server closed while it was idle is replaced.
func TestConnReuse(t *testing.T) {
	for _, tc := range []struct {
		name      string
		transport *http.Transport
		// idle, if not zero, is the server's read timeout, and twice it the pause between
		// two requests: the server closes the idle connection in between, unless its
		// IdleTimeout, which bounds the wait for the next request in place of the read
		// timeout, is longer.
		idle, idleTimeout time.Duration
	}{
		{"keep-alive", &http.Transport{}, 0, 0},
		{"DisableKeepAlives", &http.Transport{DisableKeepAlives: true}, 0, 0},
		{"closed while idle", &http.Transport{}, 20 * time.Millisecond, 0},
		{"kept by IdleTimeout", &http.Transport{}, 20 * time.Millisecond, time.Hour},
		{"closed by IdleTimeout", &http.Transport{}, 20 * time.Millisecond, 10 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exchange := func(start func(*http.Server) (string, func()), get func(*http.Client, string) (*http.Response, error), sleep func(time.Duration)) string {
				// The requests each connection served, in the order the connections came: when
				// the server sees a connection close, and whether before or after the next one
				// comes, is up to the schedule.
				var log connLog
				srv := &http.Server{
					Handler:   http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }),
					ConnState: log.hook,
				}
				srv.ReadTimeout, srv.IdleTimeout = tc.idle, tc.idleTimeout
				url, stop := start(srv)
				c := &http.Client{Transport: tc.transport}
				var bodies []string
				for i := range 3 {
					if i > 0 && tc.idle > 0 {
						sleep(2 * tc.idle)
					}
					resp, err := get(c, url)
					if err != nil {
						return "error: " + err.Error()
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					bodies = append(bodies, string(b))
				}
				stop()
				return fmt.Sprintf("bodies %q, requests by connection %v", bodies, log.served)
			}
			// Outside a run the hook runs on net/http's goroutines: the sequence is read once
			// the server has closed.
			var mu sync.Mutex
			want := exchange(func(srv *http.Server) (string, func()) {
				locked(srv, &mu)
				s := stdhttptest.NewUnstartedServer(srv.Handler)
				s.Config = srv
				s.Start()
				return s.URL, func() { s.Close(); mu.Lock(); mu.Unlock() }
			}, (*http.Client).Get, time.Sleep)
			againstNetHTTP(t, want, func() string { return exchange(serve, rthttp.ClientGet, rt.Sleep) })
		})
	}
}

// TestUnreadBody: a handler that answers without reading the request's body leaves it on the
// connection; the server drops it, as net/http's does, so that the next request on the kept
// connection is read from its start (heddle's own server refuses a POST from a foreign origin
// before it reads the body, and the next request got 400 Bad Request once the client kept its
// connections).
func TestUnreadBody(t *testing.T) {
	var codes []int
	res := rt.Run(rt.Config{}, func() {
		url, stop := serve(&http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "POST" {
				w.WriteHeader(http.StatusForbidden)
			}
		})})
		defer stop()
		c := &http.Client{}
		for _, method := range []string{"POST", "GET", "POST", "GET"} {
			req, _ := http.NewRequest(method, url, strings.NewReader(`{"step": 1}`))
			resp, err := rthttp.ClientDo(c, req)
			if err != nil {
				t.Error(err)
				return
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
			codes = append(codes, resp.StatusCode)
		}
	})
	if res.Verdict.Kind != rt.VerdictOK || !slices.Equal(codes, []int{403, 200, 403, 200}) {
		t.Errorf("verdict %s (%s), status codes %v, want 403, 200, 403, 200", res.Verdict.Kind, res.Verdict.Message, codes)
	}
}

// TestTransportErrors: a request net/http's transport refuses, it refuses with net/http's error,
// before dialing, where go-retryablehttp's tests expect the error.
func TestTransportErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  func(url string) *http.Request
	}{
		{"header name", func(url string) *http.Request {
			r, _ := http.NewRequest("GET", url, nil)
			r.Header.Set("Header-Name-\033", "v")
			return r
		}},
		{"header value", func(url string) *http.Request {
			r, _ := http.NewRequest("GET", url, nil)
			r.Header.Set("Name", "value\033")
			return r
		}},
		{"scheme", func(url string) *http.Request {
			r, _ := http.NewRequest("GET", "ftp"+strings.TrimPrefix(url, "http"), nil)
			return r
		}},
		{"no header", func(url string) *http.Request {
			r, _ := http.NewRequest("GET", url, nil)
			r.Header = nil
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
			s := stdhttptest.NewServer(h)
			defer s.Close()
			_, want := (&http.Transport{}).RoundTrip(tc.req(s.URL))
			var got error
			res := rt.Run(rt.Config{}, func() {
				url, stop := serve(&http.Server{Handler: h})
				defer stop()
				_, got = http.DefaultTransport.RoundTrip(tc.req(url))
			})
			if res.Verdict.Kind != rt.VerdictOK || want == nil || got == nil || got.Error() != want.Error() {
				t.Errorf("verdict %s (%s); error %v in a run, %v by net/http", res.Verdict.Kind, res.Verdict.Message, got, want)
			}
		})
	}
}

// TestCloseIdle: a request carried through a net/http transport's RoundTrip leaves its
// connection alive, and the client's CloseIdleConnections closes it, as net/http's do: the
// server sees it close while it still serves.
func TestCloseIdle(t *testing.T) {
	var states []http.ConnState
	res := rt.Run(rt.Config{}, func() {
		closed := rt.MakeChan[struct{}](1)
		url, stop := serve(&http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }),
			ConnState: func(_ net.Conn, s http.ConnState) {
				states = append(states, s)
				if s == http.StateClosed {
					rt.Send(closed, struct{}{})
				}
			},
		})
		defer stop()
		tr := &http.Transport{}
		req, _ := http.NewRequest("GET", url, nil)
		resp, err := rthttp.TransportRoundTrip(tr, req)
		if err != nil {
			t.Error(err)
			return
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		rthttp.ClientCloseIdleConnections(&http.Client{Transport: tr})
		rt.Recv(closed)
	})
	want := []http.ConnState{http.StateNew, http.StateActive, http.StateIdle, http.StateClosed}
	if res.Verdict.Kind != rt.VerdictOK || !slices.Equal(states, want) {
		t.Errorf("verdict %s (%s), states %v, want %v", res.Verdict.Kind, res.Verdict.Message, states, want)
	}
}

// TestMaxConnsPerHost compares the stand-in with net/http's transport when MaxConnsPerHost
// connections to the server are in use: a second request waits for the first's connection,
// and takes it once the first's body is read, or gives up when its context ends first. Both
// worlds run the same code, with their own goroutines, wait groups and contexts.
func TestMaxConnsPerHost(t *testing.T) {
	type world struct {
		start   func(*http.Server) (string, func())
		get     func(*http.Client, *http.Request) (*http.Response, error)
		spawn   func(func())
		timeout func(time.Duration) (context.Context, context.CancelFunc)
	}
	for _, tc := range []struct {
		name     string
		max      int
		deadline time.Duration // the second request's, if not zero
	}{
		{"one connection", 1, 0},
		{"no bound", 0, 0},
		{"the waiting request's context ends", 1, 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exchange := func(w world, wait func()) string {
				var log connLog
				srv := &http.Server{
					Handler:   http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { io.WriteString(rw, r.URL.Path) }),
					ConnState: log.hook,
				}
				url, stop := w.start(srv)
				c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: tc.max}}
				req := func(path string, ctx context.Context) *http.Request {
					r, _ := http.NewRequestWithContext(ctx, "GET", url+path, nil)
					return r
				}
				first, err := w.get(c, req("/first", context.Background()))
				if err != nil {
					return "first: " + err.Error()
				}
				var second string
				w.spawn(func() {
					ctx := context.Background()
					if tc.deadline > 0 {
						var cancel context.CancelFunc
						ctx, cancel = w.timeout(tc.deadline)
						defer cancel()
					}
					resp, err := w.get(c, req("/second", ctx))
					switch {
					case errors.Is(err, context.DeadlineExceeded):
						second = "deadline exceeded"
					case err != nil:
						second = err.Error()
					default:
						b, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						second = string(b)
					}
				})
				if tc.max == 0 || tc.deadline > 0 {
					// The second request gets a connection of its own, or gives up, while the
					// first holds its connection.
					wait()
				}
				b, _ := io.ReadAll(first.Body)
				first.Body.Close()
				wait()
				c.CloseIdleConnections()
				stop()
				return fmt.Sprintf("first %q, second %q, requests by connection %v", b, second, log.served)
			}
			var mu sync.Mutex
			var wg sync.WaitGroup
			want := exchange(world{
				start: func(srv *http.Server) (string, func()) {
					locked(srv, &mu)
					s := stdhttptest.NewUnstartedServer(srv.Handler)
					s.Config = srv
					s.Start()
					return s.URL, func() { s.Close(); mu.Lock(); mu.Unlock() }
				},
				get:   (*http.Client).Do,
				spawn: func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() },
				timeout: func(d time.Duration) (context.Context, context.CancelFunc) {
					return context.WithTimeout(context.Background(), d)
				},
			}, wg.Wait)
			var got string
			res := rt.Run(rt.Config{}, func() {
				var rwg rt.WaitGroup
				got = exchange(world{
					start: serve,
					get:   rthttp.ClientDo,
					spawn: func(f func()) { rwg.Add(1); rt.Go(func() { defer rwg.Done(); f() }) },
					timeout: func(d time.Duration) (context.Context, context.CancelFunc) {
						return rt.WithTimeout(context.Background(), d)
					},
				}, rwg.Wait)
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if got != want {
				t.Errorf("in a run:\n%s\nwith net/http:\n%s", got, want)
			}
		})
	}
}

// TestTransportOptions compares the stand-in with net/http's transport on the options a
// client sets to reach its server or to bound its wait: the deprecated Dial, DialTLSContext
// with a connection that has not made its handshake, and ResponseHeaderTimeout, missed and
// met. Both worlds run the same code, with their own dialers, TLS clients and sleeps.
func TestTransportOptions(t *testing.T) {
	type world struct {
		start     func(http.Handler, bool) string
		dial      func(network, addr string) (net.Conn, error)
		tlsClient func(net.Conn, *tls.Config) net.Conn
		sleep     func(time.Duration)
		get       func(*http.Client, string) (*http.Response, error)
	}
	for _, tc := range []struct {
		name      string
		tls       bool
		pause     time.Duration // the handler's, before it answers
		transport func(w world, dials *int) *http.Transport
	}{
		{"Dial", false, 0, func(w world, dials *int) *http.Transport {
			return &http.Transport{Dial: func(network, addr string) (net.Conn, error) { *dials++; return w.dial(network, addr) }}
		}},
		{"DialTLSContext", true, 0, func(w world, dials *int) *http.Transport {
			return &http.Transport{DialTLSContext: func(_ context.Context, network, addr string) (net.Conn, error) {
				*dials++
				c, err := w.dial(network, addr)
				if err != nil {
					return nil, err
				}
				return w.tlsClient(c, &tls.Config{InsecureSkipVerify: true}), nil
			}}
		}},
		// A transport made by code heddle does not instrument, with a net.Dialer of its own
		// (hashicorp/go-cleanhttp's): the dialer's connections are the virtual network's.
		{"a net.Dialer's DialContext", true, 0, func(world, *int) *http.Transport {
			return &http.Transport{DialContext: (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
				TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
		}},
		{"a net.Dialer's Dial", false, 0, func(world, *int) *http.Transport {
			return &http.Transport{Dial: (&net.Dialer{Timeout: 30 * time.Second}).Dial}
		}},
		{"ResponseHeaderTimeout missed", false, 200 * time.Millisecond, func(world, *int) *http.Transport {
			return &http.Transport{ResponseHeaderTimeout: 100 * time.Millisecond}
		}},
		{"ResponseHeaderTimeout met", false, 50 * time.Millisecond, func(world, *int) *http.Transport {
			return &http.Transport{ResponseHeaderTimeout: 100 * time.Millisecond}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exchange := func(w world) string {
				base := w.start(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					w.sleep(tc.pause)
					io.WriteString(rw, r.URL.Path)
				}), tc.tls)
				dials := 0
				c := &http.Client{Transport: tc.transport(w, &dials)}
				var out []string
				for _, path := range []string{"/a", "/b"} {
					resp, err := w.get(c, base+path)
					if err != nil {
						var ue *url.Error
						if errors.As(err, &ue) {
							err = ue.Err
						}
						var te interface{ Timeout() bool }
						out = append(out, fmt.Sprintf("error %q (deadline exceeded %v, timeout %v)", err, errors.Is(err, context.DeadlineExceeded), errors.As(err, &te) && te.Timeout()))
						continue
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					out = append(out, fmt.Sprintf("%s %q tls %v", resp.Status, b, resp.TLS != nil))
				}
				c.CloseIdleConnections()
				return fmt.Sprintf("%s, dials %d", strings.Join(out, "; "), dials)
			}
			want := exchange(world{
				start: func(h http.Handler, tls bool) string {
					s := stdhttptest.NewUnstartedServer(h)
					if tls {
						s.StartTLS()
					} else {
						s.Start()
					}
					t.Cleanup(s.Close)
					return s.URL
				},
				dial:      net.Dial,
				tlsClient: func(c net.Conn, cfg *tls.Config) net.Conn { return tls.Client(c, cfg) },
				sleep:     time.Sleep,
				get:       (*http.Client).Get,
			})
			againstNetHTTP(t, want, func() string {
				return exchange(world{
					start: func(h http.Handler, tls bool) string {
						s := httptest.NewUnstartedServer(h)
						if tls {
							s.StartTLS()
						} else {
							s.Start()
						}
						return s.URL
					},
					dial:      rtnet.Dial,
					tlsClient: func(c net.Conn, cfg *tls.Config) net.Conn { return rttls.Client(c, cfg) },
					sleep:     rt.Sleep,
					get:       rthttp.ClientGet,
				})
			}, rt.VerdictLeak)
		})
	}
}

// TestServerTimeouts compares heddle's server with net/http's on the timeouts that bound a
// request: WriteTimeout, counted from the end of the request's header, missed by a handler
// that answers late and met by one that answers in time, and ReadTimeout, which bounds the
// reading of the body too.
func TestServerTimeouts(t *testing.T) {
	type world struct {
		start func(*http.Server) (string, func())
		sleep func(time.Duration)
		dial  func(network, addr string) (net.Conn, error)
	}
	for _, tc := range []struct {
		name        string
		read, write time.Duration // the server's ReadTimeout and WriteTimeout
		pause       time.Duration // the handler's before it answers, or the client's before the body's last byte
		slowBody    bool
	}{
		{"WriteTimeout missed", 0, 100 * time.Millisecond, 200 * time.Millisecond, false},
		{"WriteTimeout met", 0, 100 * time.Millisecond, 50 * time.Millisecond, false},
		{"ReadTimeout over the body", 100 * time.Millisecond, 0, 200 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exchange := func(w world) string {
				var handled string
				srv := &http.Server{ReadTimeout: tc.read, WriteTimeout: tc.write, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					b, err := io.ReadAll(r.Body)
					handled = fmt.Sprintf("body %q, error %v", b, err != nil)
					if !tc.slowBody {
						w.sleep(tc.pause)
					}
					io.WriteString(rw, "answer")
				})}
				base, stop := w.start(srv)
				defer stop()
				c, err := w.dial("tcp", strings.TrimPrefix(base, "http://"))
				if err != nil {
					return "dial: " + err.Error()
				}
				defer c.Close()
				io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab")
				if tc.slowBody {
					w.sleep(tc.pause)
				}
				io.WriteString(c, "cd")
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					return fmt.Sprintf("handler: %s; client: %v", handled, err)
				}
				b, _ := io.ReadAll(resp.Body)
				return fmt.Sprintf("handler: %s; client: %s %q", handled, resp.Status, b)
			}
			var mu sync.Mutex
			want := exchange(world{
				start: func(srv *http.Server) (string, func()) {
					h := srv.Handler
					srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mu.Lock(); defer mu.Unlock(); h.ServeHTTP(w, r) })
					s := stdhttptest.NewUnstartedServer(srv.Handler)
					s.Config = srv
					s.Start()
					return s.URL, func() { s.Close(); mu.Lock(); mu.Unlock() }
				},
				sleep: time.Sleep,
				dial:  net.Dial,
			})
			againstNetHTTP(t, want, func() string {
				return exchange(world{start: serve, sleep: rt.Sleep, dial: rtnet.Dial})
			})
		})
	}
}

// TestShutdownHooksAndKeepAlives compares heddle's server with net/http's on what a server
// records unexported: the functions registered with RegisterOnShutdown, which Shutdown starts
// each on a goroutine, and SetKeepAlivesEnabled(false), after which every connection serves
// one request.
func TestShutdownHooksAndKeepAlives(t *testing.T) {
	type waitGroup interface {
		Add(int)
		Done()
		Wait()
	}
	type world struct {
		listen   func() (net.Listener, error)
		serve    func(*http.Server, net.Listener) // starts serving
		shutdown func(*http.Server) error
		get      func(*http.Client, string) (*http.Response, error)
		wg       waitGroup
	}
	for _, keepAlives := range []bool{true, false} {
		t.Run(fmt.Sprintf("keep-alives %v", keepAlives), func(t *testing.T) {
			exchange := func(w world) string {
				var log connLog
				srv := &http.Server{
					Handler:   http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { io.WriteString(rw, "hi") }),
					ConnState: log.hook,
				}
				hooks := 0
				w.wg.Add(2)
				for range 2 {
					srv.RegisterOnShutdown(func() { hooks++; w.wg.Done() })
				}
				srv.SetKeepAlivesEnabled(keepAlives)
				l, err := w.listen()
				if err != nil {
					return err.Error()
				}
				w.serve(srv, l)
				c := &http.Client{Transport: &http.Transport{}}
				for range 3 {
					resp, err := w.get(c, "http://"+l.Addr().String())
					if err != nil {
						return err.Error()
					}
					io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				c.CloseIdleConnections()
				err = w.shutdown(srv)
				w.wg.Wait()
				return fmt.Sprintf("shutdown %v, hooks %d, requests by connection %v", err, hooks, log.served)
			}
			var mu sync.Mutex
			var wg sync.WaitGroup
			want := exchange(world{
				listen: func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") },
				serve: func(srv *http.Server, l net.Listener) {
					locked(srv, &mu)
					go srv.Serve(l)
				},
				shutdown: func(srv *http.Server) error {
					err := srv.Shutdown(context.Background())
					mu.Lock()
					mu.Unlock()
					return err
				},
				get: (*http.Client).Get,
				wg:  &wg,
			})
			againstNetHTTP(t, want, func() string {
				return exchange(world{
					listen: func() (net.Listener, error) { return rtnet.Listen("tcp", "127.0.0.1:0") },
					serve:  func(srv *http.Server, l net.Listener) { rt.Go(func() { rthttp.ServerServe(srv, l) }) },
					shutdown: func(srv *http.Server) error {
						return rthttp.ServerShutdown(srv, context.Background())
					},
					get: rthttp.ClientGet,
					wg:  &rt.WaitGroup{},
				})
			})
		})
	}
}

// TestTransportProxy compares the stand-in with net/http's transport on a client with a
// Proxy: a request for an http URL goes to the proxy in absolute form, with the proxy's
// credentials, and a Proxy that fails fails the request.
func TestTransportProxy(t *testing.T) {
	type world struct {
		start func(http.Handler) string
		get   func(*http.Client, string) (*http.Response, error)
	}
	exchange := func(w world) string {
		proxy := w.start(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(rw, "%s %s, authorization %q", r.Method, r.URL, r.Header.Get("Proxy-Authorization"))
		}))
		u, _ := url.Parse(proxy)
		u.User = url.UserPassword("user", "secret")
		var out []string
		for _, p := range []func(*http.Request) (*url.URL, error){
			http.ProxyURL(u),
			func(*http.Request) (*url.URL, error) { return nil, errors.New("no proxy for you") },
		} {
			c := &http.Client{Transport: &http.Transport{Proxy: p}}
			resp, err := w.get(c, "http://service.test/path?q=1")
			if err != nil {
				var ue *url.Error
				if errors.As(err, &ue) {
					err = ue.Err
				}
				out = append(out, "error "+err.Error())
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			out = append(out, string(b))
			c.CloseIdleConnections()
		}
		return strings.Join(out, "; ")
	}
	want := exchange(world{
		start: func(h http.Handler) string { s := stdhttptest.NewServer(h); t.Cleanup(s.Close); return s.URL },
		get:   (*http.Client).Get,
	})
	againstNetHTTP(t, want, func() string {
		return exchange(world{start: func(h http.Handler) string { return httptest.NewServer(h).URL }, get: rthttp.ClientGet})
	}, rt.VerdictLeak)
}

// TestClientTrace compares the httptrace.ClientTrace hooks that the stand-in calls with
// net/http's transport's, over a new connection and a kept one, plain and with TLS: resty's
// TraceInfo read the connection's address from GotConn, and a nil one panicked in a run.
func TestClientTrace(t *testing.T) {
	for _, tlsOn := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls %v", tlsOn), func(t *testing.T) {
			exchange := func(base string, get func(*http.Client, *http.Request) (*http.Response, error), lock func() func()) string {
				var seen []string
				note := func(s string) { defer lock()(); seen = append(seen, s) }
				trace := &httptrace.ClientTrace{
					GetConn: func(string) { note("GetConn") },
					GotConn: func(i httptrace.GotConnInfo) {
						note(fmt.Sprintf("GotConn(reused %v, was idle %v, remote %v)", i.Reused, i.WasIdle, i.Conn.RemoteAddr() != nil))
					},
					ConnectStart:      func(string, string) { note("ConnectStart") },
					ConnectDone:       func(_, _ string, err error) { note(fmt.Sprintf("ConnectDone(%v)", err)) },
					TLSHandshakeStart: func() { note("TLSHandshakeStart") },
					TLSHandshakeDone: func(cs tls.ConnectionState, err error) {
						note(fmt.Sprintf("TLSHandshakeDone(%v, %v)", cs.HandshakeComplete, err))
					},
					WroteHeaders:         func() { note("WroteHeaders") },
					WroteRequest:         func(i httptrace.WroteRequestInfo) { note(fmt.Sprintf("WroteRequest(%v)", i.Err)) },
					GotFirstResponseByte: func() { note("GotFirstResponseByte") },
				}
				c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
				for range 2 {
					req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", base, nil)
					resp, err := get(c, req)
					if err != nil {
						return err.Error()
					}
					io.ReadAll(resp.Body)
					resp.Body.Close()
					note("--")
				}
				c.CloseIdleConnections()
				defer lock()()
				return strings.Join(seen, " ")
			}
			start := func(s interface {
				Start()
				StartTLS()
			}) {
				if tlsOn {
					s.StartTLS()
				} else {
					s.Start()
				}
			}
			s := stdhttptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }))
			start(s)
			defer s.Close()
			var mu sync.Mutex
			want := exchange(s.URL, (*http.Client).Do, func() func() { mu.Lock(); return mu.Unlock })
			var got string
			res := rt.Run(rt.Config{}, func() {
				s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }))
				start(s)
				got = exchange(s.URL, rthttp.ClientDo, func() func() { return func() {} })
			})
			if res.Verdict.Kind != rt.VerdictOK && res.Verdict.Kind != rt.VerdictLeak {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if got != want {
				t.Errorf("in a run:\n%s\nwith net/http:\n%s", got, want)
			}
		})
	}
}

// TestAnswerBeforeBody: a handler answers without reading a body larger than the server
// drops (256 KB), and the server closes the connection after its answer. net/http's transport,
// which reads beside writing, returns the answer; so must the stand-in in every schedule, also
// in those where the rest of the body meets the closed connection and its write fails
// (resty's TestRawFileUploadByBody failed with "broken pipe" in a run).
func TestAnswerBeforeBody(t *testing.T) {
	exchange := func(base string, do func(*http.Client, *http.Request) (*http.Response, error)) string {
		req, _ := http.NewRequest("PUT", base, bytes.NewReader(make([]byte, 1<<20)))
		resp, err := do(&http.Client{Transport: &http.Transport{}}, req)
		if err != nil {
			return "error: " + err.Error()
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return fmt.Sprintf("%s %q", resp.Status, b)
	}
	early := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "early") })
	s := stdhttptest.NewServer(early)
	defer s.Close()
	want := exchange(s.URL, (*http.Client).Do)
	rep := explorer.Explore(func() {
		srv := httptest.NewServer(early)
		defer srv.Close()
		if got := exchange(srv.URL, rthttp.ClientDo); got != want {
			rt.Fail(rt.VerdictAssert, fmt.Sprintf("in a run %s, with net/http %s", got, want), true)
		}
	}, explorer.Options{Strategy: "random", MaxRuns: 100})
	for _, b := range rep.Bugs {
		t.Errorf("%s: %s", b.Kind, b.Message)
	}
}

// TestCloseWaitsForHandlers: once httptest.Server.Close has returned, no handler of the server
// runs, in any of 300 schedules, as with net/http, and a request sent while the server closes
// ends, with its answer or an error. Before, a Close that came before Serve began left the
// listener open, and the request waited for ever in its backlog: a deadlock go test does not
// have.
func TestCloseWaitsForHandlers(t *testing.T) {
	rep := explorer.Explore(func() {
		running := false
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			running = true
			rt.Sleep(10 * time.Millisecond)
			running = false
		}))
		done := rt.MakeChan[struct{}](0)
		rt.Go(func() {
			if resp, err := rthttp.ClientGet(&http.Client{Transport: &http.Transport{}}, srv.URL); err == nil {
				resp.Body.Close()
			}
			rt.Close(done)
		})
		srv.Close()
		if running {
			rt.Fail(rt.VerdictAssert, "a handler runs after Close returned", true)
		}
		rt.Recv(done)
	}, explorer.Options{Strategy: "random", MaxRuns: 300})
	for _, b := range rep.Bugs {
		t.Errorf("%s: %s", b.Kind, b.Message)

	}
}

// TestServeTLS: a server started with ServeTLS or ListenAndServeTLS serves over TLS in a run
// as net/http does, with the certificate of its files or of its TLSConfig, the protocols it
// offers, and its errors: before, net/http's own ServeTLS served the virtual listener on
// goroutines heddle did not start, and the run could not be explored.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	cert := certFiles(t, certFile, keyFile)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tls %v, server name %q, protocol %q", r.TLS != nil, r.TLS.ServerName, r.TLS.NegotiatedProtocol)
	})
	insecure := func(protos ...string) *tls.Config { return &tls.Config{InsecureSkipVerify: true, NextProtos: protos} }
	plain := func() *http.Server { return &http.Server{Handler: h} }
	for _, tc := range []struct {
		name      string
		srv       func() *http.Server
		closed    bool // before it serves
		fails     bool // ServeTLS returns at once: the client dials after it, and the listener is closed
		cert, key string
		client    *tls.Config
	}{
		{"files", plain, false, false, certFile, keyFile, insecure()},
		{"config", func() *http.Server {
			return &http.Server{Handler: h, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}
		}, false, false, "", "", &tls.Config{InsecureSkipVerify: true, ServerName: "example.com"}},
		{"http/1.1 asked", plain, false, false, certFile, keyFile, insecure("http/1.1")},
		{"h2 disabled", func() *http.Server {
			return &http.Server{Handler: h, TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
		}, false, false, certFile, keyFile, insecure("h2", "http/1.1")},
		{"h2 left out", func() *http.Server {
			var p http.Protocols
			p.SetHTTP1(true)
			return &http.Server{Handler: h, Protocols: &p}
		}, false, false, certFile, keyFile, insecure("h2", "http/1.1")},
		{"no files", plain, false, true, "", "", insecure()},
		{"closed", plain, true, true, certFile, keyFile, insecure()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type world struct {
				listen   func() (net.Listener, error)
				serveTLS func(*http.Server, net.Listener, string, string) error
				close    func(*http.Server) error
				get      func(*http.Client, string) (*http.Response, error)
				spawn    func(func() error) func() error // runs f on a goroutine, returns what receives its result
			}
			exchange := func(w world) string {
				srv := tc.srv()
				if tc.closed {
					w.close(srv)
				}
				l, err := w.listen()
				if err != nil {
					return "listen: " + err.Error()
				}
				served := w.spawn(func() error { return w.serveTLS(srv, l, tc.cert, tc.key) })
				var out string
				if tc.fails {
					out = fmt.Sprintf("ServeTLS returned %v; ", served())
					l.Close()
				}
				c := &http.Client{Transport: &http.Transport{TLSClientConfig: tc.client}}
				resp, err := w.get(c, "https://"+l.Addr().String())
				if err != nil {
					out += "get: " + strings.ReplaceAll(err.Error(), l.Addr().String(), "ADDR")
				} else {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					out += fmt.Sprintf("%s %q, %s, client's protocol %q", resp.Status, b, resp.Proto, resp.TLS.NegotiatedProtocol)
				}
				if !tc.fails {
					w.close(srv)
					out += fmt.Sprintf("; ServeTLS returned %v", served())
				}
				return out
			}
			want := exchange(world{
				listen:   func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") },
				serveTLS: (*http.Server).ServeTLS,
				close:    (*http.Server).Close,
				get:      (*http.Client).Get,
				spawn: func(f func() error) func() error {
					c := make(chan error, 1)
					go func() { c <- f() }()
					return func() error { return <-c }
				},
			})
			againstNetHTTP(t, want, func() string {
				return exchange(world{
					listen:   func() (net.Listener, error) { return rtnet.Listen("tcp", "127.0.0.1:0") },
					serveTLS: rthttp.ServerServeTLS,
					close:    rthttp.ServerClose,
					get:      rthttp.ClientGet,
					spawn: func(f func() error) func() error {
						c := rt.MakeChan[error](1)
						rt.Go(func() { rt.Send(c, f()) })
						return func() error { return rt.Recv(c) }
					},
				})
			})
		})
	}
}

// certFiles writes the certificate of httptest's TLS servers (for 127.0.0.1 and example.com)
// and its key to two files, and returns it.
func certFiles(t *testing.T, certFile, keyFile string) tls.Certificate {
	t.Helper()
	s := httptest.NewTLSServer(nil)
	s.Close()
	cert := s.TLS.Certificates[0]
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert
}

// TestListenAndServeClosed: ListenAndServe and ListenAndServeTLS on a server already closed
// return http.ErrServerClosed at once, as net/http's do, without listening.
func TestListenAndServeClosed(t *testing.T) {
	calls := func(listenAndServe func(*http.Server) error, listenAndServeTLS func(*http.Server, string, string) error,
		close func(*http.Server) error) string {
		srv := &http.Server{Addr: "127.0.0.1:0"}
		close(srv)
		return fmt.Sprintf("%v; %v", listenAndServe(srv), listenAndServeTLS(srv, "cert.pem", "key.pem"))
	}
	want := calls((*http.Server).ListenAndServe, (*http.Server).ListenAndServeTLS, (*http.Server).Close)
	againstNetHTTP(t, want, func() string {
		return calls(rthttp.ServerListenAndServe, rthttp.ServerListenAndServeTLS, rthttp.ServerClose)
	})
}
