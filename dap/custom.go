package dap

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/server"
	"github.com/heddledbg/heddle/timeline"
	"github.com/heddledbg/heddle/worker"
	"github.com/heddledbg/heddle/worker/remote"
)

// custom handles the heddle/* requests (docs/dap.md).
func (s *Session) custom(m *message) {
	var a struct {
		Index     *int   `json:"index"`
		Goroutine string `json:"goroutine"`
		Path      string `json:"path"`
		Strategy  string `json:"strategy"`
		Budget    string `json:"budget"`
		ID        int    `json:"id"`
		Bug       int    `json:"bug"`
		Schedule  string `json:"schedule"`
		Origin    string `json:"allowOrigin"`
	}
	if len(m.Arguments) > 0 {
		if err := json.Unmarshal(m.Arguments, &a); err != nil {
			s.fail(m, "%s: malformed arguments: %v", m.Command, err)
			return
		}
	}
	switch m.Command {
	case "heddle/checkpoints":
		s.checkpoints(m)
	case "heddle/gotoCheckpoint":
		if a.Index == nil {
			s.fail(m, "heddle/gotoCheckpoint: missing \"index\"")
			return
		}
		s.gotoCheckpoint(m, *a.Index)
	case "heddle/runnable":
		s.runnable(m)
	case "heddle/scheduleNext":
		s.scheduleNext(m, a.Goroutine)
	case "heddle/saveSchedule":
		s.saveSchedule(m, a.Path)
	case "heddle/explore":
		s.explore(m, a.Strategy, a.Budget)
	case "heddle/cancel":
		s.explores.cancel(a.ID)
		s.respond(m, nil)
	case "heddle/replay":
		s.replay(m, a.Bug, a.Schedule)
	case "heddle/lockTrees":
		s.lockTrees(m)
	case "heddle/webview":
		s.webview(m, a.Origin)
	default:
		s.fail(m, "unknown request %q", m.Command)
	}
}

func (s *Session) checkpoints(m *message) {
	in := s.current()
	if in == nil {
		s.fail(m, "heddle/checkpoints: no program is being debugged")
		return
	}
	s.record(in)
	s.mu.Lock()
	cur := -1
	if s.cur != nil {
		cur = s.cur.Checkpoint
	}
	cps := s.recorded
	s.mu.Unlock()
	if cps == nil {
		cps = []Checkpoint{}
	}
	s.respond(m, map[string]any{"current": cur, "checkpoints": cps})
}

// runnableGoroutine is a goroutine the user may schedule next.
type runnableGoroutine struct {
	ID       string        `json:"id"`
	Op       string        `json:"op"`
	Position *timeline.Pos `json:"position,omitempty"`
	Current  bool          `json:"current"`
}

// choice says which decision heddle/scheduleNext makes: at a checkpoint that a decision led
// to, that decision is made again differently (redo); elsewhere, the next decision.
func (s *Session) choice() (alts []worker.DebugAlt, current string, redo int, err error) {
	in := s.current()
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	if in == nil || cur == nil {
		return nil, "", -1, fmt.Errorf("the program is not stopped")
	}
	st := in.ctrl.snapshot()
	if cur.Steps == 0 && cur.Checkpoint >= 0 && cur.Checkpoint < len(st.checkpoints) {
		if d := st.checkpoints[cur.Checkpoint].DecisionIndex; d >= 0 && d < len(st.decisions) {
			dc := st.decisions[d]
			return dc.point.Alts, dc.pickName(), d, nil
		}
	}
	if st.last == nil {
		return nil, "", -1, fmt.Errorf("the run has not reached a scheduling point")
	}
	// Between scheduling points the goroutine resumed last is running, past the operation the
	// last point knew it for; the others wait where that point saw them.
	running := ""
	if n := len(st.checkpoints); n > 0 {
		running = st.checkpoints[n-1].Goroutine
	}
	alts = []worker.DebugAlt{}
	if running != "" {
		alts = append(alts, worker.DebugAlt{Name: running, Op: "running"})
	}
	for _, a := range st.last.Alts {
		if a.Name != running {
			alts = append(alts, a)
		}
	}
	for _, sp := range st.spawned {
		alts = append(alts, worker.DebugAlt{Name: sp.G, Op: "start " + sp.Func, Pos: sp.Pos})
	}
	return alts, running, -1, nil
}

func (s *Session) runnable(m *message) {
	alts, current, redo, err := s.choice()
	if err != nil {
		s.fail(m, "heddle/runnable: %v", err)
		return
	}
	out := []runnableGoroutine{}
	for _, a := range alts {
		op := a.Op
		if a.Obj != "" {
			op += " " + a.Obj
		}
		out = append(out, runnableGoroutine{ID: a.Name, Op: op, Position: a.Pos, Current: a.Name == current})
	}
	s.respond(m, map[string]any{"goroutines": out, "redo": redo >= 0})
}

