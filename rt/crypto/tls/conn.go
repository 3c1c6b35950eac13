package tls

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"time"

	"github.com/heddledbg/heddle/rt"
	rtnet "github.com/heddledbg/heddle/rt/net"
)

// Conn is tls.Conn with its locks under heddle's control: hs stands for tls.Conn's
// handshakeMutex, in and out for its input and output locks. Every method that takes one of
// tls.Conn's takes the run's first, in tls.Conn's order (the handshake's before the input's),
// so that tls.Conn's own is free when the real code reaches it.
type Conn struct {
	c           *tls.Conn
	hs, in, out rt.Mutex
}

// Client is tls.Client: the client side of a TLS connection over conn.
//
//go:norace
func Client(conn net.Conn, config *Config) *Conn { return &Conn{c: tls.Client(conn, config)} }

// Server is tls.Server: the server side of a TLS connection over conn.
//
//go:norace
func Server(conn net.Conn, config *Config) *Conn { return &Conn{c: tls.Server(conn, config)} }

// handshake runs the handshake if it has not run, as tls.Conn's Read and Write do first.
//
//go:norace
func (c *Conn) handshake(ctx context.Context) error {
	c.hs.Lock()
	defer c.hs.Unlock()
	if err := ctx.Err(); err != nil && !c.c.ConnectionState().HandshakeComplete {
		return err
	}
	// Not HandshakeContext: with a context that can be cancelled, crypto/tls waits for the
	// cancellation on a goroutine of its own, which would run beside the run's.
	return c.c.Handshake()
}

// Handshake runs the client or server handshake protocol if it has not yet been run.
//
//go:norace
func (c *Conn) Handshake() error { return c.handshake(context.Background()) }

// HandshakeContext is Handshake, failing if ctx is done before it starts. A cancellation while
// the handshake waits for the peer does not interrupt it (see docs/network.md).
//
//go:norace
func (c *Conn) HandshakeContext(ctx context.Context) error { return c.handshake(ctx) }

// Read reads application data, after the handshake.
//
//go:norace
func (c *Conn) Read(b []byte) (int, error) {
	if err := c.handshake(context.Background()); err != nil {
		return 0, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	c.in.Lock()
	defer c.in.Unlock()
	return c.c.Read(b)
}

// Write writes application data, after the handshake.
//
//go:norace
func (c *Conn) Write(b []byte) (int, error) {
	if err := c.handshake(context.Background()); err != nil {
		return 0, err
	}
	c.out.Lock()
	defer c.out.Unlock()
	return c.c.Write(b)
}

// Close closes the connection. It takes none of the run's locks: tls.Conn's Close does not
// wait for a Write in flight (it closes the connection beneath, which ends the Write), and
// sends its close_notify alert only when no Write is in flight.
//
//go:norace
func (c *Conn) Close() error { return c.c.Close() }

// CloseWrite sends the close_notify alert, after any Write in flight.
//
//go:norace
func (c *Conn) CloseWrite() error {
	c.out.Lock()
	defer c.out.Unlock()
	return c.c.CloseWrite()
}

// ConnectionState returns basic TLS details about the connection, after a handshake in
// progress.
//
//go:norace
func (c *Conn) ConnectionState() ConnectionState {
	c.hs.Lock()
	defer c.hs.Unlock()
	return c.c.ConnectionState()
}

//go:norace
func (c *Conn) OCSPResponse() []byte {
	c.hs.Lock()
	defer c.hs.Unlock()
	return c.c.OCSPResponse()
}

//go:norace
func (c *Conn) VerifyHostname(host string) error {
	c.hs.Lock()
	defer c.hs.Unlock()
	return c.c.VerifyHostname(host)
}

//go:norace
func (c *Conn) LocalAddr() net.Addr { return c.c.LocalAddr() }

//go:norace
func (c *Conn) RemoteAddr() net.Addr { return c.c.RemoteAddr() }

//go:norace
func (c *Conn) NetConn() net.Conn { return c.c.NetConn() }

//go:norace
func (c *Conn) SetDeadline(t time.Time) error { return c.c.SetDeadline(t) }

//go:norace
func (c *Conn) SetReadDeadline(t time.Time) error { return c.c.SetReadDeadline(t) }

//go:norace
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.c.SetWriteDeadline(t) }

// A listener is tls's: Accept wraps the inner listener's connection in a server Conn.
type listener struct {
	net.Listener
	config *Config
}

//go:norace
func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Server(c, l.config), nil
}

// NewListener is tls.NewListener: a listener whose Accept returns server Conns over inner's
// connections.
//
//go:norace
func NewListener(inner net.Listener, config *Config) net.Listener {
	return &listener{Listener: inner, config: config}
}

// Listen is tls.Listen, on the virtual network in a run.
//
//go:norace
func Listen(network, laddr string, config *Config) (net.Listener, error) {
	if config == nil || len(config.Certificates) == 0 &&
		config.GetCertificate == nil && config.GetConfigForClient == nil {
		// tls.Listen's own check, with its error.
		return tls.Listen(network, laddr, config)
	}
	l, err := rtnet.Listen(network, laddr)
	if err != nil {
		return nil, err
	}
	return NewListener(l, config), nil
}

// Dial is tls.Dial, on the virtual network in a run.
//
//go:norace
func Dial(network, addr string, config *Config) (*Conn, error) {
	return dial(context.Background(), new(rtnet.Dialer), network, addr, config)
}

// DialWithDialer is tls.DialWithDialer, on the virtual network in a run.
//
//go:norace
func DialWithDialer(dialer *rtnet.Dialer, network, addr string, config *Config) (*Conn, error) {
	return dial(context.Background(), dialer, network, addr, config)
}

// dial is tls's: it dials, infers the server's name from addr when config has none, and
// runs the handshake.
//
//go:norace
func dial(ctx context.Context, d *rtnet.Dialer, network, addr string, config *Config) (*Conn, error) {
	raw, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	host := addr
	if i := strings.LastIndex(addr, ":"); i >= 0 {
		host = addr[:i]
	}
	if config == nil {
		config = &Config{}
	}
	if config.ServerName == "" {
		config = config.Clone()
		config.ServerName = host
	}
	conn := Client(raw, config)
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return conn, nil
}

// Dialer is tls.Dialer, whose NetDialer is the virtual network's in a run.
type Dialer struct {
	NetDialer *rtnet.Dialer
	Config    *Config
}

//go:norace
func (d *Dialer) Dial(network, addr string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, addr)
}

//go:norace
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nd := d.NetDialer
	if nd == nil {
		nd = new(rtnet.Dialer)
	}
	c, err := dial(ctx, nd, network, addr, d.Config)
	if err != nil {
		return nil, err
	}
	return c, nil
}
