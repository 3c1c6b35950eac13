package http

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/heddledbg/heddle/rt"
	rttls "github.com/heddledbg/heddle/rt/crypto/tls"
	rtnet "github.com/heddledbg/heddle/rt/net"
)

// Transport is an http.RoundTripper over the virtual network: each request dials a connection,
// or takes one that an earlier exchange left alive, as net/http's transport does (with TLS,
// crypto/tls's own client under rt/crypto/tls, for https), and writes the request and reads the
// response on the calling goroutine. A connection goes back to the idle ones, for the next
// request to the same address, when its response's body has been read to its end; one that
// the server closed meanwhile is found when it is used, and the request, if it can be sent
// again, goes on a new one, as net/http's does. Outside a run it is Fallback.
type Transport struct {
	// Fallback carries the requests made outside a run.
	Fallback http.RoundTripper
	// TLSClientConfig is the configuration of https requests' TLS clients (nil: the
	// default), as http.Transport's.
	TLSClientConfig *tls.Config
	// ForceAttemptHTTP2, as http.Transport's, offers HTTP/2 in the TLS handshake. A server
	// that accepts it would speak HTTP/2 with net/http's transport; this one still speaks
	// HTTP/1.1, and says so to the run (rt.Differs).
	ForceAttemptHTTP2 bool
	// DialContext, if not nil, dials the connections, as http.Transport's; else the virtual
	// network does.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// DialTLSContext, if not nil, dials the connections of https requests, TLS included, as
	// http.Transport's: a connection that has not made its handshake makes it then.
	DialTLSContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// ResponseHeaderTimeout, as http.Transport's, is how long a request waits, on the run's
	// clock, for its response's headers once it is written (0: no limit).
	ResponseHeaderTimeout time.Duration
	// Proxy, ProxyConnectHeader and GetProxyConnectHeader are http.Transport's: a request
	// for an http URL goes to an http proxy in absolute form, one for an https URL through a
	// CONNECT tunnel. A proxy of another scheme is not spoken (rt.Differs).
	Proxy                 func(*http.Request) (*url.URL, error)
	ProxyConnectHeader    http.Header
	GetProxyConnectHeader func(ctx context.Context, proxyURL *url.URL, target string) (http.Header, error)
	// DisableCompression, as http.Transport's, does not ask for gzip: else a request that
	// does not say which encodings it accepts asks for gzip, and a gzipped answer is
	// decompressed as it is read.
	DisableCompression bool
	// DisableKeepAlives and MaxIdleConnsPerHost are http.Transport's: no connection is used
	// for more than one request, and at most that many are kept idle for an address
	// (http.DefaultMaxIdleConnsPerHost if zero).
	DisableKeepAlives   bool
	MaxIdleConnsPerHost int
	// MaxConnsPerHost, as http.Transport's, bounds the connections to an address, dialing,
	// in use and idle (0: no bound). A request that finds as many waits, first come first
	// served, for one of them to be idle, which it takes, or closed, which lets it dial one.
	MaxConnsPerHost int
	// owner is what the idle connections are kept for: the net/http transport a StandIn
	// stands for, whose stand-ins come and go with the requests, else the Transport.
	owner any
}

// StandIn returns the Transport that carries t's requests in a run: t's TLS configuration,
// dialer, compression, connection reuse and bound on connections per host, and HTTP/2 offered
// when net/http would offer it.
// net/http's own would run each connection on goroutines of its own, which heddle does not
// control.
//
//go:norace
func StandIn(t *http.Transport) *Transport {
	custom := t.TLSClientConfig != nil || t.DialContext != nil || t.Dial != nil || t.DialTLS != nil || t.DialTLSContext != nil
	s := &Transport{Fallback: t, TLSClientConfig: t.TLSClientConfig, DialContext: t.DialContext, DialTLSContext: t.DialTLSContext,
		DisableCompression: t.DisableCompression, ForceAttemptHTTP2: t.TLSNextProto == nil && (t.ForceAttemptHTTP2 || !custom),
		DisableKeepAlives: t.DisableKeepAlives, MaxIdleConnsPerHost: t.MaxIdleConnsPerHost, MaxConnsPerHost: t.MaxConnsPerHost,
		ResponseHeaderTimeout: t.ResponseHeaderTimeout, Proxy: t.Proxy, ProxyConnectHeader: t.ProxyConnectHeader,
		GetProxyConnectHeader: t.GetProxyConnectHeader, owner: t}
	// The deprecated dialers, which net/http uses when the others are nil.
	var dial any = t.DialContext
	if s.DialContext == nil && t.Dial != nil {
		s.DialContext = func(_ context.Context, network, addr string) (net.Conn, error) { return t.Dial(network, addr) }
		dial = t.Dial
	}
	if d := netDialer(dial); d != nil {
		s.DialContext = d.DialContext
	}
	if s.DialTLSContext == nil && t.DialTLS != nil {
		s.DialTLSContext = func(_ context.Context, network, addr string) (net.Conn, error) { return t.DialTLS(network, addr) }
	}
	return s
}

