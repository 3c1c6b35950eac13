package net

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// chunks is how many writes a direction of a connection buffers before Write blocks, as a
// socket's send buffer.
const chunks = 256

// A half is one direction of a connection: the writes in flight, each a chunk on a channel of
// the run, so that a Write is a send and a Read a receive, scheduling points whose order is a
// decision. The writer's close closes eof, not data: a Write of another goroutine may be
// waiting to send on data, and a close of the channel under it would panic where a socket's
// Write returns an error.
type half struct {
	data    chan []byte
	eof     chan struct{} // closed when the writer closes its side: the reader's EOF after data
	wclosed bool
	// gone is closed when the reader closes its side: writes fail. A write selects on it, so
	// that the reader's Close and the write are dependent operations of the run.
	gone    chan struct{}
	rclosed bool
}

// conn is one end of a connection of the virtual network.
type conn struct {
	in, out       *half
	local, remote net.Addr
	network       string // the OpErrors' Net: tcp, unix or unixpacket
	// packet keeps a write's boundaries, as a unixpacket (SOCK_SEQPACKET) socket does: a Read
	// takes one write's bytes and discards what does not fit.
	packet   bool
	rest     []byte        // the unread part of the last chunk read
	done     chan struct{} // closed by Close: wakes this end's Read and Write
	closed   bool
	rdl, wdl time.Time // deadlines, on the virtual clock
	// rwake is closed (and replaced) when the read deadline changes while a Read waits
	// (rwaiting), so that the Read takes the new deadline.
	rwake    chan struct{}
	rwaiting bool
}

// pair returns the two ends of a new connection.
//
//go:norace
func pair(serverAddr, clientAddr net.Addr) (client, server *conn) {
	rt.Connected()
	up := &half{data: rt.MakeChan[[]byte](chunks), eof: rt.MakeChan[struct{}](0), gone: rt.MakeChan[struct{}](0)}
	down := &half{data: rt.MakeChan[[]byte](chunks), eof: rt.MakeChan[struct{}](0), gone: rt.MakeChan[struct{}](0)}
	client = &conn{in: down, out: up, local: clientAddr, remote: serverAddr, done: rt.MakeChan[struct{}](0), rwake: rt.MakeChan[struct{}](0)}
	server = &conn{in: up, out: down, local: serverAddr, remote: clientAddr, done: rt.MakeChan[struct{}](0), rwake: rt.MakeChan[struct{}](0)}
	return client, server
}

//go:norace
func (c *conn) LocalAddr() net.Addr { return c.local }

//go:norace
func (c *conn) RemoteAddr() net.Addr { return c.remote }

//go:norace
func (c *conn) opError(op string, err error) error {
	network := c.network
	if network == "" {
		network = "tcp"
	}
	return &net.OpError{Op: op, Net: network, Source: c.local, Addr: c.remote, Err: err}
}

