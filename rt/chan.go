package rt

import (
	"reflect"
	"sync"
	"unsafe"
)

// Channels stay real Go channels, so they interoperate with code heddle does not instrument
// (signal.Notify, a dependency reading a channel it was given). Buffered values live in the
// real buffer, so len and cap are the real ones; heddle keeps beside each channel the state the
// real channel does not expose (closed) and matches senders with receivers itself, as the Go
// runtime does: a sender hands its value straight to a waiting receiver, a receiver refills the
// buffer from a waiting sender.
//
// A channel that heddle did not make (ctx.Done() of an uninstrumented context) is foreign: its
// partners are outside heddle's view, so its operations are polled without blocking, and a run
// whose goroutines all wait on foreign channels waits for them in real time.

type chanKey = unsafe.Pointer

type chanState struct {
	obj     objState
	cap     int
	closed  bool
	foreign bool
	ops     chanOps
	timer   *timer // the timer whose channel this is
	// waiters are the goroutines that parked on the channel in run waitEpoch, each as of its
	// park, some of them since resumed: a partner is found among them, not among all of the
	// run's goroutines.
	waiters   []waiter
	waitEpoch uint64
}

// A waiter is a goroutine parked on a channel by the park that gave it since: once the
// goroutine is resumed, or parks again, the waiter is void.
type waiter struct {
	g     *goroutine
	since uint64
}

// waitOn records g, which parks on its channel operation, as a waiter of its channels.
//
//go:norace
func (r *run) waitOn(g *goroutine) {
	switch g.op.kind {
	case OpSend, OpRecv:
		r.addWaiter(g.op.ch, g)
	case OpSelect:
		for _, c := range g.op.cases {
			r.addWaiter(c.st, g)
		}
	}
}

//go:norace
func (r *run) addWaiter(st *chanState, g *goroutine) {
	if st == nil {
		return
	}
	if st.waitEpoch != r.epoch {
		st.waiters, st.waitEpoch = st.waiters[:0], r.epoch
	}
	if len(st.waiters) == cap(st.waiters) {
		// Void waiters go before the list grows: a goroutine that parks on the channel again
		// and again, with nobody looking for a partner on it, would grow it without end.
		// Written out, not slices.DeleteFunc: see sortByID.
		kept := st.waiters[:0]
		for _, w := range st.waiters {
			if !w.void() {
				kept = append(kept, w)
			}
		}
		st.waiters = kept
	}
	st.waiters = append(st.waiters, waiter{g, g.since})
}

//go:norace
func (w waiter) void() bool { return w.g.state != gParked || w.g.since != w.since }

// chanOps are the type-specific operations on the real channel, all non-blocking.
type chanOps interface {
	trySend(v any) bool
	tryRecv() (v any, ok, got bool)
	zero() any
	length() int
	capacity() int
	closeReal()
	key() chanKey
	chanValue() any
}

type typedChan[T any] struct{ c chan T }

//go:norace
func (t typedChan[T]) trySend(v any) bool {
	var x T
	if v != nil {
		x = v.(T)
	}
	select {
	case t.c <- x:
		return true
	default:
		return false
	}
}

//go:norace
func (t typedChan[T]) tryRecv() (any, bool, bool) {
	select {
	case v, ok := <-t.c:
		return v, ok, true
	default:
		return nil, false, false
	}
}

//go:norace
func (t typedChan[T]) zero() any { var z T; return z }

//go:norace
func (t typedChan[T]) length() int { return len(t.c) }

//go:norace
func (t typedChan[T]) capacity() int { return cap(t.c) }

//go:norace
func (t typedChan[T]) closeReal() { close(t.c) }

//go:norace
func (t typedChan[T]) key() chanKey { return chanPtr(t.c) }

//go:norace
func (t typedChan[T]) chanValue() any { return t.c }

var (
	chansMu sync.Mutex
	chans   ptrTable[*chanState]
)

//go:norace
func chanPtr[C any](c C) chanKey { return *(*unsafe.Pointer)(unsafe.Pointer(&c)) }

// MakeChan makes a channel, like make(chan T, size).
//
//go:norace
func MakeChan[T any](size int) chan T {
	c := make(chan T, size)
	st := &chanState{cap: size, ops: typedChan[T]{c}}
	r := active
	raceHide() // the registry orders nothing of the program's
	chansMu.Lock()
	chans.put(chanPtr(c), st)
	chansMu.Unlock()
	raceShow()
	if r != nil && !r.aborted {
		r.chans = append(r.chans, chanPtr(c))
	}
	return c
}