// netDialer returns, for dial a method value of a *net.Dialer (its DialContext or Dial), that
// dialer as rt/net's, which connects on the virtual network in a run. A transport made by code
// heddle does not instrument dials with a net.Dialer of its own (hashicorp/go-cleanhttp's,
// which go-retryablehttp's clients use), whose connections would leave the virtual network.
// The receiver is read from the method value's closure, whose first word is the code and
// second the bound receiver (TestNetDialer checks this layout on the Go that runs it).
//
//go:norace
func netDialer(dial any) *rtnet.Dialer {
	v := reflect.ValueOf(dial)
	if v.Kind() != reflect.Func || v.IsNil() {
		return nil
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil || f.Name() != "net.(*Dialer).DialContext-fm" && f.Name() != "net.(*Dialer).Dial-fm" {
		return nil
	}
	// A func is held in an interface as its closure pointer.
	closure := (*struct {
		typ, data *struct {
			code uintptr
			recv *net.Dialer
		}
	})(unsafe.Pointer(&dial)).data
	return rtnet.DialerOf(closure.recv)
}

//go:norace
func init() {
	// http.DefaultClient, http.Get and every client without a Transport of its own use
	// http.DefaultTransport, whose connections net/http serves on goroutines heddle does not
	// control.
	http.DefaultTransport = &Transport{Fallback: http.DefaultTransport, ForceAttemptHTTP2: true}
}

// persistConn is a connection of a Transport, with the reader of its responses.
type persistConn struct {
	c     net.Conn
	br    *bufio.Reader
	state *tls.ConnectionState
	// key is where it goes; counted says that it is one of MaxConnsPerHost's.
	key     idleKey
	counted bool
	closed  bool
	// used: it carried a request before; idleAt: since when it is idle, if it is.
	used   bool
	idleAt time.Time
}

// close closes pc, once, and gives its place among its host's connections to a request
// that waits for one.
//
//go:norace
func (pc *persistConn) close() {
	if pc.closed {
		return
	}
	pc.closed = true
	pc.c.Close()
	if pc.counted {
		hostOf(pc.key).free()
	}
}

// A host is what MaxConnsPerHost counts for a key: its connections, dialing, in use and idle,
// and the requests that wait for one, first come first served, as net/http's transport keeps
// them (connsPerHost, connsPerHostWait).
type host struct {
	n       int
	waiting []*connWait
}

// A connWait is a request waiting for a connection: it gets an idle one, or nil, the right to
// dial one, whose place is counted already.
type connWait struct {
	got chan *persistConn // buffered: the giver never waits
}

// hostOf returns the run's count for key.
//
//go:norace
func hostOf(key idleKey) *host {
	idleConns() // a new run starts with no connection
	h := idle.hosts[key]
	if h == nil {
		if idle.hosts == nil {
			idle.hosts = map[idleKey]*host{}
		}
		h = &host{}
		idle.hosts[key] = h
	}
	return h
}

// free takes a connection off h's count, or gives its place to the first request waiting,
// which dials one.
//
//go:norace
func (h *host) free() {
	conns.Lock()
	w := h.next()
	if w == nil {
		h.n--
	}
	conns.Unlock()
	if w != nil {
		rt.Send(w.got, nil)
	}
}

// next removes the first waiting request and returns it, or nil. conns is locked.
//
//go:norace
func (h *host) next() *connWait {
	if len(h.waiting) == 0 {
		return nil
	}
	w := h.waiting[0]
	h.waiting = h.waiting[:copy(h.waiting, h.waiting[1:])]
	return w
}

// leave removes w, whose request gave up, from the waiting ones: false if it was given
// something first. conns is locked.
//
//go:norace
func (h *host) leave(w *connWait) bool {
	for i, o := range h.waiting {
		if o == w {
			h.waiting = append(h.waiting[:i], h.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// idleKey says which connections may carry a request: those of the same owner to the same
// scheme and address.
type idleKey struct {
	owner any
	dest  string
}

// conns is locked around every look at the idle connections and MaxConnsPerHost's counts, as
// net/http's transport locks its idleMu and connsPerHostMu: two requests taking or leaving
// connections are then dependent steps of the run, and which comes first is explored.
var conns rt.Mutex

// idle holds the connections that the run's exchanges left alive, in the order they were
// kept: a map's, which Go randomizes, would close them in another order in each run of a
// schedule. Only the running goroutine touches it; a run starts with none.
var idle struct {
	epoch uint64
	conns []idleConn
	hosts map[idleKey]*host // MaxConnsPerHost's counts, looked up, never ranged over
}

type idleConn struct {
	key idleKey
	pc  *persistConn
}

// idleConns returns the run's idle connections.
//
//go:norace
func idleConns() *[]idleConn {
	if e := rt.RunEpoch(); idle.epoch != e {
		idle.epoch, idle.conns, idle.hosts = e, nil, nil
	}
	return &idle.conns
}

//go:norace
func (t *Transport) ownerKey() any {
	if t.owner != nil {
		return t.owner
	}
	return t
}

// takeIdle returns the connection to reuse for key, the most recently kept, or nil. conns is
// locked.
//
//go:norace
func takeIdle(key idleKey) *persistConn {
	l := idleConns()
	for i := len(*l) - 1; i >= 0; i-- {
		if (*l)[i].key == key {
			pc := (*l)[i].pc
			*l = slices.Delete(*l, i, i+1)
			return pc
		}
	}
	return nil
}

// putIdle keeps pc for the next request to key, or closes it if as many are kept already,
// and says why with net/http's error.
//
//go:norace
func (t *Transport) putIdle(key idleKey, pc *persistConn) error {
	conns.Lock()
	if pc.counted {
		// A request waits for a connection to this host: it takes this one, as net/http's
		// transport gives an idle connection to the first request in wait.
		if w := hostOf(key).next(); w != nil {
			conns.Unlock()
			rt.Send(w.got, pc)
			return nil
		}
	}
	limit := t.MaxIdleConnsPerHost
	if limit == 0 {
		limit = http.DefaultMaxIdleConnsPerHost
	}
	l := idleConns()
	n := 0
	for _, ic := range *l {
		if ic.key == key {
			n++
		}
	}
	if n >= limit {
		conns.Unlock()
		pc.close()
		return errTooManyIdleHost
	}
	pc.idleAt = rt.Now()
	*l = append(*l, idleConn{key, pc})
	conns.Unlock()
	return nil
}

// errTooManyIdleHost is net/http's.
var errTooManyIdleHost = errors.New("http: putIdleConn: too many idle connections for host")

// CloseIdleConnections closes the connections that earlier exchanges left alive.
//
//go:norace
func (t *Transport) CloseIdleConnections() {
	if !rt.Running() {
		if ci, ok := t.Fallback.(interface{ CloseIdleConnections() }); ok {
			ci.CloseIdleConnections()
		}
		return
	}
	closeIdle(t.ownerKey())
}

// closeIdle closes the idle connections kept for owner.
//
//go:norace
func closeIdle(owner any) {
	conns.Lock()
	l := idleConns()
	var closing []*persistConn
	*l = slices.DeleteFunc(*l, func(ic idleConn) bool {
		if ic.key.owner == owner {
			closing = append(closing, ic.pc)
			return true
		}
		return false
	})
	conns.Unlock()
	// Closing is a step of the run, after which another goroutine may keep or take one.
	for _, pc := range closing {
		pc.close()
	}
}

// RoundTrip performs one HTTP/1.1 exchange.
//
//go:norace
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !rt.Running() {
		fb := t.Fallback
		if fb == nil {
			fb = &http.Transport{}
		}
		return fb.RoundTrip(req)
	}
	// net/http's transport's checks, with its errors.
	switch {
	case req.URL == nil:
		closeBody(req)
		return nil, errors.New("http: nil Request.URL")
	case req.Header == nil:
		closeBody(req)
		return nil, errors.New("http: nil Request.Header")
	}
	port := map[string]string{"http": "80", "https": "443"}[req.URL.Scheme]
	if port == "" {
		closeBody(req)
		return nil, fmt.Errorf("unsupported protocol scheme %q", req.URL.Scheme)
	}
	if err := validateHeaders(req.Header); err != "" {
		closeBody(req)
		return nil, fmt.Errorf("net/http: invalid header %s", err)
	}
	if err := validateHeaders(req.Trailer); err != "" {
		closeBody(req)
		return nil, fmt.Errorf("net/http: invalid trailer %s", err)
	}
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), port)
	}
	var proxy *url.URL
	if t.Proxy != nil {
		u, err := t.Proxy(req)
		if err != nil {
			closeBody(req)
			return nil, err
		}
		if u != nil && u.Scheme != "http" {
			rt.Differs("sent a request through a proxy of scheme "+u.Scheme, "which heddle's transport does not speak: it connects to the server directly")
			u = nil
		}
		proxy = u
	}
	key := idleKey{t.ownerKey(), req.URL.Scheme + "://" + addr}
	if proxy != nil {
		key.dest = proxy.Redacted() + " " + key.dest
	}
	for {
		pc, reused, err := t.getConn(req, key, addr, proxy)
		if err != nil {
			closeBody(req)
			return nil, err
		}
		resp, err := t.exchange(req, pc, key, proxy)
		if err != nil && reused && req.Context().Err() == nil {
			// The server closed the idle connection: as net/http's transport, send the
			// request again on a new one, if its body can be sent again.
			if req.Body == nil || req.Body == http.NoBody {
				continue
			}
			if req.GetBody != nil {
				if body, gerr := req.GetBody(); gerr == nil {
					req = req.Clone(req.Context())
					req.Body = body
					continue
				}
			}
		}
		if err != nil {
			closeBody(req)
		}
		return resp, err
	}
}

// getConn returns the connection that carries req, as takeConn, and tells the request's
// httptrace.ClientTrace as net/http's transport does.
//
//go:norace
func (t *Transport) getConn(req *http.Request, key idleKey, addr string, proxy *url.URL) (pc *persistConn, reused bool, err error) {
	trace := httptrace.ContextClientTrace(req.Context())
	if trace != nil && trace.GetConn != nil {
		trace.GetConn(addr)
	}
	pc, reused, err = t.takeConn(req, key, addr, proxy)
	if err == nil && trace != nil && trace.GotConn != nil {
		info := httptrace.GotConnInfo{Conn: pc.c, Reused: pc.used}
		if !pc.idleAt.IsZero() {
			info.WasIdle, info.IdleTime = true, rt.Now().Sub(pc.idleAt)
		}
		trace.GotConn(info)
	}
	if err == nil {
		pc.idleAt = time.Time{}
	}
	return pc, reused, err
}

// takeConn returns the connection that carries req: an idle one (reused), else a new one, or,
// with MaxConnsPerHost connections to key already, the first that one of them leaves, as
// net/http's transport waits for it: an idle one, which it takes, or a place, in which it
// dials one. A request whose context (a context made under control) ends meanwhile gives up
// with its error.
//
//go:norace
func (t *Transport) takeConn(req *http.Request, key idleKey, addr string, proxy *url.URL) (pc *persistConn, reused bool, err error) {
	conns.Lock()
	if pc := takeIdle(key); pc != nil {
		conns.Unlock()
		return pc, true, nil
	}
	if t.MaxConnsPerHost <= 0 {
		conns.Unlock()
		pc, err := t.dial(req, addr, proxy)
		return pc, false, err
	}
	h := hostOf(key)
	if h.n < t.MaxConnsPerHost {
		h.n++
		conns.Unlock()
	} else {
		w := &connWait{got: rt.MakeChan[*persistConn](1)}
		h.waiting = append(h.waiting, w)
		conns.Unlock()
		ctx := req.Context()
		cases := []rt.Case{rt.RecvCase(w.got)}
		if rt.ControlledContext(ctx) {
			cases = append(cases, rt.RecvCase(ctx.Done()))
		}
		i, v, _ := rt.Select(false, cases...)
		if i == 1 {
			conns.Lock()
			left := h.leave(w)
			conns.Unlock()
			if !left {
				// Given a connection or a place as the context ended: give it back.
				if pc := rt.Recv(w.got); pc != nil {
					t.putIdle(key, pc)
				} else {
					h.free()
				}
			}
			return nil, false, ctx.Err()
		}
		if pc := rt.Recvd(w.got, v); pc != nil {
			return pc, true, nil
		}
	}
	pc, err = t.dial(req, addr, proxy)
	if err != nil {
		h.free()
		return nil, false, err
	}
	pc.key, pc.counted = key, true
	return pc, false, nil
}

// dial connects to addr for req, with TLS for https, directly or through an http proxy.
//
//go:norace
func (t *Transport) dial(req *http.Request, addr string, proxy *url.URL) (*persistConn, error) {
	if req.URL.Scheme == "https" && t.DialTLSContext != nil && proxy == nil {
		c, err := t.DialTLSContext(req.Context(), "tcp", addr)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, errors.New("net/http: Transport.DialTLS or DialTLSContext returned (nil, nil)")
		}
		pc := &persistConn{c: c, br: bufio.NewReader(c)}
		if tc, ok := c.(interface {
			HandshakeContext(context.Context) error
			ConnectionState() tls.ConnectionState
		}); ok {
			// As net/http's: in case the dialer did not make it.
			if err := tc.HandshakeContext(req.Context()); err != nil {
				c.Close()
				return nil, err
			}
			cs := tc.ConnectionState()
			pc.state = &cs
		}
		return pc, nil
	}
	trace := httptrace.ContextClientTrace(req.Context())
	to := addr
	if proxy != nil {
		to = proxy.Host
		if proxy.Port() == "" {
			to = net.JoinHostPort(proxy.Hostname(), "80")
		}
	}
	var c net.Conn
	var err error
	if t.DialContext != nil {
		c, err = t.DialContext(req.Context(), "tcp", to)
	} else {
		c, err = rtnet.DialContext(req.Context(), "tcp", to) // which tells the trace, as net.Dialer's
	}
	if err != nil {
		if proxy != nil {
			return nil, &net.OpError{Op: "proxyconnect", Net: "tcp", Err: err}
		}
		return nil, err
	}
	if proxy != nil && req.URL.Scheme == "https" {
		if err := t.tunnel(req.Context(), c, proxy, addr); err != nil {
			c.Close()
			return nil, err
		}
	}
	var state *tls.ConnectionState
	if req.URL.Scheme == "https" {
		cfg := t.TLSClientConfig
		if cfg == nil {
			cfg = &tls.Config{}
		}
		if cfg.ServerName == "" {
			cfg = cfg.Clone()
			cfg.ServerName = req.URL.Hostname()
		}
		if t.ForceAttemptHTTP2 {
			// As net/http's transport offers it.
			cfg = cfg.Clone()
			if !slices.Contains(cfg.NextProtos, "h2") {
				cfg.NextProtos = append([]string{"h2"}, cfg.NextProtos...)
			}
			if !slices.Contains(cfg.NextProtos, "http/1.1") {
				cfg.NextProtos = append(cfg.NextProtos, "http/1.1")
			}
		}
		tc := rttls.Client(c, cfg)
		if trace != nil && trace.TLSHandshakeStart != nil {
			trace.TLSHandshakeStart()
		}
		if err := tc.HandshakeContext(req.Context()); err != nil {
			c.Close()
			if trace != nil && trace.TLSHandshakeDone != nil {
				trace.TLSHandshakeDone(tls.ConnectionState{}, err)
			}
			return nil, err
		}
		cs := tc.ConnectionState()
		if trace != nil && trace.TLSHandshakeDone != nil {
			trace.TLSHandshakeDone(cs, nil)
		}
		if cs.NegotiatedProtocol == "h2" {
			rt.Differs("negotiated HTTP/2 with a server of the test", http2Differs)
		}
		c, state = tc, &cs
	}
	return &persistConn{c: c, br: bufio.NewReader(c), state: state}, nil
}

