package rt

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Lock releases (Unlock, RUnlock, the end of Once.Do) are not scheduling points: a release is
// a left mover (Lipton), so folding it into the step that precedes it loses no behaviour, and
// it halves the decisions of lock-heavy programs. Its event is still recorded, so the
// dependencies of the step include it.

// The stand-ins below have the size and alignment of the types of package sync that they
// replace, which programs may depend on (a padding computed with unsafe.Sizeof, an array of
// them laid out for cache lines): their bytes are the standard type, which is what the
// stand-in is outside any run (current returns nil). In a run, heddle's state of the object is
// in the run's side table (syncOf).

// Mutex is sync.Mutex under heddle's control. Its words are sync.Mutex's (state, then the
// semaphore), which it is outside any run (std); they are named so that a debugger that reads
// them finds them at the first level, as it renders a value (mirror.go).
type Mutex struct {
	state int32
	sema  uint32
}

//go:norace
func (m *Mutex) std() *sync.Mutex { return (*sync.Mutex)(unsafe.Pointer(m)) }

// Lock locks m; it blocks while m is locked.
//
//go:norace
func (m *Mutex) Lock() {
	r, g := current()
	if r == nil {
		m.std().Lock()
		return
	}
	s := r.syncOf(unsafe.Pointer(m), ObjMutex, g)
	g.op = op{kind: OpLock, obj: s.id, so: s}
	r.yield(g)
	s.locked = true
	r.mirror(unsafe.Pointer(m), s)
	r.acquire(r.record(g, OpLock, s.id), s.id)
}

// TryLock locks m if it is unlocked and reports whether it did.
//
//go:norace
func (m *Mutex) TryLock() bool {
	r, g := current()
	if r == nil {
		return m.std().TryLock()
	}
	s := r.syncOf(unsafe.Pointer(m), ObjMutex, g)
	g.op = op{kind: OpTryLock, obj: s.id}
	r.yield(g)
	e := r.record(g, OpTryLock, s.id)
	if s.locked {
		r.poll(g)
		return false
	}
	s.locked = true
	r.mirror(unsafe.Pointer(m), s)
	r.acquire(e, s.id)
	return true
}

// Unlock unlocks m. Unlocking an unlocked mutex is a fatal error, as in Go.
//
//go:norace
func (m *Mutex) Unlock() {
	r, g := current()
	if r == nil {
		m.std().Unlock()
		return
	}
	s := r.syncOf(unsafe.Pointer(m), ObjMutex, g)
	r.release(r.record(g, OpUnlock, s.id), s.id)
	if !s.locked {
		r.misuse(g, "fatal error: sync: unlock of unlocked mutex")
	}
	s.locked = false
	r.mirror(unsafe.Pointer(m), s)
}

// RWMutex is sync.RWMutex under heddle's control, with Go's writer preference: once a writer
// has called Lock, new readers block until it has acquired and released the lock, so a
// recursive read lock can deadlock.
//
// Its words are sync.RWMutex's: the writers' Mutex, two semaphores, the readers' count and the
// departing readers' count.
type RWMutex struct {
	state       int32 // the writers' Mutex
	sema        uint32
	writerSem   uint32
	readerSem   uint32
	readerCount int32
	readerWait  int32
}

//go:norace
func (rw *RWMutex) std() *sync.RWMutex { return (*sync.RWMutex)(unsafe.Pointer(rw)) }

// Lock locks rw for writing. It takes two steps when readers hold the lock: the first
// announces the writer (blocking new readers), the second acquires once they have left.
//
//go:norace
func (rw *RWMutex) Lock() {
	r, g := current()
	if r == nil {
		rw.std().Lock()
		return
	}
	s := r.syncOf(unsafe.Pointer(rw), ObjRWMutex, g)
	g.op = op{kind: OpLock, obj: s.id, so: s}
	r.yield(g)
	s.writer = g
	if s.readers > 0 {
		r.record(g, OpLockWait, s.id)
		g.op = op{kind: OpLock, obj: s.id, so: s, phase: 1}
		r.yield(g)
	}
	s.locked = true
	r.mirror(unsafe.Pointer(rw), s)
	r.acquire(r.record(g, OpLock, s.id), s.id)
	raceAcquireWriters(s.id)
}

