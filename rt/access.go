package rt

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"unsafe"
)

// Plain memory accesses of instrumented code reach rt through Load, Store, Update, Shift,
// MapRead and MapWrite, which the instrumenter puts around reads and writes of memory that
// other goroutines can reach (package variables, what a pointer, slice or map leads to,
// variables captured by closures or whose address is taken). They are not scheduling points:
// no decision is made at an access, so the schedules explored and their decisions are the
// same with or without them. They feed Eraser's lockset check (Savage et al. 1997, as JPF
// runs it: Havelund & Pressburger, "Model checking Java programs using Java PathFinder",
// §4.2), made to trust Go's hand-offs: see checkAccess.

// Load records a read of *p at pos and returns p: the instrumenter rewrites a read of x into
// (*Load(&x, pos)), so that the read itself stays in the program's code, where the race
// detector reports it (it leaves out races whose access is in heddle's).
//
//go:norace
func Load[T any](p *T, pos string) *T {
	if r := active; r != nil {
		r.access(unsafe.Pointer(p), false, pos)
	}
	return p
}

// Store records a write of *p at pos and returns v, the value the assignment stores: the
// instrumenter rewrites x = v into x = Store(&x, v, pos), so that the write is recorded after
// v is evaluated (v may receive from a channel, which orders what follows).
//
//go:norace
func Store[T any](p *T, v T, pos string) T {
	if r := active; r != nil {
		r.access(unsafe.Pointer(p), true, pos)
	}
	return v
}

// StoreAs is Store for a value of a type other than *p's, assignable to it (a concrete value
// stored in an interface).
//
//go:norace
func StoreAs[T, V any](p *T, v V, pos string) V {
	if r := active; r != nil {
		r.access(unsafe.Pointer(p), true, pos)
	}
	return v
}

// Update records a read and a write of *p at pos, for x op= v and x++, and returns v.
//
//go:norace
func Update[T any](p *T, v T, pos string) T {
	if r := active; r != nil {
		r.access(unsafe.Pointer(p), false, pos)
		r.access(unsafe.Pointer(p), true, pos)
	}
	return v
}

// Shift is Update for x <<= n and x >>= n, whose count need not have x's type.
//
//go:norace
func Shift[T, N any](p *T, n N, pos string) N {
	if r := active; r != nil {
		r.access(unsafe.Pointer(p), false, pos)
		r.access(unsafe.Pointer(p), true, pos)
	}
	return n
}

// MapRead records a read of map m (m[k], a lookup) at pos and returns m. A map is one
// variable: its entries share the map's header, as for the race detector's "concurrent map
// read and map write".
//
//go:norace
func MapRead[M ~map[K]V, K comparable, V any](m M, pos string) M {
	if r := active; r != nil && m != nil {
		r.access(*(*unsafe.Pointer)(unsafe.Pointer(&m)), false, pos)
	}
	return m
}

// MapWrite records a write of map m (m[k] = v, delete) at pos and returns m.
//
//go:norace
func MapWrite[M ~map[K]V, K comparable, V any](m M, pos string) M {
	if r := active; r != nil && m != nil {
		r.access(*(*unsafe.Pointer)(unsafe.Pointer(&m)), true, pos)
	}
	return m
}

// An Access is one goroutine's read or write of a variable.
type Access struct {
	G     GID
	Write bool
	Pos   string  // file:line:col of the access
	Locks []ObjID // the locks its goroutine held
}

// A Warning is a finding of a predictive check: not a failure of this run, but a sign that
// another schedule, or another run of the program, may go wrong.
type Warning struct {
	// Kind is the check: "lockset" (Eraser's locking discipline).
	Kind string
	// Earlier and Later are two accesses that no common lock protects and that nothing else
	// orders: Later is the access that emptied the variable's candidate lockset.
	Earlier, Later Access
	// Others are the other goroutines involved: those that accessed the variable since it last
	// had one owner, and those that wrote what the involved goroutines read.
	Others []GID `json:",omitempty"`
}

// Key identifies w's variable across runs and schedules, where its address changes: its kind
// and the position of the racing write (the first in file order if both are writes). The same
// unprotected write met with a read at another position is the same finding.
//
//go:norace
func (w *Warning) Key() string {
	pos := w.Later.Pos
	switch {
	case w.Earlier.Write && w.Later.Write:
		pos = min(w.Earlier.Pos, w.Later.Pos)
	case w.Earlier.Write:
		pos = w.Earlier.Pos
	}
	return w.Kind + " " + pos
}

