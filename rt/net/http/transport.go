package http

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/heddledbg/heddle/rt"
	rttls "github.com/heddledbg/heddle/rt/crypto/tls"
	rtnet "github.com/heddledbg/heddle/rt/net"
)

// Transport is an http.RoundTripper over the virtual network: each request dials a connection
// of its own (with TLS, crypto/tls's own client under rt/crypto/tls, for https), writes the request and reads the response on the calling goroutine, and asks the
// server to close the connection after it (Connection: close), so that no goroutine of either
// side outlives the exchange. Outside a run it is Fallback.
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
	// DisableCompression, as http.Transport's, does not ask for gzip: else a request that
	// does not say which encodings it accepts asks for gzip, and a gzipped answer is
	// decompressed as it is read.
	DisableCompression bool
}

// StandIn returns the Transport that carries t's requests in a run: t's TLS configuration,
// dialer and compression, and HTTP/2 offered when net/http would offer it. net/http's own
// would run each connection on goroutines of its own, which heddle does not control.
//
//go:norace
func StandIn(t *http.Transport) *Transport {
	custom := t.TLSClientConfig != nil || t.DialContext != nil || t.Dial != nil || t.DialTLS != nil || t.DialTLSContext != nil
	return &Transport{Fallback: t, TLSClientConfig: t.TLSClientConfig, DialContext: t.DialContext,
		DisableCompression: t.DisableCompression, ForceAttemptHTTP2: t.TLSNextProto == nil && (t.ForceAttemptHTTP2 || !custom)}
}

//go:norace
func init() {
	// http.DefaultClient, http.Get and every client without a Transport of its own use
	// http.DefaultTransport, whose connections net/http serves on goroutines heddle does not
	// control.
	http.DefaultTransport = &Transport{Fallback: http.DefaultTransport, ForceAttemptHTTP2: true}
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
	port := map[string]string{"http": "80", "https": "443"}[req.URL.Scheme]
	if port == "" {
		closeBody(req)
		msg := fmt.Sprintf("requests %s, but heddle's virtual network carries HTTP and HTTPS only", req.URL.Redacted())
		rt.Fail(rt.VerdictUnsupported, msg, true)
		return nil, errors.New(msg)
	}
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), port)
	}
	dial := rtnet.DialContext
	if t.DialContext != nil {
		dial = t.DialContext
	}
	c, err := dial(req.Context(), "tcp", addr)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if _, port, _ := net.SplitHostPort(addr); !req.Close && watchesConns(port) {
		rt.Differs("had its server see a connection close after one exchange", "where net/http's transport keeps it alive for the next request: heddle's client does not reuse connections (docs/network.md)")
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
		if err := tc.HandshakeContext(req.Context()); err != nil {
			c.Close()
			closeBody(req)
			return nil, err
		}
		cs := tc.ConnectionState()
		if cs.NegotiatedProtocol == "h2" {
			rt.Differs("negotiated HTTP/2 with a server of the test", http2Differs)
		}
		c, state = tc, &cs
	}
	// As net/http's transport, give up the exchange when the request's context ends, its
	// body's reading included: closing the connection ends a read or write that waits. Only
	// a context made under control is watched: another's deadline is on the real clock.
	ctx := req.Context()
	stop := func() bool { return false }
	if rt.ControlledContext(ctx) {
		stop = rt.ContextAfterFunc(ctx, func() { c.Close() })
	}
	out := req.Clone(ctx)
	out.Close = true
	gzipped := false
	if !t.DisableCompression && req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == "" && req.Method != "HEAD" {
		// As net/http's transport: it asks for gzip, and decompresses what it gets.
		out.Header.Set("Accept-Encoding", "gzip")
		gzipped = true
	}
	if err := out.Write(c); err != nil {
		stop()
		c.Close()
		return nil, ctxErr(ctx, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		stop()
		c.Close()
		return nil, ctxErr(ctx, err)
	}
	resp.TLS = state
	resp.Body = &body{ReadCloser: resp.Body, conn: c, ctx: ctx, stop: stop}
	if gzipped && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
		resp.Body = &gzipBody{body: resp.Body}
	}
	return resp, nil
}

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

// body closes the connection with the response's body, and stops watching the request's
// context.
type body struct {
	io.ReadCloser
	conn net.Conn
	ctx  context.Context
	stop func() bool
}

//go:norace
func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = ctxErr(b.ctx, err)
	}
	return n, err
}

//go:norace
func (b *body) Close() error {
	b.stop()
	err := b.ReadCloser.Close()
	b.conn.Close()
	return err
}
