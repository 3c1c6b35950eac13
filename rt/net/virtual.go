package net

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// The hooks by which connections leave the process. The process-group work sets them; by
// default both are nil, and the network ends at the process's edge.
var (
	// Outside dials addr when no listener of the tested process has it. Nil means the run
	// ends as unsupported: "cannot be explored: dials addr outside the process".
	Outside func(ctx context.Context, network, addr string) (net.Conn, error)
	// Listening is told of every listener a run opens, with deliver, which queues a
	// connection made from outside the process for the listener's Accept. The connection
	// must be a communication object of heddle's (its operations scheduling points), or the
	// run is not under control.
	Listening func(l net.Listener, deliver func(net.Conn) error)
)

// backlog is how many connections a listener queues before Dial blocks, as a kernel's listen
// backlog.
const backlog = 128

// registry is locked around every look at the network's listeners, so that a Listen and a Dial
// of its port are dependent operations of the run: which comes first is explored.
var registry rt.Mutex

// vnet is the run's virtual network: its listeners by port. It belongs to one run (epoch) and
// is discarded when another begins; only the running goroutine touches it.
var vnet struct {
	epoch     uint64
	listeners map[string]*listener
	slot      int // listeners opened on port 0, numbering their reserved ports
	udp       map[int]*udpSocket
	udpSlot   int                      // UDP sockets bound to port 0
	unix      map[string]*UnixListener // by path, made absolute; a name space apart from ports
}

// listeners returns the run's listeners, discarding another run's.
//
//go:norace
func listeners() map[string]*listener {
	if e := rt.RunEpoch(); vnet.epoch != e || vnet.listeners == nil {
		vnet.epoch, vnet.listeners, vnet.slot = e, make(map[string]*listener), 0
		vnet.udp, vnet.udpSlot = nil, 0
		releaseUnix()
	}
	return vnet.listeners
}

// Listen announces on the virtual network of the run (outside a run, and for networks other
// than tcp, tcp4, tcp6, unix and unixpacket, on the real one). Every
// host is the process's own: a listener on ":0", "127.0.0.1:0" or "localhost:8080" is found
// by a dial of any loopback name with its port. Port 0 takes a port reserved on the real
// loopback interface, so that addresses are unique and an uninstrumented client that dials it
// over a real socket is noticed (the run cannot be explored) instead of reaching some other
// program.
//
//go:norace
func Listen(network, address string) (net.Listener, error) {
	if unixStream(network) {
		l, err := ListenUnix(network, &net.UnixAddr{Name: address, Net: network})
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	if !rt.Running() || !stream(network) {
		return net.Listen(network, address)
	}
	l, err := listen(network, address)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// listen opens a listener of the run's virtual network.
//
//go:norace
func listen(network, address string) (*TCPListener, error) {
	host, port, err := splitAddr(address)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	registry.Lock()
	defer registry.Unlock()
	ls := listeners()
	if port == 0 {
		p, err := reserve(nextSlot())
		if err != nil {
			return nil, &net.OpError{Op: "listen", Net: network, Err: err}
		}
		port = p
	} else {
		reserveFixed(port)
	}
	key := strconv.Itoa(port)
	if old := ls[key]; old != nil && !old.closed {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: tcpAddr(host, port), Err: fmt.Errorf("bind: address already in use")}
	}
	l := &listener{
		addr:    listenAddr(network, host, port),
		local:   tcpAddr(host, port),
		pending: rt.MakeChan[*conn](backlog),
		done:    rt.MakeChan[struct{}](0),
		wake:    rt.MakeChan[struct{}](0),
	}
	ls[key] = l
	tl := &TCPListener{v: l}
	if Listening != nil {
		Listening(tl, l.deliver)
	}
	return tl, nil
}

// nextSlot numbers the run's listeners on port 0.
//
//go:norace
func nextSlot() int {
	vnet.slot++
	return vnet.slot - 1
}

// Dial connects to address on the virtual network of the run (outside a run, and for networks
// other than tcp, tcp4, tcp6, udp, udp4, udp6, unix and unixpacket, on the real one). Connecting is a scheduling point, and so is the listener's Accept: which of several
// pending connections a server accepts first is a decision.
//
//go:norace
func Dial(network, address string) (net.Conn, error) {
	return dial(context.Background(), network, address, 0)
}

// DialTimeout is Dial with a timeout on the virtual clock.
//
//go:norace
func DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	return dial(context.Background(), network, address, timeout)
}

// DialContext dials as a net.Dialer would with ctx: http.Transport's DialContext.
//
//go:norace
func DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return dial(ctx, network, address, 0)
}

//go:norace
func dial(ctx context.Context, network, address string, timeout time.Duration) (net.Conn, error) {
	switch {
	case !rt.Running() || !stream(network) && !datagramNet(network) && !unixStream(network):
		d := net.Dialer{Timeout: timeout}
		return wrapConn(d.DialContext(ctx, network, address))
	case datagramNet(network):
		return dialUDP(network, address)
	}
	// net's dial tells an httptrace.ClientTrace of ctx of the connection (its ConnectStart and
	// ConnectDone), through a hook of the standard library's that it alone can reach.
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.ConnectStart != nil {
		trace.ConnectStart(network, address)
	}
	dialv := dialVirtual
	if unixStream(network) {
		dialv = dialUnixPath
	}
	c, err := dialv(ctx, network, address)
	if trace != nil && trace.ConnectDone != nil {
		trace.ConnectDone(network, address, err)
	}
	return c, err
}