// Unlock unlocks rw for writing and admits every reader that was blocked by the writer.
//
//go:norace
func (rw *RWMutex) Unlock() {
	r, g := current()
	if r == nil {
		rw.std().Unlock()
		return
	}
	s := r.syncOf(unsafe.Pointer(rw), ObjRWMutex, g)
	e := r.record(g, OpUnlock, s.id)
	r.release(e, s.id)
	if !s.locked {
		r.misuse(g, "fatal error: sync: Unlock of unlocked RWMutex")
	}
	s.writer, s.locked = nil, false
	for _, w := range r.gs {
		if w.state == gPending && w.op.kind == OpRLock && w.op.so == s {
			s.readers++
			r.resumeG(w)
		}
	}
	r.mirror(unsafe.Pointer(rw), s)
}

// RLock locks rw for reading.
//
//go:norace
func (rw *RWMutex) RLock() {
	r, g := current()
	if r == nil {
		rw.std().RLock()
		return
	}
	s := r.syncOf(unsafe.Pointer(rw), ObjRWMutex, g)
	g.op = op{kind: OpRLock, obj: s.id, so: s}
	r.yield(g)
	if !g.done {
		s.readers++
	}
	r.mirror(unsafe.Pointer(rw), s)
	r.acquire(r.record(g, OpRLock, s.id), s.id)
}

// RUnlock undoes one RLock.
//
//go:norace
func (rw *RWMutex) RUnlock() {
	r, g := current()
	if r == nil {
		rw.std().RUnlock()
		return
	}
	s := r.syncOf(unsafe.Pointer(rw), ObjRWMutex, g)
	// Readers release to the writers' semaphore only: an RUnlock orders a later Lock, not a
	// later RLock.
	raceReleaseWriters(s.id)
	r.releaseModel(r.record(g, OpRUnlock, s.id), s.id)
	if s.readers <= 0 {
		r.misuse(g, "fatal error: sync: RUnlock of unlocked RWMutex")
	}
	s.readers--
	r.mirror(unsafe.Pointer(rw), s)
}

// TryLock locks rw for writing if it is free.
//
//go:norace
func (rw *RWMutex) TryLock() bool {
	r, g := current()
	if r == nil {
		return rw.std().TryLock()
	}
	s := r.syncOf(unsafe.Pointer(rw), ObjRWMutex, g)
	g.op = op{kind: OpTryLock, obj: s.id}
	r.yield(g)
	e := r.record(g, OpTryLock, s.id)
	if s.writer != nil || s.readers > 0 {
		r.poll(g)
		return false
	}
	s.writer, s.locked = g, true
	r.mirror(unsafe.Pointer(rw), s)
	r.acquire(e, s.id)
	raceAcquireWriters(s.id)
	return true
}

// TryRLock locks rw for reading if no writer holds or awaits it.
//
//go:norace
func (rw *RWMutex) TryRLock() bool {
	r, g := current()
	if r == nil {
		return rw.std().TryRLock()
	}
	s := r.syncOf(unsafe.Pointer(rw), ObjRWMutex, g)
	g.op = op{kind: OpTryRLock, obj: s.id}
	r.yield(g)
	e := r.record(g, OpTryRLock, s.id)
	if s.writer != nil {
		r.poll(g)
		return false
	}
	s.readers++
	r.mirror(unsafe.Pointer(rw), s)
	r.acquire(e, s.id)
	return true
}

// RLocker returns a Locker whose Lock and Unlock call RLock and RUnlock.
//
//go:norace
func (rw *RWMutex) RLocker() sync.Locker { return (*rlocker)(rw) }

type rlocker RWMutex

//go:norace
func (l *rlocker) Lock() { (*RWMutex)(l).RLock() }

//go:norace
func (l *rlocker) Unlock() { (*RWMutex)(l).RUnlock() }

// WaitGroup is sync.WaitGroup under heddle's control.
//
// Its words are sync.WaitGroup's: the state (the counter in its high 32 bits), then the
// semaphore.
type WaitGroup struct {
	_     [0]atomic.Uint64 // the state's alignment, 8 bytes on every platform
	state uint64
	sema  uint32
}

//go:norace
func (wg *WaitGroup) std() *sync.WaitGroup { return (*sync.WaitGroup)(unsafe.Pointer(wg)) }

// semaAddr returns the address of the semaphore of wg's standard bytes, the variable at which
// sync's WaitGroup shows the race detector the ordering of an Add from zero with Wait.
//
//go:norace
func (wg *WaitGroup) semaAddr() unsafe.Pointer { return unsafe.Pointer(&wg.sema) }

// Add adds delta to the counter; a negative counter panics, as in Go. When the counter reaches
// zero, every goroutine blocked in Wait is released at once.
//
//go:norace
func (wg *WaitGroup) Add(delta int) { wg.add(delta, OpWGAdd) }