// tunnel asks the proxy at the other end of c for a tunnel to addr (CONNECT), as net/http's
// transport does for an https request through a proxy.
//
//go:norace
func (t *Transport) tunnel(ctx context.Context, c net.Conn, proxy *url.URL, addr string) error {
	hdr := t.ProxyConnectHeader
	if t.GetProxyConnectHeader != nil {
		var err error
		if hdr, err = t.GetProxyConnectHeader(ctx, proxy, addr); err != nil {
			return err
		}
	}
	if hdr == nil {
		hdr = make(http.Header)
	}
	if pa := proxyAuth(proxy); pa != "" {
		hdr = hdr.Clone()
		hdr.Set("Proxy-Authorization", pa)
	}
	connect := &http.Request{Method: "CONNECT", URL: &url.URL{Opaque: addr}, Host: addr, Header: hdr}
	if err := connect.Write(c); err != nil {
		return err
	}
	// A reader of one byte at a time: what follows the answer is the TLS server's, read by
	// the TLS client.
	resp, err := http.ReadResponse(bufio.NewReaderSize(oneByte{c}, 16), connect)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		_, text, ok := strings.Cut(resp.Status, " ")
		if !ok {
			return errors.New("unknown status code")
		}
		return errors.New(text)
	}
	return nil
}

