package explorer

import (
	"slices"

	"github.com/heddledbg/heddle/rt"
)

// Stoller's reductions (Stoller, STTT 2002; docs/stoller.md): invisible-first search with sleep sets
// (IF-SSS, §4) with the conditional dependency relation of Fig. 3 in Go form and eq. (4) of §7,
// evaluated on what each step did (Fig. 4's DFSc). rt folds a step's invisible operations and
// releases into it, so a step is a transition of the composed system C(S) of §5, and the search
// is SSS on C(S). With persistent, the "stoller-ps" strategy, each node explores only the
// persistent set that rt computed by Algorithm 2-MLD (§8, rt/persistent.go), less its sleep
// set: Fig. 1's SSS with both reductions.

// stoller is the brancher of the "stoller" and "stoller-ps" strategies. Between runs it keeps
// the footprints of the steps of the last run, by decision index.
type stoller struct {
	naive
	persistent bool
	steps      map[int]*footprint
}

func (*stoller) sleeping() bool { return true }

// stollerRuns tells what the runs of a search by br record for it: footprints for Stoller's
// relation, and persistent sets for stoller-ps.
func stollerRuns(br brancher) (footprints, persistent bool) {
	st, ok := br.(*stoller)
	return ok, ok && st.persistent
}

// initial marks the node's persistent set, or every alternative without one.
func (s *stoller) initial(n *node, res *rt.Result, at int) {
	if !s.persistent || n.persist == nil {
		s.naive.initial(n, res, at)
		return
	}
	copy(n.back, n.persist)
}

// observe computes the footprints of the steps a run picked at its decisions, from the last
// decision of its prefix on, for the sleep sets of the next runs. Without the run's accesses
// (a run in another process, or with the lockset check off) it computes none: the search is
// then IF-SSS with rt.Dependent.
func (s *stoller) observe(gd *Guide, res *rt.Result) {
	clear(s.steps)
	if !gd.recorded {
		return
	}
	if s.steps == nil {
		s.steps = map[int]*footprint{}
	}
	from := int32(len(gd.Prefix) - 1)
	maxVar := int32(-1)
	accs := res.Accesses
	a := 0
	var cur *footprint
	for i := range res.Events {
		e := &res.Events[i]
		if e.Start {
			cur = nil
			if e.Decision >= 0 && e.Decision >= from {
				// The variables of the accesses made before this event are known; the tree
				// sets the objects known at the decision (setFoot).
				for ; a < len(accs) && accs[a].Event <= int32(i); a++ {
					maxVar = max(maxVar, accs[a].Var)
				}
				cur = &footprint{g: e.G, nvars: maxVar + 1}
				s.steps[int(e.Decision)] = cur
			}
		}
		if cur == nil {
			continue
		}
		cur.add(e, int32(i))
		for ; a < len(accs) && accs[a].Event <= int32(i)+1; a++ {
			maxVar = max(maxVar, accs[a].Var)
			cur.accs = append(cur.accs, accs[a])
		}
	}
	for _, f := range s.steps {
		f.finish()
	}
}

// A footprint is what one step did, as the dependency relation of §7 needs it: the operations
// on synchronization objects in order (the step's own, the operations of other goroutines it
// completed, and those of goroutines it started), the plain accesses, and the goroutines it
// involved besides its own.
type footprint struct {
	g    rt.GID
	ops  []objOp
	accs []rt.VarAccess // as recorded; finish sums them up in vars
	vars []varUse
	gs   []rt.GID
	// yields tells that the step is a poll that yields (rt.FairObj): it depends on every step
	// of another goroutine.
	yields bool
	// nobjs and nvars are the numbers of objects and variables known before the step. Ids
	// are given in order of first use, so an id below them names the same object or variable
	// in every run that shares the schedule up to the step; an id at or above them was first
	// used in the step, and another run may give it to another object or variable.
	nobjs, nvars int32
}

type objOp struct {
	obj rt.ObjID
	op  rt.OpKind
	at  int32 // the event's index in the run
}

// varUse is what a step did with one variable: whether it wrote it, whether it held a lock
// at an access, and whether an access was inside a critical section that the step both
// entered and left (eq. (4)'s pair).
type varUse struct {
	v                     int32
	write, locked, paired bool
}

// add adds the operations of event e, at index at of the run, to the step.
func (f *footprint) add(e *rt.Event, at int32) {
	f.yields = f.yields || e.Yields
	for _, o := range eventObjs(e) {
		f.ops = append(f.ops, objOp{o, e.Op, at})
	}
	if e.G != f.g {
		f.gs = append(f.gs, e.G)
	}
	if e.With != rt.NoG {
		f.gs = append(f.gs, e.With)
	}
	if e.Child != rt.NoG {
		f.gs = append(f.gs, e.Child)
	}
	for _, p := range e.Partners {
		f.gs = append(f.gs, p.G)
		if e.Op == rt.OpSignal || e.Op == rt.OpBroadcast {
			// Fig. 3 models notify as one operation that removes waiters from the wait
			// set: the waiters' completed Wait is part of it.
			continue
		}
		for _, o := range p.Objs {
			f.ops = append(f.ops, objOp{o, p.Op, at})
		}
	}
}