// dialVirtual connects to address on the run's virtual network: a *TCPConn, or what Outside
// returns.
//
//go:norace
func dialVirtual(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := splitAddr(address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	registry.Lock()
	l := listeners()[strconv.Itoa(port)]
	registry.Unlock()
	if l == nil || !loopback(address) {
		if Outside != nil {
			return Outside(ctx, network, address)
		}
		if loopback(address) && nobodyListens(port) {
			// As on the machine: a client that dials before the test's server listens (and
			// retries, as go-retryablehttp's tests do) is refused.
			return nil, &net.OpError{Op: "dial", Net: network, Addr: tcpAddr(host, port), Err: errRefused}
		}
		rt.Fail(rt.VerdictUnsupported, fmt.Sprintf("dials %s outside the process (no listener of the test has that address)", address), true)
		return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("%s is outside the process", address)}
	}
	if l.closed {
		// The port was the process's: nobody listens there any more.
		return nil, &net.OpError{Op: "dial", Net: network, Addr: l.addr, Err: errRefused}
	}
	client, server := pair(l.localAddr(), clientAddr(l))
	// Queuing the connection is the dial's scheduling point; the listener's Accept takes it.
	i, _, _ := rt.Select(false, rt.SendCase(l.pending, server), rt.RecvCase(l.done))
	if i == 1 {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: l.addr, Err: errRefused}
	}
	return &TCPConn{client}, nil
}

// errRefused is the error of a refused dial, as net's: errors.Is(err, syscall.ECONNREFUSED).
var errRefused = os.NewSyscallError("connect", syscall.ECONNREFUSED)

