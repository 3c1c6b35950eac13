package member

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/heddledbg/heddle/rt"
	heddlenet "github.com/heddledbg/heddle/rt/net"
	"github.com/heddledbg/heddle/wire"
)

// Member reports whether this process is a member of a group.
func Member() bool { return os.Getenv(wire.EnvGroup) != "" }

// link is the member's connection to the controller. Only the running goroutine of the group
// uses it, so it needs no lock.
type link struct {
	dec *json.Decoder
	out *bufio.Writer
	enc *json.Encoder
	// seen is how many of the run's events the controller has been sent.
	seen   int
	detail bool
}

var ctl *link

// noHang turns the member's hang watchdog off.
const noHang = 100000 * time.Hour

// Serve serves the group protocol: one run per "run" command, until "quit". The harness h
// performs a run: it calls run once with the run's root function (main, or a test with a
// fresh *testing.T). It returns the process's exit status.
func Serve(h func(run func(body func()))) int {
	in, out := os.NewFile(3, "group-in"), os.NewFile(4, "group-out")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "heddle: a group member needs the controller's pipes on fd 3 and 4")
		return 2
	}
	w := bufio.NewWriter(out)
	ctl = &link{dec: json.NewDecoder(bufio.NewReader(in)), out: w, enc: json.NewEncoder(w)}
	// A dial that no listener of this process answers, through a net.Dialer or another way
	// than net.Dial, is one to another member.
	heddlenet.Outside = func(_ context.Context, network, addr string) (net.Conn, error) { return Dial(network, addr) }
	for {
		var c Command
		if err := ctl.dec.Decode(&c); err != nil {
			fmt.Fprintln(os.Stderr, "heddle: group member: reading the controller's command:", err)
			return 2
		}
		switch c.Cmd {
		case "quit":
			return 0
		case "run":
			ctl.seen, ctl.detail = 0, c.Detail
			// The controller keeps the hang watch (group/proc.go): here a goroutine that waits
			// for the controller's pick would look hung while the other members run.
			cfg := rt.Config{Chooser: ctl, AskAlways: true, Detail: c.Detail, MaxSteps: c.MaxSteps, Hang: noHang, Time: c.Time}
			var res *rt.Result
			h(func(body func()) { res = rt.Run(cfg, body) })
			if res == nil {
				res = &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictInternal, Message: "the harness did not perform the run"}}
			}
			ctl.send(ctl.end(res))
		default:
			fmt.Fprintf(os.Stderr, "heddle: group member: unknown command %q\n", c.Cmd)
			return 2
		}
	}
}

// Choose hands the decision to the controller: the member's alternatives, and its steps since
// the last message, which the controller stitches into the group's run. A member whose main
// has returned has exited: it tells the controller so by abandoning the run, which the
// controller reads in the end message.
func (l *link) Choose(p *rt.Point) int {
	evs := p.Events()
	for _, e := range evs[l.seen:] {
		if e.G == 0 && e.Op == rt.OpExit {
			return -1
		}
	}
	m := &Message{Type: "point", Kind: p.Kind, Current: p.Current, Events: l.events(evs)}
	for _, a := range p.Alts {
		ga := Alt{Alt: a, Name: p.Name(a.G)}
		if s := rt.SocketOf(a.Obj); s != nil && isSocketOp(a.Op) {
			ga.Key = s.Key
		}
		m.Alts = append(m.Alts, ga)
	}
	l.send(m)
	c := l.recv("pick")
	return c.Pick
}

func isSocketOp(k rt.OpKind) bool {
	switch k {
	case rt.OpListen, rt.OpDial, rt.OpAccept, rt.OpRead, rt.OpWrite, rt.OpShut:
		return true
	}
	return false
}

// events returns the run's steps the controller has not seen, with their sockets and (in
// detail mode) positions.
func (l *link) events(evs []rt.Event) []Event {
	var out []Event
	for _, e := range evs[l.seen:] {
		ge := Event{Event: e}
		if isSocketOp(e.Op) {
			if s := rt.SocketOf(e.Obj); s != nil {
				ge.Key = s.Key
			}
		}
		if l.detail {
			ge.Pos = position(e.PC)
		}
		ge.PC = 0
		out = append(out, ge)
	}
	l.seen = len(evs)
	return out
}

func position(pc uintptr) string {
	file, line, _ := rt.Position(pc)
	if file == "" {
		return ""
	}
	return file + ":" + strconv.Itoa(line)
}

// end is the message that closes a run.
func (l *link) end(res *rt.Result) *Message {
	m := &Message{Type: "end", Events: l.events(res.Events)}
	r := *res
	r.Events = nil
	for i := range r.Objects {
		if l.detail {
			m.ObjPos = append(m.ObjPos, position(r.Objects[i].PC))
		}
		r.Objects[i].PC = 0
		key := ""
		if s := rt.SocketOf(rt.ObjID(i)); s != nil {
			key = s.Key
		}
		m.Sockets = append(m.Sockets, key)
	}
	for _, gs := range [][]rt.GoroutineState{r.Pending, r.Verdict.Goroutines} {
		for i := range gs {
			if gs[i].PC != 0 {
				if file, line, fn := rt.Position(gs[i].PC); file != "" {
					gs[i].Site = &rt.Frame{Func: fn, File: file, Line: line}
					if len(gs[i].Stack) == 0 {
						gs[i].Stack = []rt.Frame{*gs[i].Site}
					}
				}
			}
			gs[i].PC = 0
		}
	}
	m.Result = &r
	return m
}

func (l *link) send(m *Message) {
	err := l.enc.Encode(m)
	if err == nil {
		err = l.out.Flush()
	}
	if err != nil {
		os.Exit(3) // the controller went away
	}
}

// recv reads the controller's answer of kind cmd. A controller that went away leaves
// nothing to run for: the member exits.
func (l *link) recv(cmd string) *Command {
	var c Command
	if err := l.dec.Decode(&c); err != nil {
		os.Exit(3)
	}
	if c.Cmd != cmd {
		fmt.Fprintf(os.Stderr, "heddle: group member: the controller sent %q where %q was due\n", c.Cmd, cmd)
		os.Exit(2)
	}
	return &c
}

// call performs socket operation m through the controller.
func (l *link) call(m *Message) *Command {
	m.Type = "op"
	l.send(m)
	return l.recv("reply")
}