// Message describes w with the goroutine names of res.
//
//go:norace
func (w *Warning) Message(res *Result) string { return w.Describe(res.Name, res.ObjName) }

// Describe describes w with goroutines and locks named by gname and lname.
//
//go:norace
func (w *Warning) Describe(gname func(GID) string, lname func(ObjID) string) string {
	return fmt.Sprintf("lockset: %s at %s by %s holding %s, and %s at %s by %s holding %s: no lock protects them both",
		rw(w.Earlier.Write), shortPos(w.Earlier.Pos), gname(w.Earlier.G), lockNames(lname, w.Earlier.Locks),
		rw(w.Later.Write), shortPos(w.Later.Pos), gname(w.Later.G), lockNames(lname, w.Later.Locks))
}

//go:norace
func rw(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

// shortPos is pos with the file's base name and without the column.
//
//go:norace
func shortPos(pos string) string {
	file, line, _ := splitPos(pos)
	return filepath.Base(file) + ":" + line
}

// splitPos splits "file:line:col".
//
//go:norace
func splitPos(pos string) (file, line, col string) {
	i := len(pos)
	var parts [2]string
	for k := 1; k >= 0; k-- {
		j := i - 1
		for j >= 0 && pos[j] != ':' {
			j--
		}
		if j < 0 {
			return pos, "", ""
		}
		parts[k] = pos[j+1 : i]
		i = j
	}
	return pos[:i], parts[0], parts[1]
}

//go:norace
func lockNames(lname func(ObjID) string, locks []ObjID) string {
	if len(locks) == 0 {
		return "no lock"
	}
	s := ""
	for i, l := range locks {
		if i > 0 {
			s += ", "
		}
		// A lock that the result describing the warning does not name (made in another run
		// than the one whose result it is) is still a lock held.
		s += cmp.Or(lname(l), "a lock")
	}
	return s
}

// maxVars bounds the variables the lockset check follows in one run.
const maxVars = 1 << 20

// Eraser's states of a variable (§4.2 of the JPF paper, after Savage et al.): virgin (no
// shadow yet), exclusive to one goroutine, shared by readers, shared and modified.
const (
	exclusive = iota
	shared
	sharedModified
)

// A shadow is what the lockset check knows of one variable.
type shadow struct {
	state uint8
	// wrote is set once the variable was written since it last became exclusive.
	wrote bool
	// warned is set once the variable was reported in this run; racy once it broke the
	// discipline, reported or not (an atomic region's access to it is not a mover).
	warned, racy bool
	// locks is the candidate lockset: the locks held at every access since the variable
	// became shared. Read-held locks protect reads only.
	locks []heldLock
	// since holds each goroutine's last access and last write since the variable last became
	// exclusive: when a new access happens after all of them, the variable changes hands.
	since []accessor
	// readers and writers are the goroutines (of ids below 64) that read and wrote the
	// variable in the run, for the race window's goroutines.
	readers, writers uint64
}

// An accessor is one goroutine's last access and last write of a variable.
type accessor struct {
	at, atW     stamp
	last, lastW Access
	wrote       bool
}

// A stamp is a goroutine's clock at one of its accesses.
type stamp struct {
	g GID
	c uint32
}

type heldLock struct {
	id   ObjID
	read bool
}

// accesses is the run's state for the lockset check: the locks each goroutine holds, the
// shadows of the variables, and two sets of vector clocks. hb follows the happens-before that
// Go's hand-offs give (channels, WaitGroup, Once, atomics, go statements, Cond, timers) but not
// locks: an order that a lock happened to give in this schedule is what the lockset check must
// not trust. full follows every edge, locks included: it lets a variable accessed under a lock
// pass to a goroutine that took the lock after it (see check).
type accesses struct {
	hb, full clocks
	// partial is set for a run whose clocks started late (the process's first access came
	// during it): its warnings are left out.
	partial bool
	// overflow is set once the run touched maxVars variables or started maxClocked
	// goroutines: the check and its clocks stop there, and the locks held are still followed.
	overflow bool
	held     [][]heldLock
	vars     ptrTable[int32] // index in shadows
	shadows  []shadow
	warnings []Warning
	// pooled are the clocks released with each item put into a sync.Pool, hb's and full's,
	// by the item's data pointer (poolItem).
	pooled map[unsafe.Pointer]*[2][]uint32
	// tx is the storage of the transactional graph (velodrome.go), kept across runs.
	tx txGraph
}

// clocks are the vector clocks of the goroutines and objects of a run. A goroutine's own
// component counts its releases, the same in both sets.
type clocks struct {
	vc [][]uint32 // by goroutine
	// objs are the joins of the clocks released to each object, by object id in hb; in full,
	// at 2*id, and at 2*id+1 for the releases of read locks.
	objs [][]uint32
}

// accessState returns the run's lockset state, creating it on first use.
//
//go:norace
func (r *run) accessState() *accesses {
	if r.acc == nil {
		r.acc = new(accesses)
	}
	return r.acc
}

// reset empties a for a new run, keeping its storage: a run costs no allocation for the
// variables, clocks and locks that the previous run had.
//
//go:norace
func (a *accesses) reset() {
	a.vars.clear()
	a.shadows = a.shadows[:0]
	for i := range a.held {
		a.held[i] = a.held[i][:0]
	}
	a.hb.reset()
	a.full.reset()
	clear(a.pooled)
	a.warnings, a.partial, a.overflow = nil, false, false
}

// accessesUsed is set once instrumented code has reported an access in this process, or
// declared at initialisation that it will (UseAccesses): until then no run maintains the
// clocks, so that programs without accesses (tests written against rt) pay nothing for them.
var accessesUsed atomic.Bool

// UseAccesses makes every run maintain the lockset check's clocks from its start. Instrumented
// programs call it as they initialise; without it, the run of the process's first access
// starts its clocks late, and its warnings are left out. It returns true.
//
//go:norace
func UseAccesses() bool {
	accessesUsed.Store(true)
	return true
}

//go:norace
func (c *clocks) reset() {
	for i := range c.vc {
		c.vc[i] = c.vc[i][:0]
	}
	for i := range c.objs {
		c.objs[i] = c.objs[i][:0]
	}
}

// maxClocked bounds the goroutines of a run whose clocks the check keeps: a clock has an entry
// per goroutine, so the clocks of n goroutines take n² entries. ants' TestNoPool, whose
// hundred thousand goroutines each sleep once, spent its budget filling them. Go's race
// detector stops at 8,128 live goroutines; past this bound the rest of the run is left to it,
// as past maxVars.
const maxClocked = 4096

// goroutine makes g known: its lockset and, unless the check has stopped, its clocks, which it
// reports.
//
//go:norace
func (a *accesses) goroutine(g GID) bool {
	for int(g) >= len(a.held) {
		a.held = append(a.held, nil)
	}
	if int(g) >= maxClocked {
		a.overflow = true
	}
	if a.overflow {
		return false
	}
	a.hb.clock(g)
	a.full.clock(g)
	return true
}

//go:norace
func (c *clocks) clock(g GID) []uint32 {
	for int(g) >= len(c.vc) {
		c.vc = append(c.vc, nil)
	}
	if len(c.vc[g]) == 0 {
		c.vc[g] = append(c.vc[g], make([]uint32, int(g)+1)...)
		c.vc[g][g] = 1
	}
	return c.vc[g]
}

// join makes g's clock at least o.
//
//go:norace
func (c *clocks) join(g GID, o []uint32) { c.vc[g] = joined(c.clock(g), o) }

// release merges g's clock into object id's.
//
//go:norace
func (c *clocks) release(g GID, id ObjID) {
	vc := c.clock(g)
	for int(id) >= len(c.objs) {
		c.objs = append(c.objs, nil)
	}
	c.objs[id] = joined(c.objs[id], vc)
}

// joined returns o made at least vc, component by component, grown to vc's length.
//
//go:norace
func joined(o, vc []uint32) []uint32 {
	if len(o) < len(vc) {
		o = append(o, make([]uint32, len(vc)-len(o))...)
	}
	for i, x := range vc {
		o[i] = max(o[i], x)
	}
	return o
}

// acquire makes g's clock at least object id's.
//
//go:norace
func (c *clocks) acquire(g GID, id ObjID) {
	if int(id) < len(c.objs) && len(c.objs[id]) > 0 {
		c.join(g, c.objs[id])
	}
}

// before reports whether e happens before g's present.
//
//go:norace
func (c *clocks) before(e stamp, g GID) bool {
	vc := c.clock(g)
	return int(e.g) < len(vc) && vc[e.g] >= e.c
}

// tick starts a new epoch of g: what g does next is not ordered before what it released.
//
//go:norace
func (a *accesses) tick(g GID) {
	a.hb.clock(g)[g]++
	a.full.clock(g)[g]++
}

// accessAcquire and accessRelease follow r.acquire and r.release: a lock operation changes
// the goroutine's lockset and orders only in full, any other orders in both.
//
//go:norace
func (r *run) accessAcquire(e *Event, id ObjID) {
	if !accessesUsed.Load() || r.cfg.IgnoreAccesses || e.G < 0 || id < 0 {
		return
	}
	a := r.accessState()
	clocked := a.goroutine(e.G)
	r.fullAcquire(a, e, 2*id)
	if e.Op != OpRLock && e.Op != OpTryRLock {
		// An RUnlock orders the Lock that follows, not another RLock.
		r.fullAcquire(a, e, 2*id+1)
	}
	switch e.Op {
	case OpLock, OpTryLock:
		a.held[e.G] = append(a.held[e.G], heldLock{id: id})
	case OpRLock, OpTryRLock:
		a.held[e.G] = append(a.held[e.G], heldLock{id: id, read: true})
	default:
		if clocked {
			a.hb.acquire(e.G, id)
		}
	}
}

//go:norace
func (r *run) accessRelease(e *Event, id ObjID) {
	if !accessesUsed.Load() || r.cfg.IgnoreAccesses || e.G < 0 || id < 0 {
		return
	}
	a := r.accessState()
	clocked := a.goroutine(e.G)
	if e.Op == OpRUnlock {
		r.fullRelease(a, e, 2*id+1)
	} else {
		r.fullRelease(a, e, 2*id)
	}
	switch e.Op {
	case OpUnlock, OpRUnlock:
		// remove, not slices.Delete: see remove.
		remove(&a.held[e.G], heldLock{id: id, read: e.Op == OpRUnlock})
	default:
		if clocked {
			a.hb.release(e.G, id)
		}
	}
	if clocked {
		a.tick(e.G)
	}
}

// accessPool orders g's Put of item x into a sync.Pool (put) before the Get that returns x (not
// put), as Go's race detector orders them (sync.Pool's ReleaseMerge and Acquire on the item):
// a pool hands its items from goroutine to goroutine without a lock, and the new owner of a
// pooled buffer or context writes what the last one wrote.
//
//go:norace
func (r *run) accessPool(g *goroutine, x any, put bool) {
	item := poolItem(x)
	if !accessesUsed.Load() || r.cfg.IgnoreAccesses || g == nil || g.id < 0 || item == nil {
		return
	}
	a := r.accessState()
	if !a.goroutine(g.id) {
		return
	}
	if !put {
		if c := a.pooled[item]; c != nil {
			a.hb.join(g.id, c[0])
			a.full.join(g.id, c[1])
		}
		return
	}
	if a.pooled == nil {
		a.pooled = make(map[unsafe.Pointer]*[2][]uint32)
	}
	c := a.pooled[item]
	if c == nil {
		c = new([2][]uint32)
		a.pooled[item] = c
	}
	c[0] = joined(c[0], a.hb.clock(g.id))
	c[1] = joined(c[1], a.full.clock(g.id))
	a.tick(g.id)
}

// poolItem is the data pointer of the interface value x, by which the race detector knows a
// pooled item (sync's poolRaceAddr); nil for nil.
//
//go:norace
func poolItem(x any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&x))[1] }