// nobodyListens reports whether no program listens on the loopback port: none of heddle's own
// real listeners for the virtual ones of other runs (reserved, fixed), and nothing else, as a
// real dial finds. A port that another program holds is outside the process.
//
//go:norace
func nobodyListens(port int) bool {
	reserved.Lock()
	own := slices.Contains(reserved.ports, port)
	reserved.Unlock()
	fixed.Lock()
	own = own || fixed.ports[port]
	fixed.Unlock()
	if own {
		return true
	}
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// clientAddr numbers the client ends of the connections to l, as ephemeral ports.
//
//go:norace
func clientAddr(l *listener) *net.TCPAddr {
	l.clients++
	return tcpAddr("127.0.0.1", 50000+l.clients)
}

//go:norace
func stream(network string) bool {
	switch network {
	case "tcp", "tcp4", "tcp6":
		return true
	}
	return false
}

//go:norace
func splitAddr(address string) (host string, port int, err error) {
	h, p, err := net.SplitHostPort(address)
	if err != nil {
		return "", 0, err
	}
	if p == "" {
		return h, 0, nil
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("invalid port %q in %q", p, address)
	}
	return h, port, nil
}

// loopback reports whether address names this machine: the process's listeners are reached
// under any loopback name.
//
//go:norace
func loopback(address string) bool {
	h, _, _ := net.SplitHostPort(address)
	switch h {
	case "", "localhost", "0.0.0.0", "::":
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

//go:norace
func tcpAddr(host string, port int) *net.TCPAddr {
	ip := net.ParseIP(host)
	if ip == nil || ip.IsUnspecified() || host == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return &net.TCPAddr{IP: ip, Port: port}
}

// listenAddr is the address that a real listener on host and port reports, as Go gives it: a
// wildcard host (none, 0.0.0.0, ::) stays the wildcard, IPv6's for tcp on a machine with
// IPv6 (Go listens on both families there) and IPv4's for tcp4, since code checks it (raft's
// transport refuses to advertise an unspecified address); any other host is tcpAddr's.
//
//go:norace
func listenAddr(network, host string, port int) *net.TCPAddr {
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return tcpAddr(host, port)
	}
	if network == "tcp4" || network != "tcp6" && !dualStack() {
		return &net.TCPAddr{IP: net.IPv4zero, Port: port}
	}
	return &net.TCPAddr{IP: net.IPv6unspecified, Port: port}
}

// dualStack reports whether a real wildcard listener of "tcp" listens on IPv6 and IPv4 here,
// as it does on a machine with IPv6: asked of the kernel once.
var dualStack = sync.OnceValue(func() bool {
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		return false
	}
	defer ln.Close()
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.To4() == nil
})

// A listener of the virtual network.
type listener struct {
	addr    net.Addr      // what Addr reports
	local   net.Addr      // the local address of the connections it accepts; nil: addr
	network string        // the OpErrors' Net; "" is tcp
	pending chan *conn    // connections dialed and not yet accepted
	done    chan struct{} // closed by Close
	closed  bool
	clients int
	dl      time.Time // Accept's deadline, on the virtual clock
	// wake is closed (and replaced) when the deadline changes while an Accept waits
	// (waiting), so that the Accept takes the new deadline.
	wake    chan struct{}
	waiting bool
}

//go:norace
func (l *listener) localAddr() net.Addr {
	if l.local == nil {
		return l.addr
	}
	return l.local
}

//go:norace
func (l *listener) netName() string {
	if l.network == "" {
		return "tcp"
	}
	return l.network
}

// accept waits for the next connection: a scheduling point.
//
//go:norace
func (l *listener) accept() (*conn, error) {
	for {
		if l.closed {
			return nil, &net.OpError{Op: "accept", Net: l.netName(), Addr: l.addr, Err: net.ErrClosed}
		}
		t, expired := deadline(l.dl)
		if expired {
			return nil, &net.OpError{Op: "accept", Net: l.netName(), Addr: l.addr, Err: os.ErrDeadlineExceeded}
		}
		cases := []rt.Case{rt.RecvCase(l.pending), rt.RecvCase(l.done), rt.RecvCase(l.wake)}
		if t != nil {
			cases = append(cases, rt.RecvCase(t.C))
		}
		l.waiting = true
		i, v, _ := rt.Select(false, cases...)
		l.waiting = false
		if t != nil {
			t.Stop()
		}
		switch i {
		case 0:
			return rt.Recvd(l.pending, v), nil
		case 3:
			return nil, &net.OpError{Op: "accept", Net: l.netName(), Addr: l.addr, Err: os.ErrDeadlineExceeded}
		}
	}
}

// setDeadline sets Accept's deadline, for an Accept that waits now too.
//
//go:norace
func (l *listener) setDeadline(t time.Time) {
	l.dl = t
	if l.waiting {
		rt.Close(l.wake)
		l.wake = rt.MakeChan[struct{}](0)
	}
}

// Close stops the listener: its Accept returns net.ErrClosed, and the connections dialed but
// not accepted are reset, as a kernel resets its backlog.
//
//go:norace
func (l *listener) close() error {
	if l.closed {
		return &net.OpError{Op: "close", Net: l.netName(), Addr: l.addr, Err: net.ErrClosed}
	}
	l.closed = true
	rt.Close(l.done)
	for {
		i, v, _ := rt.Select(true, rt.RecvCase(l.pending))
		if i < 0 {
			return nil
		}
		rt.Recvd(l.pending, v).Close()
	}
}

// deliver queues c, a connection from outside the process, for Accept.
//
//go:norace
func (l *listener) deliver(c net.Conn) error {
	vc, ok := c.(*conn)
	if tc, isTCP := c.(*TCPConn); isTCP {
		vc, ok = tc.tcpConn.(*conn)
	}
	if !ok {
		return fmt.Errorf("heddle: a connection delivered to %s must be one of the virtual network's, not a %T", l.addr, c)
	}
	i, _, _ := rt.Select(false, rt.SendCase(l.pending, vc), rt.RecvCase(l.done))
	if i == 1 {
		return errRefused
	}
	return nil
}

// reserved holds the real loopback listeners whose ports the virtual listeners on port 0 take,
// by slot: the n-th such listener of every run has the same port, so runs and replays in a
// process print the same addresses. A connection to one over a real socket comes from code
// heddle does not control (an uninstrumented client): the run cannot be explored, and the
// connection is closed at once so that the client does not wait.
var reserved struct {
	sync.Mutex
	ports []int
}

//go:norace
func reserve(slot int) (int, error) {
	reserved.Lock()
	defer reserved.Unlock()
	for len(reserved.ports) <= slot {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("reserving a loopback port: %w", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		reserved.ports = append(reserved.ports, port)
		go refuse(ln, port)
	}
	return reserved.ports[slot], nil
}

// fixed lists the ports of the virtual listeners on a given port (":28934") that have a real
// loopback listener of their own, as reserved ones do. Without it an uninstrumented client's
// dial of such a port (a dependency's http.Transport, retrying until the test's server is up)
// was refused by the operating system for the whole run, and the test failed under heddle
// only, where it should be found outside heddle's control.
var fixed struct {
	sync.Mutex
	ports map[int]bool // tried, and whether heddle holds it
}

// reserveFixed listens on the real loopback port, once per process, if nothing else does.
//
//go:norace
func reserveFixed(port int) {
	fixed.Lock()
	defer fixed.Unlock()
	if _, tried := fixed.ports[port]; tried {
		return
	}
	if fixed.ports == nil {
		fixed.ports = make(map[int]bool)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	fixed.ports[port] = err == nil
	if err != nil {
		// Another program has it: a real dial reaches that program, as under go test.
		return
	}
	go refuse(ln, port)
}

//go:norace
func refuse(ln net.Listener, port int) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		// Told before the client sees the connection end, so that the run it waits in knows.
		rt.Unsupported(fmt.Sprintf("code that heddle does not instrument connected to 127.0.0.1:%d, a listener of the test, over a real socket (a client of a dependency, such as a websocket dialer; instrument it with -instrument)", port))
		c.Close()
	}
}
