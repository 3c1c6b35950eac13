package procgroup

import (
	"slices"
	"strconv"
	"strings"

	"github.com/heddledbg/heddle/rt"
	member "github.com/heddledbg/heddle/rt/member"
)

// The sockets between the members of a group are Stoller's communication objects ("Model-
// checking multi-threaded distributed Java programs", §2 and §2.3): the controller holds their state,
// decides from it whether an operation on them is enabled, and performs the operations.
// A connection is two one-way byte streams, each an object: a write to one end touches the
// other end's stream, a read its own, a close both. A listener is an object that Listen,
// Dial, Accept and its Close touch. Writes never block (the streams are unbounded), so only
// Dial (until someone listens at the address), Accept (until a dial is pending) and Read
// (until data is buffered or the peer closed) can wait.
type sockets struct {
	listeners map[string]*listener // by key
	ends      map[string]*end      // by key
	nconn     int
}

type listener struct {
	owner   *proc
	closed  bool
	backlog []*end
}

type end struct {
	key    string
	owner  *proc
	peer   *end
	in     []byte // what the peer wrote and this end has not read
	closed bool
}

func (s *sockets) reset() {
	s.listeners = map[string]*listener{}
	s.ends = map[string]*end{}
	s.nconn = 0
}

// enabled reports whether a member's pending operation op on socket key can be performed.
func (s *sockets) enabled(op rt.OpKind, key string) bool {
	switch op {
	case rt.OpDial:
		_, ok := s.listeners[key]
		return ok
	case rt.OpAccept:
		l := s.listeners[key]
		return l != nil && (len(l.backlog) > 0 || l.closed)
	case rt.OpRead:
		e := s.ends[key]
		return e == nil || len(e.in) > 0 || e.closed || e.peer.closed
	}
	return true
}

// objects returns the keys of the streams and listeners an operation on socket key touches.
func (s *sockets) objects(op rt.OpKind, key string) []string {
	if strings.HasPrefix(key, member.ListenerPrefix) {
		return []string{key}
	}
	switch op {
	case rt.OpWrite:
		return []string{peerKey(key)}
	case rt.OpShut:
		return []string{key, peerKey(key)}
	}
	return []string{key}
}

func peerKey(key string) string {
	if strings.HasSuffix(key, member.DialEnd) {
		return strings.TrimSuffix(key, member.DialEnd) + member.AcceptEnd
	}
	return strings.TrimSuffix(key, member.AcceptEnd) + member.DialEnd
}

// do performs a member's socket operation and returns the reply.
func (s *sockets) do(p *proc, m *member.Message) *member.Command {
	c := &member.Command{Cmd: "reply"}
	switch m.Op {
	case "listen":
		if l := s.listeners[m.Key]; l != nil && !l.closed {
			c.Err = "bind: address already in use"
			break
		}
		s.listeners[m.Key] = &listener{owner: p}
	case "dial":
		l := s.listeners[m.Key]
		if l == nil || l.closed {
			c.Err = "connect: connection refused"
			break
		}
		s.nconn++
		base := "C" + strconv.Itoa(s.nconn)
		a := &end{key: base + member.DialEnd, owner: p}
		b := &end{key: base + member.AcceptEnd, owner: l.owner, peer: a}
		a.peer = b
		s.ends[a.key], s.ends[b.key] = a, b
		l.backlog = append(l.backlog, b)
		c.Key = a.key
	case "accept":
		l := s.listeners[m.Key]
		switch {
		case l == nil:
			c.Err = "accept: not listening"
		case len(l.backlog) > 0:
			b := l.backlog[0]
			l.backlog = l.backlog[1:]
			b.owner = p
			c.Key = b.key
		default:
			c.Err = "use of closed network connection"
		}
	case "read":
		e := s.ends[m.Key]
		switch {
		case e == nil || e.closed:
			c.Err = "use of closed network connection"
		case len(e.in) > 0:
			n := min(m.N, len(e.in))
			c.Data = append([]byte(nil), e.in[:n]...)
			e.in = e.in[n:]
		default:
			c.EOF = true
		}
	case "write":
		e := s.ends[m.Key]
		switch {
		case e == nil || e.closed:
			c.Err = "use of closed network connection"
		case e.peer.closed:
			c.Err = "write: broken pipe"
		default:
			e.peer.in = append(e.peer.in, m.Data...)
		}
	case "close":
		if l := s.listeners[m.Key]; l != nil {
			if l.closed {
				c.Err = "use of closed network connection"
			}
			l.closed = true
			break
		}
		e := s.ends[m.Key]
		if e == nil || e.closed {
			c.Err = "use of closed network connection"
			break
		}
		e.closed = true
	default:
		c.Err = "unknown socket operation " + m.Op
	}
	return c
}

// exited closes the sockets of a member whose process ended, as the operating system would:
// its peers read the end of their streams, and dials to its addresses are refused.
func (s *sockets) exited(p *proc) {
	for _, l := range s.listeners {
		if l.owner == p {
			l.closed = true
		}
	}
	for _, e := range s.ends {
		if e.owner == p {
			e.closed = true
		}
	}
}

// owned returns the keys of the streams and listeners that closing p's sockets touches, in a
// fixed order.
func (s *sockets) owned(p *proc) []string {
	var keys []string
	for k, l := range s.listeners {
		if l.owner == p && !l.closed {
			keys = append(keys, k)
		}
	}
	for k, e := range s.ends {
		if e.owner == p && !e.closed {
			keys = append(keys, k, e.peer.key)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
