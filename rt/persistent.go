package rt

import (
	"slices"
	"unsafe"
)

// Persistent sets by Algorithm 2-MLD (Stoller, STTT 2002, §8), after Overman's algorithm as
// Godefroid's Algorithm 2 gives it. A persistent set T of a state is a set of enabled steps such
// that no sequence of steps of other goroutines from that state contains one dependent with a
// step of T: exploring T alone loses no terminal state. 2-MLD starts from one goroutine and
// adds every goroutine that may later perform an operation (allowedOps, its Bound) dependent
// with an operation of the pending step of a goroutine already in the set (pendVisOps and
// pendInvisOps, eqs. (5) and (6)), until none is added. Goroutines that are blocked are part of
// the closure too: the goroutines that could unblock them must be in the set.
//
// rt's step is Stoller's composed transition (C(S), §5): it starts with the pending operation
// and folds in what follows up to the next scheduling point, which can only be releases of the
// locks the goroutine holds (a bounded goroutine unlocks only those), Cond.Wait, the end of a
// Once.Do, and go statements. Its data accesses are bounded by eq. (6): with the lockset
// check's modes (virgin, exclusive, shared, shared-modified) and candidate locksets, a step
// that holds or takes the locks L may access a variable v of its bound only if MLD allows it
// (eq. (7)); a step that holds no lock accesses no variable another goroutine may touch
// without first synchronizing with it. The relation is sound for programs that follow MLD,
// which the lockset check reports when they do not (MLD′, §9).
//
// A poll changes rt's fairness state (it makes the polling goroutine wait for every goroutine
// enabled at that moment), on which every other step depends: a goroutine whose pending step
// may poll, or whose bound allows polls, is dependent with every step. A goroutine without a
// bound may do anything, so it is in every set, with what its pending step needs.

// mldG is what 2-MLD uses of one live goroutine at a decision.
type mldG struct {
	g     *goroutine
	alt   int // index in the decision's alternatives, -1 if not enabled
	bound *Bound
	// The pending step: the objects it may operate on, whether it may poll, and the
	// variables it may read and write (pendInvisOps); anyVar if it may touch any variable,
	// anyMid if it may operate on any Cond or Once (an unbounded goroutine holding a lock).
	objs          []uintptr
	poll          bool
	reads, writes []unsafe.Pointer
	anyVar        bool
	anyMid        bool
}

// persistent returns the alternatives of a goroutine decision that 2-MLD keeps, choosing the
// seed whose set has the fewest enabled goroutines, preferring one with the current goroutine
// cur. It returns nil (every alternative) when it cannot tell: the clock or a synctest bubble
// takes part, or the lockset check is off.
//
//go:norace
func (r *run) persistent(alts []Alt, cur int) []bool {
	if !r.heldKnown {
		return nil
	}
	a := r.accessState()
	// keys maps an object's id to its key in the bounds (the address of a stand-in of package
	// sync, of a channel's objState, or of an atomic variable): two bounds name an object that was not used yet by that key.
	keys := map[ObjID]uintptr{}
	var gs []mldG
	for _, g := range r.gs {
		switch g.state {
		case gDone:
			continue
		case gReady:
			return nil
		}
		if g.bubble != nil {
			return nil
		}
		if b := g.bound; b != nil {
			for _, o := range b.objs {
				if id, ok := o.id(r); ok {
					keys[id] = o.key()
				}
			}
			for _, p := range b.atomics {
				if id, ok := r.addrs.at(p); ok {
					keys[id] = p
				}
			}
		}
		gs = append(gs, mldG{g: g, alt: -1, bound: g.bound})
	}
	for i, al := range alts {
		if al.G == ClockID {
			return nil
		}
		for k := range gs {
			if gs[k].g.id == al.G {
				gs[k].alt = i
			}
		}
	}
	key := func(id ObjID) uintptr {
		if k, ok := keys[id]; ok {
			return k
		}
		// An object no bound names: only unbounded goroutines, which depend on every step
		// anyway, can operate on it.
		return 0
	}
	for k := range gs {
		gs[k].pending(r, a, key)
	}

	var best []bool
	bestN := -1
	in := make([]bool, len(gs))
	for k := range gs {
		if gs[k].alt < 0 {
			continue
		}
		clear(in)
		in[k] = true
		queue := []int{k}
		for len(queue) > 0 {
			t := &gs[queue[0]]
			queue = queue[1:]
			for j := range gs {
				if !in[j] && t.dependent(&gs[j]) {
					in[j] = true
					queue = append(queue, j)
				}
			}
		}
		set := make([]bool, len(alts))
		n := 0
		for j := range gs {
			if in[j] && gs[j].alt >= 0 {
				set[gs[j].alt] = true
				n++
			}
		}
		if bestN < 0 || n < bestN || n == bestN && cur >= 0 && set[cur] && !best[cur] {
			best, bestN = set, n
		}
	}
	return best
}

