package rt

import "slices"

// op is the visible operation a goroutine is stopped before.
type op struct {
	kind  OpKind
	obj   ObjID
	mu    *Mutex
	rw    *RWMutex
	wg    *WaitGroup
	once  *Once
	ch    *chanState
	val   any    // value to send
	cases []Case // select
	phase uint8  // RWMutex.Lock: 0 before announcing, 1 announced and waiting for readers
}

// objState is embedded in every synchronization object. It holds the object's identity within
// the current run and the epoch that identity belongs to.
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
		if o.rw != nil {
			if o.phase == 0 {
				return o.rw.writer == nil
			}
			return o.rw.readers == 0
		}
		return !o.mu.locked
	case OpRLock:
		return o.rw.writer == nil
	case OpWGWait:
		return o.wg.count == 0
	case OpCondWait, OpSleep:
		return false // parked: completed by Signal or the clock
	case OpOnce:
		return !o.once.running
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