// finish sums up the step's accesses by variable, once the step is complete.
func (f *footprint) finish() {
	for _, a := range f.accs {
		paired := false
		for _, x := range f.ops {
			// The access follows event a.Event-1.
			if lock, unlock, ok := f.pair(x.obj); ok && lock <= a.Event-1 && a.Event-1 < unlock {
				paired = true
				break
			}
		}
		i := slices.IndexFunc(f.vars, func(u varUse) bool { return u.v == a.Var })
		if i < 0 {
			i = len(f.vars)
			f.vars = append(f.vars, varUse{v: a.Var})
		}
		u := &f.vars[i]
		u.write = u.write || a.Write
		u.locked = u.locked || a.Locked
		u.paired = u.paired || paired
	}
	f.accs = nil
}

// pair reports whether the step's operations on o are exactly an acquire and a release, and
// at which events: eq. (4) makes such a step independent of everything on o, since the pair
// has no net effect on the lock whatever its state.
func (f *footprint) pair(o rt.ObjID) (lock, unlock int32, ok bool) {
	var seq [2]objOp
	n := 0
	for _, x := range f.ops {
		if x.obj == o {
			if n == len(seq) {
				return 0, 0, false
			}
			seq[n] = x
			n++
		}
	}
	a, b := seq[0].op, seq[1].op
	ok = n == 2 && (a == rt.OpLock && b == rt.OpUnlock || a == rt.OpRLock && b == rt.OpRUnlock)
	return seq[0].at, seq[1].at, ok
}

func (f *footprint) paired(o rt.ObjID) bool {
	_, _, ok := f.pair(o)
	return ok
}

// dependent reports whether step t, just performed, is dependent with the step s of a
// sleeping goroutine, recorded in a run that shares this run's schedule up to s: eq. (2) of
// §7 with Fig. 3's relation on synchronization objects, eq. (4), and read/write conflicts on
// variables.
func (t *footprint) dependent(s *footprint) bool {
	if t.g == s.g || t.yields || s.yields || slices.Contains(t.gs, s.g) || slices.Contains(s.gs, t.g) {
		return true
	}
	eq4 := false
	for _, a := range t.ops {
		for _, b := range s.ops {
			switch {
			case !same(a.obj, b.obj, s.nobjs):
			case t.paired(a.obj) || s.paired(b.obj):
				eq4 = true
			case !figure3(a.op, b.op):
				return true
			}
		}
	}
	if !eq4 {
		return false
	}
	// Under MLD two accesses to a variable that conflict are made holding a common lock, which
	// both steps then take (a step cannot take a lock the other goroutine holds), and unless
	// eq. (4) dropped that lock's operations they already made the steps dependent. So the
	// accesses are compared only when eq. (4) dropped a common object, and only those made
	// holding a lock, one of them inside a critical section that its step enters and leaves.
	// An access that breaks MLD is the lockset check's to report (MLD′, §9).
	for _, a := range t.vars {
		for _, b := range s.vars {
			if (a.write || b.write) && a.locked && b.locked && (a.paired || b.paired) && same(a.v, b.v, s.nvars) {
				return true
			}
		}
	}
	return false
}

// same reports whether id a of this run and id b of the run that recorded a sleeping step may
// name the same object: ids below known name the same in both runs, and the ids at or above
// it, first used after the sleeper's decision, may name anything first used then.
func same[T ~int32](a, b T, known int32) bool {
	return a == b || int32(a) >= known && int32(b) >= known
}

// figure3 reports whether operations a and b of two goroutines on one object are independent:
// Stoller's Fig. 3 in Go form (docs/stoller.md), and rt.Dependent's rule for the objects the
// figure does not cover. Fig. 3's conditions on the state at the decision (the owner of the
// lock, the wait set) are decided in Go by the operations themselves: rt performs a Lock only
// on a free mutex, so the owner is free whenever two Lock steps are both possible, and Go's
// Unlock by another goroutine than the locker and Signal without the lock make every
// acquire/release and wait/notify pair dependent.
func figure3(a, b rt.OpKind) bool {
	switch {
	case notify(a) && notify(b):
		// Two wake-ups give the same set of woken waiters in either order (which waiter a
		// Signal wakes is a decision of its own, explored either way).
		return true
	case a == rt.OpCondWait && b == rt.OpCondWait:
		// Joining the wait set commutes.
		return true
	}
	return a.ReadOnly() && b.ReadOnly()
}

func notify(k rt.OpKind) bool { return k == rt.OpSignal || k == rt.OpBroadcast }
