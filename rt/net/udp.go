package net

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// udpQueue is how many datagrams a socket holds unread before the next are dropped, as a
// socket's receive buffer drops them.
const udpQueue = 256

// A datagram in flight: a copy of what one write sent, and its sender.
type datagram struct {
	data []byte
	from *net.UDPAddr
}

// udpSocket is a bound UDP socket of the virtual network: a queue of the datagrams sent to
// its port, a channel of the run, so that a write is a send, a read a receive, and which of
// two senders' datagrams a reader gets first a decision.
type udpSocket struct {
	addr *net.UDPAddr
	// peer is DialUDP's remote address: Write's destination, and the only sender whose
	// datagrams Read takes, as a connected socket's.
	peer     *net.UDPAddr
	queue    chan datagram
	done     chan struct{} // closed by Close: wakes a waiting Read
	closed   bool
	rdl, wdl time.Time // deadlines, on the virtual clock
	// rwake is closed (and replaced) when the read deadline changes while a Read waits.
	rwake    chan struct{}
	rwaiting bool
}

// udpSockets returns the run's bound UDP sockets by port, discarding another run's.
//
//go:norace
func udpSockets() map[int]*udpSocket {
	listeners() // resets vnet for a new run
	if vnet.udp == nil {
		vnet.udp = make(map[int]*udpSocket)
	}
	return vnet.udp
}

//go:norace
func datagramNet(network string) bool {
	switch network {
	case "udp", "udp4", "udp6":
		return true
	}
	return false
}

// bindUDP binds a socket of the virtual network to laddr (port 0: a port reserved on the real
// loopback interface, as a listener's), connected to peer if it is not nil.
//
//go:norace
func bindUDP(network string, laddr, peer *net.UDPAddr) (*UDPConn, error) {
	port := 0
	host := ""
	if laddr != nil {
		port = laddr.Port
		if laddr.IP != nil {
			host = laddr.IP.String()
		}
	}
	if host != "" && !loopback(net.JoinHostPort(host, "0")) {
		rt.Fail(rt.VerdictUnsupported, fmt.Sprintf("binds a UDP socket to %s, an address outside the process's loopback", laddr), true)
		return nil, &net.OpError{Op: "listen", Net: network, Addr: laddr, Err: fmt.Errorf("%s is outside the process", laddr)}
	}
	registry.Lock()
	defer registry.Unlock()
	socks := udpSockets()
	if port == 0 {
		p, err := reserveUDP(nextUDPSlot())
		if err != nil {
			return nil, &net.OpError{Op: "listen", Net: network, Err: err}
		}
		port = p
	}
	addr := &net.UDPAddr{IP: tcpAddr(host, port).IP, Port: port}
	if old := socks[port]; old != nil && !old.closed {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: addr, Err: fmt.Errorf("bind: address already in use")}
	}
	s := &udpSocket{addr: addr, peer: peer, queue: rt.MakeChan[datagram](udpQueue),
		done: rt.MakeChan[struct{}](0), rwake: rt.MakeChan[struct{}](0)}
	socks[port] = s
	return &UDPConn{v: s}, nil
}

// nextUDPSlot numbers the run's UDP sockets on port 0.
//
//go:norace
func nextUDPSlot() int {
	vnet.udpSlot++
	return vnet.udpSlot - 1
}

// ListenUDP is net.ListenUDP: a socket of the virtual network in a run.
//
//go:norace
func ListenUDP(network string, laddr *UDPAddr) (*UDPConn, error) {
	if !rt.Running() || !datagramNet(network) {
		c, err := net.ListenUDP(network, laddr)
		if err != nil {
			return nil, err
		}
		return &UDPConn{real: c}, nil
	}
	return bindUDP(network, laddr, nil)
}

// DialUDP is net.DialUDP: a socket of the virtual network connected to raddr in a run. A
// peer outside the process's loopback cannot be reached: the run ends as unsupported.
//
//go:norace
func DialUDP(network string, laddr, raddr *UDPAddr) (*UDPConn, error) {
	if !rt.Running() || !datagramNet(network) {
		c, err := net.DialUDP(network, laddr, raddr)
		if err != nil {
			return nil, err
		}
		return &UDPConn{real: c}, nil
	}
	if raddr == nil {
		return nil, &net.OpError{Op: "dial", Net: network, Source: laddr, Err: &net.AddrError{Err: "missing address"}}
	}
	if !udpLoopback(raddr) {
		return nil, outsideUDP(network, raddr.String())
	}
	return bindUDP(network, laddr, raddr)
}

