package net

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// errMissingAddress is net's error for a dial or listen without an address, which net does not
// export: the same words.
var errMissingAddress = errors.New("missing address")

// errOOB is the error of a write with out-of-band data (descriptors, credentials) on a
// virtual Unix socket: there is no kernel to carry them.
var errOOB = errors.New("out-of-band data (descriptors, credentials) on a Unix socket of heddle's virtual network")

//go:norace
func unixStream(network string) bool {
	return network == "unix" || network == "unixpacket"
}

// unnamed is the address of a Unix socket that nobody bound: a dialing client's, as its own
// LocalAddr and the accepted end's RemoteAddr. Go on Linux spells it "@" (the kernel gives a
// bare family, whose first path byte, zero, net rewrites as an abstract name's "@").
//
//go:norace
func unnamed(network string) *net.UnixAddr { return &net.UnixAddr{Name: "@", Net: network} }

// unixKey names a path in the run's registry: one file under any spelling of its path. An
// abstract name ("@name") is no file and is its own key.
//
//go:norace
func unixKey(name string) string {
	if strings.HasPrefix(name, "@") {
		return name
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

// unixListeners returns the run's listeners on Unix paths, discarding another run's.
//
//go:norace
func unixListeners() map[string]*UnixListener {
	listeners() // resets vnet for a new run
	if vnet.unix == nil {
		vnet.unix = make(map[string]*UnixListener)
	}
	return vnet.unix
}

// releaseUnix closes the real sockets that an earlier run's listeners left open, so that this
// run can bind their paths again.
//
//go:norace
func releaseUnix() {
	for _, l := range vnet.unix {
		l.hold.Close()
	}
	vnet.unix = nil
}

// UnixListener is net.UnixListener. In a run, it is a listener of the virtual network (what
// Listen and ListenUnix return there for unix and unixpacket), registered by its path, a
// name space apart from the TCP ports; outside, a real one.
//
// A virtual listener also holds a real socket bound at its path (hold), which no instrumented
// code dials: the path is then a socket file as the kernel makes it (os.Stat sees it, a
// second process's bind fails), the file system gives its own errors (a missing directory, a
// name too long), Close unlinks it unless SetUnlinkOnClose(false), and a connection to it over
// a real socket comes from code heddle does not control, which makes the run unsupported.
type UnixListener struct {
	real *net.UnixListener
	v    *listener
	hold *net.UnixListener
	key  string
}

// ListenUnix is net.ListenUnix: a listener of the virtual network in a run, for unix and
// unixpacket.
//
//go:norace
func ListenUnix(network string, laddr *UnixAddr) (*UnixListener, error) {
	if !rt.Running() || !unixStream(network) {
		l, err := net.ListenUnix(network, laddr)
		if err != nil {
			return nil, err
		}
		return &UnixListener{real: l}, nil
	}
	if laddr == nil || laddr.Name == "" {
		return nil, &net.OpError{Op: "listen", Net: network, Err: errMissingAddress}
	}
	addr := &net.UnixAddr{Name: laddr.Name, Net: network}
	registry.Lock()
	defer registry.Unlock()
	ls := unixListeners()
	key := unixKey(addr.Name)
	if ls[key] != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: addr, Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	}
	hold, err := net.ListenUnix(network, addr)
	if err != nil {
		return nil, err
	}
	go refuseUnix(hold, addr.Name)
	l := &UnixListener{hold: hold, key: key, v: &listener{
		addr:    addr,
		network: network,
		pending: rt.MakeChan[*conn](backlog),
		done:    rt.MakeChan[struct{}](0),
		wake:    rt.MakeChan[struct{}](0),
	}}
	ls[key] = l
	return l, nil
}

// refuseUnix closes every connection made to a virtual listener's path over a real socket:
// its client is code heddle does not control, and the run cannot be explored.
//
//go:norace
func refuseUnix(hold *net.UnixListener, name string) {
	for {
		c, err := hold.Accept()
		if err != nil {
			return
		}
		// Told before the close that the client may be waiting for, so that the run it
		// connected in is the one that ends.
		rt.Unsupported(fmt.Sprintf("code that heddle does not instrument connected to the Unix socket %s, a listener of the test, over a real socket (another process, or a client of a dependency; instrument it with -instrument)", name))
		c.Close()
	}
}

// DialUnix is net.DialUnix: a connection of the virtual network in a run, for unix and
// unixpacket. A local address laddr names the client's end (its LocalAddr, the accepted
// end's RemoteAddr) and binds no file.
//
//go:norace
func DialUnix(network string, laddr, raddr *UnixAddr) (*UnixConn, error) {
	if !rt.Running() || !unixStream(network) {
		c, err := net.DialUnix(network, laddr, raddr)
		if err != nil {
			return nil, err
		}
		return &UnixConn{real: c}, nil
	}
	return unixConn(dialUnix(context.Background(), network, laddr, raddr))
}

// DialUnix is net.Dialer's DialUnix: a connection of the virtual network in a run.
//
//go:norace
func (d *Dialer) DialUnix(ctx context.Context, network string, laddr *UnixAddr, raddr *UnixAddr) (*UnixConn, error) {
	if !rt.Running() || !unixStream(network) {
		c, err := d.std().DialUnix(ctx, network, laddr, raddr)
		if err != nil {
			return nil, err
		}
		return &UnixConn{real: c}, nil
	}
	return unixConn(dialUnix(ctx, network, laddr, raddr))
}

// unixConn is the *UnixConn of a dial, or an error for a connection that Outside gave of
// another type.
//
//go:norace
func unixConn(c net.Conn, err error) (*UnixConn, error) {
	if err != nil {
		return nil, err
	}
	if uc, ok := c.(*UnixConn); ok {
		return uc, nil
	}
	c.Close()
	return nil, &net.OpError{Op: "dial", Net: "unix", Addr: c.RemoteAddr(), Err: fmt.Errorf("heddle: the connection (%T) is another process's of the group, not a UnixConn: use Dial", c)}
}

// dialUnixPath is Dial of a unix or unixpacket path in a run.
//
//go:norace
func dialUnixPath(ctx context.Context, network, address string) (net.Conn, error) {
	return dialUnix(ctx, network, nil, &net.UnixAddr{Name: address, Net: network})
}

// dialUnix connects to raddr's listener of the run: a *UnixConn. A path that no listener of
// the run has is the file system's: a real dial says what it is, and its error is the one
// the program gets (no such file, connection refused for a socket file nobody listens on);
// a real listener there is outside the process, and the run cannot be explored.
//
//go:norace
func dialUnix(ctx context.Context, network string, laddr, raddr *net.UnixAddr) (net.Conn, error) {
	var source net.Addr
	if laddr != nil {
		source = laddr
	}
	if raddr == nil || raddr.Name == "" {
		return nil, &net.OpError{Op: "dial", Net: network, Source: source, Err: errMissingAddress}
	}
	registry.Lock()
	ul := unixListeners()[unixKey(raddr.Name)]
	registry.Unlock()
	if ul == nil || ul.v.closed {
		if Outside != nil {
			return Outside(ctx, network, raddr.Name)
		}
		return nil, dialFile(network, raddr)
	}
	l := ul.v
	if l.network != network {
		// A stream socket dialing a seqpacket one, or the reverse: the kernel's answer.
		return nil, &net.OpError{Op: "dial", Net: network, Source: source, Addr: raddr, Err: os.NewSyscallError("connect", syscall.EPROTOTYPE)}
	}
	local := unnamed(network)
	if laddr != nil && laddr.Name != "" {
		local = &net.UnixAddr{Name: laddr.Name, Net: network}
	}
	client, server := pair(l.addr, local)
	for _, c := range []*conn{client, server} {
		c.network, c.packet = network, network == "unixpacket"
	}
	// Queuing the connection is the dial's scheduling point; the listener's Accept takes it.
	i, _, _ := rt.Select(false, rt.SendCase(l.pending, server), rt.RecvCase(l.done))
	if i == 1 {
		return nil, &net.OpError{Op: "dial", Net: network, Source: source, Addr: raddr, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	return &UnixConn{v: client}, nil
}

// dialFile dials raddr over a real socket, for a path that no listener of the run has, and
// returns the error that the program gets.
//
//go:norace
func dialFile(network string, raddr *net.UnixAddr) error {
	c, err := net.DialUnix(network, nil, raddr)
	if err != nil {
		return err
	}
	c.Close()
	rt.Fail(rt.VerdictUnsupported, fmt.Sprintf("dials the Unix socket %s outside the process (no listener of the test has that path)", raddr.Name), true)
	return &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: fmt.Errorf("%s is outside the process", raddr.Name)}
}

//go:norace
func (l *UnixListener) Addr() net.Addr {
	if l.v == nil {
		return l.real.Addr()
	}
	return l.v.addr
}

// Accept waits for the next connection: a scheduling point in a run.
//
//go:norace
func (l *UnixListener) Accept() (net.Conn, error) {
	c, err := l.AcceptUnix()
	if err != nil {
		return nil, err
	}
	return c, nil
}

//go:norace
func (l *UnixListener) AcceptUnix() (*UnixConn, error) {
	if l.v == nil {
		c, err := l.real.AcceptUnix()
		if err != nil {
			return nil, err
		}
		return &UnixConn{real: c}, nil
	}
	c, err := l.v.accept()
	if err != nil {
		return nil, err
	}
	return &UnixConn{v: c}, nil
}

// Close stops the listener: its Accept returns net.ErrClosed, and the path is free again
// (its file unlinked, unless SetUnlinkOnClose(false) keeps it, as net's does).
//
//go:norace
func (l *UnixListener) Close() error {
	if l.v == nil {
		return l.real.Close()
	}
	registry.Lock()
	defer registry.Unlock()
	if err := l.v.close(); err != nil {
		return err
	}
	if ls := unixListeners(); ls[l.key] == l {
		delete(ls, l.key)
	}
	l.hold.Close()
	return nil
}

// SetDeadline sets Accept's deadline, a time of the virtual clock in a run.
//
//go:norace
func (l *UnixListener) SetDeadline(t time.Time) error {
	if l.v == nil {
		return l.real.SetDeadline(rt.RealTime(t))
	}
	l.v.setDeadline(t)
	return nil
}

//go:norace
func (l *UnixListener) SetUnlinkOnClose(unlink bool) {
	if l.v == nil {
		l.real.SetUnlinkOnClose(unlink)
		return
	}
	l.hold.SetUnlinkOnClose(unlink)
}

//go:norace
func (l *UnixListener) File() (f *os.File, err error) {
	if l.v == nil {
		return l.real.File()
	}
	return nil, &net.OpError{Op: "file", Net: l.v.network, Addr: l.v.addr, Err: errVirtual}
}

//go:norace
func (l *UnixListener) SyscallConn() (syscall.RawConn, error) {
	if l.v == nil {
		return l.real.SyscallConn()
	}
	return nil, &net.OpError{Op: "raw-conn", Net: l.v.network, Addr: l.v.addr, Err: errVirtual}
}

// ListenUnixgram is net.ListenUnixgram, on the real network: datagram Unix sockets are not
// virtual.
//
//go:norace
func ListenUnixgram(network string, laddr *UnixAddr) (*UnixConn, error) {
	c, err := net.ListenUnixgram(network, laddr)
	if err != nil {
		return nil, err
	}
	return &UnixConn{real: c}, nil
}

// UnixConn is net.UnixConn. In a run, it is an end of a connection of the virtual network
// (what Dial, DialUnix and a UnixListener's Accept return there for unix and unixpacket);
// outside, and for unixgram, a real one.
type UnixConn struct {
	real *net.UnixConn
	v    *conn
}

// wrapConn gives instrumented code rt/net's UnixConn for net's, so that its assertion
// c.(*net.UnixConn) holds for a real connection too.
//
//go:norace
func wrapConn(c net.Conn, err error) (net.Conn, error) {
	if uc, ok := c.(*net.UnixConn); ok {
		return &UnixConn{real: uc}, err
	}
	return c, err
}

//go:norace
func wrapPacket(c net.PacketConn, err error) (net.PacketConn, error) {
	if uc, ok := c.(*net.UnixConn); ok {
		return &UnixConn{real: uc}, err
	}
	return c, err
}

//go:norace
func wrapListener(l net.Listener, err error) (net.Listener, error) {
	if ul, ok := l.(*net.UnixListener); ok {
		return &UnixListener{real: ul}, err
	}
	return l, err
}

//go:norace
func (c *UnixConn) Read(b []byte) (int, error) {
	if c.v == nil {
		return c.real.Read(b)
	}
	return c.v.Read(b)
}

//go:norace
func (c *UnixConn) Write(b []byte) (int, error) {
	if c.v == nil {
		return c.real.Write(b)
	}
	return c.v.Write(b)
}

//go:norace
func (c *UnixConn) Close() error {
	if c.v == nil {
		return c.real.Close()
	}
	return c.v.Close()
}

//go:norace
func (c *UnixConn) CloseRead() error {
	if c.v == nil {
		return c.real.CloseRead()
	}
	return c.v.CloseRead()
}

//go:norace
func (c *UnixConn) CloseWrite() error {
	if c.v == nil {
		return c.real.CloseWrite()
	}
	return c.v.CloseWrite()
}

//go:norace
func (c *UnixConn) LocalAddr() net.Addr {
	if c.v == nil {
		return c.real.LocalAddr()
	}
	return c.v.local
}

//go:norace
func (c *UnixConn) RemoteAddr() net.Addr {
	if c.v == nil {
		return c.real.RemoteAddr()
	}
	return c.v.remote
}

//go:norace
func (c *UnixConn) SetDeadline(t time.Time) error {
	if c.v == nil {
		return c.real.SetDeadline(rt.RealTime(t))
	}
	return c.v.SetDeadline(t)
}

//go:norace
func (c *UnixConn) SetReadDeadline(t time.Time) error {
	if c.v == nil {
		return c.real.SetReadDeadline(rt.RealTime(t))
	}
	return c.v.SetReadDeadline(t)
}

//go:norace
func (c *UnixConn) SetWriteDeadline(t time.Time) error {
	if c.v == nil {
		return c.real.SetWriteDeadline(rt.RealTime(t))
	}
	return c.v.SetWriteDeadline(t)
}

//go:norace
func (c *UnixConn) SetReadBuffer(bytes int) error {
	if c.v == nil {
		return c.real.SetReadBuffer(bytes)
	}
	return nil
}

//go:norace
func (c *UnixConn) SetWriteBuffer(bytes int) error {
	if c.v == nil {
		return c.real.SetWriteBuffer(bytes)
	}
	return nil
}

//go:norace
func (c *UnixConn) File() (f *os.File, err error) {
	if c.v == nil {
		return c.real.File()
	}
	return c.v.File()
}

//go:norace
func (c *UnixConn) SyscallConn() (syscall.RawConn, error) {
	if c.v == nil {
		return c.real.SyscallConn()
	}
	return c.v.SyscallConn()
}

// The datagram methods on a connected stream: a read has no sender's address (the kernel
// gives none on a connected socket), and a write to an address fails with EISCONN, as
// Linux's.

//go:norace
func (c *UnixConn) ReadFrom(b []byte) (int, net.Addr, error) {
	if c.v == nil {
		return c.real.ReadFrom(b)
	}
	n, err := c.v.Read(b)
	return n, nil, err
}

//go:norace
func (c *UnixConn) ReadFromUnix(b []byte) (int, *UnixAddr, error) {
	if c.v == nil {
		return c.real.ReadFromUnix(b)
	}
	n, err := c.v.Read(b)
	return n, nil, err
}

// ReadMsgUnix reads as Read does; no out-of-band data ever comes.
//
//go:norace
func (c *UnixConn) ReadMsgUnix(b, oob []byte) (n, oobn, flags int, addr *UnixAddr, err error) {
	if c.v == nil {
		return c.real.ReadMsgUnix(b, oob)
	}
	n, err = c.v.Read(b)
	return n, 0, 0, nil, err
}

//go:norace
func (c *UnixConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	if c.v == nil {
		return c.real.WriteTo(b, addr)
	}
	if _, ok := addr.(*net.UnixAddr); !ok {
		return 0, c.v.opError("write", syscall.EINVAL)
	}
	return 0, c.v.opError("write", os.NewSyscallError("sendto", syscall.EISCONN))
}

//go:norace
func (c *UnixConn) WriteToUnix(b []byte, addr *UnixAddr) (int, error) {
	if c.v == nil {
		return c.real.WriteToUnix(b, addr)
	}
	return 0, c.v.opError("write", os.NewSyscallError("sendto", syscall.EISCONN))
}

// WriteMsgUnix writes b as Write does. Out-of-band data (a descriptor passed with
// SCM_RIGHTS, credentials) has no kernel to carry it, and failing the write would report a
// bug of heddle's making: the run cannot be explored.
//
//go:norace
func (c *UnixConn) WriteMsgUnix(b, oob []byte, addr *UnixAddr) (n, oobn int, err error) {
	if c.v == nil {
		return c.real.WriteMsgUnix(b, oob, addr)
	}
	switch {
	case len(oob) > 0:
		rt.Fail(rt.VerdictUnsupported, "sends out-of-band data (descriptors or credentials, WriteMsgUnix) over a Unix socket of heddle's virtual network, which has no kernel to carry them", true)
		return 0, 0, c.v.opError("write", errOOB)
	case addr != nil:
		return 0, 0, c.v.opError("write", os.NewSyscallError("sendmsg", syscall.EISCONN))
	}
	n, err = c.v.Write(b)
	return n, 0, err
}
