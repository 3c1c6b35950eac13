// Package http serves and fetches HTTP/1.1 on heddle's virtual network (package rt/net) with
// goroutines that heddle controls.
//
// net/http serves each connection on a goroutine of its own and runs its client's
// connections on two more, all started by code heddle does not instrument, so their
// operations could not be scheduled. The instrumenter rewrites the calls that start a
// server (http.Serve, http.ListenAndServe, and the Serve, ListenAndServe, Close and Shutdown
// methods of *http.Server) into this package's functions, which serve each connection on a
// controlled goroutine with net/http's own parser (http.ReadRequest) and call the handler
// there. Its Transport, which replaces http.DefaultTransport in an instrumented program,
// writes a request and reads its response on the calling goroutine. Both speak real
// HTTP/1.1 over connections whose reads and writes are scheduling points.
//
// Outside a run every function is net/http's.
package http

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/heddledbg/heddle/rt"
	rttls "github.com/heddledbg/heddle/rt/crypto/tls"
	rtnet "github.com/heddledbg/heddle/rt/net"
)

// http2Differs is what heddle does when a connection negotiates HTTP/2 (rt.Differs).
const http2Differs = "which heddle's network carries as HTTP/1.1 (docs/network.md): heddle cannot check what depends on the protocol"

// served is what the run knows of a server it serves: its listeners and connections, which
// Close and Shutdown end.
type served struct {
	epoch     uint64
	listeners []net.Listener
	conns     map[net.Conn]*connState
	accepted  int // connections accepted, numbering them
	closed    bool
	// idle receives when a connection's request ends or a connection goes, for Shutdown.
	changed chan struct{}
}

type connState struct {
	active bool
	closed bool // by Shutdown, which waits for its goroutine to end all the same
	seq    int  // the order in which the server accepted it
}

// ordered returns the server's connections in the order it accepted them: closing them in the
// order of a map's iteration, which Go randomizes, would make the runs of one schedule differ.
//
//go:norace
func (s *served) ordered() []net.Conn {
	cs := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b net.Conn) int { return s.conns[a].seq - s.conns[b].seq })
	return cs
}

// servers maps each *http.Server of the run to its state; only the running goroutine
// touches it.
var servers = map[*http.Server]*served{}

//go:norace
func stateOf(srv *http.Server) *served {
	e := rt.RunEpoch()
	s := servers[srv]
	if s == nil || s.epoch != e {
		for k, old := range servers {
			if old.epoch != e {
				delete(servers, k)
			}
		}
		s = &served{epoch: e, conns: make(map[net.Conn]*connState), changed: rt.MakeChan[struct{}](1)}
		servers[srv] = s
	}
	return s
}

// Serve is http.Serve.
//
//go:norace
func Serve(l net.Listener, h http.Handler) error {
	return ServerServe(&http.Server{Handler: h}, l)
}

// ListenAndServe is http.ListenAndServe.
//
//go:norace
func ListenAndServe(addr string, h http.Handler) error {
	return ServerListenAndServe(&http.Server{Addr: addr, Handler: h})
}

// ServerListenAndServe is srv.ListenAndServe().
//
//go:norace
func ServerListenAndServe(srv *http.Server) error {
	if !rt.Running() {
		return srv.ListenAndServe()
	}
	l, err := listen(srv, "http", "80")
	if err != nil {
		return err
	}
	return ServerServe(srv, l)
}

// listen opens the listener of srv.ListenAndServe or ListenAndServeTLS, as net/http's: on
// srv.Addr, the scheme's port if it names none.
//
//go:norace
func listen(srv *http.Server, scheme, port string) (net.Listener, error) {
	if stateOf(srv).closed {
		return nil, http.ErrServerClosed
	}
	addr := srv.Addr
	if addr == "" {
		addr = ":" + scheme
	}
	if strings.HasSuffix(addr, ":"+scheme) {
		addr = strings.TrimSuffix(addr, scheme) + port
	}
	return rtnet.Listen("tcp", addr)
}

// ServeTLS is http.ServeTLS.
//
//go:norace
func ServeTLS(l net.Listener, h http.Handler, certFile, keyFile string) error {
	return ServerServeTLS(&http.Server{Handler: h}, l, certFile, keyFile)
}

