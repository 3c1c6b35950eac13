// Package procgroup explores a process group: several instrumented programs that run as one
// system under one scheduler, one goroutine of the whole group at a time (docs/processes.md).
// It is the controller's side of package rt/member: it starts the members, makes every
// decision of every member, holds the sockets between them, and stitches the members' steps
// into one run that the explorer's strategies search like any other.
package procgroup

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/rt"
	member "github.com/heddledbg/heddle/rt/member"
)

// Runner performs the runs of a group: it is an explorer.Runner. Goroutines are named by
// their process and their name in it (P2:G1.2), objects likewise (P1:G1#3), and sockets by
// the controller's keys (L:127.0.0.1:7000 for a listener, C1a and C1b for the dialer's and
// the acceptor's ends of the first connection).
type Runner struct {
	ctx     context.Context
	members []Member
	// procs are the processes of the run in progress, spares those of the next, started
	// while the current one runs: every run has fresh processes, since a program's package
	// variables keep what a previous run of main left in them.
	procs, spares []*proc
	opts          explorer.Options
	// deadline is the end of the exploration's time budget, zero for none.
	deadline time.Time
	// ending counts the processes of ended runs that are still exiting.
	ending sync.WaitGroup
	// The run in progress.
	sys  system
	sock sockets
	// positions of the detailed runs' steps, goroutines and objects, which their traces need
	// (Trace).
	detail map[*rt.Result]*positions
}