// dialUDP is Dial of a UDP address in a run.
//
//go:norace
func dialUDP(network, address string) (net.Conn, error) {
	host, port, err := splitAddr(address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	ip := net.ParseIP(host)
	if host == "" || host == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if ip == nil {
		return nil, outsideUDP(network, address)
	}
	c, err := DialUDP(network, nil, &net.UDPAddr{IP: ip, Port: port})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// listenPacket is ListenPacket of a UDP address in a run.
//
//go:norace
func listenPacket(network, address string) (net.PacketConn, error) {
	host, port, err := splitAddr(address)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	var ip net.IP
	if host != "" && host != "localhost" {
		if ip = net.ParseIP(host); ip == nil {
			return nil, &net.OpError{Op: "listen", Net: network, Err: fmt.Errorf("heddle: %s is not an address of the process", host)}
		}
	}
	c, err := bindUDP(network, &net.UDPAddr{IP: ip, Port: port}, nil)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ListenPacket is net.ListenPacket: a UDP socket of the virtual network in a run.
//
//go:norace
func ListenPacket(network, address string) (net.PacketConn, error) {
	if !rt.Running() || !datagramNet(network) {
		return wrapPacket(net.ListenPacket(network, address))
	}
	return listenPacket(network, address)
}

// ListenMulticastUDP is net.ListenMulticastUDP, on the real network: multicast groups are
// not virtual.
//
//go:norace
func ListenMulticastUDP(network string, ifi *Interface, gaddr *UDPAddr) (*UDPConn, error) {
	c, err := net.ListenMulticastUDP(network, ifi, gaddr)
	if err != nil {
		return nil, err
	}
	return &UDPConn{real: c}, nil
}

// DialUDP is net.Dialer's DialUDP: a socket of the virtual network in a run.
//
//go:norace
func (d *Dialer) DialUDP(ctx context.Context, network string, laddr netip.AddrPort, raddr netip.AddrPort) (*UDPConn, error) {
	if !rt.Running() || !datagramNet(network) {
		c, err := d.std().DialUDP(ctx, network, laddr, raddr)
		if err != nil {
			return nil, err
		}
		return &UDPConn{real: c}, nil
	}
	var l *net.UDPAddr
	if laddr.IsValid() {
		l = net.UDPAddrFromAddrPort(laddr)
	}
	return DialUDP(network, l, net.UDPAddrFromAddrPort(raddr))
}

//go:norace
func udpLoopback(a *net.UDPAddr) bool {
	return a.IP == nil || a.IP.IsLoopback() || a.IP.IsUnspecified()
}

// outsideUDP ends the run as unsupported: a datagram for another host would leave the process.
//
//go:norace
func outsideUDP(network, to string) error {
	rt.Fail(rt.VerdictUnsupported, fmt.Sprintf("sends UDP to %s, outside the process", to), true)
	return &net.OpError{Op: "write", Net: network, Err: fmt.Errorf("%s is outside the process", to)}
}

// UDPConn is net.UDPConn. In a run, it is a socket of the virtual network (what ListenUDP,
// DialUDP, ListenPacket and Dial return there for udp, udp4 and udp6); outside, a real one.
type UDPConn struct {
	real *net.UDPConn
	v    *udpSocket
}

//go:norace
func (c *UDPConn) opError(op string, addr net.Addr, err error) error {
	return &net.OpError{Op: op, Net: "udp", Source: c.v.addr, Addr: addr, Err: err}
}

// readFrom waits for a datagram: a scheduling point. A connected socket takes its peer's only.
//
//go:norace
func (c *UDPConn) readFrom(b []byte) (int, *net.UDPAddr, error) {
	s := c.v
	for {
		if s.closed {
			return 0, nil, c.opError("read", nil, net.ErrClosed)
		}
		t, expired := deadline(s.rdl)
		if expired {
			return 0, nil, c.opError("read", nil, os.ErrDeadlineExceeded)
		}
		cases := []rt.Case{rt.RecvCase(s.queue), rt.RecvCase(s.done), rt.RecvCase(s.rwake)}
		if t != nil {
			cases = append(cases, rt.RecvCase(t.C))
		}
		s.rwaiting = true
		i, v, _ := rt.Select(false, cases...)
		s.rwaiting = false
		if t != nil {
			t.Stop()
		}
		switch i {
		case 0:
			d := rt.Recvd(s.queue, v)
			if s.peer != nil && (d.from.Port != s.peer.Port || !sameHost(d.from, s.peer)) {
				continue
			}
			// As a socket's: what does not fit in b is discarded.
			return copy(b, d.data), d.from, nil
		case 1:
			return 0, nil, c.opError("read", nil, net.ErrClosed)
		case 3:
			return 0, nil, c.opError("read", nil, os.ErrDeadlineExceeded)
		}
		// The read deadline changed while the read waited: wait again under the new one.
	}
}

// sameHost reports whether two loopback addresses name the same socket's host: any loopback
// name is the process.
//
//go:norace
func sameHost(a, b *net.UDPAddr) bool {
	return udpLoopback(a) == udpLoopback(b) && (udpLoopback(a) || a.IP.Equal(b.IP))
}

// writeTo sends a copy of b to addr's socket: it never blocks. A datagram to a port nobody has
// bound, or to a socket whose queue is full, is lost, as on a network; to another host, it
// would leave the process, and the run ends as unsupported.
//
//go:norace
func (c *UDPConn) writeTo(b []byte, to *net.UDPAddr) (int, error) {
	s := c.v
	if s.closed {
		return 0, c.opError("write", to, net.ErrClosed)
	}
	if to == nil {
		return 0, c.opError("write", nil, &net.AddrError{Err: "missing address"})
	}
	if _, expired := deadline(s.wdl); expired {
		return 0, c.opError("write", to, os.ErrDeadlineExceeded)
	}
	if !udpLoopback(to) {
		return 0, outsideUDP("udp", to.String())
	}
	registry.Lock()
	dst := udpSockets()[to.Port]
	registry.Unlock()
	if dst == nil || dst.closed {
		return len(b), nil
	}
	d := datagram{data: append([]byte(nil), b...), from: s.addr}
	rt.Select(true, rt.SendCase(dst.queue, d))
	return len(b), nil
}

//go:norace
func (c *UDPConn) Close() error {
	if c.v == nil {
		return c.real.Close()
	}
	if c.v.closed {
		return c.opError("close", nil, net.ErrClosed)
	}
	c.v.closed = true
	rt.Close(c.v.done)
	return nil
}

//go:norace
func (c *UDPConn) File() (f *os.File, err error) {
	if c.v == nil {
		return c.real.File()
	}
	return nil, c.opError("file", nil, errVirtual)
}

//go:norace
func (c *UDPConn) SyscallConn() (syscall.RawConn, error) {
	if c.v == nil {
		return c.real.SyscallConn()
	}
	return nil, c.opError("raw-conn", nil, errVirtual)
}

//go:norace
func (c *UDPConn) LocalAddr() net.Addr {
	if c.v == nil {
		return c.real.LocalAddr()
	}
	return c.v.addr
}

//go:norace
func (c *UDPConn) RemoteAddr() net.Addr {
	if c.v == nil {
		return c.real.RemoteAddr()
	}
	if c.v.peer == nil {
		return nil
	}
	return c.v.peer
}

//go:norace
func (c *UDPConn) Read(b []byte) (int, error) {
	if c.v == nil {
		return c.real.Read(b)
	}
	n, _, err := c.readFrom(b)
	return n, err
}

//go:norace
func (c *UDPConn) ReadFrom(b []byte) (int, net.Addr, error) {
	if c.v == nil {
		return c.real.ReadFrom(b)
	}
	n, from, err := c.readFrom(b)
	if from == nil {
		return n, nil, err
	}
	return n, from, err
}

//go:norace
func (c *UDPConn) ReadFromUDP(b []byte) (n int, addr *UDPAddr, err error) {
	if c.v == nil {
		return c.real.ReadFromUDP(b)
	}
	return c.readFrom(b)
}

//go:norace
func (c *UDPConn) ReadFromUDPAddrPort(b []byte) (n int, addr netip.AddrPort, err error) {
	if c.v == nil {
		return c.real.ReadFromUDPAddrPort(b)
	}
	n, from, err := c.readFrom(b)
	if from != nil {
		addr = from.AddrPort()
	}
	return n, addr, err
}

//go:norace
func (c *UDPConn) ReadMsgUDP(b, oob []byte) (n, oobn, flags int, addr *UDPAddr, err error) {
	if c.v == nil {
		return c.real.ReadMsgUDP(b, oob)
	}
	n, addr, err = c.readFrom(b)
	return n, 0, 0, addr, err
}

//go:norace
func (c *UDPConn) ReadMsgUDPAddrPort(b, oob []byte) (n, oobn, flags int, addr netip.AddrPort, err error) {
	if c.v == nil {
		return c.real.ReadMsgUDPAddrPort(b, oob)
	}
	n, addr, err = c.ReadFromUDPAddrPort(b)
	return n, 0, 0, addr, err
}

//go:norace
func (c *UDPConn) Write(b []byte) (int, error) {
	if c.v == nil {
		return c.real.Write(b)
	}
	if c.v.peer == nil {
		return 0, c.opError("write", nil, syscall.EDESTADDRREQ)
	}
	return c.writeTo(b, c.v.peer)
}

// connectedWrite is the error of a write with an address on a connected socket.
//
//go:norace
func (c *UDPConn) connectedWrite(to net.Addr) error {
	return c.opError("write", to, net.ErrWriteToConnected)
}

//go:norace
func (c *UDPConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	if c.v == nil {
		return c.real.WriteTo(b, addr)
	}
	if c.v.peer != nil {
		return 0, c.connectedWrite(addr)
	}
	to, ok := addr.(*net.UDPAddr)
	if !ok {
		return 0, c.opError("write", addr, syscall.EINVAL)
	}
	return c.writeTo(b, to)
}

//go:norace
func (c *UDPConn) WriteToUDP(b []byte, addr *UDPAddr) (int, error) {
	if c.v == nil {
		return c.real.WriteToUDP(b, addr)
	}
	if c.v.peer != nil {
		return 0, c.connectedWrite(addr)
	}
	return c.writeTo(b, addr)
}

//go:norace
func (c *UDPConn) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	if c.v == nil {
		return c.real.WriteToUDPAddrPort(b, addr)
	}
	return c.WriteToUDP(b, net.UDPAddrFromAddrPort(addr))
}

//go:norace
func (c *UDPConn) WriteMsgUDP(b, oob []byte, addr *UDPAddr) (n, oobn int, err error) {
	if c.v == nil {
		return c.real.WriteMsgUDP(b, oob, addr)
	}
	if addr == nil {
		n, err = c.Write(b)
	} else {
		n, err = c.WriteToUDP(b, addr)
	}
	return n, 0, err
}

//go:norace
func (c *UDPConn) WriteMsgUDPAddrPort(b, oob []byte, addr netip.AddrPort) (n, oobn int, err error) {
	if c.v == nil {
		return c.real.WriteMsgUDPAddrPort(b, oob, addr)
	}
	var to *net.UDPAddr
	if addr.IsValid() {
		to = net.UDPAddrFromAddrPort(addr)
	}
	return c.WriteMsgUDP(b, oob, to)
}

//go:norace
func (c *UDPConn) SetDeadline(t time.Time) error {
	if c.v == nil {
		return c.real.SetDeadline(rt.RealTime(t))
	}
	c.SetReadDeadline(t)
	c.v.wdl = t
	return nil
}

// SetReadDeadline sets the read deadline, a time of the virtual clock, for a Read that waits
// now too.
//
//go:norace
func (c *UDPConn) SetReadDeadline(t time.Time) error {
	if c.v == nil {
		return c.real.SetReadDeadline(rt.RealTime(t))
	}
	c.v.rdl = t
	if c.v.rwaiting {
		rt.Close(c.v.rwake)
		c.v.rwake = rt.MakeChan[struct{}](0)
	}
	return nil
}

//go:norace
func (c *UDPConn) SetWriteDeadline(t time.Time) error {
	if c.v == nil {
		return c.real.SetWriteDeadline(rt.RealTime(t))
	}
	c.v.wdl = t
	return nil
}

//go:norace
func (c *UDPConn) SetReadBuffer(bytes int) error {
	if c.v == nil {
		return c.real.SetReadBuffer(bytes)
	}
	return nil
}

//go:norace
func (c *UDPConn) SetWriteBuffer(bytes int) error {
	if c.v == nil {
		return c.real.SetWriteBuffer(bytes)
	}
	return nil
}

// reservedUDP holds the real loopback UDP sockets whose ports the virtual sockets on port 0
// take, by slot, as reserved does for listeners. A datagram that arrives on one over the real
// network comes from code heddle does not control: the run cannot be explored.
var reservedUDP struct {
	ports []int
}

//go:norace
func reserveUDP(slot int) (int, error) {
	reserved.Lock()
	defer reserved.Unlock()
	for len(reservedUDP.ports) <= slot {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("reserving a loopback UDP port: %w", err)
		}
		port := pc.LocalAddr().(*net.UDPAddr).Port
		reservedUDP.ports = append(reservedUDP.ports, port)
		go refuseUDP(pc, port)
	}
	return reservedUDP.ports[slot], nil
}

//go:norace
func refuseUDP(pc net.PacketConn, port int) {
	buf := make([]byte, 1)
	for {
		if _, _, err := pc.ReadFrom(buf); err != nil {
			return
		}
		rt.Unsupported("code that heddle does not instrument sent a datagram to 127.0.0.1:" + strconv.Itoa(port) + ", a UDP socket of the test, over a real socket")
	}
}