// closedOutside records the close, outside any run, of the channel k that instrumented code
// made: package initialisation that cancels a context it made (pion's deadline package keeps
// an exceeded context, cancelled in init), whose Done channel the runs then receive from.
// Without it a run would see the channel open and empty, and block on it forever.
//
//go:norace
func closedOutside(k chanKey) {
	raceHide()
	chansMu.Lock()
	if st, _ := chans.get(k); st != nil {
		st.closed = true
	}
	chansMu.Unlock()
	raceShow()
}

//go:norace
func unregisterChan(k chanKey) {
	raceHide() // the registry orders nothing of the program's
	chansMu.Lock()
	chans.remove(k)
	chansMu.Unlock()
	raceShow()
}

// stateOf returns the state of channel c (nil for a nil channel), registering a channel made
// outside instrumented code as foreign.
//
//go:norace
func stateOf(r *run, c chanOps) *chanState {
	k := c.key()
	if k == nil {
		return nil
	}
	raceHide() // the registry orders nothing of the program's
	chansMu.Lock()
	st, _ := chans.get(k)
	if st == nil {
		st = &chanState{cap: c.capacity(), foreign: true, ops: c}
		r.hasForeign = true
		chans.put(k, st)
		r.chans = append(r.chans, k)
	}
	chansMu.Unlock()
	raceShow()
	return st
}

// chanRaceAddr is where the Go runtime's channel operations read and write a channel for the
// race detector (hchan.raceaddr: the address of its buf field, after qcount and dataqsiz).
//
//go:norace
func chanRaceAddr(c chanKey) unsafe.Pointer { return unsafe.Add(c, 2*unsafe.Sizeof(uintptr(0))) }

//go:norace
func bidi[T any, C ~chan<- T | ~<-chan T](c C) chan T { return *(*chan T)(unsafe.Pointer(&c)) }

//go:norace
func (r *run) chanObj(st *chanState, g *goroutine) ObjID {
	if st == nil {
		return NoObj
	}
	id, _ := r.touch(&st.obj, ObjChan, g)
	return id
}

// A channel operation takes the Go runtime's two phases. Attempting it is always enabled: it
// completes at once (buffered data or room, a closed channel, or a partner already parked on
// the channel), or the goroutine parks on the channel. A parked goroutine is completed by the
// partner that arrives later, or by close, and resumes without a decision. Which goroutines are
// parked is state that other operations observe (a select with default fires only on a parked
// partner), so parking is a step of its own.

// Send sends v on ch, like ch <- v.
//
//go:norace
func Send[T any](ch chan<- T, v T) {
	r, g := current()
	if r == nil {
		initWait()
		ch <- v
		return
	}
	st := stateOf(r, typedChan[T]{bidi[T](ch)})
	g.op = op{kind: OpSend, obj: r.chanObj(st, g), ch: st, val: v}
	r.yield(g)
	if ch != nil {
		// As chansend, which heddle's hand-off to a parked receiver does not call.
		raceReadAt(chanRaceAddr(chanPtr(ch)))
	}
	if r.trySend(g, st, v, -1) {
		return
	}
	r.parkOn(g)
	g.panicIfClosed()
	g.realHalf(st, v)
}

// Recv receives from ch, like <-ch.
//
//go:norace
func Recv[T any](ch <-chan T) T {
	v, _ := Recv2(ch)
	return v
}

// Recv2 receives from ch, like v, ok := <-ch.
//
//go:norace
func Recv2[T any](ch <-chan T) (T, bool) {
	r, g := current()
	if r == nil {
		initWait()
		v, ok := <-ch
		return v, ok
	}
	st := stateOf(r, typedChan[T]{bidi[T](ch)})
	g.op = op{kind: OpRecv, obj: r.chanObj(st, g), ch: st}
	r.yield(g)
	v, ok, done := r.tryRecv(g, st, -1)
	if !done {
		r.parkOn(g)
		g.realHalf(st, nil)
		v, ok = g.recv, g.recvOK
	}
	if v == nil {
		var z T
		return z, ok
	}
	return v.(T), ok
}

