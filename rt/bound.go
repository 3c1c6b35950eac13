package rt

import (
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// A Bound is an upper bound of what a goroutine may still do: the synchronization objects it
// may operate on, the variables it may read and write, and whether it may poll (Gosched, a
// select, TryLock, an atomic load repeated). It covers the goroutines the goroutine starts
// later, which inherit it. It is Stoller's allowedOps(θ) (STTT 2002, §8), which a static
// analysis of the goroutine's code gives; Algorithm 2-MLD computes persistent sets from it
// (Config.Persistent). A goroutine that declared no bound may do anything.
//
// A bounded goroutine must also unlock only the locks it holds, so that the releases a step
// folds in are known from the goroutine's state. rt checks every operation and access of a
// bounded goroutine against its bound and ends the run with a misuse verdict at the first
// that is outside it: a wrong bound would make a persistent set too small.
type Bound struct {
	objs    []boundObj
	atomics []uintptr
	reads   []unsafe.Pointer
	writes  []unsafe.Pointer
	polls   bool
}

// Sync returns b with the synchronization objects objs added: a *Mutex, *RWMutex,
// *WaitGroup, *Cond, *Once or *Map, or a channel made by MakeChan.
//
//go:norace
func (b Bound) Sync(objs ...any) Bound {
	b.objs = slices.Clone(b.objs)
	for _, o := range objs {
		b.objs = append(b.objs, boundObjOf(o))
	}
	return b
}

// Atomic returns b with the atomic variables at ptrs added.
//
//go:norace
func (b Bound) Atomic(ptrs ...any) Bound {
	b.atomics = slices.Clone(b.atomics)
	for _, p := range ptrs {
		b.atomics = append(b.atomics, uintptr(pointer(p)))
	}
	return b
}

// Reads returns b with reads of the variables at ptrs added.
//
//go:norace
func (b Bound) Reads(ptrs ...any) Bound {
	b.reads = slices.Clone(b.reads)
	for _, p := range ptrs {
		b.reads = append(b.reads, pointer(p))
	}
	return b
}

// Writes returns b with reads and writes of the variables at ptrs added.
//
//go:norace
func (b Bound) Writes(ptrs ...any) Bound {
	b.writes = slices.Clone(b.writes)
	for _, p := range ptrs {
		b.writes = append(b.writes, pointer(p))
	}
	return b.Reads(ptrs...)
}

// Polls returns b allowing polls.
//
//go:norace
func (b Bound) Polls() Bound {
	b.polls = true
	return b
}

// Declare bounds what the calling goroutine, and the goroutines it starts from now on, may
// still do. A goroutine that already has a bound may only narrow it. Declare is not a
// scheduling point; outside a run it does nothing.
//
//go:norace
func Declare(b Bound) {
	r, g := current()
	if r == nil {
		return
	}
	if g.bound != nil && !g.bound.covers(&b) {
		r.fail(VerdictMisuse, fmt.Sprintf("rt.Declare: %s widens the bound it declared before", r.gname(g)), g, nil)
		return
	}
	g.bound = &b
	r.noteSolo()
	if !accessesUsed.Load() {
		// Checking the bound's unlocks needs the locks held, which the lockset check follows
		// from the next run on; this run's clocks missed what came before, as on a first
		// access.
		accessesUsed.Store(true)
		r.accessState().partial = true
	}
}

// A boundObj is a synchronization object of a Bound. midStep marks the objects on which a
// step may operate after its first operation, with no scheduling point before: a Cond
// (Wait releases its lock and joins the wait set) and a Once (Do returns).
//
// A channel is named by its state (st), a stand-in of package sync by its address (p), which
// keys its state in the run's side table.
type boundObj struct {
	st      *objState
	p       unsafe.Pointer
	midStep bool
}

// key returns the address that names o in the bounds.
//
//go:norace
func (o boundObj) key() uintptr {
	if o.st != nil {
		return uintptr(unsafe.Pointer(o.st))
	}
	return uintptr(o.p)
}

// id returns o's id in run r, and false if o has not been used in r yet.
//
//go:norace
func (o boundObj) id(r *run) (ObjID, bool) {
	if o.st != nil {
		return o.st.id, o.st.epoch == r.epoch
	}
	if s, _ := r.syncs.get(o.p); s != nil {
		return s.id, true
	}
	return NoObj, false
}

//go:norace
func pointer(p any) unsafe.Pointer {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic(fmt.Sprintf("rt.Bound: %T is not a pointer to a variable", p))
	}
	return v.UnsafePointer()
}