// New starts the members' processes for the first run.
func New(ctx context.Context, members []Member, opts explorer.Options) (*Runner, error) {
	if len(members) < 2 {
		return nil, fmt.Errorf("a process group needs at least two members, not %d", len(members))
	}
	r := &Runner{ctx: ctx, members: members, opts: opts, detail: map[*rt.Result]*positions{},
		procs: make([]*proc, len(members)), spares: make([]*proc, len(members))}
	if opts.MaxTime > 0 {
		r.deadline = time.Now().Add(opts.MaxTime)
	}
	if err := r.startSpares(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// startSpares starts the processes of the next run.
func (r *Runner) startSpares() error {
	for i, m := range r.members {
		if r.spares[i] != nil {
			continue
		}
		p, err := start(Name(i), m)
		if err != nil {
			return err
		}
		r.spares[i] = p
	}
	return nil
}

// takeSpares makes the spare processes the current run's, and starts the next run's.
func (r *Runner) takeSpares() error {
	if err := r.startSpares(); err != nil {
		return err
	}
	copy(r.procs, r.spares)
	clear(r.spares)
	if r.ctx.Err() == nil {
		r.startSpares()
	}
	return nil
}

// endProcs ends the processes of the run that ended, in the background: the next run does
// not wait for them to exit.
func (r *Runner) endProcs() {
	for i, p := range r.procs {
		if p != nil {
			r.ending.Add(1)
			go func() {
				defer r.ending.Done()
				p.quit()
			}()
			r.procs[i] = nil
		}
	}
}

// Name returns the name of the i-th member's process: P1, P2…
func Name(i int) string { return "P" + strconv.Itoa(i+1) }

// Close ends the members' processes.
func (r *Runner) Close() {
	r.endProcs()
	for i, p := range r.spares {
		if p != nil {
			p.quit()
			r.spares[i] = nil
		}
	}
	r.ending.Wait()
}

// system is the group's run in progress, as one run: global goroutine and object numbers,
// the stitched steps, and the decisions.
type system struct {
	events    []rt.Event
	decisions []rt.Decision
	names     []string // by global GID
	gowner    []int    // the member of each global goroutine
	gorig     []rt.GID // and its id there
	objs      []rt.ObjectInfo
	objKey    map[string]rt.ObjID // socket objects by key
	pos       []string            // of each step (detail mode)
	states    []memberRun
}

// memberRun is one member's part of the run.
type memberRun struct {
	gids  map[rt.GID]rt.GID
	oids  map[rt.ObjID]rt.ObjID
	steps []int32 // the global step of each of the member's steps
	point *member.Message
	// grant is the decision that picked the member's goroutine, for the step it starts.
	grant int32
	// ended is set when the member's run has ended, exited when it ended because its main
	// returned: its leftover goroutines ended with the process.
	ended, exited bool
	res           *rt.Result
	end           *member.Message
}

func (s *system) Events() []rt.Event { return s.events }

func (s *system) Objects() int { return len(s.objs) }

func (s *system) Name(id rt.GID) string {
	if id < 0 || int(id) >= len(s.names) {
		return ""
	}
	return s.names[id]
}

func (s *system) gid(m int, local rt.GID, name string) rt.GID {
	if local == rt.NoG {
		return rt.NoG
	}
	st := &s.states[m]
	if g, ok := st.gids[local]; ok {
		if name != "" && s.names[g] == "" {
			s.names[g] = Name(m) + ":" + name
		}
		return g
	}
	g := rt.GID(len(s.names))
	st.gids[local] = g
	if name != "" {
		name = Name(m) + ":" + name
	} else if local == rt.ClockID {
		name = Name(m) + ":clock"
	}
	s.names = append(s.names, name)
	s.gowner = append(s.gowner, m)
	s.gorig = append(s.gorig, local)
	return g
}

func (s *system) oid(m int, local rt.ObjID) rt.ObjID {
	if local == rt.NoObj {
		return rt.NoObj
	}
	st := &s.states[m]
	if o, ok := st.oids[local]; ok {
		return o
	}
	o := rt.ObjID(len(s.objs))
	st.oids[local] = o
	s.objs = append(s.objs, rt.ObjectInfo{})
	return o
}

func (s *system) socketObj(key string) rt.ObjID {
	if o, ok := s.objKey[key]; ok {
		return o
	}
	o := rt.ObjID(len(s.objs))
	s.objKey[key] = o
	s.objs = append(s.objs, rt.ObjectInfo{Name: key, Kind: rt.ObjSocket})
	return o
}

func (s *system) socketObjs(sock *sockets, op rt.OpKind, key string) (rt.ObjID, []rt.ObjID) {
	keys := sock.objects(op, key)
	objs := make([]rt.ObjID, len(keys))
	for i, k := range keys {
		objs[i] = s.socketObj(k)
	}
	if len(objs) == 1 {
		return objs[0], nil
	}
	return objs[0], objs
}

// stitch appends member m's steps to the run.
func (r *Runner) stitch(m int, evs []member.Event) {
	s := &r.sys
	st := &s.states[m]
	for _, me := range evs {
		e := me.Event
		step := int32(len(s.events))
		st.steps = append(st.steps, step)
		e.Step = step
		root := e.G == 0
		e.G = s.gid(m, e.G, "")
		if me.Key != "" {
			e.Obj, e.Objs = s.socketObjs(&r.sock, e.Op, me.Key)
		} else if e.Op == rt.OpExit && root {
			// The process exits with its main: the operating system closes its sockets,
			// which its peers' reads and dials see.
			e.Objs = nil
			for _, k := range r.sock.owned(r.procs[m]) {
				e.Objs = append(e.Objs, s.socketObj(k))
			}
		} else {
			e.Obj = s.oid(m, e.Obj)
			e.Objs = r.mapObjs(m, e.Objs)
		}
		e.With = s.gid(m, e.With, "")
		e.Child = s.gid(m, e.Child, "")
		for i, a := range e.After {
			e.After[i] = st.steps[a]
		}
		for i := range e.Partners {
			p := &e.Partners[i]
			p.G = s.gid(m, p.G, "")
			p.Objs = r.mapObjs(m, p.Objs)
		}
		e.Decision = -1
		if e.Start {
			e.Decision, st.grant = st.grant, -1
		}
		s.events = append(s.events, e)
		s.pos = append(s.pos, me.Pos)
	}
}

func (r *Runner) mapObjs(m int, objs []rt.ObjID) []rt.ObjID {
	if objs == nil {
		return nil
	}
	out := make([]rt.ObjID, len(objs))
	for i, o := range objs {
		out[i] = r.sys.oid(m, o)
	}
	return out
}

// alt is an alternative of the group: member m's alternative i, as the group numbers it.
type alt struct {
	m, i int
}

// Run performs one run of the group steered by gd: it is explorer.Runner's method.
func (r *Runner) Run(gd *explorer.Guide, detail bool) *rt.Result {
	gd.Begin()
	r.sys = system{objKey: map[string]rt.ObjID{}, states: make([]memberRun, len(r.members))}
	r.sock.reset()
	for i := range r.sys.states {
		r.sys.states[i] = memberRun{gids: map[rt.GID]rt.GID{}, oids: map[rt.ObjID]rt.ObjID{}, grant: -1}
	}
	var deadline time.Time
	if !detail {
		// The detailed replays of bugs run past the budget, as the explorer's own do.
		deadline = r.deadline
	}
	maxSteps := r.opts.MaxSteps
	if maxSteps == 0 {
		maxSteps = rt.DefaultMaxSteps
	}
	var verdict *rt.Verdict
	if err := r.takeSpares(); err != nil {
		r.endProcs()
		return &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictInternal, Message: err.Error()}}
	}
	defer r.endProcs()
	// Every member runs to its first scheduling point, one after the other.
	for m, p := range r.procs {
		err := p.send(&member.Command{Cmd: "run", Detail: detail, MaxSteps: maxSteps, Time: r.opts.Time})
		if err == nil {
			verdict, err = r.drive(m, gd)
		}
		if err != nil {
			verdict = died(err)
		}
		if verdict != nil {
			break
		}
	}
	last := -1 // the member whose goroutine made the last step
	var alts []rt.Alt
	var where []alt
	for verdict == nil {
		alts, where = alts[:0], where[:0]
		cur := -1
		for m := range r.sys.states {
			st := &r.sys.states[m]
			if st.point == nil {
				continue
			}
			for i, a := range st.point.Alts {
				if a.Key != "" && !r.sock.enabled(a.Op, a.Key) {
					continue
				}
				ga := a.Alt
				ga.G = r.sys.gid(m, a.G, a.Name)
				if a.Key != "" {
					ga.Obj, ga.Objs = r.sys.socketObjs(&r.sock, a.Op, a.Key)
				} else {
					ga.Obj = r.sys.oid(m, a.Obj)
					ga.Objs = r.mapObjs(m, a.Objs)
				}
				if m == last && i == st.point.Current {
					cur = len(alts)
				}
				alts = append(alts, ga)
				where = append(where, alt{m, i})
			}
		}
		if len(alts) == 0 {
			verdict = r.blocked()
			break
		}
		if r.ctx.Err() != nil || !deadline.IsZero() && time.Now().After(deadline) {
			verdict = &rt.Verdict{Kind: rt.VerdictStopped, Message: "stopped at the end of the time budget"}
			break
		}
		if len(r.sys.events) > maxSteps {
			verdict = &rt.Verdict{Kind: rt.VerdictCut, Message: fmt.Sprintf("stopped at the step bound of %d while making progress", maxSteps)}
			break
		}
		k := r.choose(gd, rt.DecideGoroutine, alts, cur)
		if k < 0 {
			verdict = abandoned(gd)
			break
		}
		w := where[k]
		st := &r.sys.states[w.m]
		if len(alts) > 1 {
			st.grant = int32(len(r.sys.decisions) - 1)
		}
		st.point = nil
		last = w.m
		err := r.procs[w.m].send(&member.Command{Cmd: "pick", Pick: w.i})
		if err == nil {
			verdict, err = r.drive(w.m, gd)
		}
		if err != nil {
			verdict = died(err)
		}
	}
	return r.finish(verdict, gd, detail)
}