// parkOn parks g on the channel operation g.op, which could not complete: the park is a step
// touching the channels involved.
//
//go:norace
func (r *run) parkOn(g *goroutine) {
	r.raceParked(g)
	e := r.record(g, OpPark, g.op.obj)
	e.Waits = g.op.kind
	if g.op.kind == OpSelect {
		r.selectObjs(g.op.cases)
	} else if g.op.ch == nil {
		e.Obj = NoObj
	}
	r.atomicWait(g, r.waitName(g.op.kind, e.Obj, "parks until another goroutine completes it"))
	r.park(g)
}

// Close closes ch, like close(ch).
//
//go:norace
func Close[T any](ch chan<- T) {
	r, g := current()
	if r == nil {
		close(ch)
		closedOutside(chanPtr(ch))
		return
	}
	st := stateOf(r, typedChan[T]{bidi[T](ch)})
	id := r.chanObj(st, g)
	g.op = op{kind: OpClose, obj: id, ch: st}
	r.yield(g)
	e := r.record(g, OpClose, id)
	switch {
	case st == nil:
		panic(plainError("close of nil channel"))
	case st.closed:
		panic(plainError("close of closed channel"))
	}
	// The real close releases what a receive that sees it acquires.
	r.releaseModel(e, id)
	st.closed = true
	st.ops.closeReal()
	// As in the Go runtime, closing completes every goroutine parked on the channel: a
	// receiver gets the zero value, a sender panics.
	for _, w := range r.gs {
		if w.state != gParked {
			continue
		}
		i, send := waitsOn(w, st)
		if i < -1 {
			continue
		}
		if send {
			w.panicMsg = "send on closed channel"
		} else {
			w.real = realRecv
		}
		w.selected = i
		r.resumeG(w)
	}
}

// Len returns len(ch) for any channel value; it is a scheduling point.
//
//go:norace
func Len(ch any) int {
	n := reflect.ValueOf(ch).Len()
	if r, g := current(); r != nil {
		g.op = op{kind: OpLen, obj: NoObj}
		r.yield(g)
		n = reflect.ValueOf(ch).Len()
		r.record(g, OpLen, NoObj)
	}
	return n
}

// Cap returns cap(ch) for any channel value. A channel's capacity never changes, so it is not
// a scheduling point.
//
//go:norace
func Cap(ch any) int { return reflect.ValueOf(ch).Cap() }

// waitsOn reports whether w's operation involves st: the select case index (-1 for a plain
// send or receive) and whether it sends. It returns -2 when it does not.
//
//go:norace
func waitsOn(w *goroutine, st *chanState) (int, bool) {
	switch w.op.kind {
	case OpSend:
		if w.op.ch == st {
			return -1, true
		}
	case OpRecv:
		if w.op.ch == st {
			return -1, false
		}
	case OpSelect:
		for i, c := range w.op.cases {
			if c.st == st {
				return i, c.send
			}
		}
	}
	return -2, false
}

// parked finds the goroutine parked longest to send (send true) or receive on st.
//
//go:norace
func (r *run) parked(st *chanState, send bool) (*goroutine, int) {
	if st == nil {
		return nil, 0
	}
	if st.waitEpoch != r.epoch {
		return nil, 0
	}
	var best *goroutine
	bestCase := 0
	kept := st.waiters[:0]
	for _, wt := range st.waiters {
		if wt.void() {
			continue
		}
		kept = append(kept, wt)
		w := wt.g
		i := -2
		switch w.op.kind {
		case OpSend, OpRecv:
			if w.op.ch == st && (w.op.kind == OpSend) == send {
				i = -1
			}
		case OpSelect:
			for j, c := range w.op.cases {
				if c.st == st && c.send == send {
					i = j
					break
				}
			}
		}
		if i >= -1 && (best == nil || w.since < best.since) {
			best, bestCase = w, i
		}
	}
	st.waiters = kept
	return best, bestCase
}

// sendReady and recvReady tell whether a send or receive on st would complete now.
//
//go:norace
func (r *run) sendReady(st *chanState) bool {
	if st == nil {
		return false
	}
	if st.closed || st.ops.length() < st.cap {
		return true
	}
	w, _ := r.parked(st, false)
	return w != nil
}

//go:norace
func (r *run) recvReady(st *chanState) bool {
	if st == nil {
		return false
	}
	if st.closed || st.ops.length() > 0 {
		return true
	}
	w, _ := r.parked(st, true)
	return w != nil
}

