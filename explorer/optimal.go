package explorer

import (
	"slices"

	"github.com/heddledbg/heddle/rt"
)

// optimal is Optimal-DPOR (Abdulla, Aronis, Jonsson and Sagonas, "Optimal dynamic partial
// order reduction", POPL 2014, §6, Algorithm 2; JACM 64(4) 2017, §7): source sets with sleep
// sets, and a wakeup tree at every node that says which sequences of steps must still be
// explored from it. It explores exactly one complete run per Mazurkiewicz trace and never
// starts a run that sleep sets would abandon.
//
// In heddle's stateless search the algorithm runs as follows. A node's wakeup tree starts as
// the step the run took. When a run ends, each race e ⋖ e' of the run (race.go, with
// immediate races only) gives the sequence v = notdep(e, E).e': the steps after e that do not
// happen after it, then e'. If no goroutine asleep at the node before e is a weak initial of
// v, v is inserted into that node's wakeup tree (§6.2, insert). The next run follows the
// leftmost sequence of the deepest node's tree as a plan and continues by the depth-first
// policy; the nodes it creates along the plan inherit the matching subtrees.
//
// Data choices (select cases, Cond wakes, heddle.Choose) stay branched in full; a planned step
// carries the data picks it had in the run it came from. A planned goroutine that the runtime
// does not offer (blocked, or held back by fair scheduling) ends the plan, and the run goes on
// by the policy: a branch that cannot be followed is dropped, never retried.
type optimal struct {
	// follow is the wakeup tree node of the alternative the next run takes: the nodes that run
	// creates along its plan get its subtrees.
	follow *wnode
}

// wstep is a step in a wakeup sequence: the goroutine scheduled, every access it makes (its
// own operations, its partners' completed operations, the goroutines it starts), and the
// picks of the data decisions within it.
type wstep struct {
	g    rt.GID
	accs []waccess
	data []int32
}

type waccess struct {
	g    rt.GID
	op   rt.OpKind
	objs []rt.ObjID
}

// wnode is a node of a wakeup tree; the root's step is unused.
type wnode struct {
	step     *wstep
	children []*wnode
}

func (*optimal) sleeping() bool { return true }

func (o *optimal) resetPlan() { o.follow = nil }

func (o *optimal) initial(n *node, _ *rt.Result, _ int) {
	w := o.follow
	if n.planAt < 0 {
		w = nil
	}
	for k := 0; w != nil && k < n.planAt; k++ {
		if len(w.children) == 0 {
			w = nil
			break
		}
		w = w.children[0]
	}
	n.planned = true
	if w != nil && len(w.children) > 0 && w.children[0].step.g == n.alts[n.pick].G {
		n.wut = w
	}
	// Otherwise only the step taken: its tree is made when a race needs it (pickBranch).
}

// pickBranch gives n's wakeup tree the branch of the step the run takes, if it has none yet.
// An empty tree on the stack stands for that branch alone: the tree holds the branch being
// explored until its subtree is done (Algorithm 2, lines 13 and 21).
func pickBranch(n *node) {
	if n.wut == nil {
		n.wut = &wnode{}
	}
	if len(n.wut.children) == 0 {
		n.wut.children = []*wnode{{step: altStep(&n.alts[n.pick])}}
	}
}

// altStep is the step an alternative is about to take, as far as its node knows it.
func altStep(a *rt.Alt) *wstep {
	return pendingStep(a.G, a.Op, a.Objects(), a.Yields)
}

// pendingStep is the step of goroutine g stopped before operation op on objs, with its
// accesses to rt.FairObj and rt.TimeObj.
func pendingStep(g rt.GID, op rt.OpKind, objs []rt.ObjID, yields bool) *wstep {
	s := &wstep{g: g, accs: []waccess{{g: g, op: op, objs: objs}, {g: g, op: fairAccess(yields), objs: fairObjs}}}
	if op, ok := timeAccess(g, objs); ok {
		s.accs = append(s.accs, waccess{g: g, op: op, objs: timeObjs})
	}
	return s
}

func (o *optimal) nextAlt(n *node) (int, []PlanStep) {
	for n.wut != nil && len(n.wut.children) > 0 {
		c := n.wut.children[0]
		i := slices.IndexFunc(n.alts, func(a rt.Alt) bool { return a.G == c.step.g })
		if i >= 0 && !n.done[i] && !asleepIn(n.sleep, c.step.g) {
			o.follow = c
			plan := []PlanStep{{G: c.step.g, Data: c.step.data}}
			for w := c; len(w.children) > 0; w = w.children[0] {
				s := w.children[0].step
				plan = append(plan, PlanStep{G: s.g, Data: s.data})
			}
			return i, plan
		}
		// Explored already, or not offered here: the branch is done.
		n.wut.children = n.wut.children[1:]
	}
	return -1, nil
}

// stepOf is a run seen as steps for the wakeup sequences.
type runSteps struct {
	of    []int32 // event → step
	first []int32 // step → its first event
	steps []*wstep
}