// pending fills in m's pending step.
//
//go:norace
func (m *mldG) pending(r *run, a *accesses, key func(ObjID) uintptr) {
	g := m.g
	o := &g.op
	m.poll = g.mayPoll()
	if o.obj >= 0 {
		m.objs = append(m.objs, key(o.obj))
	}
	for _, c := range o.cases {
		if c.st != nil && c.st.obj.epoch == r.epoch {
			m.objs = append(m.objs, key(c.st.obj.id))
		}
	}
	// L: the locks held, and the one the pending operation takes.
	var locks []ObjID
	if int(g.id) < len(a.held) {
		for _, h := range a.held[g.id] {
			locks = append(locks, h.id)
			m.objs = append(m.objs, key(h.id)) // released within the step
		}
	}
	switch o.kind {
	case OpLock, OpRLock, OpTryLock, OpTryRLock:
		locks = append(locks, o.obj)
	}
	if len(locks) == 0 {
		return
	}
	b := m.bound
	if b == nil {
		m.anyVar, m.anyMid = true, true
		return
	}
	for _, x := range b.objs {
		if x.midStep {
			m.objs = append(m.objs, x.key())
		}
	}
	for _, p := range b.reads {
		if write := slices.Contains(b.writes, p); mldAllows(a, p, write, locks) {
			if write {
				m.writes = append(m.writes, p)
			} else {
				m.reads = append(m.reads, p)
			}
		}
	}
}

// mldAllows is eq. (7): whether a step holding the locks L may access the variable at p
// (write if write) under MLD, by the variable's lockset mode. A virgin variable may be
// initialized by any goroutine; an exclusive one's candidate lockset is every lock.
//
//go:norace
func mldAllows(a *accesses, p unsafe.Pointer, write bool, locks []ObjID) bool {
	k, ok := a.vars.get(p)
	if !ok {
		return true
	}
	v := &a.shadows[k]
	switch {
	case v.state == exclusive:
		return true
	case v.state == shared && !write:
		return true
	}
	for _, l := range v.locks {
		if slices.Contains(locks, l.id) {
			return true
		}
	}
	return false
}

// dependent reports whether an operation of t's pending step is dependent with an operation
// that u may perform.
//
//go:norace
func (t *mldG) dependent(u *mldG) bool {
	b := u.bound
	if b == nil || b.polls || t.poll {
		return true
	}
	for _, k := range t.objs {
		if k == 0 {
			continue
		}
		for _, o := range b.objs {
			if o.key() == k {
				return true
			}
		}
		if slices.Contains(b.atomics, k) {
			return true
		}
	}
	if t.anyMid && slices.ContainsFunc(b.objs, func(o boundObj) bool { return o.midStep }) {
		return true
	}
	if t.anyVar && len(b.reads) > 0 {
		return true
	}
	for _, p := range t.writes {
		if slices.Contains(b.reads, p) {
			return true
		}
	}
	for _, p := range t.reads {
		if slices.Contains(b.writes, p) {
			return true
		}
	}
	return false
}