// accessGo orders a go statement of parent before everything child does.
//
//go:norace
func (r *run) accessGo(parent, child *goroutine) {
	if !accessesUsed.Load() || r.cfg.IgnoreAccesses || parent == nil || parent.id < 0 {
		return
	}
	a := r.accessState()
	if a.goroutine(parent.id) && a.goroutine(child.id) {
		a.hb.join(child.id, a.hb.clock(parent.id))
		a.full.join(child.id, a.full.clock(parent.id))
		a.tick(parent.id)
	}
	if r.tx != nil {
		r.tx.fork(parent.id, child.id, int32(len(r.events)-1))
	}
}

// fullAcquire and fullRelease are where the full order, locks included, is built: the
// transactional graph of atomic regions takes its synchronization edges from there, also once
// the clocks have stopped.
//
//go:norace
func (r *run) fullAcquire(a *accesses, e *Event, slot ObjID) {
	if !a.overflow {
		a.full.acquire(e.G, slot)
	}
	if r.tx != nil {
		r.tx.acquire(e, slot)
	}
}

//go:norace
func (r *run) fullRelease(a *accesses, e *Event, slot ObjID) {
	if !a.overflow {
		a.full.release(e.G, slot)
	}
	if r.tx != nil {
		r.tx.release(e, slot)
	}
}