// Read reads what the peer wrote, waiting for it until the peer closes its side (io.EOF),
// this end is closed (net.ErrClosed) or the read deadline passes on the virtual clock
// (os.ErrDeadlineExceeded, a net.Error whose Timeout is true).
//
//go:norace
func (c *conn) Read(b []byte) (int, error) {
	if c.closed {
		return 0, c.opError("read", net.ErrClosed)
	}
	if len(c.rest) > 0 {
		n := copy(b, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	if len(b) == 0 {
		return 0, nil
	}
	var i int
	var v any
	for {
		t, expired := deadline(c.rdl)
		if expired {
			return 0, c.opError("read", os.ErrDeadlineExceeded)
		}
		cases := []rt.Case{rt.RecvCase(c.in.data), rt.RecvCase(c.done), rt.RecvCase(c.rwake), rt.RecvCase(c.in.eof)}
		if t != nil {
			cases = append(cases, rt.RecvCase(t.C))
		}
		c.rwaiting = true
		i, v, _ = rt.Select(false, cases...)
		c.rwaiting = false
		if t != nil {
			t.Stop()
		}
		switch i {
		case 1:
			return 0, c.opError("read", net.ErrClosed)
		case 3:
			// The peer closed its side: what it wrote before comes first.
			if i, v, _ = rt.Select(true, rt.RecvCase(c.in.data)); i < 0 {
				return 0, io.EOF
			}
		case 4:
			return 0, c.opError("read", os.ErrDeadlineExceeded)
		}
		if i == 0 {
			break
		}
		// The read deadline changed while the read waited (SetReadDeadline(aLongTimeAgo) is
		// how net/http and others abort a read): wait again under the new one.
	}
	chunk := rt.Recvd(c.in.data, v)
	n := copy(b, chunk)
	if !c.packet {
		c.rest = chunk[n:]
	}
	return n, nil
}

// Write sends a copy of b to the peer: one chunk, buffered, so it blocks only when the peer
// has left chunks of writes unread. Writing to a peer that has closed its end fails with EPIPE;
// a write racing with that close may also succeed (its data is lost), as on a socket.
//
//go:norace
func (c *conn) Write(b []byte) (int, error) {
	switch {
	case c.closed:
		return 0, c.opError("write", net.ErrClosed)
	case c.out.wclosed:
		return 0, c.opError("write", syscall.EPIPE)
	case len(b) == 0:
		return 0, nil
	}
	chunk := append([]byte(nil), b...)
	cases := []rt.Case{rt.SendCase(c.out.data, chunk), rt.RecvCase(c.done), rt.RecvCase(c.out.gone)}
	t, expired := deadline(c.wdl)
	if expired {
		return 0, c.opError("write", os.ErrDeadlineExceeded)
	}
	if t != nil {
		cases = append(cases, rt.RecvCase(t.C))
		defer t.Stop()
	}
	switch i, _, _ := rt.Select(false, cases...); i {
	case 1:
		return 0, c.opError("write", net.ErrClosed)
	case 2:
		return 0, c.opError("write", syscall.EPIPE)
	case 3:
		return 0, c.opError("write", os.ErrDeadlineExceeded)
	}
	return len(b), nil
}

// deadline returns a timer on the virtual clock that fires at d, or whether d has passed.
// A deadline of the real clock (code that heddle does not instrument reads time.Now) lies
// far in the virtual future and never passes; time.Time{} is no deadline.
//
//go:norace
func deadline(d time.Time) (*rt.Timer, bool) {
	if d.IsZero() {
		return nil, false
	}
	left := d.Sub(rt.Instant())
	if left <= 0 {
		return nil, true
	}
	return rt.NewTimer(left), false
}

// Close closes this end: its blocked Read and Write return net.ErrClosed, the peer reads
// what was written and then io.EOF, and the peer's writes fail.
//
//go:norace
func (c *conn) Close() error {
	if c.closed {
		return c.opError("close", net.ErrClosed)
	}
	c.closed = true
	rt.Close(c.done)
	c.closeWrite()
	c.closeRead()
	return nil
}

//go:norace
func (c *conn) closeWrite() {
	if !c.out.wclosed {
		c.out.wclosed = true
		rt.Close(c.out.eof)
	}
}

// CloseWrite shuts down the writing side: the peer reads io.EOF after what was written.
//
//go:norace
func (c *conn) CloseWrite() error {
	if c.closed {
		return c.opError("close", net.ErrClosed)
	}
	c.closeWrite()
	return nil
}

// CloseRead shuts down the reading side: the peer's writes fail.
//
//go:norace
func (c *conn) CloseRead() error {
	if c.closed {
		return c.opError("close", net.ErrClosed)
	}
	c.closeRead()
	return nil
}

//go:norace
func (c *conn) closeRead() {
	if !c.in.rclosed {
		c.in.rclosed = true
		rt.Close(c.in.gone)
	}
}

// SetDeadline sets both deadlines. Deadlines are times of the virtual clock: a Read or Write
// that waits past one fails with os.ErrDeadlineExceeded, at once in real time. A write
// deadline applies from the next Write.
//
//go:norace
func (c *conn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	c.wdl = t
	return nil
}

// SetReadDeadline sets the read deadline, for a Read that waits now too.
//
//go:norace
func (c *conn) SetReadDeadline(t time.Time) error {
	c.rdl = t
	if c.rwaiting {
		rt.Close(c.rwake)
		c.rwake = rt.MakeChan[struct{}](0)
	}
	return nil
}

//go:norace
func (c *conn) SetWriteDeadline(t time.Time) error { c.wdl = t; return nil }