// ListenAndServeTLS is http.ListenAndServeTLS.
//
//go:norace
func ListenAndServeTLS(addr, certFile, keyFile string, h http.Handler) error {
	return ServerListenAndServeTLS(&http.Server{Addr: addr, Handler: h}, certFile, keyFile)
}

// ServerListenAndServeTLS is srv.ListenAndServeTLS(certFile, keyFile).
//
//go:norace
func ServerListenAndServeTLS(srv *http.Server, certFile, keyFile string) error {
	if !rt.Running() {
		return srv.ListenAndServeTLS(certFile, keyFile)
	}
	l, err := listen(srv, "https", "443")
	if err != nil {
		return err
	}
	defer l.Close()
	return ServerServeTLS(srv, l, certFile, keyFile)
}

// ServerServeTLS is srv.ServeTLS(l, certFile, keyFile): ServerServe on l behind TLS, with
// srv.TLSConfig, the certificate of the two files unless that configuration has one, and
// the protocols that net/http's ServeTLS offers (h2 unless srv disables HTTP/2, which the
// stand-in then carries as HTTP/1.1 and records, as it does for httptest's EnableHTTP2).
//
//go:norace
func ServerServeTLS(srv *http.Server, l net.Listener, certFile, keyFile string) error {
	if !rt.Running() {
		return srv.ServeTLS(l, certFile, keyFile)
	}
	config := new(tls.Config)
	if srv.TLSConfig != nil {
		config = srv.TLSConfig.Clone()
	}
	config.NextProtos = nextProtos(config.NextProtos, srv)
	hasCert := len(config.Certificates) > 0 || config.GetCertificate != nil || config.GetConfigForClient != nil
	if !hasCert || certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return err
		}
		config.Certificates = []tls.Certificate{cert}
	}
	return ServerServe(srv, rttls.NewListener(l, config))
}

// nextProtos is net/http's adjustNextProtos for the protocols srv serves over TLS: HTTP/1.1,
// and HTTP/2 unless srv.Protocols leaves it out, srv.TLSNextProto is a map without "h2"
// (the historic way to disable it), or GODEBUG has http2server=0.
func nextProtos(have []string, srv *http.Server) []string {
	var p http.Protocols
	if srv.Protocols != nil {
		p = *srv.Protocols
	} else {
		_, h2 := srv.TLSNextProto["h2"]
		off := srv.TLSNextProto != nil && !h2 || !h2 && slices.Contains(strings.Split(os.Getenv("GODEBUG"), ","), "http2server=0")
		p.SetHTTP1(true)
		p.SetHTTP2(!off)
	}
	var got http.Protocols
	out := slices.DeleteFunc(slices.Clone(have), func(s string) bool {
		switch s {
		case "http/1.1":
			if !p.HTTP1() {
				return true
			}
			got.SetHTTP1(true)
		case "h2":
			if !p.HTTP2() {
				return true
			}
			got.SetHTTP2(true)
		}
		return false
	})
	if p.HTTP2() && !got.HTTP2() {
		out = append(out, "h2")
	}
	if p.HTTP1() && !got.HTTP1() {
		out = append(out, "http/1.1")
	}
	return out
}

// ServerServe is srv.Serve(l): it accepts connections on l and serves each on a controlled
// goroutine of its own, until l fails or srv is closed (http.ErrServerClosed). As net/http's,
// it closes l when it returns, also when srv was closed before it began: a listener left open
// then took a client's dial into its backlog, which nobody accepted, and the client waited
// for ever (TestCloseWaitsForHandlers).
//
//go:norace
func ServerServe(srv *http.Server, l net.Listener) error {
	if !rt.Running() {
		return srv.Serve(l)
	}
	defer l.Close()
	s := stateOf(srv)
	if s.closed {
		return http.ErrServerClosed
	}
	s.listeners = append(s.listeners, l)
	base := context.Background()
	if srv.BaseContext != nil {
		base = srv.BaseContext(l)
	}
	base = context.WithValue(base, http.ServerContextKey, srv)
	for {
		c, err := l.Accept()
		if err != nil {
			if s.closed {
				return http.ErrServerClosed
			}
			return err
		}
		ctx := context.WithValue(base, http.LocalAddrContextKey, c.LocalAddr())
		if srv.ConnContext != nil {
			ctx = srv.ConnContext(ctx, c)
		}
		s.accepted++
		st := &connState{seq: s.accepted}
		s.conns[c] = st
		hook(srv, c, http.StateNew)
		rt.Go(func() { serveConn(srv, s, st, c, ctx) })
	}
}