// add adds delta to the counter by operation kind, OpWGAdd or OpWGDone: the two differ
// only in how a report names the call.
//
//go:norace
func (wg *WaitGroup) add(delta int, kind OpKind) {
	r, g := current()
	if r == nil {
		wg.std().Add(delta)
		return
	}
	s := r.syncOf(unsafe.Pointer(wg), ObjWaitGroup, g)
	id := s.id
	g.op = op{kind: kind, obj: id}
	r.yield(g)
	e := r.record(g, kind, id)
	s.count += delta
	if delta > 0 && s.count == delta {
		// As sync's Add: the first increment must be ordered with Wait.
		raceReadAt(wg.semaAddr())
	}
	if s.count < 0 {
		s.count = 0
		r.mirror(unsafe.Pointer(wg), s)
		panic("sync: negative WaitGroup counter")
	}
	r.mirror(unsafe.Pointer(wg), s)
	if delta < 0 && s.count > 0 {
		// Every Done happens before the Wait it ends, not only the last, which releases below.
		raceRelease(id)
		r.accessRelease(e, id)
	}
	if s.count == 0 {
		if delta < 0 {
			raceRelease(id)
		}
		r.releaseModel(e, id)
		for _, w := range r.gs {
			if w.state == gPending && w.op.kind == OpWGWait && w.op.so == s {
				r.resumeG(w)
			}
		}
		s.written = false
	}
}

// Done decrements the counter by one.
//
//go:norace
func (wg *WaitGroup) Done() { wg.add(-1, OpWGDone) }

// Wait blocks until the counter is zero.
//
//go:norace
func (wg *WaitGroup) Wait() {
	r, g := current()
	if r == nil {
		initWait()
		wg.std().Wait()
		return
	}
	s := r.syncOf(unsafe.Pointer(wg), ObjWaitGroup, g)
	id := s.id
	if s.count > 0 {
		r.atomicWait(g, r.waitName(OpWGWait, id, "waits for the counter to reach zero"))
		if !s.written {
			// As sync's Wait, for its first waiter: a write against the read of an Add from
			// zero. g reached Wait with the counter above zero, where Go's Wait loads it and
			// blocks. A Wait reached at zero writes nothing, even if an Add runs at its
			// scheduling point: the Done that completes it stands for a Wait run after it
			// (wgaddafterwait, where go test -race -count=200 shows no race).
			s.written = true
			raceWriteAt(wg.semaAddr())
		}
	}
	g.op = op{kind: OpWGWait, obj: id, so: s}
	r.yield(g)
	r.acquire(r.record(g, OpWGWait, id), id)
}

// Go calls f in a new goroutine and adds that task to the group.
//
//go:norace
func (wg *WaitGroup) Go(f func()) {
	wg.Add(1)
	Go(func() {
		defer wg.Done()
		f()
	})
}

// Cond is sync.Cond under heddle's control. Which waiter Signal wakes is a decision.
//
// Its fields after L mirror those of sync.Cond, so that outside any run the Cond is a
// sync.Cond in place (std): the runtime's notify list, then the copy checker. TestStandInLayout
// checks that the two keep the same fields at the same offsets.
type Cond struct {
	L       sync.Locker
	notify  notifyList
	checker uintptr
}

// notifyList mirrors the runtime's notifyList (runtime/sema.go), which sync.Cond holds.
type notifyList struct {
	wait, notify uint32
	lock         uintptr
	head, tail   unsafe.Pointer
}

// std returns c as the sync.Cond that its bytes are.
//
//go:norace
func (c *Cond) std() *sync.Cond { return (*sync.Cond)(unsafe.Pointer(c)) }

// NewCond returns a new Cond with Locker l.
//
//go:norace
func NewCond(l sync.Locker) *Cond { return &Cond{L: l} }

// Wait atomically unlocks c.L and suspends the goroutine until it is woken by Signal or
// Broadcast, then locks c.L again. As in Go, the goroutine joins the wait list before it
// unlocks, so a Signal after the Unlock is never lost.
//
//go:norace
func (c *Cond) Wait() {
	r, g := current()
	if r == nil {
		initWait()
		c.std().Wait()
		return
	}
	s := r.syncOf(unsafe.Pointer(c), ObjCond, g)
	id := s.id
	r.atomicWait(g, r.waitName(OpCondWait, id, "unlocks and waits for a Signal"))
	s.waiters = append(s.waiters, g)
	// A Cond orders nothing by itself for the race detector, as Go's (its lock does); the
	// lockset check's clocks count the wake.
	r.releaseModel(r.record(g, OpCondWait, id), id)
	c.L.Unlock()
	if r, g = current(); r != nil && !s.signalled(g) {
		g.op = op{kind: OpCondWait, obj: id}
		r.park(g)
	}
	c.L.Lock()
}