// trySend performs g's send of v on st if it can complete now; c is the select case index or
// -1. A send on a foreign channel that nobody heddle controls is waiting for is tried on the
// real channel.
//
//go:norace
func (r *run) trySend(g *goroutine, st *chanState, v any, c int) bool {
	if st == nil {
		return false
	}
	id := r.chanObj(st, g)
	switch {
	case st.closed:
		r.record(g, OpSend, id)
		panic(plainError("send on closed channel"))
	}
	if w, wc := r.parked(st, false); w != nil {
		e := r.record(g, OpSend, id)
		r.releaseModel(e, id)
		w.selected = wc
		if st.cap > 0 && !st.foreign {
			// The buffer is empty, since w waits: the value goes through it.
			st.ops.trySend(v)
			w.real = realRecv
		} else {
			w.recv, w.recvOK = v, true
		}
		r.resumeG(w)
		return true
	}
	if st.ops.length() < st.cap || st.foreign {
		if st.ops.trySend(v) {
			r.releaseModel(r.record(g, OpSend, id), id)
			return true
		}
	}
	return false
}

// tryRecv performs g's receive from st if it can complete now.
//
//go:norace
func (r *run) tryRecv(g *goroutine, st *chanState, c int) (any, bool, bool) {
	if st == nil {
		return nil, false, false
	}
	id := r.chanObj(st, g)
	if n := st.ops.length(); n > 0 {
		e := r.record(g, OpRecv, id)
		v, ok, _ := st.ops.tryRecv()
		if st.timer != nil {
			raceAcquire(st.timer.obj.id) // the tick was sent by the clock, unseen
		}
		r.acquireModel(e, id)
		// A sender parked on the full buffer now moves its value in, as in the Go runtime:
		// it sends into the slot this receive freed as it resumes.
		if w, wc := r.parked(st, true); w != nil && n == st.cap {
			w.selected = wc
			w.real = realSend
			r.resumeG(w)
		}
		return v, ok, true
	}
	if w, wc := r.parked(st, true); w != nil {
		e := r.record(g, OpRecv, id)
		r.acquireModel(e, id)
		v := w.sendValueCase(wc)
		w.selected = wc
		r.resumeG(w)
		return v, true, true
	}
	if st.closed {
		e := r.record(g, OpRecv, id)
		v, ok, _ := st.ops.tryRecv() // the real receive acquires what the close released
		r.acquireModel(e, id)
		return v, ok, true
	}
	if st.foreign {
		if v, ok, got := st.ops.tryRecv(); got {
			r.record(g, OpRecv, id)
			return v, ok, true
		}
	}
	return nil, false, false
}

// panicIfClosed raises, in g, the panic of a parked send whose channel was closed.
// A realHalf is the half of a buffered channel's operation left to the goroutine that waited.
type realHalf uint8

const (
	realNone realHalf = iota
	realSend          // send the value into the slot that the partner's receive freed
	realRecv          // receive the value the partner sent into the buffer, or see the close
)

// realHalf does on the real channel the half of g's completed operation that its partner
// left to it, so that the race detector sees g make it (race.go): v is the value of a send.
//
//go:norace
func (g *goroutine) realHalf(st *chanState, v any) {
	switch g.real {
	case realSend:
		st.ops.trySend(v)
	case realRecv:
		g.recv, g.recvOK, _ = st.ops.tryRecv()
	}
	g.real = realNone
}

//go:norace
func (g *goroutine) panicIfClosed() {
	if msg := g.panicMsg; msg != "" {
		g.panicMsg = ""
		panic(plainError(msg))
	}
}

//go:norace
func (w *goroutine) sendValueCase(c int) any {
	if w.op.kind == OpSelect {
		return w.op.cases[c].val
	}
	return w.op.val
}

// internal reports a violation of heddle's own invariants.
//
//go:norace
func (r *run) internal(g *goroutine, msg string) {
	r.fail(VerdictInternal, "heddle internal error: "+msg, g, nil)
	r.block(g)
}

// plainError is the panic value of channel misuse, formatted as the Go runtime formats its own.
type plainError string

//go:norace
func (e plainError) Error() string { return string(e) }

//go:norace
func (e plainError) RuntimeError() {}
