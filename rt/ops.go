package rt

import (
	"slices"
	"sync"
	"unsafe"
)

// op is the visible operation a goroutine is stopped before.
type op struct {
	kind  OpKind
	obj   ObjID
	so    *syncObj // a Mutex, RWMutex, WaitGroup or Once that the operation may wait for
	ch    *chanState
	val   any    // value to send
	cases []Case // select
	phase uint8  // RWMutex.Lock: 0 before announcing, 1 announced and waiting for readers
}

// objState is embedded in heddle's own synchronization objects (a channel's state, a timer, a
// socket). It holds the object's identity within the current run and the epoch that identity
// belongs to. The stand-ins of package sync keep theirs in the run's side table (syncObj).
type objState struct {
	epoch uint64
	id    ObjID
}

// touch returns the object's id in run r, registering it (and reporting fresh) on its first use
// in this run.
//
//go:norace
func (r *run) touch(s *objState, kind ObjKind, g *goroutine) (ObjID, bool) {
	if s.epoch == r.epoch {
		return s.id, false
	}
	s.epoch = r.epoch
	s.id = r.newObj(kind, g)
	return s.id, true
}

// syncObj is heddle's state, in one run, of a stand-in of package sync (Mutex, RWMutex,
// WaitGroup, Cond, Once, Map, and Pool). The stand-in's own bytes are the standard type's, which it is
// outside any run, so the state lives beside it, in the run's side table, keyed by its
// address: the fields below belong to the kind of object it is.
type syncObj struct {
	id   ObjID
	kind ObjKind
	// locked says that the Mutex, or the RWMutex for writing, is held.
	locked bool
	// writer is the RWMutex's writer that announced itself in Lock (waiting or holding);
	// readers counts its read locks.
	writer  *goroutine
	readers int
	// count is the WaitGroup's counter. written says that a waiter has written the
	// semaphore since the counter last left zero, as Go's first waiter does when it blocks.
	count   int
	written bool
	// waiters are the goroutines in the Cond's wait list, in order.
	waiters []*goroutine
	// done and running are the Once's: f has returned, f is running.
	done, running bool
	// pool is the Pool's standard pool of the run.
	pool *sync.Pool
	// mirrored says that the run wrote the state into the object's words (mirror.go).
	mirrored bool
}

// syncChunk is the number of syncObjs allocated at once: the table's entries keep their
// addresses for the run, and are reused by the runs that follow.
const syncChunk = 64

// objPool is the kind of a Pool's entry in the side table, which holds the pool of the run's
// values (pool.go) and is no object of the run's.
const objPool ObjKind = 255

// syncOf returns the state of the stand-in at p, of kind, in run r, registering it on its first
// use in this run: an object first used in a run starts as a zero value of its type, whatever
// earlier runs did with it. The table's key keeps the object alive for the run, so that its
// address names no other object before the run ends.
//
//go:norace
func (r *run) syncOf(p unsafe.Pointer, kind ObjKind, g *goroutine) *syncObj {
	if so, _ := r.syncs.get(p); so != nil && so.kind == kind {
		return so
	}
	i := r.nsync
	if i/syncChunk == len(r.syncArena) {
		r.syncArena = append(r.syncArena, new([syncChunk]syncObj))
	}
	r.nsync++
	so := &r.syncArena[i/syncChunk][i%syncChunk]
	*so = syncObj{id: NoObj, kind: kind, waiters: so.waiters[:0]}
	if kind != objPool {
		so.id = r.newObj(kind, g)
	}
	r.syncs.put(p, so)
	return so
}

//go:norace
func (r *run) newObj(kind ObjKind, g *goroutine) ObjID {
	id := ObjID(len(r.objs))
	g.nobj++
	oi := objInfo{kind: kind, g: g.id, seq: g.nobj}
	if r.cfg.Detail {
		oi.pc, _ = callers()
	}
	r.objs = append(r.objs, oi)
	return id
}

// enabled reports whether g's pending operation can be performed now.
//
//go:norace
func (r *run) enabled(g *goroutine) bool {
	o := &g.op
	switch o.kind {
	case OpLock:
		if o.so.kind == ObjRWMutex {
			if o.phase == 0 {
				return o.so.writer == nil
			}
			return o.so.readers == 0
		}
		return !o.so.locked
	case OpRLock:
		return o.so.writer == nil
	case OpWGWait:
		return o.so.count == 0
	case OpCondWait, OpSleep:
		return false // parked: completed by Signal or the clock
	case OpOnce:
		return !o.so.running
	case OpBubble:
		return r.bubble.live == 0
	case OpBubbleWait:
		return r.quiet(g.bubble, g)
	case OpSend, OpRecv, OpSelect:
		// Attempting a channel operation is always possible: it completes or parks.
		return true
	}
	return true
}