func newRunSteps(res *rt.Result) *runSteps {
	rs := &runSteps{of: make([]int32, len(res.Events))}
	for i := range res.Events {
		e := &res.Events[i]
		if e.Start || i == 0 {
			rs.first = append(rs.first, int32(i))
			rs.steps = append(rs.steps, nil)
		}
		rs.of[i] = int32(len(rs.steps) - 1)
	}
	return rs
}

// step builds step k's wstep on first use, so that a run's cost stays in the steps its races
// involve.
func (rs *runSteps) step(res *rt.Result, k int) *wstep {
	if s := rs.steps[k]; s != nil {
		return s
	}
	evs := res.Events
	end := len(evs)
	if k+1 < len(rs.first) {
		end = int(rs.first[k+1])
	}
	s := &wstep{g: evs[rs.first[k]].G}
	for j := int(rs.first[k]); j < end; j++ {
		e := &evs[j]
		s.accs = append(s.accs, waccess{g: e.G, op: e.Op, objs: eventObjs(e)})
		// Every step accesses rt.FairObj, as the pending steps it is compared with do.
		s.accs = append(s.accs, waccess{g: e.G, op: fairAccess(e.Yields), objs: fairObjs})
		if op, ok := timeAccess(e.G, eventObjs(e)); ok && res.TimerReach {
			s.accs = append(s.accs, waccess{g: e.G, op: op, objs: timeObjs})
		}
		for _, pt := range e.Partners {
			s.accs = append(s.accs, waccess{g: pt.G, op: pt.Op, objs: pt.Objs})
		}
		if e.Child != rt.NoG {
			s.accs = append(s.accs, waccess{g: e.Child, op: rt.OpGo})
		}
	}
	// The data decisions taken within the step.
	first := int32(rs.first[k])
	i, _ := slices.BinarySearchFunc(res.Decisions, first, func(d rt.Decision, t int32) int { return int(d.Step - t) })
	for ; i < len(res.Decisions) && int(res.Decisions[i].Step) < end; i++ {
		if d := &res.Decisions[i]; d.Kind != rt.DecideGoroutine {
			s.data = append(s.data, d.Pick)
		}
	}
	rs.steps[k] = s
	return s
}

// dependent reports whether two steps do not commute: they share a goroutine (program order,
// a partner, a goroutine started) or make dependent accesses.
func (s *wstep) dependent(t *wstep) bool {
	for _, a := range s.accs {
		for _, b := range t.accs {
			if a.g == b.g || rt.Dependent(a.op, a.objs, b.op, b.objs) {
				return true
			}
		}
	}
	return false
}

func (s *wstep) involves(g rt.GID) bool {
	return slices.ContainsFunc(s.accs, func(a waccess) bool { return a.g == g })
}

func (o *optimal) afterRun(t *tree, res *rt.Result) {
	if res.Verdict.Kind == rt.VerdictDiverged {
		return
	}
	if res.Verdict.Kind == rt.VerdictCut {
		forEachStarved(t, res, func(n *node, i int) {
			if n.planned {
				pickBranch(n)
				insert(n.wut, []*wstep{altStep(&n.alts[i])})
			}
		})
	}
	rs := newRunSteps(res)
	timed := res.TimerReach
	rf := raceFinder{immediate: true, deadline: t.deadline}
	defer t.absorbFinder(&rf)
	rf.forEachRace(res, func(r race) {
		first := &res.Events[rs.first[rs.of[r.early]]]
		at := int(first.Decision) - t.base
		if !first.Start || first.Decision < 0 || at < 0 || at >= len(t.stack) {
			return
		}
		n := t.stack[at]
		if !n.planned {
			return
		}
		var v []*wstep
		if r.late == r.early {
			// A timer set or stopped: the clock's step before it.
			i := slices.IndexFunc(n.alts, func(a rt.Alt) bool { return a.G == rt.ClockID })
			if i < 0 {
				return
			}
			v = []*wstep{altStep(&n.alts[i])}
		} else {
			se := int(rs.of[r.early])
			end := len(rs.steps)
			var last *wstep
			if r.late < len(res.Events) {
				end = int(rs.of[r.late])
				s := rs.step(res, end)
				if s.g == r.g {
					if end == se {
						return
					}
					last = s
				}
				// Otherwise the later access is a partner's operation that step end completed
				// (possibly step e itself, as when an Unlock admits a blocked reader): the
				// reversal is the partner performing it first.
			}
			if last == nil {
				last = &wstep{g: r.g, accs: []waccess{{g: r.g, op: r.op, objs: slices.Clone(r.objs)}}}
			}
			v = notDep(res, rs, se, end)
			v = append(v, last)
		}
		pickBranch(n)
		if timed && !slices.ContainsFunc(n.alts, func(a rt.Alt) bool { return a.G == v[0].g }) {
			notDue(n)
		}
		for _, s := range sleepers(n) {
			if weakInitial(v, s) >= -1 {
				return
			}
		}
		insert(n.wut, v)
	})
	// The run's end disables the clock, so the clock's step there does not commute with the
	// step taken: it is a branch of its own, not one insert may find equivalent to the pick.
	if n, i := lateClock(t, res); n != nil && n.planned {
		pickBranch(n)
		if !slices.ContainsFunc(n.wut.children, func(c *wnode) bool { return c.step.g == rt.ClockID }) && !slices.ContainsFunc(sleepers(n), func(s *wstep) bool { return s.g == rt.ClockID }) {
			n.wut.children = append(n.wut.children, &wnode{step: altStep(&n.alts[i])})
		}
	}
}