// oneByte reads at most one byte at a time from r.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }

// proxyAuth is net/http's Proxy-Authorization for proxy's user, or "".
//
//go:norace
func proxyAuth(proxy *url.URL) string {
	if proxy == nil || proxy.User == nil {
		return ""
	}
	password, _ := proxy.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(proxy.User.Username()+":"+password))
}

// exchange writes req on pc and reads its response. The connection goes back to the idle ones
// once the response's body is read to its end (at once if it has none), unless the request or
// the response asked to close it.
//
//go:norace
func (t *Transport) exchange(req *http.Request, pc *persistConn, key idleKey, proxy *url.URL) (*http.Response, error) {
	// As net/http's transport, give up the exchange when the request's context ends, its
	// body's reading included: closing the connection ends a read or write that waits. Only
	// a context made under control is watched: another's deadline is on the real clock.
	ctx := req.Context()
	stop := func() bool { return false }
	if rt.ControlledContext(ctx) {
		stop = rt.ContextAfterFunc(ctx, func() { pc.close() })
	}
	out := req.Clone(ctx)
	out.Close = req.Close || t.DisableKeepAlives
	gzipped := false
	if !t.DisableCompression && req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == "" && req.Method != "HEAD" {
		// As net/http's transport: it asks for gzip, and decompresses what it gets.
		out.Header.Set("Accept-Encoding", "gzip")
		gzipped = true
	}
	write := out.Write
	if proxy != nil && req.URL.Scheme == "http" {
		// To the proxy, in absolute form, as net/http's transport sends it.
		if pa := proxyAuth(proxy); pa != "" && out.Header.Get("Proxy-Authorization") == "" {
			out.Header.Set("Proxy-Authorization", pa)
		}
		write = out.WriteProxy
	}
	werr := write(pc.c)
	if werr != nil && ctx.Err() == nil {
		// A server may answer before it has read the whole body, and close: net/http's
		// transport reads the answer beside the writing, and returns it rather than the
		// write's error (its server waits before it closes for this). The answer, if there is
		// one, is already on the connection.
		if resp, err := http.ReadResponse(pc.br, req); err == nil {
			resp.Close = true
			return t.answered(req, out, resp, pc, key, stop, gzipped)
		}
	}
	if werr != nil {
		stop()
		pc.close()
		return nil, ctxErr(ctx, werr)
	}
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.GotFirstResponseByte != nil {
		if peek, err := pc.br.Peek(1); err == nil && len(peek) == 1 {
			trace.GotFirstResponseByte()
		}
	}
	var late *rt.Timer
	timedOut := false
	if d := t.ResponseHeaderTimeout; d > 0 {
		late = rt.AfterFunc(d, func() { timedOut = true; pc.close() })
	}
	resp, err := http.ReadResponse(pc.br, req)
	if late != nil {
		late.Stop()
	}
	if err != nil {
		stop()
		pc.close()
		if timedOut {
			return nil, errHeaderTimeout
		}
		return nil, ctxErr(ctx, err)
	}
	return t.answered(req, out, resp, pc, key, stop, gzipped)
}