// scheduleNext makes goroutine g run at the decision the user is at, or the next one, and
// stops when it resumes.
func (s *Session) scheduleNext(m *message, g string) {
	if g == "" {
		s.fail(m, "heddle/scheduleNext: missing \"goroutine\"")
		return
	}
	alts, _, redo, err := s.choice()
	if err != nil {
		s.fail(m, "heddle/scheduleNext: %v", err)
		return
	}
	if redo >= 0 {
		var names []string
		for _, a := range alts {
			names = append(names, a.Name)
		}
		if !slices.Contains(names, g) {
			s.fail(m, "heddle/scheduleNext: %s cannot run here (runnable: %s)", g, strings.Join(names, ", "))
			return
		}
		s.record(s.current())
		p := s.plan(-1)
		p.follow = p.follow[:min(redo, len(p.follow))]
		p.next = g
		s.mu.Lock()
		s.follow = p.follow
		s.mu.Unlock()
		s.hits.Clear()
		s.navigateTo(m, p, -1, "step")
		return
	}
	// Mid-segment: the current incarnation makes the next decision the user's way.
	in := s.current()
	in.ctrl.mu.Lock()
	in.ctrl.plan.follow = in.ctrl.plan.follow[:min(len(in.ctrl.decisions), len(in.ctrl.plan.follow))]
	in.ctrl.plan.next = g
	in.ctrl.mu.Unlock()
	s.hits.Clear()
	s.mu.Lock()
	if s.cur != nil {
		cur := *s.cur
		s.mu.Unlock()
		id := s.threads.id(cur.Goroutine)
		s.motion(m, "continue", body(map[string]any{"threadId": id}))
		return
	}
	s.mu.Unlock()
	s.fail(m, "heddle/scheduleNext: the program is not stopped")
}

// exceptionInfo describes the bug the debuggee stopped at; other exceptions are Delve's.
func (s *Session) exceptionInfo(m *message) {
	s.mu.Lock()
	bug := s.curBug
	s.mu.Unlock()
	if bug == nil {
		s.forward(m)
		return
	}
	s.respond(m, map[string]any{"exceptionId": bug.Kind, "description": bug.Message, "breakMode": "always",
		"details": map[string]any{"message": bug.Message, "typeName": "heddle " + bug.Kind}})
}

// saveSchedule writes the decisions made so far as a schedule file.
func (s *Session) saveSchedule(m *message, path string) {
	in := s.current()
	if in == nil || path == "" {
		s.fail(m, "heddle/saveSchedule: needs a running program and a \"path\"")
		return
	}
	st := in.ctrl.snapshot()
	sch := s.prog.newSchedule("manual")
	for _, d := range st.decisions {
		td := timeline.Decision{Kind: d.point.Kind.String(), Pick: d.pickName()}
		for _, a := range d.point.Alts {
			td.Of = append(td.Of, a.Name)
		}
		if p := d.point.Alts[d.pick].Pos; p != nil {
			td.At = p.String()
		}
		sch.Decisions = append(sch.Decisions, td)
	}
	if err := timeline.WriteFile(path, sch); err != nil {
		s.fail(m, "heddle/saveSchedule: %v", err)
		return
	}
	s.respond(m, map[string]any{"path": path})
}

// replay debugs a found bug, or a schedule file, in a new incarnation that stops at the bug.
func (s *Session) replay(m *message, bugID int, path string) {
	if s.current() == nil {
		s.fail(m, "heddle/replay: no program is being debugged")
		return
	}
	var sch *timeline.Schedule
	switch {
	case bugID > 0:
		b := s.explores.bug(bugID)
		if b == nil {
			s.fail(m, "heddle/replay: no bug %d", bugID)
			return
		}
		if b.trace == nil {
			s.fail(m, "heddle/replay: bug %d's schedule is not ready yet: it is saved when the search ends", bugID)
			return
		}
		sch = b.trace.Schedule()
	case path != "":
		var err error
		if sch, err = timeline.ReadSchedule(path); err != nil {
			s.fail(m, "heddle/replay: %v", err)
			return
		}
		if sch.Program.Test != "" && sch.Program.Test != s.prog.test {
			s.fail(m, "heddle/replay: %s is a schedule of %s, not of %s", path, sch.Program.Test, s.prog.test)
			return
		}
	default:
		s.fail(m, "heddle/replay: needs \"bug\" or \"schedule\"")
		return
	}
	_, names, err := sch.Picks()
	if err != nil {
		s.fail(m, "heddle/replay: %v", err)
		return
	}
	s.mu.Lock()
	s.follow = names
	s.mu.Unlock()
	s.hits.Clear()
	p := s.plan(-1)
	p.stopOnBug = true
	s.navigateTo(m, p, -1, "")
}