// notDue handles a reversal whose first step is not offered at node n, in a run that sets
// timers: the step may belong to the clock, or to a goroutine a timer's firing starts or
// wakes, and no timer is due there yet. Every step moves the clock on, so another goroutine's
// step taken first may make one due: each alternative of n is tried, as in Flanagan and
// Godefroid's fallback for a goroutine not enabled at the point of the race (POPL 2005,
// Fig. 4). The steps commute in the dependency relation but not in time, so each is a branch
// of its own, not one insert may find equivalent to the pick.
func notDue(n *node) {
	sl := sleepers(n)
	for i := range n.alts {
		g := n.alts[i].G
		if i == n.pick || slices.ContainsFunc(sl, func(s *wstep) bool { return s.g == g }) || slices.ContainsFunc(n.wut.children, func(c *wnode) bool { return c.step.g == g }) {
			continue
		}
		n.wut.children = append(n.wut.children, &wnode{step: altStep(&n.alts[i])})
	}
}

// notDep returns the steps after step e and before step end that do not happen after e. What
// happens after e is summarised by its goroutines and by how its steps accessed each object,
// so the cost is the steps scanned times the goroutines and objects they involve.
func notDep(res *rt.Result, rs *runSteps, e, end int) []*wstep {
	var out []*wstep
	// Few goroutines and objects are involved between two racing steps: lists beat maps.
	var gs []rt.GID
	type objOp struct {
		o  rt.ObjID
		op rt.OpKind // the strongest access after e: a write, else a read
	}
	var objs []objOp
	taint := func(s *wstep) {
		for _, a := range s.accs {
			if !slices.Contains(gs, a.g) {
				gs = append(gs, a.g)
			}
		next:
			for _, o := range a.objs {
				for i := range objs {
					if objs[i].o == o {
						if objs[i].op.ReadOnly() {
							objs[i].op = a.op
						}
						continue next
					}
				}
				objs = append(objs, objOp{o, a.op})
			}
		}
	}
	after := func(s *wstep) bool {
		for _, a := range s.accs {
			if slices.Contains(gs, a.g) {
				return true
			}
			for _, o := range a.objs {
				for _, x := range objs {
					if x.o == o && !(x.op.ReadOnly() && a.op.ReadOnly()) {
						return true
					}
				}
			}
		}
		return false
	}
	taint(rs.step(res, e))
	for k := e + 1; k < end; k++ {
		if s := rs.step(res, k); after(s) {
			taint(s)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// sleepers are the steps asleep at n in its current subtree: the sleep set it inherited, and
// the alternatives explored before the current one.
func sleepers(n *node) []*wstep {
	var out []*wstep
	for _, s := range n.sleep {
		out = append(out, pendingStep(s.G, s.Op, s.Objs, s.Yields))
	}
	for i := range n.alts {
		if n.done[i] && i != n.pick && !asleepIn(n.sleep, n.alts[i].G) {
			out = append(out, altStep(&n.alts[i]))
		}
	}
	return out
}

// weakInitial tells whether step s (the next step of its goroutine) is a weak initial of v
// (JACM 2017, Def. 6.4 / POPL 2014 §6.1, WI): its goroutine's first step in v has no earlier
// step of v it depends on, or the goroutine takes no step in v and s is independent of all of
// v. It returns the index in v of that first step, -1 if the goroutine takes none, or -2 if s
// is not a weak initial. The first step's predecessors in v end in a direct dependency, so
// direct dependencies are all it checks.
func weakInitial(v []*wstep, s *wstep) int {
	for k, x := range v {
		if x.g == s.g {
			for _, y := range v[:k] {
				if y.dependent(x) {
					return -2
				}
			}
			return k
		}
		if x.involves(s.g) || x.dependent(s) {
			return -2
		}
	}
	return -1
}

// insert adds the wakeup sequence v to the tree rooted at w (POPL 2014 §6.1, insert): it
// follows the children that are weak initials of what is left of v, removing their steps from
// it, and adds the rest as the last child of the node where none is. A leaf reached on the way
// already covers v.
func insert(w *wnode, v []*wstep) {
	for len(v) > 0 {
		next := false
		for _, c := range w.children {
			k := weakInitial(v, c.step)
			if k < -1 {
				continue
			}
			if k >= 0 {
				v = slices.Delete(slices.Clone(v), k, k+1)
			}
			w, next = c, true
			break
		}
		if !next {
			for _, s := range v {
				c := &wnode{step: s}
				w.children = append(w.children, c)
				w = c
			}
			return
		}
		if len(w.children) == 0 {
			return
		}
	}
}