//go:norace
func boundObjOf(o any) boundObj {
	switch o := o.(type) {
	case *Mutex:
		return boundObj{p: unsafe.Pointer(o)}
	case *RWMutex:
		return boundObj{p: unsafe.Pointer(o)}
	case *WaitGroup:
		return boundObj{p: unsafe.Pointer(o)}
	case *Cond:
		return boundObj{p: unsafe.Pointer(o), midStep: true}
	case *Once:
		return boundObj{p: unsafe.Pointer(o), midStep: true}
	case *Map:
		return boundObj{p: unsafe.Pointer(o)}
	}
	v := reflect.ValueOf(o)
	if v.Kind() != reflect.Chan || v.IsNil() {
		panic(fmt.Sprintf("rt.Bound: %T is not a synchronization object", o))
	}
	raceHide() // the registry orders nothing of the program's
	chansMu.Lock()
	st, _ := chans.get(v.UnsafePointer())
	chansMu.Unlock()
	raceShow()
	if st == nil {
		panic("rt.Bound: a channel not made by rt.MakeChan")
	}
	return boundObj{st: &st.obj}
}

// covers reports whether every entry of c is in b.
//
//go:norace
func (b *Bound) covers(c *Bound) bool {
	return (b.polls || !c.polls) &&
		subset(c.objs, b.objs) && subset(c.atomics, b.atomics) &&
		subset(c.reads, b.reads) && subset(c.writes, b.writes)
}

//go:norace
func subset[T comparable](a, b []T) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// hasObj reports whether b allows operations on object id of run r.
//
//go:norace
func (b *Bound) hasObj(r *run, id ObjID) bool {
	for _, o := range b.objs {
		if x, ok := o.id(r); ok && x == id {
			return true
		}
	}
	for _, a := range b.atomics {
		if x, ok := r.addrs.at(a); ok && x == id {
			return true
		}
	}
	return false
}

// mayPoll reports whether g's pending operation may be a poll (rt's fairness then may make
// g wait for the others, which every other step affects): Gosched, TryLock, a select (with a
// default), or an atomic load that repeats g's previous step.
//
//go:norace
func (g *goroutine) mayPoll() bool {
	switch g.op.kind {
	case OpYield, OpTryLock, OpTryRLock, OpSelect:
		return true
	case OpAtomicLoad:
		return g.lastLoad == g.op.obj
	}
	return false
}

// checkBound ends the run if g, which has a bound, performs an operation of kind k on object
// id that the bound does not allow.
//
//go:norace
func (r *run) checkBound(g *goroutine, k OpKind, id ObjID) {
	b := g.bound
	var why string
	switch {
	case k == OpUnlock || k == OpRUnlock:
		if held, known := r.holds(g, id, k == OpRUnlock); known && !held {
			why = "unlocks " + r.objName(id) + ", which it does not hold"
		}
	case id >= 0 && !b.hasObj(r, id):
		why = "operates on " + r.objName(id)
	}
	if why != "" {
		r.fail(VerdictMisuse, fmt.Sprintf("%s %s (%s), outside the bound it declared (rt.Declare)", r.gname(g), why, k), g, nil)
	}
}

// checkBoundAccess ends the run if g, which has a bound, accesses the variable at addr
// outside it.
//
//go:norace
func (r *run) checkBoundAccess(g *goroutine, addr unsafe.Pointer, write bool) {
	b := g.bound
	if write && slices.Contains(b.writes, addr) || !write && slices.Contains(b.reads, addr) {
		return
	}
	what := "reads"
	if write {
		what = "writes"
	}
	r.fail(VerdictMisuse, fmt.Sprintf("%s %s a variable outside the bound it declared (rt.Declare)", r.gname(g), what), g, nil)
}

// holds reports whether g holds lock id (for reading if read), if the run knows the locks
// held: it does unless the lockset check is off.
//
//go:norace
func (r *run) holds(g *goroutine, id ObjID, read bool) (held, known bool) {
	if !r.heldKnown {
		return false, false
	}
	a := r.accessState()
	a.goroutine(g.id)
	return slices.Contains(a.held[g.id], heldLock{id: id, read: read}), true
}

// checkBoundPoll ends the run if g, which has a bound that does not allow polls, polls.
//
//go:norace
func (r *run) checkBoundPoll(g *goroutine) {
	if !g.bound.polls {
		r.fail(VerdictMisuse, fmt.Sprintf("%s polls (%s), outside the bound it declared (rt.Declare)", r.gname(g), g.op.kind), g, nil)
	}
}
