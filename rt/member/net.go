package member

import (
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/heddledbg/heddle/rt"
	heddlenet "github.com/heddledbg/heddle/rt/net"
)

// Listen and Dial are net.Listen and net.Dial for the code of a group member: on tcp they
// give sockets whose operations the group's controller schedules and performs. Outside a
// group they are rt/net's, the network inside one process (docs/network.md). Instrumented
// code calls them instead of the net package's (instrument/netgroup.go).
func Listen(network, address string) (net.Listener, error) {
	if !Member() || ctl == nil || !rt.Running() || !tcp(network) {
		return heddlenet.Listen(network, address)
	}
	s := &rt.Socket{Key: ListenerPrefix + address}
	s.Op(rt.OpListen)
	if c := ctl.call(&Message{Op: "listen", Key: s.Key}); c.Err != "" {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: addr(address), Err: errors.New(c.Err)}
	}
	return &listener{s: s, addr: addr(address)}, nil
}

// Dial connects to the member listening on address. A dial before anyone listens there
// waits, as a client that retries a refused connection would, rather than failing: the
// order in which heddle starts the members is not the program's.
func Dial(network, address string) (net.Conn, error) {
	if !Member() || ctl == nil || !rt.Running() || !tcp(network) {
		return heddlenet.Dial(network, address)
	}
	s := &rt.Socket{Key: ListenerPrefix + address}
	s.Op(rt.OpDial)
	c := ctl.call(&Message{Op: "dial", Key: s.Key})
	if c.Err != "" {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: addr(address), Err: errors.New(c.Err)}
	}
	return &conn{s: &rt.Socket{Key: c.Key}, local: addr("client"), remote: addr(address)}, nil
}

func tcp(network string) bool {
	return network == "tcp" || network == "tcp4" || network == "tcp6"
}

type addr string

func (a addr) Network() string { return "tcp" }
func (a addr) String() string  { return string(a) }

type listener struct {
	s    *rt.Socket
	addr addr
}

func (l *listener) Accept() (net.Conn, error) {
	l.s.Op(rt.OpAccept)
	c := ctl.call(&Message{Op: "accept", Key: l.s.Key})
	if c.Err != "" {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: errors.New(c.Err)}
	}
	return &conn{s: &rt.Socket{Key: c.Key}, local: l.addr, remote: addr("client")}, nil
}

func (l *listener) Close() error {
	l.s.Op(rt.OpShut)
	return opErr("close", l.addr, ctl.call(&Message{Op: "close", Key: l.s.Key}))
}

func (l *listener) Addr() net.Addr { return l.addr }

// conn is one end of a connection between members. Deadlines are not modelled: a group run
// has no time between processes.
type conn struct {
	s             *rt.Socket
	local, remote addr
}

func (c *conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.s.Op(rt.OpRead)
	r := ctl.call(&Message{Op: "read", Key: c.s.Key, N: len(b)})
	if r.Err != "" {
		return 0, opErr("read", c.remote, r)
	}
	n := copy(b, r.Data)
	if r.EOF {
		return n, io.EOF
	}
	return n, nil
}

func (c *conn) Write(b []byte) (int, error) {
	c.s.Op(rt.OpWrite)
	if err := opErr("write", c.remote, ctl.call(&Message{Op: "write", Key: c.s.Key, Data: b})); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (c *conn) Close() error {
	c.s.Op(rt.OpShut)
	return opErr("close", c.remote, ctl.call(&Message{Op: "close", Key: c.s.Key}))
}

func opErr(op string, a addr, r *Command) error {
	if r.Err == "" {
		return nil
	}
	var err error = errors.New(r.Err)
	if r.Err == net.ErrClosed.Error() {
		err = net.ErrClosed
	}
	return &net.OpError{Op: op, Net: "tcp", Addr: a, Err: err}
}

func (c *conn) LocalAddr() net.Addr                { return c.local }
func (c *conn) RemoteAddr() net.Addr               { return c.remote }
func (c *conn) SetDeadline(t time.Time) error      { return deadline(t) }
func (c *conn) SetReadDeadline(t time.Time) error  { return deadline(t) }
func (c *conn) SetWriteDeadline(t time.Time) error { return deadline(t) }

// deadline refuses a deadline, which a group does not model, rather than ignore it.
func deadline(t time.Time) error {
	if t.IsZero() {
		return nil
	}
	return os.ErrNoDeadline
}