// answered completes the exchange of req (sent as out) on pc, whose response resp came: the
// connection goes back to the idle ones when its body has been read, telling the request's
// trace.
//
//go:norace
func (t *Transport) answered(req, out *http.Request, resp *http.Response, pc *persistConn, key idleKey, stop func() bool, gzipped bool) (*http.Response, error) {
	ctx := req.Context()
	pc.used = true
	resp.TLS = pc.state
	keep := !out.Close && !resp.Close
	release := func(reuse bool) {
		stop()
		if reuse && keep {
			err := t.putIdle(key, pc)
			if trace := httptrace.ContextClientTrace(ctx); trace != nil && trace.PutIdleConn != nil {
				trace.PutIdleConn(err)
			}
		} else {
			pc.close()
		}
	}
	if resp.Body == http.NoBody {
		release(true)
	} else {
		resp.Body = &body{ReadCloser: resp.Body, ctx: ctx, release: release}
	}
	if gzipped && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
		resp.Body = &gzipBody{body: resp.Body}
	}
	return resp, nil
}

// errHeaderTimeout is net/http's error for a response whose headers did not come within
// ResponseHeaderTimeout: a timeout, and context.DeadlineExceeded to errors.Is.
var errHeaderTimeout error = &timeoutError{"net/http: timeout awaiting response headers"}

