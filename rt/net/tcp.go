package net

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// errVirtual is the error of the operations that have no meaning on heddle's virtual network:
// those that reach the operating system's socket (File, SyscallConn).
var errVirtual = errors.New("not a socket of the operating system: an object of heddle's virtual network")

// tcpConn is the method set of net.TCPConn: *net.TCPConn's outside a run, *conn's inside.
type tcpConn interface {
	Read(b []byte) (int, error)
	Write(b []byte) (int, error)
	Close() error
	LocalAddr() net.Addr
	RemoteAddr() net.Addr
	SetDeadline(t time.Time) error
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
	CloseRead() error
	CloseWrite() error
	File() (f *os.File, err error)
	MultipathTCP() (bool, error)
	ReadFrom(r io.Reader) (int64, error)
	SetKeepAlive(keepalive bool) error
	SetKeepAliveConfig(config net.KeepAliveConfig) error
	SetKeepAlivePeriod(d time.Duration) error
	SetLinger(sec int) error
	SetNoDelay(noDelay bool) error
	SetReadBuffer(bytes int) error
	SetWriteBuffer(bytes int) error
	SyscallConn() (syscall.RawConn, error)
	WriteTo(w io.Writer) (int64, error)
}

// TCPConn is net.TCPConn. In a run, it is an end of a connection of the virtual network (what
// Dial, DialTCP, Accept and AcceptTCP return there); outside, a real one.
type TCPConn struct{ tcpConn }

// TCPListener is net.TCPListener. In a run, it is a listener of the virtual network (what
// Listen and ListenTCP return there for tcp, tcp4 and tcp6); outside, a real one.
type TCPListener struct {
	real *net.TCPListener
	v    *listener
}

// ListenTCP is net.ListenTCP: a listener of the virtual network in a run.
//
//go:norace
func ListenTCP(network string, laddr *TCPAddr) (*TCPListener, error) {
	if !rt.Running() || !stream(network) {
		l, err := net.ListenTCP(network, laddr)
		if err != nil {
			return nil, err
		}
		return &TCPListener{real: l}, nil
	}
	address := ":0"
	if laddr != nil {
		address = laddr.String()
	}
	return listen(network, address)
}

// DialTCP is net.DialTCP: a connection of the virtual network in a run. The local address
// laddr is not kept: the virtual network numbers the client ends itself.
//
//go:norace
func DialTCP(network string, laddr, raddr *TCPAddr) (*TCPConn, error) {
	if !rt.Running() || !stream(network) {
		c, err := net.DialTCP(network, laddr, raddr)
		if err != nil {
			return nil, err
		}
		return &TCPConn{c}, nil
	}
	if raddr == nil {
		return nil, &net.OpError{Op: "dial", Net: network, Source: laddr, Err: &net.AddrError{Err: "missing address"}}
	}
	return dialTCP(context.Background(), network, raddr.String())
}

// dialTCP dials address on the virtual network, as a TCP connection.
//
//go:norace
func dialTCP(ctx context.Context, network, address string) (*TCPConn, error) {
	c, err := dialVirtual(ctx, network, address)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*TCPConn); ok {
		return tc, nil
	}
	if tc, ok := c.(tcpConn); ok {
		return &TCPConn{tc}, nil
	}
	c.Close()
	return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("heddle: %s is another process's of the group, whose connection (%T) is not a TCPConn: use Dial", address, c)}
}

//go:norace
func (l *TCPListener) Addr() net.Addr {
	if l.v == nil {
		return l.real.Addr()
	}
	return l.v.addr
}

// Accept waits for the next connection: a scheduling point in a run.
//
//go:norace
func (l *TCPListener) Accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err != nil {
		return nil, err
	}
	return c, nil
}

//go:norace
func (l *TCPListener) AcceptTCP() (*TCPConn, error) {
	if l.v == nil {
		c, err := l.real.AcceptTCP()
		if err != nil {
			return nil, err
		}
		return &TCPConn{c}, nil
	}
	c, err := l.v.accept()
	if err != nil {
		return nil, err
	}
	return &TCPConn{c}, nil
}

// Close stops the listener: its Accept returns net.ErrClosed.
//
//go:norace
func (l *TCPListener) Close() error {
	if l.v == nil {
		return l.real.Close()
	}
	return l.v.close()
}

// SetDeadline sets Accept's deadline, a time of the virtual clock in a run.
//
//go:norace
func (l *TCPListener) SetDeadline(t time.Time) error {
	if l.v == nil {
		return l.real.SetDeadline(rt.RealTime(t))
	}
	l.v.setDeadline(t)
	return nil
}

//go:norace
func (l *TCPListener) File() (f *os.File, err error) {
	if l.v == nil {
		return l.real.File()
	}
	return nil, &net.OpError{Op: "file", Net: "tcp", Addr: l.v.addr, Err: errVirtual}
}

//go:norace
func (l *TCPListener) SyscallConn() (syscall.RawConn, error) {
	if l.v == nil {
		return l.real.SyscallConn()
	}
	return nil, &net.OpError{Op: "raw-conn", Net: "tcp", Addr: l.v.addr, Err: errVirtual}
}

// DialTCP is net.Dialer's DialTCP: a connection of the virtual network in a run.
//
//go:norace
func (d *Dialer) DialTCP(ctx context.Context, network string, laddr netip.AddrPort, raddr netip.AddrPort) (*TCPConn, error) {
	if !rt.Running() || !stream(network) {
		c, err := d.std().DialTCP(ctx, network, laddr, raddr)
		if err != nil {
			return nil, err
		}
		return &TCPConn{c}, nil
	}
	return dialTCP(ctx, network, raddr.String())
}

// The methods of net.TCPConn that a virtual connection has beyond net.Conn. The socket options
// have nothing to tune and succeed; what reaches the operating system's socket fails with
// errVirtual.

//go:norace
func (c *conn) File() (*os.File, error) { return nil, c.opError("file", errVirtual) }

//go:norace
func (c *conn) SyscallConn() (syscall.RawConn, error) { return nil, c.opError("raw-conn", errVirtual) }

//go:norace
func (c *conn) MultipathTCP() (bool, error) { return false, nil }

//go:norace
func (c *conn) SetKeepAlive(bool) error { return nil }

//go:norace
func (c *conn) SetKeepAliveConfig(net.KeepAliveConfig) error { return nil }

//go:norace
func (c *conn) SetKeepAlivePeriod(time.Duration) error { return nil }

//go:norace
func (c *conn) SetLinger(int) error { return nil }

//go:norace
func (c *conn) SetNoDelay(bool) error { return nil }

//go:norace
func (c *conn) SetReadBuffer(int) error { return nil }

//go:norace
func (c *conn) SetWriteBuffer(int) error { return nil }

// ReadFrom copies r to the connection, write by write.
//
//go:norace
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{c}, r)
}

// WriteTo copies the connection to w until EOF.
//
//go:norace
func (c *conn) WriteTo(w io.Writer) (int64, error) {
	return io.Copy(w, struct{ io.Reader }{c})
}
