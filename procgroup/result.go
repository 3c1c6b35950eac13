package procgroup

import (
	"strconv"
	"strings"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	member "github.com/heddledbg/heddle/rt/member"
)

// positions are the source positions of a detailed group run, resolved in the members.
type positions struct {
	steps []string
	objs  []string
}

// finish ends the members' runs that are still going and makes the group's result.
func (r *Runner) finish(v *rt.Verdict, gd *explorer.Guide, detail bool) *rt.Result {
	s := &r.sys
	for m := range s.states {
		st := &s.states[m]
		if st.ended || st.point == nil && !r.running(m) {
			continue
		}
		p := r.procs[m]
		if err := p.send(&member.Command{Cmd: "pick", Pick: -1}); err != nil {
			continue
		}
		for {
			msg, err := p.recv(r.hang())
			if err != nil {
				break
			}
			r.stitch(m, msg.Events)
			if msg.Type == "end" {
				st.ended, st.res, st.end = true, msg.Result, msg
				break
			}
			// A member told to stop sends nothing but its end; anything else is answered
			// with the same refusal.
			if msg.Type == "op" {
				p.send(&member.Command{Cmd: "reply", Err: "the group's run has ended"})
			} else {
				p.send(&member.Command{Cmd: "pick", Pick: -1})
			}
		}
	}
	res := &rt.Result{Verdict: *v, Events: s.events, Decisions: s.decisions, Steps: len(s.events), Time: r.opts.Time}
	var pending []rt.GoroutineState
	for m := range s.states {
		st := &s.states[m]
		if st.res == nil {
			continue
		}
		// Every goroutine and object of the member gets its group number, in the member's
		// order, and its name.
		for local, g := range st.res.Goroutines {
			s.gid(m, rt.GID(local), g.Name)
		}
		for local, o := range st.res.Objects {
			if key := socketKey(st.end, local); key != "" {
				s.socketObj(key)
				continue
			}
			id := s.oid(m, rt.ObjID(local))
			s.objs[id] = rt.ObjectInfo{Name: Name(m) + ":" + o.Name, Kind: o.Kind}
		}
		if !st.exited {
			pending = append(pending, r.states(m, st.res.Pending)...)
		}
	}
	res.Pending = pending
	res.Goroutines = make([]rt.GoroutineInfo, len(s.names))
	for g := range s.names {
		m, local := s.gowner[g], s.gorig[g]
		info := rt.GoroutineInfo{Name: s.names[g], Parent: rt.NoG, Created: -1, Exited: -1}
		if st := &s.states[m]; st.res != nil && local >= 0 && int(local) < len(st.res.Goroutines) {
			li := st.res.Goroutines[local]
			info.Func = li.Func
			info.Parent = s.gid(m, li.Parent, "")
			info.Created = r.step(m, li.Created)
			info.Exited = r.step(m, li.Exited)
		}
		res.Goroutines[g] = info
	}
	res.Objects = s.objs
	if res.Verdict.Kind == rt.VerdictDeadlock {
		// A deadlock across processes shows every process's blocked goroutines.
		seen := map[rt.GID]bool{}
		for _, g := range res.Verdict.Goroutines {
			seen[g.ID] = true
		}
		for _, g := range pending {
			if !seen[g.ID] {
				res.Verdict.Goroutines = append(res.Verdict.Goroutines, g)
			}
		}
	}
	if d := gd.Diverged(); d != "" {
		res.Verdict = rt.Verdict{Kind: rt.VerdictDiverged, Message: d}
	}
	if detail {
		pos := &positions{steps: s.pos, objs: make([]string, len(s.objs))}
		for m := range s.states {
			st := &s.states[m]
			if st.end == nil {
				continue
			}
			for local, p := range st.end.ObjPos {
				if id, ok := st.oids[rt.ObjID(local)]; ok && socketKey(st.end, local) == "" {
					pos.objs[id] = p
				}
			}
		}
		r.detail[res] = pos
	}
	return res
}

// running reports whether member m was started in this run and has not ended.
func (r *Runner) running(m int) bool {
	st := &r.sys.states[m]
	return !st.ended && (len(st.steps) > 0 || st.point != nil)
}

func socketKey(end *member.Message, local int) string {
	if end == nil || local >= len(end.Sockets) {
		return ""
	}
	return end.Sockets[local]
}

// step maps member m's step to the group's.
func (r *Runner) step(m int, local int32) int32 {
	steps := r.sys.states[m].steps
	if local < 0 || len(steps) == 0 {
		return -1
	}
	return steps[min(int(local), len(steps)-1)]
}

// Trace converts a detailed run of the group to a trace, with the positions that the members
// resolved.
func (r *Runner) Trace(res *rt.Result, prog record.Program, strategy string) *record.Trace {
	t := record.FromResult(res, prog, strategy)
	pos := r.detail[res]
	if pos == nil {
		return t
	}
	for i := range t.Events {
		if i < len(pos.steps) {
			t.Events[i].Pos = parsePos(pos.steps[i])
		}
	}
	for i := range t.Goroutines {
		if c := t.Goroutines[i].Created; c >= 0 && c < len(t.Events) {
			t.Goroutines[i].Pos = t.Events[c].Pos
		}
	}
	for i := range t.Objects {
		if i < len(pos.objs) {
			t.Objects[i].Pos = parsePos(pos.objs[i])
		}
	}
	record.NameObjects(t)
	for i := range t.Decisions {
		if s := t.Decisions[i].Step; s < len(t.Events) && t.Events[s].Pos != nil {
			p := *t.Events[s].Pos
			t.Decisions[i].At = p.File[strings.LastIndexByte(p.File, '/')+1:] + ":" + strconv.Itoa(p.Line)
		}
	}
	return t
}

func parsePos(s string) *record.Pos {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return nil
	}
	line, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return nil
	}
	return &record.Pos{File: s[:i], Line: line}
}