// gzipBody decompresses a body as net/http's transport does: lazily, at the first Read.
type gzipBody struct {
	body io.ReadCloser
	zr   *gzip.Reader
	err  error
}

//go:norace
func (g *gzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.zr.Read(p)
}

//go:norace
func (g *gzipBody) Close() error { return g.body.Close() }

// ctxErr is the context's error if it ended, which is why the connection failed, as
// net/http's transport says; err otherwise.
//
//go:norace
func ctxErr(ctx context.Context, err error) error {
	if e := ctx.Err(); e != nil {
		return e
	}
	return err
}

//go:norace
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// body gives its connection back when the response has been read to its end, or closes it
// when the body is closed before, and stops watching the request's context.
type body struct {
	io.ReadCloser
	ctx      context.Context
	release  func(reuse bool)
	released bool
}

//go:norace
func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.released {
		b.released = true
		b.release(true)
	}
	if err != nil && err != io.EOF {
		err = ctxErr(b.ctx, err)
	}
	return n, err
}

//go:norace
func (b *body) Close() error {
	err := b.ReadCloser.Close()
	if !b.released {
		b.released = true
		b.release(false)
	}
	return err
}

// validateHeaders is net/http's: the first field whose name or value may not be sent, or "".
//
//go:norace
func validateHeaders(h http.Header) string {
	for k, vv := range h {
		if k == "" || strings.IndexFunc(k, func(r rune) bool { return !tokenChar(r) }) >= 0 {
			return fmt.Sprintf("field name %q", k)
		}
		for _, v := range vv {
			for i := 0; i < len(v); i++ {
				// A control byte other than a tab: net/http's httpguts.ValidHeaderFieldValue.
				if b := v[i]; b < ' ' && b != '\t' || b == 0x7f {
					return fmt.Sprintf("field value for %q", k)
				}
			}
		}
	}
	return ""
}

// tokenChar reports whether r may be in a header field's name (RFC 7230's tchar).
func tokenChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
