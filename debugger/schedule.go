package debugger

import (
	"fmt"
	"slices"
	"strings"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/wire"
)

// Checkpoints returns the recorded execution's checkpoints and the one the current stop is
// at (-1 if none).
func (d *Debugger) Checkpoints() (current int, cps []Checkpoint, err error) {
	in := d.current()
	if in == nil {
		return -1, nil, ErrNoProgram
	}
	d.record(in)
	d.mu.Lock()
	defer d.mu.Unlock()
	current = -1
	if d.cur != nil {
		current = d.cur.Checkpoint
	}
	if d.recorded == nil {
		return current, []Checkpoint{}, nil
	}
	return current, d.recorded, nil
}

// Runnable is a goroutine the user may schedule next.
type Runnable struct {
	ID       string
	Op       string
	Position *record.Pos
	Current  bool
}

// choice says which decision ScheduleNext makes: at a checkpoint that a decision led to,
// that decision is made again differently (redo); elsewhere, the next decision.
func (d *Debugger) choice() (alts []wire.DebugAlt, current string, redo int, err error) {
	in, cur, err := d.stopped()
	if err != nil {
		return nil, "", -1, ErrNotStopped
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
	alts = []wire.DebugAlt{}
	if running != "" {
		alts = append(alts, wire.DebugAlt{Name: running, Op: "running"})
	}
	for _, a := range st.last.Alts {
		if a.Name != running {
			alts = append(alts, a)
		}
	}
	for _, sp := range st.spawned {
		alts = append(alts, wire.DebugAlt{Name: sp.G, Op: "start " + sp.Func, Pos: sp.Pos})
	}
	return alts, running, -1, nil
}

// Runnable lists who may run next (docs/dap.md, "Threads and decisions"); redo says that
// ScheduleNext makes the decision that led to the current checkpoint again.
func (d *Debugger) Runnable() (gs []Runnable, redo bool, err error) {
	alts, current, r, err := d.choice()
	if err != nil {
		return nil, false, err
	}
	gs = []Runnable{}
	var namer *record.Namer
	for _, a := range alts {
		op := a.Op
		if op != "running" && !strings.HasPrefix(op, "start ") {
			// The operation as Go code, from.mu.Lock(), when the source names its object.
			x := ""
			if a.Pos != nil {
				if namer == nil {
					namer = record.NewNamer()
				}
				x = namer.Expr(*a.Pos, a.Op)
			}
			op = record.Call(a.Op, "", x)
			if x == "" && a.Obj != "" {
				op += " on " + a.Obj
			}
		} else if a.Obj != "" {
			op += " " + a.Obj
		}
		gs = append(gs, Runnable{ID: a.Name, Op: op, Position: a.Pos, Current: a.Name == current})
	}
	return gs, r >= 0, nil
}

// ScheduleNext makes goroutine g run at the decision the user is at, or the next one, and
// stops when it resumes.
func (d *Debugger) ScheduleNext(g string, done func(error)) {
	if g == "" {
		done(fmt.Errorf("no goroutine given"))
		return
	}
	alts, _, redo, err := d.choice()
	if err != nil {
		done(err)
		return
	}
	if redo >= 0 {
		var names []string
		for _, a := range alts {
			names = append(names, a.Name)
		}
		if !slices.Contains(names, g) {
			done(fmt.Errorf("%s cannot run here (runnable: %s)", g, strings.Join(names, ", ")))
			return
		}
		d.record(d.current())
		p := d.plan(-1)
		p.follow = p.follow[:min(redo, len(p.follow))]
		p.next = g
		d.mu.Lock()
		d.follow = p.follow
		d.mu.Unlock()
		d.hits.Clear()
		d.navigateTo(p, -1, "step", done)
		return
	}
	// Mid-segment: the current incarnation makes the next decision the user's way.
	in := d.current()
	in.ctrl.mu.Lock()
	in.ctrl.plan.follow = in.ctrl.plan.follow[:min(len(in.ctrl.decisions), len(in.ctrl.plan.follow))]
	in.ctrl.plan.next = g
	in.ctrl.mu.Unlock()
	d.hits.Clear()
	d.mu.Lock()
	cur := d.cur
	d.mu.Unlock()
	if cur == nil {
		done(ErrNotStopped)
		return
	}
	d.Move(Continue, d.threads.id(cur.Goroutine), "", done)
}

// SaveSchedule writes the decisions made so far as a schedule file.
func (d *Debugger) SaveSchedule(path string) error {
	in := d.current()
	if in == nil || path == "" {
		return fmt.Errorf("needs a running program and a path")
	}
	st := in.ctrl.snapshot()
	sch := d.prog.newSchedule("manual")
	d.mu.Lock()
	sch.LeftOut = d.leftOut
	d.mu.Unlock()
	for _, dc := range st.decisions {
		td := record.Decision{Kind: dc.point.Kind.String(), Pick: dc.pickName()}
		for _, a := range dc.point.Alts {
			td.Of = append(td.Of, a.Name)
		}
		if p := dc.point.Alts[dc.pick].Pos; p != nil {
			td.At = p.String()
		}
		sch.Decisions = append(sch.Decisions, td)
	}
	return record.WriteFile(path, sch)
}

// Replay debugs a bug an exploration found (bugID > 0), or a schedule file, in a new
// incarnation that stops at the bug.
func (d *Debugger) Replay(bugID int, path string, done func(error)) {
	if d.current() == nil {
		done(ErrNoProgram)
		return
	}
	var sch *record.Schedule
	switch {
	case bugID > 0:
		b := d.explores.bug(bugID)
		if b == nil {
			done(fmt.Errorf("no bug %d", bugID))
			return
		}
		if b.trace == nil {
			done(fmt.Errorf("bug %d's schedule is not ready yet: it is saved when the search ends", bugID))
			return
		}
		sch = b.trace.Schedule()
	case path != "":
		var err error
		if sch, err = record.ReadSchedule(path); err != nil {
			done(err)
			return
		}
		if sch.Program.Test != "" && sch.Program.Test != d.prog.test {
			done(fmt.Errorf("%s is a schedule of %s, not of %s", path, sch.Program.Test, d.prog.test))
			return
		}
	default:
		done(fmt.Errorf("needs a bug or a schedule"))
		return
	}
	_, names, err := sch.Picks()
	if err != nil {
		done(err)
		return
	}
	d.mu.Lock()
	d.follow, d.leftOut = names, sch.LeftOut
	d.mu.Unlock()
	d.hits.Clear()
	p := d.plan(-1)
	p.stopOnBug = true
	d.navigateTo(p, -1, "", done)
}

// LockTrees returns the lock trees of the execution up to the current stop.
func (d *Debugger) LockTrees() (*locktree.Report, error) {
	in, cur, err := d.stopped()
	if err != nil {
		return nil, ErrNotStopped
	}
	tr, cps, err := d.sessionTrace(in)
	if err != nil {
		return nil, err
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
	return locktree.Analyze(explorer.TraceLockEvents(tr, upTo)), nil
}