//go:norace
func hook(srv *http.Server, c net.Conn, state http.ConnState) {
	if srv.ConnState != nil {
		srv.ConnState(c, state)
	}
}

// ServerClose is srv.Close(): it closes the listeners and every connection at once.
//
//go:norace
func ServerClose(srv *http.Server) error {
	if !rt.Running() {
		return srv.Close()
	}
	s := stateOf(srv)
	s.closed = true
	err := s.closeListeners()
	for _, c := range s.ordered() {
		c.Close()
		delete(s.conns, c)
	}
	return err
}

//go:norace
func (s *served) closeListeners() error {
	var err error
	for _, l := range s.listeners {
		if e := l.Close(); e != nil && !errors.Is(e, net.ErrClosed) && err == nil {
			err = e
		}
	}
	s.listeners = nil
	return err
}

// ServerShutdown is srv.Shutdown(ctx): it closes the listeners and the connections that wait
// for a request, then waits until the others have finished theirs, or ctx is done.
//
//go:norace
func ServerShutdown(srv *http.Server, ctx context.Context) error {
	if !rt.Running() {
		return srv.Shutdown(ctx)
	}
	s := stateOf(srv)
	s.closed = true
	err := s.closeListeners()
	for _, f := range onShutdown(srv) {
		rt.Go(f)
	}
	for {
		for _, c := range s.ordered() {
			// Closing is a step of the run: a connection's goroutine may end, and leave
			// s.conns, before the loop reaches it. A closed connection stays in s.conns
			// until its goroutine has ended, as net/http's Shutdown waits for it: the
			// goroutine may have read a whole request before the close, and then serves it.
			if st, ok := s.conns[c]; ok && !st.active && !st.closed {
				st.closed = true
				c.Close()
			}
		}
		if len(s.conns) == 0 {
			return err
		}
		if i, _, _ := rt.Select(false, rt.RecvCase(s.changed), rt.RecvCase(ctx.Done())); i == 1 {
			return ctx.Err()
		}
	}
}

// notify tells a Shutdown in progress that a connection changed state.
//
//go:norace
func (s *served) notify() {
	rt.Select(true, rt.SendCase(s.changed, struct{}{}))
}

// serveConn serves the requests of one connection in turn, as net/http's conn.serve does.
//
//go:norace
func serveConn(srv *http.Server, s *served, st *connState, c net.Conn, ctx context.Context) {
	hijacked := false
	defer func() {
		if hijacked {
			return
		}
		c.Close()
		delete(s.conns, c)
		hook(srv, c, http.StateClosed)
		s.notify()
	}()
	var tlsState *tls.ConnectionState
	if tc, ok := c.(*rttls.Conn); ok {
		// As net/http does: the handshake first, under the read timeout, and the state for
		// every request on the connection.
		if d := headerTimeout(srv); d > 0 {
			c.SetReadDeadline(rt.Now().Add(d))
		}
		if err := tc.Handshake(); err != nil {
			return
		}
		cs := tc.ConnectionState()
		tlsState = &cs
		if cs.NegotiatedProtocol == "h2" {
			rt.Differs("served a connection that negotiated HTTP/2", http2Differs)
		}
	}
	br := bufio.NewReader(c)
	for first := true; ; first = false {
		if !first {
			// As net/http: the next request is waited for under the idle timeout.
			var idle time.Time
			if d := idleTimeout(srv); d > 0 {
				idle = rt.Now().Add(d)
			}
			c.SetReadDeadline(idle)
			if _, err := br.Peek(4); err != nil {
				return
			}
		}
		// As net/http's readRequest: the header under ReadHeaderTimeout, the body under
		// ReadTimeout, both from now, and the response under WriteTimeout from the end of
		// the header.
		var header, whole time.Time
		if d := headerTimeout(srv); d > 0 {
			header = rt.Now().Add(d)
		}
		if d := srv.ReadTimeout; d > 0 {
			whole = rt.Now().Add(d)
		}
		c.SetReadDeadline(header)
		req, err := http.ReadRequest(br)
		if err != nil {
			if err != io.EOF && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.ErrUnexpectedEOF) {
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request")
				}
			}
			return
		}
		c.SetReadDeadline(whole)
		if d := srv.WriteTimeout; d > 0 {
			c.SetWriteDeadline(rt.Now().Add(d))
		}
		st.active = true
		hook(srv, c, http.StateActive)
		rctx, cancel := rt.WithCancel(ctx)
		req = req.WithContext(rctx)
		req.RemoteAddr = c.RemoteAddr().String()
		req.TLS = tlsState
		w := &response{conn: c, br: br, bw: bufio.NewWriter(c), req: req, header: make(http.Header), last: s.closed || !keepAlives(srv)}
		// As net/http does, the connection is the handler's from its Hijack on: Close and
		// Shutdown neither close it nor wait for the handler that holds it.
		w.onHijack = func() {
			hijacked = true
			delete(s.conns, c)
			hook(srv, c, http.StateHijacked)
			s.notify()
		}
		handle(srv, w, req)
		cancel()
		if w.hijacked {
			return
		}
		keep := w.finish()
		st.active = false
		s.notify()
		if !keep || s.closed {
			return
		}
		hook(srv, c, http.StateIdle)
	}
}