// appendAlt appends g's pending operation to alts as a decision alternative. It fills the
// fields of the new element in place: a composite literal of a struct with pointers would be
// built aside and copied.
//
//go:norace
func (r *run) appendAlt(alts []Alt, g *goroutine) []Alt {
	alts = append(alts, Alt{})
	a := &alts[len(alts)-1]
	a.G, a.Op, a.Obj, a.Case = g.id, g.op.kind, g.op.obj, -1
	a.Yields = g.polledBefore && g.mayPoll() // only a second poll yields
	switch g.op.kind {
	case OpSelect:
		start := len(r.altObjs)
		for _, c := range g.op.cases {
			if c.st != nil {
				r.altObjs = append(r.altObjs, c.st.obj.id)
			}
		}
		a.Objs = r.altObjs[start:len(r.altObjs):len(r.altObjs)]
	case OpTimer:
		start := len(r.altObjs)
		r.altObjs = append(r.altObjs, g.op.obj, ClockObj)
		a.Objs = r.altObjs[start:len(r.altObjs):len(r.altObjs)]
	}
	return alts
}

// addCompletedSelects adds to alternative a the channels of the selects parked on a channel
// it operates on: a send, receive, close or timer that completes such a select also takes its
// goroutine off the select's other channels, so it does not commute with their operations. A
// step's event records that (its partners); the alternative, which the strategies compare
// with other steps before it runs, must say it too. The objects go to r.altObjs, without
// allocating, and stay there only if a select adds one.
//
//go:norace
func (r *run) addCompletedSelects(a *Alt) {
	if !r.selectsOn(a) {
		return
	}
	start := len(r.altObjs)
	if a.Objs != nil {
		// One by one: append(s, t...) copies with runtime.slicecopy, which the race detector
		// checks whoever calls it (x/sync's semaphore tests showed it).
		for _, o := range a.Objs {
			r.altObjs = append(r.altObjs, o)
		}
	} else if a.Obj != NoObj {
		r.altObjs = append(r.altObjs, a.Obj)
	}
	own := r.altObjs[start:len(r.altObjs):len(r.altObjs)]
	for _, h := range r.parkedSelects {
		if h.id == a.G || !slices.ContainsFunc(h.op.cases, func(c Case) bool { return c.st != nil && slices.Contains(own, c.st.obj.id) }) {
			continue
		}
		for _, c := range h.op.cases {
			if c.st != nil && !slices.Contains(r.altObjs[start:], c.st.obj.id) {
				r.altObjs = append(r.altObjs, c.st.obj.id)
			}
		}
	}
	if len(r.altObjs)-start == len(own) {
		r.altObjs = r.altObjs[:start]
		return
	}
	a.Objs = r.altObjs[start:len(r.altObjs):len(r.altObjs)]
}

// markSelect records that object o is a case of a parked select of this decision.
//
//go:norace
func (r *run) markSelect(o ObjID) {
	if o < 0 {
		return
	}
	if int(o) >= len(r.selMarks) {
		r.selMarks = append(r.selMarks, make([]uint32, int(o)+1-len(r.selMarks)+len(r.selMarks)/2)...)
	}
	r.selMarks[o] = r.selStamp
}

// selectsOn reports whether alternative a operates on an object of a parked select.
//
//go:norace
func (r *run) selectsOn(a *Alt) bool {
	on := func(o ObjID) bool { return o >= 0 && int(o) < len(r.selMarks) && r.selMarks[o] == r.selStamp }
	if a.Objs != nil {
		for _, o := range a.Objs {
			if on(o) {
				return true
			}
		}
		return false
	}
	return on(a.Obj)
}

// waitsOnClock reports whether g's wait can still be ended by a timer.
//
//go:norace
func (r *run) waitsOnClock(g *goroutine) bool {
	switch g.op.kind {
	case OpSleep:
		return true
	case OpRecv:
		return g.op.ch != nil && g.op.ch.timer != nil && g.op.ch.timer.active
	case OpSend:
		return false
	case OpSelect:
		for _, c := range g.op.cases {
			if c.st != nil && c.st.timer != nil && c.st.timer.active {
				return true
			}
		}
	}
	return false
}