// webview starts the session's web view, which follows the debugger.
func (s *Session) webview(m *message, origin string) {
	s.mu.Lock()
	web := s.web
	s.mu.Unlock()
	if web == nil {
		start := s.opts.Web
		if start == nil {
			start = func() (*server.Server, error) { return server.New(server.Options{}) }
		}
		var err error
		if web, err = start(); err != nil {
			s.fail(m, "heddle/webview: %v", err)
			return
		}
		web.OnGoto(func(step int) error { return s.gotoStep(step) })
		s.mu.Lock()
		s.web = web
		s.mu.Unlock()
		if in := s.current(); in != nil {
			s.mu.Lock()
			cur := s.cur
			s.mu.Unlock()
			if cur != nil {
				s.publishCheckpoint(web, in, cur.Checkpoint)
			}
		}
	}
	if origin != "" {
		if err := web.AllowOrigin(origin); err != nil {
			s.fail(m, "heddle/webview: %v", err)
			return
		}
	}
	s.respond(m, map[string]any{"url": web.URL()})
}

// sessionTrace returns the detailed trace of the schedule the session follows, replayed in
// a worker; it is kept until the schedule changes.
func (s *Session) sessionTrace(in *incarnation) (*timeline.Trace, []Checkpoint, error) {
	s.record(in)
	s.mu.Lock()
	names := append([]string(nil), s.follow...)
	cps := s.recorded
	prog := s.prog
	key := strings.Join(names, " ")
	if s.trace != nil && s.traceKey == key {
		tr := s.trace
		s.mu.Unlock()
		return tr, cps, nil
	}
	s.mu.Unlock()
	if prog == nil {
		return nil, nil, fmt.Errorf("no program is being debugged")
	}
	sch := prog.newSchedule("debug")
	st := in.ctrl.snapshot()
	for i, n := range names {
		d := timeline.Decision{Pick: n, Kind: "goroutine"}
		if i < len(st.decisions) {
			d.Kind = st.decisions[i].point.Kind.String()
		}
		sch.Decisions = append(sch.Decisions, d)
	}
	tr, err := remote.Replay(s.ctx, prog.worker(), prog.test, sch, worker.Options{})
	if err != nil {
		return nil, nil, err
	}
	tr.Program.Dir = prog.dir
	s.mu.Lock()
	s.trace, s.traceKey = tr, key
	s.mu.Unlock()
	return tr, cps, nil
}

// publishCheckpoint shows the session's schedule in the web view, at checkpoint k.
func (s *Session) publishCheckpoint(web *server.Server, in *incarnation, k int) {
	tr, cps, err := s.sessionTrace(in)
	if err == nil && k >= 0 && k < len(cps) {
		err = web.AddTrace("session", tr)
	}
	if err != nil {
		s.output("stderr", "heddle: web view: "+err.Error()+"\n")
		return
	}
	if k >= 0 && k < len(cps) {
		if err := web.Publish(timeline.Checkpoint{Index: k, Step: cps[k].Step, Trace: "session"}); err != nil {
			s.output("stderr", "heddle: web view: "+err.Error()+"\n")
		}
	}
}

// lockTrees answers with the lock trees of the execution up to the current stop.
func (s *Session) lockTrees(m *message) {
	in := s.current()
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	if in == nil || cur == nil {
		s.fail(m, "heddle/lockTrees: the program is not stopped")
		return
	}
	tr, cps, err := s.sessionTrace(in)
	if err != nil {
		s.fail(m, "heddle/lockTrees: %v", err)
		return
	}
	// The goroutine resumed at the checkpoint performs its operation (that step) when it
	// leaves the checkpoint; no other step happens before the next checkpoint.
	upTo := len(tr.Events)
	if cur.Checkpoint >= 0 && cur.Checkpoint < len(cps) {
		upTo = cps[cur.Checkpoint].Step
		if cur.Steps != 0 {
			upTo++
		}
	}
	s.respond(m, locktree.Analyze(explorer.TraceLockEvents(tr, upTo)))
}

// gotoStep moves the debugger to the checkpoint of a step the web view selected.
func (s *Session) gotoStep(step int) error {
	s.mu.Lock()
	cps := s.recorded
	s.mu.Unlock()
	k := -1
	for i, c := range cps {
		if c.Step <= step {
			k = i
		}
	}
	if k < 0 {
		return fmt.Errorf("no checkpoint at or before step %d", step)
	}
	s.gotoCheckpoint(&message{Type: "request", Command: "heddle/gotoCheckpoint"}, k)
	return nil
}