//go:norace
func (s *syncObj) signalled(g *goroutine) bool {
	for _, w := range s.waiters {
		if w == g {
			return false
		}
	}
	return true
}

// Signal wakes one waiter, if any; which one is a decision.
//
//go:norace
func (c *Cond) Signal() {
	r, g := current()
	if r == nil {
		c.std().Signal()
		return
	}
	s := r.syncOf(unsafe.Pointer(c), ObjCond, g)
	id := s.id
	g.op = op{kind: OpSignal, obj: id}
	r.yield(g)
	e := r.record(g, OpSignal, id)
	if len(s.waiters) == 0 {
		return
	}
	i := 0
	if len(s.waiters) > 1 {
		alts := r.alts[:0]
		for _, w := range s.waiters {
			alts = append(alts, Alt{G: w.id, Op: OpCondWait, Obj: id, Case: -1})
		}
		r.alts = alts
		if i = r.choose(DecideWake, alts, -1); i < 0 {
			r.block(g)
		}
	}
	w := s.waiters[i]
	remove(&s.waiters, w)
	e = &r.events[e.Step]
	e.With = w.id
	r.releaseModel(e, id)
	r.wakeWaiter(w, id)
}

// Broadcast wakes every waiter.
//
//go:norace
func (c *Cond) Broadcast() {
	r, g := current()
	if r == nil {
		c.std().Broadcast()
		return
	}
	s := r.syncOf(unsafe.Pointer(c), ObjCond, g)
	id := s.id
	g.op = op{kind: OpBroadcast, obj: id}
	r.yield(g)
	r.releaseModel(r.record(g, OpBroadcast, id), id)
	ws := s.waiters
	s.waiters = nil
	for _, w := range ws {
		r.wakeWaiter(w, id)
	}
}

//go:norace
func (r *run) wakeWaiter(w *goroutine, id ObjID) {
	if w.state == gParked && w.op.kind == OpCondWait {
		r.resumeG(w)
	}
}

// Once is sync.Once under heddle's control.
//
// Its words are sync.Once's: done, then the Mutex (state, semaphore) that callers wait on.
type Once struct {
	done  uint32
	state int32
	sema  uint32
}

//go:norace
func (o *Once) std() *sync.Once { return (*sync.Once)(unsafe.Pointer(o)) }

// Do calls f if and only if Do is being called for the first time for this Once. Other callers
// block until f has returned; a recursive call deadlocks, as in Go.
//
//go:norace
func (o *Once) Do(f func()) {
	r, g := current()
	if r == nil {
		o.std().Do(f)
		return
	}
	s := r.syncOf(unsafe.Pointer(o), ObjOnce, g)
	if !s.done && !s.running && atomic.LoadUint32(&o.done) != 0 {
		// Done outside any run (package init, TestMain), as in every process: runs write the
		// words only under a debugger, and restore them at their end (mirror.go).
		s.done = true
	}
	id := s.id
	g.op = op{kind: OpOnce, obj: id, so: s}
	r.yield(g)
	r.acquire(r.record(g, OpOnce, id), id)
	if s.done {
		return
	}
	s.running = true
	r.mirror(unsafe.Pointer(o), s)
	defer func() {
		s.running, s.done = false, true
		if r, g := current(); r != nil {
			r.mirror(unsafe.Pointer(o), s)
			r.release(r.record(g, OpOnceDone, id), id)
		}
	}()
	f()
}

// OnceFunc returns a function that invokes f only once; see sync.OnceFunc.
//
// Unlike sync's, the function keeps f: a Once starts each run as a zero value (syncOf), so a
// function made outside a run, at package level, calls f again in each run that calls it, as
// the run's first call in a fresh process does. A replay in a fresh process then makes the same
// steps as the run it replays, whichever run of its process that was.
//
//go:norace
func OnceFunc(f func()) func() {
	var (
		once  Once
		valid bool
		p     any
	)
	g := func() {
		valid = false
		defer func() {
			p = recover()
			if !valid {
				panic(p)
			}
		}()
		f()
		valid = true
	}
	return func() {
		once.Do(g)
		if !valid {
			panic(p)
		}
	}
}

