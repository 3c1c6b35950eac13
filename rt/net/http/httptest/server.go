package httptest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/heddledbg/heddle/rt"
	rttls "github.com/heddledbg/heddle/rt/crypto/tls"
	rtnet "github.com/heddledbg/heddle/rt/net"
	rthttp "github.com/heddledbg/heddle/rt/net/http"
)

// Server is httptest.Server on heddle's virtual network: its listener is a virtual one on a
// loopback port, its connections are served on controlled goroutines (rt/net/http), and its
// Client carries requests over the virtual network.
type Server struct {
	URL      string // base URL of form http://ipaddr:port with no trailing slash
	Listener net.Listener
	// EnableHTTP2 has the server and its Client negotiate HTTP/2 (StartTLS).
	EnableHTTP2 bool
	// TLS is the optional TLS configuration, populated with a new config after TLS is
	// started.
	TLS *tls.Config
	// Config may be changed after calling NewUnstartedServer and before Start.
	Config      *http.Server
	client      *http.Client
	certificate *x509.Certificate
	closed      bool
	served      chan struct{} // closed when Serve has returned
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

// NewTLSServer starts and returns a new Server using TLS.
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
	s.start("http://")
}

// start serves the listener on a controlled goroutine.
func (s *Server) start(scheme string) {
	s.URL = scheme + s.Listener.Addr().String()
	s.served = rt.MakeChan[struct{}](0)
	rt.Go(func() {
		defer rt.Close(s.served)
		rthttp.ServerServe(s.Config, s.Listener)
	})
}

// StartTLS starts the server with TLS: crypto/tls's own server (under rt/crypto/tls) over the
// virtual network, with a certificate for 127.0.0.1, ::1 and example.com, as httptest's. With
// EnableHTTP2, the server and its Client negotiate HTTP/2 as httptest's do, and then speak
// HTTP/1.1: a run whose test fails after it is unsupported (rt.Differs).
func (s *Server) StartTLS() {
	if s.URL != "" {
		panic("Server already started")
	}
	if s.TLS != nil {
		s.TLS = s.TLS.Clone()
	} else {
		s.TLS = new(tls.Config)
	}
	if s.TLS.NextProtos == nil {
		s.TLS.NextProtos = []string{"http/1.1"}
		if s.EnableHTTP2 {
			s.TLS.NextProtos = []string{"h2"}
		}
	}
	if len(s.TLS.Certificates) == 0 {
		cert, err := localhostCert()
		if err != nil {
			panic("httptest: NewTLSServer: " + err.Error())
		}
		s.TLS.Certificates = []tls.Certificate{cert}
	}
	var err error
	s.certificate, err = x509.ParseCertificate(s.TLS.Certificates[0].Certificate[0])
	if err != nil {
		panic("httptest: NewTLSServer: " + err.Error())
	}
	pool := x509.NewCertPool()
	pool.AddCert(s.certificate)
	s.client = &http.Client{Transport: &rthttp.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: s.EnableHTTP2,
		Fallback: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: s.EnableHTTP2}}}
	if rt.Running() {
		s.Listener = rttls.NewListener(s.Listener, s.TLS)
	} else {
		// net/http serves it: with crypto/tls's own connections, it speaks HTTP/2 when the
		// handshake negotiates it.
		s.Listener = tls.NewListener(s.Listener, s.TLS)
	}
	s.start("https://")
}

// localhost is the certificate of the TLS servers, made once per process.
var localhost struct {
	once sync.Once
	cert tls.Certificate
	err  error
}

// localhostCert returns a self-signed certificate for 127.0.0.1, ::1 and example.com, the names
// of httptest's: an ECDSA key, which is quick to make.
func localhostCert() (tls.Certificate, error) {
	localhost.once.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			localhost.err = err
			return
		}
		tmpl := &x509.Certificate{
			SerialNumber:          big.NewInt(1),
			Subject:               pkix.Name{Organization: []string{"Acme Co"}},
			DNSNames:              []string{"example.com"},
			IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
			NotBefore:             time.Unix(0, 0),
			NotAfter:              time.Date(2084, time.January, 29, 16, 0, 0, 0, time.UTC),
			KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
			ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			BasicConstraintsValid: true,
			IsCA:                  true,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			localhost.err = err
			return
		}
		localhost.cert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	})
	return localhost.cert, localhost.err
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
	// As httptest's: the clients' idle connections to it go too.
	type idleCloser interface{ CloseIdleConnections() }
	if t, ok := http.DefaultTransport.(idleCloser); ok {
		t.CloseIdleConnections()
	}
	if s.client != nil {
		if t, ok := s.client.Transport.(idleCloser); ok {
			t.CloseIdleConnections()
		}
	}
}

// CloseClientConnections closes the connections to the server.
func (s *Server) CloseClientConnections() {
	rthttp.CloseConns(s.Config)
}

// Certificate returns the certificate of a TLS server, or nil.
func (s *Server) Certificate() *x509.Certificate { return s.certificate }

// Client returns a client that sends its requests to the server over the virtual network.
func (s *Server) Client() *http.Client { return s.client }
