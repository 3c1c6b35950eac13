package http

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/heddledbg/heddle/rt"
)

// net/http's Client applies its Timeout with a timer and a context of its own, on the real
// clock, which a run does not follow: a handler that sleeps five virtual seconds answers long
// before a real three-second timeout, where go test's client gives up. The instrumenter
// rewrites the calls of Do, Get, Head, Post and PostForm on an *http.Client into these
// functions, which apply the timeout with a context of the run, on the virtual clock. A client
// whose Transport is net/http's own (&http.Transport{TLSClientConfig: …}, common in tests)
// has its requests carried by StandIn's, with the same settings.

// ClientDo is c.Do(req).
//
//go:norace
func ClientDo(c *http.Client, req *http.Request) (*http.Response, error) {
	if !rt.Running() {
		return c.Do(req)
	}
	if t, ok := c.Transport.(*http.Transport); ok {
		cc := *c
		cc.Transport = StandIn(t)
		c = &cc
	}
	if c.Timeout <= 0 {
		return c.Do(req)
	}
	parent := req.Context()
	ctx, cancel := rt.WithTimeout(parent, c.Timeout)
	cc := *c
	cc.Timeout = 0
	resp, err := cc.Do(req.WithContext(ctx))
	if err != nil {
		cancel()
		var ue *url.Error
		if parent.Err() == nil && ctx.Err() == context.DeadlineExceeded && errors.As(err, &ue) {
			// As net/http says it.
			ue.Err = &timeoutError{ue.Err.Error() + " (Client.Timeout exceeded while awaiting headers)"}
		}
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// ClientGet is c.Get(u).
//
//go:norace
func ClientGet(c *http.Client, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), "GET", u, nil)
	if err != nil {
		return nil, err
	}
	return ClientDo(c, req)
}

// ClientHead is c.Head(u).
//
//go:norace
func ClientHead(c *http.Client, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), "HEAD", u, nil)
	if err != nil {
		return nil, err
	}
	return ClientDo(c, req)
}

// ClientPost is c.Post(u, contentType, body).
//
//go:norace
func ClientPost(c *http.Client, u, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), "POST", u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	return ClientDo(c, req)
}

// ClientPostForm is c.PostForm(u, data).
//
//go:norace
func ClientPostForm(c *http.Client, u string, data url.Values) (*http.Response, error) {
	return ClientPost(c, u, "application/x-www-form-urlencoded", strings.NewReader(data.Encode()))
}

// timeoutError is net/http's error for a request that its client's Timeout, or its
// transport's ResponseHeaderTimeout, ended.
type timeoutError struct{ err string }

func (e *timeoutError) Error() string   { return e.err }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }
func (e *timeoutError) Is(err error) bool {
	return err == context.DeadlineExceeded
}

// cancelBody ends the timeout's context once the body is closed: the timeout covers reading
// the body too, as net/http's does.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

//go:norace
func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// ClientCloseIdleConnections is c.CloseIdleConnections(): in a run, it closes the connections
// that c's transport kept alive on the virtual network.
//
//go:norace
func ClientCloseIdleConnections(c *http.Client) {
	t := c.Transport
	if t == nil {
		t = http.DefaultTransport
	}
	if ht, ok := t.(*http.Transport); ok && rt.Running() {
		TransportCloseIdleConnections(ht)
		return
	}
	c.CloseIdleConnections()
}

// TransportCloseIdleConnections is t.CloseIdleConnections(): in a run, it closes the
// connections that t's stand-in kept alive (StandIn).
//
//go:norace
func TransportCloseIdleConnections(t *http.Transport) {
	if !rt.Running() {
		t.CloseIdleConnections()
		return
	}
	closeIdle(t)
}

// RoundTripperRoundTrip is t.RoundTrip(req) for t an http.RoundTripper: an *http.Transport
// behind the interface is carried as TransportRoundTrip carries it, any other goes on as it is.
//
//go:norace
func RoundTripperRoundTrip(t http.RoundTripper, req *http.Request) (*http.Response, error) {
	if ht, ok := t.(*http.Transport); ok {
		return TransportRoundTrip(ht, req)
	}
	return t.RoundTrip(req)
}

// TransportRoundTrip is t.RoundTrip(req): in a run, t's stand-in carries it (StandIn).
//
//go:norace
func TransportRoundTrip(t *http.Transport, req *http.Request) (*http.Response, error) {
	if !rt.Running() {
		return t.RoundTrip(req)
	}
	return StandIn(t).RoundTrip(req)
}