// choose asks gd for a decision of the group among alts, and records it.
func (r *Runner) choose(gd *explorer.Guide, kind rt.DecisionKind, alts []rt.Alt, cur int) int {
	s := &r.sys
	if len(alts) == 1 && len(gd.Sleep) == 0 {
		return 0
	}
	p := rt.NewPoint(s, kind, alts, cur, len(s.decisions), len(s.events))
	i := gd.Choose(p)
	if i < 0 || i >= len(alts) || len(alts) == 1 {
		return i
	}
	d := rt.Decision{Kind: kind, Step: int32(len(s.events)), Current: -1}
	for _, a := range alts {
		v := int32(a.G)
		if kind != rt.DecideGoroutine && kind != rt.DecideWake {
			v = int32(a.Case)
		}
		d.Alts = append(d.Alts, v)
	}
	d.Pick = d.Alts[i]
	if cur >= 0 {
		d.Current = int32(alts[cur].G)
	}
	s.decisions = append(s.decisions, d)
	return i
}

// drive lets member m's picked goroutine run: it serves the member's socket operations and
// data decisions until the member stops at its next goroutine decision or its run ends. It
// returns the group's verdict if the member's run ended with a bug.
func (r *Runner) drive(m int, gd *explorer.Guide) (*rt.Verdict, error) {
	p := r.procs[m]
	st := &r.sys.states[m]
	abandon := false // the guide abandoned the run at a data decision
	for {
		msg, err := p.recv(r.hang())
		if err != nil {
			return nil, err
		}
		r.stitch(m, msg.Events)
		switch msg.Type {
		case "op":
			if err := p.send(r.sock.do(p, msg)); err != nil {
				return nil, err
			}
		case "point":
			if msg.Kind == rt.DecideGoroutine {
				st.point = msg
				return nil, nil
			}
			// A data decision (select case, Signal's waiter, heddle.Choose) of the running
			// goroutine.
			alts := make([]rt.Alt, len(msg.Alts))
			for i, a := range msg.Alts {
				alts[i] = a.Alt
				alts[i].G = r.sys.gid(m, a.G, a.Name)
				alts[i].Obj = r.sys.oid(m, a.Obj)
				alts[i].Objs = r.mapObjs(m, a.Objs)
			}
			i := r.choose(gd, msg.Kind, alts, -1)
			if err := p.send(&member.Command{Cmd: "pick", Pick: i}); err != nil {
				return nil, err
			}
			// Abandoned, the member's run ends at once: its end message follows.
			abandon = abandon || i < 0
		case "end":
			st.ended, st.res, st.end = true, msg.Result, msg
			if abandon {
				return abandoned(gd), nil
			}
			return r.ended(m), nil
		default:
			return nil, fmt.Errorf("process %s sent a message of unknown type %q", p.name, msg.Type)
		}
	}
}