// accessResume orders a rendezvous both ways, as raceResume does for the race detector: w,
// parked in a channel operation, is completed by the running goroutine.
//
//go:norace
func (r *run) accessResume(w *goroutine) {
	if !accessesUsed.Load() || r.cfg.IgnoreAccesses || r.cur == nil || r.cur.id < 0 || w.id < 0 {
		return
	}
	switch w.op.kind {
	case OpSend, OpRecv, OpSelect:
	default:
		return
	}
	a := r.accessState()
	cur := r.cur.id
	clocked := a.goroutine(cur) && a.goroutine(w.id)
	if clocked {
		for _, c := range []*clocks{&a.hb, &a.full} {
			c.join(w.id, c.clock(cur))
		}
		a.tick(cur)
	}
	if clocked && r.cur.op.kind != OpClose {
		for _, c := range []*clocks{&a.hb, &a.full} {
			c.join(cur, c.clock(w.id))
		}
		a.tick(w.id)
	}
	if r.tx != nil {
		r.tx.rendezvous(cur, w.id, int32(len(r.events)-1), r.cur.op.kind != OpClose)
	}
}

// access records g's read or write of the variable at addr.
//
//go:norace
func (r *run) access(addr unsafe.Pointer, write bool, pos string) {
	// Small enough to be inlined into Load and Store: a goroutine that computes alone (a
	// byte loop over a buffer) pays an increment and two tests per access.
	if r.busy++; r.busy%activityEvery != 0 && r.unseen {
		return
	}
	r.accessSlow(addr, write, pos)
}