// OnceValue returns a function that invokes f only once and returns its value; see
// sync.OnceValue. It keeps f, as OnceFunc does.
//
//go:norace
func OnceValue[T any](f func() T) func() T {
	var (
		once   Once
		valid  bool
		p      any
		result T
	)
	g := func() {
		valid = false
		defer func() {
			p = recover()
			if !valid {
				panic(p)
			}
		}()
		result = f()
		valid = true
	}
	return func() T {
		once.Do(g)
		if !valid {
			panic(p)
		}
		return result
	}
}

// OnceValues returns a function that invokes f only once and returns its values; see
// sync.OnceValues. It keeps f, as OnceFunc does.
//
//go:norace
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) {
	var (
		once  Once
		valid bool
		p     any
		r1    T1
		r2    T2
	)
	g := func() {
		valid = false
		defer func() {
			p = recover()
			if !valid {
				panic(p)
			}
		}()
		r1, r2 = f()
		valid = true
	}
	return func() (T1, T2) {
		once.Do(g)
		if !valid {
			panic(p)
		}
		return r1, r2
	}
}

// Map is sync.Map; each of its operations is one atomic step.
type Map struct {
	m sync.Map
}

//go:norace
func (m *Map) step() {
	r, g := current()
	if r == nil {
		return
	}
	id := r.syncOf(unsafe.Pointer(m), ObjMap, g).id
	g.op = op{kind: OpMap, obj: id}
	r.yield(g)
	e := r.record(g, OpMap, id)
	// The lockset check orders the operations of a Map one after the other, as its value hand-offs
	// are (the race detector sees the real Map's own synchronization).
	r.accessAcquire(e, id)
	r.accessRelease(e, id)
}

//go:norace
func (m *Map) Load(key any) (value any, ok bool) { m.step(); return m.m.Load(key) }

//go:norace
func (m *Map) Store(key, value any) { m.step(); m.m.Store(key, value) }

//go:norace
func (m *Map) LoadOrStore(key, value any) (actual any, loaded bool) {
	m.step()
	return m.m.LoadOrStore(key, value)
}

//go:norace
func (m *Map) LoadAndDelete(key any) (value any, loaded bool) {
	m.step()
	return m.m.LoadAndDelete(key)
}

//go:norace
func (m *Map) Delete(key any) { m.step(); m.m.Delete(key) }

//go:norace
func (m *Map) Swap(key, value any) (previous any, loaded bool) { m.step(); return m.m.Swap(key, value) }

//go:norace
func (m *Map) CompareAndSwap(key, old, new any) (swapped bool) {
	m.step()
	return m.m.CompareAndSwap(key, old, new)
}

//go:norace
func (m *Map) CompareAndDelete(key, old any) (deleted bool) {
	m.step()
	return m.m.CompareAndDelete(key, old)
}

// Range calls f for each key and value; the snapshot is taken in one step.
//
//go:norace
func (m *Map) Range(f func(key, value any) bool) { m.step(); m.m.Range(f) }

//go:norace
func (m *Map) Clear() { m.step(); m.m.Clear() }

// misuse ends the run with a misuse verdict for a fatal error that Go would not let the
// program recover from, and stops g.
//
//go:norace
func (r *run) misuse(g *goroutine, msg string) {
	_, stack := callers()
	r.fail(VerdictMisuse, msg, g, stack)
	r.block(g)
}

// block stops g for good: the run has ended and teardown will end g.
//
//go:norace
func (r *run) block(g *goroutine) {
	r.switchTo(g, nil)
	runtime.Goexit()
}

// acquire and release maintain the happens-before arrows of the trace in detail mode, and
// give them to the race detector on the object's address. acquireModel and releaseModel
// leave the detector out, for primitives whose edges it gets otherwise or not at all
// (race.go).
//
//go:norace
func (r *run) acquire(e *Event, id ObjID) {
	raceAcquire(id)
	r.acquireModel(e, id)
}

//go:norace
func (r *run) acquireModel(e *Event, id ObjID) {
	r.accessAcquire(e, id)
	if r.lastRelease == nil {
		return
	}
	if s, ok := r.lastRelease[id]; ok {
		e.After = append(e.After, s)
	}
}

//go:norace
func (r *run) release(e *Event, id ObjID) {
	raceRelease(id)
	r.releaseModel(e, id)
}

//go:norace
func (r *run) releaseModel(e *Event, id ObjID) {
	r.accessRelease(e, id)
	if r.lastRelease != nil {
		r.lastRelease[id] = e.Step
	}
}
