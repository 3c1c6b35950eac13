package net

import (
	"context"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// ListenConfig is net.ListenConfig whose Listen of tcp, unix and unixpacket and ListenPacket
// of udp announce on the virtual network in a run, as Listen and ListenPacket do. Outside a
// run, and for other networks, it is net.ListenConfig's.
type ListenConfig struct {
	Control         func(network, address string, c syscall.RawConn) error
	KeepAlive       time.Duration
	KeepAliveConfig net.KeepAliveConfig
	mptcp           *bool
}

// std returns the net.ListenConfig that lc stands for.
//
//go:norace
func (lc *ListenConfig) std() *net.ListenConfig {
	s := &net.ListenConfig{Control: lc.Control, KeepAlive: lc.KeepAlive, KeepAliveConfig: lc.KeepAliveConfig}
	if lc.mptcp != nil {
		s.SetMultipathTCP(*lc.mptcp)
	}
	return s
}

// Listen announces on the virtual network in a run. KeepAlive has nothing to tune there.
//
//go:norace
func (lc *ListenConfig) Listen(ctx context.Context, network, address string) (net.Listener, error) {
	if !rt.Running() || !stream(network) && !unixStream(network) {
		return wrapListener(lc.std().Listen(ctx, network, address))
	}
	if err := lc.control(network, address); err != nil {
		return nil, err
	}
	return Listen(network, address)
}

// ListenPacket binds a UDP socket of the virtual network in a run.
//
//go:norace
func (lc *ListenConfig) ListenPacket(ctx context.Context, network, address string) (net.PacketConn, error) {
	if !rt.Running() || !datagramNet(network) {
		return wrapPacket(lc.std().ListenPacket(ctx, network, address))
	}
	if err := lc.control(network, address); err != nil {
		return nil, err
	}
	return listenPacket(network, address)
}

// control is what a virtual listener does with a Control hook: it cannot call it, since the
// hook is given the operating system's socket (to set options on its descriptor, or to keep
// it), and skipping it would let the program go on as if it had run. The run cannot be
// explored, and the verdict names the goroutine that listened.
//
//go:norace
func (lc *ListenConfig) control(network, address string) error {
	if lc.Control == nil {
		return nil
	}
	rt.Fail(rt.VerdictUnsupported, fmt.Sprintf("listens on %s %s with a net.ListenConfig whose Control hook is set: the hook needs a socket of the operating system, which a listener of heddle's virtual network does not have", network, address), true)
	return &net.OpError{Op: "listen", Net: network, Err: errVirtual}
}

//go:norace
func (lc *ListenConfig) MultipathTCP() bool { return lc.std().MultipathTCP() }

//go:norace
func (lc *ListenConfig) SetMultipathTCP(use bool) { lc.mptcp = &use }