// ended digests the end of member m's run: a process whose main returned has exited, and
// closes its sockets; any other end is the group's verdict.
func (r *Runner) ended(m int) *rt.Verdict {
	res := r.sys.states[m].res
	switch res.Verdict.Kind {
	case rt.VerdictOK, rt.VerdictPruned, rt.VerdictLeak:
		// The root returned (a leak is no bug of a program: its exit ends every goroutine),
		// or the run was abandoned when it did.
		r.sys.states[m].exited = true
		r.sock.exited(r.procs[m])
		return nil
	}
	v := res.Verdict
	v.Message = Name(m) + ": " + v.Message
	v.Goroutines = r.states(m, v.Goroutines)
	if len(v.Timing) > 0 {
		// The sentences name the member's goroutines by their names in the member.
		v.Timing = append([]string(nil), v.Timing...)
		for i, t := range v.Timing {
			v.Timing[i] = goroutineName.ReplaceAllString(t, Name(m)+":$0")
		}
	}
	return &v
}

// goroutineName matches a goroutine's logical id (G1, G1.2.1) in a sentence.
var goroutineName = regexp.MustCompile(`\bG1(\.[0-9]+)*\b`)

// states maps member m's goroutine states to the group's numbering.
func (r *Runner) states(m int, gs []rt.GoroutineState) []rt.GoroutineState {
	end := r.sys.states[m].end
	out := make([]rt.GoroutineState, len(gs))
	for i, g := range gs {
		g.ID = r.sys.gid(m, g.ID, "")
		if end != nil && g.Obj >= 0 && int(g.Obj) < len(end.Sockets) && end.Sockets[g.Obj] != "" {
			g.Obj, g.Objs = r.sys.socketObjs(&r.sock, g.Op, end.Sockets[g.Obj])
		} else {
			g.Obj = r.sys.oid(m, g.Obj)
			g.Objs = r.mapObjs(m, g.Objs)
		}
		out[i] = g
	}
	return out
}

// blocked is the verdict of a group in which no goroutine of any process can go on: every
// process that has not exited is blocked, a deadlock across processes.
func (r *Runner) blocked() *rt.Verdict {
	open := false
	for _, st := range r.sys.states {
		open = open || !st.ended
	}
	if !open {
		return &rt.Verdict{Kind: rt.VerdictOK}
	}
	return &rt.Verdict{Kind: rt.VerdictDeadlock, Message: "all goroutines of every process are blocked"}
}

func abandoned(gd *explorer.Guide) *rt.Verdict {
	if d := gd.Diverged(); d != "" {
		return &rt.Verdict{Kind: rt.VerdictDiverged, Message: d}
	}
	return &rt.Verdict{Kind: rt.VerdictPruned}
}

// hang is how long a member may go without a message: the exploration's hang limit.
func (r *Runner) hang() time.Duration {
	if r.opts.Hang > 0 {
		return r.opts.Hang
	}
	return rt.DefaultHang
}

// died is the verdict of a run in which a member's process died: an exit status or a signal
// from code heddle does not control, or the controller's kill of a process that hung.
func died(err error) *rt.Verdict {
	var he *hangError
	if errors.As(err, &he) {
		return &rt.Verdict{Kind: rt.VerdictHang, Message: he.msg}
	}
	kind := rt.VerdictExit
	if strings.Contains(err.Error(), "signal") {
		kind = rt.VerdictPanic
	}
	return &rt.Verdict{Kind: kind, Message: err.Error()}
}