// onShutdown returns the functions registered with srv.RegisterOnShutdown, which net/http
// keeps unexported and its Shutdown, which ServerShutdown stands for, starts each on a
// goroutine of its own.
//
//go:norace
func onShutdown(srv *http.Server) []func() {
	f := reflect.ValueOf(srv).Elem().FieldByName("onShutdown")
	if !f.IsValid() || f.Type() != reflect.TypeFor[[]func()]() {
		return nil
	}
	return *(*[]func())(unsafe.Pointer(f.UnsafeAddr()))
}

// keepAlives reports whether srv keeps connections for further requests: not after
// srv.SetKeepAlivesEnabled(false), which net/http records unexported.
//
//go:norace
func keepAlives(srv *http.Server) bool {
	f := reflect.ValueOf(srv).Elem().FieldByName("disableKeepAlives")
	if !f.IsValid() || f.Type() != reflect.TypeFor[atomic.Bool]() {
		return true
	}
	return !(*atomic.Bool)(unsafe.Pointer(f.UnsafeAddr())).Load()
}

// headerTimeout and idleTimeout are net/http's readHeaderTimeout and idleTimeout.
//
//go:norace
func headerTimeout(srv *http.Server) time.Duration {
	if srv.ReadHeaderTimeout != 0 {
		return srv.ReadHeaderTimeout
	}
	return srv.ReadTimeout
}

//go:norace
func idleTimeout(srv *http.Server) time.Duration {
	if srv.IdleTimeout != 0 {
		return srv.IdleTimeout
	}
	return srv.ReadTimeout
}

// handle calls the handler. As net/http does, it recovers a panic in it (but
// http.ErrAbortHandler's) and logs it: the connection ends, the server goes on.
//
//go:norace
func handle(srv *http.Server, w *response, req *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			w.aborted = true
			if p != http.ErrAbortHandler {
				buf := make([]byte, 64<<10)
				buf = buf[:runtime.Stack(buf, false)]
				logf(srv, "http: panic serving %s: %v\n%s", req.RemoteAddr, p, buf)
			}
		}
	}()
	h := srv.Handler
	if h == nil {
		h = http.DefaultServeMux
	}
	if req.RequestURI == "*" && req.Method == "OPTIONS" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "0")
		})
	}
	h.ServeHTTP(w, req)
}