// accessSlow is access past its inline part.
//
//go:norace
func (r *run) accessSlow(addr unsafe.Pointer, write bool, pos string) {
	if r.busy%activityEvery == 0 {
		r.activity.Store(r.busy)
	}
	g := r.cur
	if r.unseen || g == nil || g.id < 0 || r.ended || r.foreignCaller(g) {
		return
	}
	if len(r.cfg.Watch) > 0 && slices.Contains(r.cfg.Watch, pos) && !slices.Contains(r.watched, pos) {
		r.watched = append(r.watched, pos)
	}
	a := r.accessState()
	if a.overflow {
		return
	}
	if !accessesUsed.Load() {
		// The first access of the process: this run's clocks missed what came before.
		accessesUsed.Store(true)
		a.partial = true
	}
	if g.bound != nil {
		r.checkBoundAccess(g, addr, write)
	}
	v := a.check(g.id, addr, write, pos)
	if v < 0 {
		return
	}
	if r.cfg.StepAccesses {
		r.stepAccs = append(r.stepAccs, VarAccess{Event: int32(len(r.events)), Var: v, Write: write, Locked: len(a.held[g.id]) > 0})
	}
	r.regionAccess(g, v, write, pos)
	if r.tx != nil {
		r.tx.access(g.id, v, write, pos)
	}
}

// activityEvery is how often, in calls, access tells the watchdog that the running goroutine
// still executes instrumented code.
const activityEvery = 1 << 10

// solo reports whether the run's root is its only goroutine yet, with no check that looks at
// single accesses (a watch, an atomic region, a bound goroutine, a strategy that reads the
// steps' footprints): everything the root does
// then happens before whatever any goroutine will do, through the go statement that starts
// it, so its accesses can neither race nor make a variable shared (Eraser's virgin and
// exclusive states), and the check has nothing to record. A test that computes alone pays
// one comparison per access.
//
//go:norace
func (r *run) solo() bool {
	return len(r.gs) == 1 && !r.cfg.StepAccesses && r.tx == nil && len(r.cfg.Watch) == 0 && r.gs[0].atomicDepth == 0 && r.gs[0].bound == nil
}

