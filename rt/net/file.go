package net

import (
	"net"
	"os"
)

// The socket of a file is always the operating system's, in a run too: these functions are
// net's, their results wrapped in rt/net's types, so that instrumented code's assertions
// c.(*net.UnixConn), c.(*net.TCPConn) and c.(*net.UDPConn) hold as they do without heddle
// (a socketpair's end made with FileConn).

// FileConn is net.FileConn.
//
//go:norace
func FileConn(f *os.File) (c Conn, err error) {
	c, err = net.FileConn(f)
	switch rc := c.(type) {
	case *net.TCPConn:
		return &TCPConn{rc}, err
	case *net.UDPConn:
		return &UDPConn{real: rc}, err
	}
	return wrapConn(c, err)
}

// FileListener is net.FileListener.
//
//go:norace
func FileListener(f *os.File) (ln Listener, err error) {
	ln, err = net.FileListener(f)
	if tl, ok := ln.(*net.TCPListener); ok {
		return &TCPListener{real: tl}, err
	}
	return wrapListener(ln, err)
}

// FilePacketConn is net.FilePacketConn.
//
//go:norace
func FilePacketConn(f *os.File) (c PacketConn, err error) {
	c, err = net.FilePacketConn(f)
	if uc, ok := c.(*net.UDPConn); ok {
		return &UDPConn{real: uc}, err
	}
	return wrapPacket(c, err)
}