//go:norace
func logf(srv *http.Server, format string, args ...any) {
	if srv.ErrorLog != nil {
		srv.ErrorLog.Printf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// response is the http.ResponseWriter of one request. It keeps the body and writes the
// response when the handler returns, with its length; after a Flush it streams the body in
// chunks.
type response struct {
	conn    net.Conn
	br      *bufio.Reader
	bw      *bufio.Writer
	req     *http.Request
	header  http.Header
	status  int
	body    bytes.Buffer
	chunked io.WriteCloser // after the first Flush
	// hijacked: the handler took the connection; aborted: it panicked; last: the server
	// closes the connection after it (keep-alives disabled, or shutting down).
	hijacked, aborted, last bool
	onHijack                func() // tells the server that the connection is no longer its
}

//go:norace
func (w *response) Header() http.Header { return w.header }

//go:norace
func (w *response) WriteHeader(code int) {
	if w.hijacked || w.status != 0 {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		// An informational response goes out at once; the handler writes the final one later.
		fmt.Fprintf(w.bw, "HTTP/1.1 %d %s\r\n", code, http.StatusText(code))
		w.header.Write(w.bw)
		w.bw.WriteString("\r\n")
		w.bw.Flush()
		return
	}
	w.status = code
}

//go:norace
func (w *response) Write(b []byte) (int, error) {
	if w.hijacked {
		return 0, http.ErrHijacked
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.chunked != nil {
		n, err := w.chunked.Write(b)
		return n, err
	}
	return w.body.Write(b)
}

// Flush sends the header and the body so far, and streams the rest of the body in chunks.
//
//go:norace
func (w *response) Flush() {
	if w.hijacked {
		return
	}
	if w.chunked == nil {
		if w.status == 0 {
			w.WriteHeader(http.StatusOK)
		}
		w.sniff(w.body.Bytes())
		w.header.Del("Content-Length")
		if bodyAllowed(w.status) && w.req.Method != "HEAD" {
			w.header.Set("Transfer-Encoding", "chunked")
		}
		fmt.Fprintf(w.bw, "HTTP/1.1 %d %s\r\n", w.status, http.StatusText(w.status))
		w.header.Write(w.bw)
		w.bw.WriteString("\r\n")
		w.chunked = httputil.NewChunkedWriter(w.bw)
		if w.body.Len() > 0 {
			w.chunked.Write(w.body.Bytes())
			w.body.Reset()
		}
	}
	w.bw.Flush()
}

// Hijack hands the connection to the handler, as http.Hijacker.
//
//go:norace
func (w *response) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.hijacked {
		return nil, nil, http.ErrHijacked
	}
	w.hijacked = true
	w.bw.Flush()
	if w.onHijack != nil {
		w.onHijack()
	}
	return w.conn, bufio.NewReadWriter(w.br, bufio.NewWriter(w.conn)), nil
}

//go:norace
func (w *response) sniff(b []byte) {
	if _, ok := w.header["Content-Type"]; !ok && len(b) > 0 && w.header.Get("Transfer-Encoding") == "" {
		w.header.Set("Content-Type", http.DetectContentType(b))
	}
}

//go:norace
func bodyAllowed(status int) bool {
	return !(status >= 100 && status <= 199 || status == http.StatusNoContent || status == http.StatusNotModified)
}

// finish writes the response once the handler has returned, and reports whether the
// connection may carry another request.
//
//go:norace
func (w *response) finish() bool {
	if w.aborted {
		return false
	}
	keep := !w.last && !w.req.Close && w.req.ProtoAtLeast(1, 1) && w.discardBody()
	if w.chunked != nil {
		w.chunked.Close()
		w.bw.WriteString("\r\n")
		w.bw.Flush()
		return keep
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.sniff(w.body.Bytes())
	resp := &http.Response{
		StatusCode: w.status,
		ProtoMajor: 1, ProtoMinor: 1,
		Request:       w.req,
		Header:        w.header,
		ContentLength: int64(w.body.Len()),
		Body:          io.NopCloser(&w.body),
		Close:         !keep,
	}
	if !bodyAllowed(w.status) {
		resp.ContentLength, resp.Body = 0, nil
		w.header.Del("Content-Length")
	}
	if err := resp.Write(w.bw); err != nil {
		return false
	}
	return w.bw.Flush() == nil && keep
}

// maxPostHandlerReadBytes is net/http's: how much of a request's body that its handler left
// unread the server reads and drops to keep the connection for the next request.
const maxPostHandlerReadBytes = 256 << 10

// discardBody reads what the handler left of the request's body, as net/http's server does, and
// reports whether the connection can carry another request: the next one starts after it.
//
//go:norace
func (w *response) discardBody() bool {
	if w.req.Body == nil || w.req.Body == http.NoBody {
		return true
	}
	_, err := io.CopyN(io.Discard, w.req.Body, maxPostHandlerReadBytes+1)
	return err == io.EOF
}

// CloseConns closes the connections of srv, as httptest.Server.CloseClientConnections.
//
//go:norace
func CloseConns(srv *http.Server) {
	s := stateOf(srv)
	for _, c := range s.ordered() {
		c.Close()
		delete(s.conns, c)
	}
}
