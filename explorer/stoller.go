package explorer

import (
	"slices"

	"github.com/heddledbg/heddle/rt"
)

// Stoller's reductions (paper 003; docs/stoller.md): invisible-first search with sleep sets
// (IF-SSS, §4) with the conditional dependency relation of Fig. 3 in Go form and eq. (4) of §7,
// evaluated on what each step did (Fig. 4's DFSc). rt folds a step's invisible operations and
// releases into it, so a step is a transition of the composed system C(S) of §5, and the search
// is SSS on C(S). Persistent sets by Algorithm 2-MLD (§8) are not used: see docs/stoller.md.

// stoller is the brancher of the "stoller" strategy. Between runs it keeps the footprints of
// the steps of the last run, by decision index.
type stoller struct {
	naive
	steps map[int]*footprint
}

func (*stoller) sleeping() bool { return true }

// observe computes the footprints of the steps a run picked at its decisions, from the last
// decision of its prefix on, for the sleep sets of the next runs. Without the
// run's accesses (a run in a worker, or with the lockset check off) it computes none: the
// search is then IF-SSS with rt.Dependent.
func (s *stoller) observe(gd *Guide, res *rt.Result) {
	clear(s.steps)
	if !gd.recorded {
		return
	}
	if s.steps == nil {
		s.steps = map[int]*footprint{}
	}
	from := int32(len(gd.Prefix) - 1)
	maxObj := rt.ObjID(-1)
	maxVar := int32(-1)
	accs := res.Accesses
	a := 0
	var cur *footprint
	for i := range res.Events {
		e := &res.Events[i]
		if e.Start {
			cur = nil
			if e.Decision >= 0 && e.Decision >= from {
				// The variables of the accesses made before this event are known, and so is
				// every object up to the highest of an earlier event.
				for ; a < len(accs) && accs[a].Event <= int32(i); a++ {
					maxVar = max(maxVar, accs[a].Var)
				}
				cur = &footprint{g: e.G, nobjs: int32(maxObj) + 1, nvars: maxVar + 1}
				s.steps[int(e.Decision)] = cur
			}
		}
		for _, o := range eventObjs(e) {
			maxObj = max(maxObj, o)
		}
		for _, p := range e.Partners {
			for _, o := range p.Objs {
				maxObj = max(maxObj, o)
			}
		}
		if cur == nil {
			continue
		}
		cur.add(e)
		for ; a < len(accs) && accs[a].Event <= int32(i)+1; a++ {
			maxVar = max(maxVar, accs[a].Var)
			cur.access(accs[a])
		}
	}
}

// A footprint is what one step did, as the dependency relation of §7 needs it: the operations
// on synchronization objects in order (the step's own, the operations of other goroutines it
// completed, and those of goroutines it started), the plain accesses, and the goroutines it
// involved besides its own.
type footprint struct {
	g    rt.GID
	ops  []objOp
	vars []rt.VarAccess
	gs   []rt.GID
	// nobjs and nvars are lower bounds of the numbers of objects and variables known before
	// the step. Ids are given in order of first use, so an id below them names the same
	// object or variable in every run that shares the schedule up to the step; an id at or
	// above them was first used in the step, and another run may give it to another object
	// or variable.
	nobjs, nvars int32
}

type objOp struct {
	obj rt.ObjID
	op  rt.OpKind
}

// add adds the operations of one event of the step.
func (f *footprint) add(e *rt.Event) {
	for _, o := range eventObjs(e) {
		f.ops = append(f.ops, objOp{o, e.Op})
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
			f.ops = append(f.ops, objOp{o, p.Op})
		}
	}
}

func (f *footprint) access(a rt.VarAccess) {
	for i := range f.vars {
		if v := &f.vars[i]; v.Var == a.Var {
			v.Write = v.Write || a.Write
			return
		}
	}
	f.vars = append(f.vars, a)
}

// pair reports whether the step's operations on o are exactly an acquire and a release: eq.
// (4) makes such a step independent of everything on o, since the pair has no net effect on
// the lock whatever its state.
func (f *footprint) pair(o rt.ObjID) bool {
	var seq [3]rt.OpKind
	n := 0
	for _, x := range f.ops {
		if x.obj == o {
			if n == len(seq) {
				return false
			}
			seq[n] = x.op
			n++
		}
	}
	return n == 2 && (seq[0] == rt.OpLock && seq[1] == rt.OpUnlock || seq[0] == rt.OpRLock && seq[1] == rt.OpRUnlock)
}

// dependent reports whether step t, just performed, is dependent with the step s of a
// sleeping goroutine, recorded in a run that shares this run's schedule up to s: eq. (2) of
// §7 with Fig. 3's relation on synchronization objects, eq. (4), and read/write conflicts on
// variables.
func (t *footprint) dependent(s *footprint) bool {
	if t.g == s.g || slices.Contains(t.gs, s.g) || slices.Contains(s.gs, t.g) {
		return true
	}
	for _, a := range t.ops {
		for _, b := range s.ops {
			if !same(a.obj, b.obj, s.nobjs) || t.pair(a.obj) || s.pair(b.obj) {
				continue
			}
			if !figure3(a.op, b.op) {
				return true
			}
		}
	}
	for _, a := range t.vars {
		for _, b := range s.vars {
			if (a.Write || b.Write) && same(rt.ObjID(a.Var), rt.ObjID(b.Var), s.nvars) {
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