// noteSolo sets unseen again after a change to what solo reads: the run's goroutines, an
// atomic region, a bound, the transactional graph. Every access tests unseen alone.
//
//go:norace
func (r *run) noteSolo() { r.unseen = r.cfg.IgnoreAccesses || r.solo() }

// A VarAccess is one plain access of a run, as a strategy sees it: Event is the number of
// events recorded before it, so it belongs to the step of event Event-1; Var numbers the
// variable in the order of first access in the run, which is the same in every run that
// shares the schedule up to that access; Locked tells whether the goroutine held a lock.
type VarAccess struct {
	Event  int32
	Var    int32
	Write  bool
	Locked bool
}

// check runs Eraser's state machine on one access, with ownership that follows
// happens-before, as hybrid detectors do (O'Callahan & Choi 2003): a variable stays exclusive,
// and changes owner without a warning, while each access happens after all the accesses since
// it last became exclusive, so a value handed over a channel, published by Once or collected
// after WaitGroup.Wait is not shared. Accesses that nothing but, at most, a lock orders make
// it shared, and from then on its candidate lockset is refined at every access (§4.2); a
// shared-modified variable whose candidate lockset is empty is reported, once per run.
// It returns the variable's index in the run, or -1 for a variable past maxVars.
//
//go:norace
func (a *accesses) check(g GID, addr unsafe.Pointer, write bool, pos string) int32 {
	if !a.goroutine(g) {
		return -1
	}
	now := stamp{g: g, c: a.hb.clock(g)[g]}
	held := a.held[g]
	acc := Access{G: g, Write: write, Pos: pos}
	k, ok := a.vars.get(addr)
	if !ok {
		if len(a.shadows) >= maxVars {
			// A run that touches more variables than that (a loop that fills a buffer of
			// hundreds of megabytes) would spend gigabytes and minutes on their shadows: the
			// rest of the run is left to the race detector.
			a.overflow = true
			return -1
		}
		k = int32(len(a.shadows))
		a.vars.put(addr, k)
		if len(a.shadows) < cap(a.shadows) {
			// Reuse the slices of the previous run's shadow.
			a.shadows = a.shadows[:k+1]
			s := &a.shadows[k]
			*s = shadow{locks: s.locks[:0], since: s.since[:0]}
		} else {
			a.shadows = append(a.shadows, shadow{})
		}
	}
	v := &a.shadows[k]
	// conflict is an access of another goroutine that this one does not happen after, a
	// write if there is one.
	var conflict *Access
	unordered := false
	init := v.state == exclusive
	for i := range v.since {
		s := &v.since[i]
		if s.last.G == g {
			continue
		}
		if !a.ordered(s.at, s.last, g, init) {
			unordered = true
			if conflict == nil || !conflict.Write {
				conflict = &s.last
			}
		}
		if s.wrote && !a.ordered(s.atW, s.lastW, g, init) {
			unordered = true
			conflict = &s.lastW
		}
	}
	switch {
	case !unordered && v.state == exclusive && (len(v.since) == 0 || len(v.since) == 1 && v.since[0].last.G == g):
		// The owner goes on.
	case !unordered:
		// Every access so far happens before this one: the variable changes hands.
		v.state, v.locks, v.wrote = exclusive, v.locks[:0], false
		v.since = v.since[:0]
	case v.state == exclusive:
		// The first access that nothing orders after the owner's: the candidates are the
		// locks held at both.
		v.locks = append(v.locks[:0], held...)
		for _, s := range v.since {
			if s.last.G != g {
				v.locks = intersect(v.locks, lockSet(s.last.Locks), s.last.Write)
			}
		}
		v.locks = intersect(v.locks, held, write)
		v.state = shared
	default:
		v.locks = intersect(v.locks, held, write)
	}
	if v.state != exclusive && (write || v.wrote) {
		v.state = sharedModified
	}
	if v.state == sharedModified && len(v.locks) == 0 {
		v.racy = true
	}
	if v.state == sharedModified && len(v.locks) == 0 && !v.warned && conflict != nil && (write || conflict.Write) && !a.partial {
		v.warned = true
		earlier := *conflict
		earlier.Locks = slices.Clone(earlier.Locks)
		acc.Locks = lockIDs(held)
		a.warnings = append(a.warnings, Warning{Kind: "lockset", Earlier: earlier, Later: acc, Others: a.others(v, earlier.G, g)})
	}
	if g < 64 {
		if write {
			v.writers |= 1 << g
		} else {
			v.readers |= 1 << g
		}
	}
	v.wrote = v.wrote || write
	i := slices.IndexFunc(v.since, func(s accessor) bool { return s.last.G == g })
	if i < 0 {
		if len(v.since) < cap(v.since) {
			v.since = v.since[:len(v.since)+1]
		} else {
			v.since = append(v.since, accessor{})
		}
		i = len(v.since) - 1
		v.since[i].wrote = false
	}
	s := &v.since[i]
	s.at, s.last = now, record(s.last.Locks, acc, held)
	if write {
		s.atW, s.lastW, s.wrote = now, record(s.lastW.Locks, acc, held), true
	}
	return k
}

