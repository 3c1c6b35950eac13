package procgroup

import (
	"testing"

	"github.com/heddledbg/heddle/rt"
	member "github.com/heddledbg/heddle/rt/member"
)

// TestSockets drives the controller's sockets through a connection's life and checks, after
// each operation, its reply and which pending operations are enabled: Stoller's guards of the
// communication objects (docs/processes.md).
func TestSockets(t *testing.T) {
	server, client := &proc{name: "P1"}, &proc{name: "P2"}
	var s sockets
	s.reset()
	const L = member.ListenerPrefix + "127.0.0.1:7070"
	type pending struct {
		op  rt.OpKind
		key string
	}
	steps := []struct {
		by      *proc
		msg     member.Message
		want    member.Command
		enabled []pending // enabled afterwards
		blocked []pending // not enabled afterwards
	}{
		{by: server, msg: member.Message{Op: "listen", Key: L}, want: member.Command{}, enabled: []pending{{rt.OpDial, L}}, blocked: []pending{{rt.OpAccept, L}}},
		{by: client, msg: member.Message{Op: "listen", Key: L}, want: member.Command{Err: "bind: address already in use"}},
		{by: client, msg: member.Message{Op: "dial", Key: L}, want: member.Command{Key: "C1a"}, enabled: []pending{{rt.OpAccept, L}, {rt.OpWrite, "C1a"}}, blocked: []pending{{rt.OpRead, "C1a"}}},
		{by: server, msg: member.Message{Op: "accept", Key: L}, want: member.Command{Key: "C1b"}, blocked: []pending{{rt.OpAccept, L}, {rt.OpRead, "C1b"}}},
		{by: client, msg: member.Message{Op: "write", Key: "C1a", Data: []byte("ping\n")}, want: member.Command{}, enabled: []pending{{rt.OpRead, "C1b"}}, blocked: []pending{{rt.OpRead, "C1a"}}},
		{by: server, msg: member.Message{Op: "read", Key: "C1b", N: 2}, want: member.Command{Data: []byte("pi")}, enabled: []pending{{rt.OpRead, "C1b"}}},
		{by: server, msg: member.Message{Op: "read", Key: "C1b", N: 64}, want: member.Command{Data: []byte("ng\n")}, blocked: []pending{{rt.OpRead, "C1b"}}},
		{by: client, msg: member.Message{Op: "close", Key: "C1a"}, want: member.Command{}, enabled: []pending{{rt.OpRead, "C1b"}}},
		{by: server, msg: member.Message{Op: "read", Key: "C1b", N: 64}, want: member.Command{EOF: true}},
		{by: server, msg: member.Message{Op: "write", Key: "C1b", Data: []byte("late")}, want: member.Command{Err: "write: broken pipe"}},
		{by: client, msg: member.Message{Op: "read", Key: "C1a", N: 64}, want: member.Command{Err: "use of closed network connection"}},
		{by: server, msg: member.Message{Op: "close", Key: L}, want: member.Command{}, enabled: []pending{{rt.OpAccept, L}, {rt.OpDial, L}}},
		{by: server, msg: member.Message{Op: "accept", Key: L}, want: member.Command{Err: "use of closed network connection"}},
		{by: client, msg: member.Message{Op: "dial", Key: L}, want: member.Command{Err: "connect: connection refused"}},
	}
	for i, st := range steps {
		got := s.do(st.by, &st.msg)
		st.want.Cmd = "reply"
		if got.Cmd != st.want.Cmd || got.Key != st.want.Key || string(got.Data) != string(st.want.Data) || got.EOF != st.want.EOF || got.Err != st.want.Err {
			t.Fatalf("step %d: %s %s: got %+v, want %+v", i, st.msg.Op, st.msg.Key, *got, st.want)
		}
		for _, p := range st.enabled {
			if !s.enabled(p.op, p.key) {
				t.Errorf("after step %d (%s %s): %s on %s is not enabled", i, st.msg.Op, st.msg.Key, p.op, p.key)
			}
		}
		for _, p := range st.blocked {
			if s.enabled(p.op, p.key) {
				t.Errorf("after step %d (%s %s): %s on %s is enabled", i, st.msg.Op, st.msg.Key, p.op, p.key)
			}
		}
	}
}

// TestSocketObjects checks which streams an operation touches: a write the peer's inbound
// stream, a read its own, a close both, so that a write and a read of the same direction are
// dependent and the two directions are not.
func TestSocketObjects(t *testing.T) {
	var s sockets
	for _, c := range []struct {
		op   rt.OpKind
		key  string
		want []string
	}{
		{rt.OpWrite, "C3a", []string{"C3b"}},
		{rt.OpRead, "C3b", []string{"C3b"}},
		{rt.OpWrite, "C3b", []string{"C3a"}},
		{rt.OpShut, "C3a", []string{"C3a", "C3b"}},
		{rt.OpDial, member.ListenerPrefix + "h:1", []string{member.ListenerPrefix + "h:1"}},
		{rt.OpShut, member.ListenerPrefix + "h:1", []string{member.ListenerPrefix + "h:1"}},
	} {
		got := s.objects(c.op, c.key)
		if len(got) != len(c.want) || got[0] != c.want[0] || len(got) > 1 && got[1] != c.want[1] {
			t.Errorf("%s on %s touches %v, want %v", c.op, c.key, got, c.want)
		}
	}
}
