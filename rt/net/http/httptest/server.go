package httptest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"

	"github.com/heddledbg/heddle/rt"
	rtnet "github.com/heddledbg/heddle/rt/net"
	rthttp "github.com/heddledbg/heddle/rt/net/http"
)

// Server is httptest.Server on heddle's virtual network: its listener is a virtual one on a
// loopback port, its connections are served on controlled goroutines (rt/net/http), and its
// Client carries requests over the virtual network.
type Server struct {
	URL      string // base URL of form http://ipaddr:port with no trailing slash
	Listener net.Listener
	// EnableHTTP2 and TLS are kept for the API; heddle's virtual network carries plain
	// HTTP/1.1 only.
	EnableHTTP2 bool
	TLS         *tls.Config
	// Config may be changed after calling NewUnstartedServer and before Start.
	Config *http.Server
	client *http.Client
	closed bool
	served chan struct{} // closed when Serve has returned
}

// NewServer starts and returns a new Server.
func NewServer(handler http.Handler) *Server {
	s := NewUnstartedServer(handler)
	s.Start()
	return s
}

// NewUnstartedServer returns a new Server that is not started.
func NewUnstartedServer(handler http.Handler) *Server {
	l, err := rtnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("httptest: failed to listen on a port: %v", err))
	}
	return &Server{Listener: l, Config: &http.Server{Handler: handler}}
}

// NewTLSServer is not available on heddle's virtual network: the run is unsupported.
func NewTLSServer(handler http.Handler) *Server {
	s := NewUnstartedServer(handler)
	s.StartTLS()
	return s
}

// Start starts the server.
func (s *Server) Start() {
	if s.URL != "" {
		panic("Server already started")
	}
	if s.client == nil {
		s.client = &http.Client{Transport: &rthttp.Transport{Fallback: &http.Transport{}}}
	}
	s.URL = "http://" + s.Listener.Addr().String()
	s.served = rt.MakeChan[struct{}](0)
	rt.Go(func() {
		defer rt.Close(s.served)
		rthttp.ServerServe(s.Config, s.Listener)
	})
}

// StartTLS would start the server with TLS, which heddle's virtual network does not carry: the
// run ends as unsupported.
func (s *Server) StartTLS() {
	rt.Fail(rt.VerdictUnsupported, "httptest's TLS server is not available on heddle's virtual network (plain HTTP only)", true)
	panic("httptest: StartTLS under heddle")
}

// Close shuts the server down and waits until every request on it has completed and its
// serving goroutine has returned.
func (s *Server) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.served == nil {
		s.Listener.Close()
		return
	}
	rthttp.ServerShutdown(s.Config, context.Background())
	rt.Recv(s.served)
}

// CloseClientConnections closes the connections to the server.
func (s *Server) CloseClientConnections() {
	rthttp.CloseConns(s.Config)
}

// Certificate returns nil: the virtual network carries no TLS.
func (s *Server) Certificate() *x509.Certificate { return nil }

// Client returns a client that sends its requests to the server over the virtual network.
func (s *Server) Client() *http.Client { return s.client }