// others returns the goroutines, besides g1 and g2, that JPF's race window explores with them
// (§4.2): those that accessed v since it last had one owner, closed over the goroutines that
// wrote a variable that one of the set read in the run so far.
//
//go:norace
func (a *accesses) others(v *shadow, g1, g2 GID) []GID {
	var set uint64
	for _, g := range []GID{g1, g2} {
		if g < 64 {
			set |= 1 << g
		}
	}
	for _, s := range v.since {
		if s.last.G < 64 {
			set |= 1 << s.last.G
		}
	}
	for grew := true; grew; {
		grew = false
		for i := range a.shadows {
			if u := &a.shadows[i]; u.readers&set != 0 && u.writers&^set != 0 {
				set |= u.writers
				grew = true
			}
		}
	}
	var out []GID
	for g := GID(0); g < 64; g++ {
		if set&(1<<g) != 0 && g != g1 && g != g2 {
			out = append(out, g)
		}
	}
	return out
}

// record returns acc with the locks held, in the storage of locks.
//
//go:norace
func record(locks []ObjID, acc Access, held []heldLock) Access {
	locks = locks[:0]
	for _, l := range held {
		locks = append(locks, l.id)
	}
	acc.Locks = locks
	return acc
}

// ordered reports whether access acc, made at e, happens before g's present: by Go's
// hand-offs, or, for an access made holding a lock or to a variable still exclusive to its
// goroutine (init), by any order, locks included. The second case is a variable that a
// goroutine writes under a lock and another reads after taking that lock (x/sync's
// singleflight reads call.dups so, once it took g.mu to remove the call): the order is the
// lock's, and the schedules in which the lock goes the other way are explored too, where the
// accesses are not ordered. The third is Eraser's initialisation (§2.2): a goroutine fills a
// value without a lock, then publishes it under one (a struct stored in a map or a field under
// its mutex), and whoever takes the lock after it may read the value; heddle's own debugger
// got a warning for each halt it showed. Once a variable is shared, an access made without a
// lock is never passed on by a lock's order: Eraser's predictive warning.
//
//go:norace
func (a *accesses) ordered(e stamp, acc Access, g GID, init bool) bool {
	return a.hb.before(e, g) || (init || len(acc.Locks) > 0) && a.full.before(e, g)
}

// lockSet returns the locks of an access as held for writing: an access records no mode.
//
//go:norace
func lockSet(ids []ObjID) []heldLock {
	out := make([]heldLock, len(ids))
	for i, id := range ids {
		out[i] = heldLock{id: id}
	}
	return out
}

//go:norace
func lockIDs(h []heldLock) []ObjID {
	if len(h) == 0 {
		return nil
	}
	out := make([]ObjID, len(h))
	for i, l := range h {
		out[i] = l.id
	}
	return out
}

// intersect keeps the locks of c that held contains; for a write, a lock held only for
// reading does not count.
//
//go:norace
func intersect(c, held []heldLock, write bool) []heldLock {
	out := c[:0]
	for _, l := range c {
		if slices.ContainsFunc(held, func(h heldLock) bool { return h.id == l.id && (!write || !h.read) }) {
			out = append(out, l)
		}
	}
	return out
}
