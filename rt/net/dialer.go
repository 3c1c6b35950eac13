package net

import (
	"context"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// Dialer is net.Dialer whose Dial and DialContext of a stream network (tcp, unix, unixpacket)
// or of udp connect on the virtual network in a run (http.Transport's and a websocket dialer's connections). Its other methods,
// and everything outside a run, are net.Dialer's.
type Dialer struct {
	Timeout         time.Duration
	Deadline        time.Time
	LocalAddr       net.Addr
	DualStack       bool
	FallbackDelay   time.Duration
	KeepAlive       time.Duration
	KeepAliveConfig net.KeepAliveConfig
	Resolver        *net.Resolver
	Cancel          <-chan struct{}
	Control         func(network, address string, c syscall.RawConn) error
	ControlContext  func(ctx context.Context, network, address string, c syscall.RawConn) error
	mptcp           *bool
}

// DialerOf returns the Dialer with d's settings.
//
//go:norace
func DialerOf(d *net.Dialer) *Dialer {
	return &Dialer{Timeout: d.Timeout, Deadline: d.Deadline, LocalAddr: d.LocalAddr, DualStack: d.DualStack,
		FallbackDelay: d.FallbackDelay, KeepAlive: d.KeepAlive, KeepAliveConfig: d.KeepAliveConfig, Resolver: d.Resolver,
		Cancel: d.Cancel, Control: d.Control, ControlContext: d.ControlContext}
}

// std returns the net.Dialer that d stands for.
//
//go:norace
func (d *Dialer) std() *net.Dialer {
	s := &net.Dialer{Timeout: d.Timeout, Deadline: d.Deadline, LocalAddr: d.LocalAddr, DualStack: d.DualStack,
		FallbackDelay: d.FallbackDelay, KeepAlive: d.KeepAlive, KeepAliveConfig: d.KeepAliveConfig, Resolver: d.Resolver,
		Cancel: d.Cancel, Control: d.Control, ControlContext: d.ControlContext}
	if d.mptcp != nil {
		s.SetMultipathTCP(*d.mptcp)
	}
	return s
}

// Dial connects to address, on the virtual network in a run.
//
//go:norace
func (d *Dialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

// DialContext connects to address, on the virtual network in a run; the Timeout is one of
// the virtual clock.
//
//go:norace
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if !rt.Running() || !stream(network) && !datagramNet(network) && !unixStream(network) {
		return wrapConn(d.std().DialContext(ctx, network, address))
	}
	return dial(ctx, network, address, d.Timeout)
}

//go:norace
func (d *Dialer) MultipathTCP() bool { return d.std().MultipathTCP() }

//go:norace
func (d *Dialer) SetMultipathTCP(use bool) { d.mptcp = &use }

//go:norace
func (d *Dialer) DialIP(ctx context.Context, network string, laddr netip.Addr, raddr netip.Addr) (*net.IPConn, error) {
	return d.std().DialIP(ctx, network, laddr, raddr)
}
