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
	ofRun   bool   // made during a run: forgotten when the run ends
}

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

func (t typedChan[T]) tryRecv() (any, bool, bool) {
	select {
	case v, ok := <-t.c:
		return v, ok, true
	default:
		return nil, false, false
	}
}

func (t typedChan[T]) zero() any      { var z T; return z }
func (t typedChan[T]) length() int    { return len(t.c) }
func (t typedChan[T]) capacity() int  { return cap(t.c) }
func (t typedChan[T]) closeReal()     { close(t.c) }
func (t typedChan[T]) key() chanKey   { return chanPtr(t.c) }
func (t typedChan[T]) chanValue() any { return t.c }

var (
	chansMu sync.Mutex
	chans   = map[chanKey]*chanState{}
)

func chanPtr[C any](c C) chanKey { return *(*unsafe.Pointer)(unsafe.Pointer(&c)) }

// MakeChan makes a channel, like make(chan T, size).
func MakeChan[T any](size int) chan T {
	c := make(chan T, size)
	st := &chanState{cap: size, ops: typedChan[T]{c}}
	r := active
	chansMu.Lock()
	chans[chanPtr(c)] = st
	chansMu.Unlock()
	if r != nil && !r.aborted {
		st.ofRun = true
		r.chans = append(r.chans, chanPtr(c))
	}
	return c
}

func unregisterChan(k chanKey) {
	chansMu.Lock()
	delete(chans, k)
	chansMu.Unlock()
}

// stateOf returns the state of channel c (nil for a nil channel), registering a channel made
// outside instrumented code as foreign.
func stateOf(r *run, c chanOps) *chanState {
	k := c.key()
	if k == nil {
		return nil
	}
	chansMu.Lock()
	st := chans[k]
	if st == nil {
		st = &chanState{cap: c.capacity(), foreign: true, ops: c, ofRun: true}
		chans[k] = st
		r.chans = append(r.chans, k)
	}
	chansMu.Unlock()
	return st
}

func bidi[T any, C ~chan<- T | ~<-chan T](c C) chan T { return *(*chan T)(unsafe.Pointer(&c)) }

func (r *run) chanObj(st *chanState, g *goroutine) ObjID {
	if st == nil {
		return NoObj
	}
	id, _ := r.touch(&st.obj, ObjChan, g)
	return id
}

// Send sends v on ch, like ch <- v.
func Send[T any](ch chan<- T, v T) {
	r, g := current()
	if r == nil {
		ch <- v
		return
	}
	st := stateOf(r, typedChan[T]{bidi[T](ch)})
	g.op = op{kind: OpSend, obj: r.chanObj(st, g), ch: st, val: v}
	r.yield(g)
	if g.done {
		return
	}
	r.execSend(g, st, v, -1)
}

// Recv receives from ch, like <-ch.
func Recv[T any](ch <-chan T) T {
	v, _ := Recv2(ch)
	return v
}

// Recv2 receives from ch, like v, ok := <-ch.
func Recv2[T any](ch <-chan T) (T, bool) {
	r, g := current()
	if r == nil {
		v, ok := <-ch
		return v, ok
	}
	st := stateOf(r, typedChan[T]{bidi[T](ch)})
	g.op = op{kind: OpRecv, obj: r.chanObj(st, g), ch: st}
	r.yield(g)
	var v any
	var ok bool
	if g.done {
		v, ok = g.recv, g.recvOK
	} else {
		v, ok = r.execRecv(g, st, -1)
	}
	if v == nil {
		var z T
		return z, ok
	}
	return v.(T), ok
}

// Close closes ch, like close(ch).
func Close[T any](ch chan<- T) {
	r, g := current()
	if r == nil {
		close(ch)
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
	r.release(e, id)
	// Goroutines blocked on the channel are not completed here, unlike in the Go runtime:
	// they become enabled and see the closed channel when they run. A goroutine stopped
	// before its operation may not have parked yet, and then it would choose among every
	// case ready by the time it does, so this keeps all of Go's behaviours.
	st.closed = true
	st.ops.closeReal()
}

// Len returns len(ch) for any channel value; it is a scheduling point.
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
func Cap(ch any) int { return reflect.ValueOf(ch).Cap() }

// waitsOn reports whether w is blocked in a channel operation on st: the select case index (-1
// for a plain send or receive) and whether it sends. It returns -2 when w does not wait on st.
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
		if !w.op.block {
			return -2, false
		}
		for i, c := range w.op.cases {
			if c.st == st {
				return i, c.send
			}
		}
	}
	return -2, false
}

// partner finds the goroutine other than g that has waited longest to receive (send false) or
// send (send true) on st and is blocked doing so: a receiver only blocks on an empty buffer, a
// sender on a full one.
func (r *run) partner(g *goroutine, st *chanState, send bool) (*goroutine, int) {
	if st == nil || st.closed {
		return nil, 0
	}
	n := st.ops.length()
	if send && n < st.cap || !send && n > 0 {
		return nil, 0
	}
	var best *goroutine
	bestCase := 0
	for _, w := range r.gs {
		if w == g || w.state != gPending {
			continue
		}
		i, s := r.waitsOnCase(w, st, send)
		if i < -1 || s != send {
			continue
		}
		if best == nil || w.since < best.since {
			best, bestCase = w, i
		}
	}
	return best, bestCase
}

// waitsOnCase is waitsOn restricted to cases of the given direction. A select with a case
// ready on its own (buffered data or room, a closed channel) is not waiting: in Go it would
// not park, so no partner can complete it.
func (r *run) waitsOnCase(w *goroutine, st *chanState, send bool) (int, bool) {
	if w.op.kind != OpSelect {
		return waitsOn(w, st)
	}
	if !w.op.block || selfReady(w) {
		return -2, false
	}
	for i, c := range w.op.cases {
		if c.st == st && c.send == send {
			return i, send
		}
	}
	return -2, false
}

// selfReady reports whether one of w's select cases can proceed without a partner.
func selfReady(w *goroutine) bool {
	for _, c := range w.op.cases {
		st := c.st
		if st != nil && (st.closed || c.send && st.ops.length() < st.cap || !c.send && st.ops.length() > 0) {
			return true
		}
	}
	return false
}

func (r *run) canSend(g *goroutine, st *chanState) bool {
	switch {
	case st == nil:
		return false
	case st.closed, st.ops.length() < st.cap:
		return true
	}
	if w, _ := r.partner(g, st, false); w != nil {
		return true
	}
	return st.foreign && r.pollForeign(g)
}

func (r *run) canRecv(g *goroutine, st *chanState) bool {
	switch {
	case st == nil:
		return false
	case st.closed, st.ops.length() > 0:
		return true
	}
	if w, _ := r.partner(g, st, true); w != nil {
		return true
	}
	return st.foreign && r.pollForeign(g)
}

// execSend performs g's send of v on st; c is the select case index or -1.
func (r *run) execSend(g *goroutine, st *chanState, v any, c int) {
	id := r.chanObj(st, g)
	e := r.record(g, OpSend, id)
	switch {
	case g.op.polled:
		return
	case st.closed:
		panic(plainError("send on closed channel"))
	}
	r.release(e, id)
	if w, wc := r.partner(g, st, false); w != nil {
		e.With = w.id
		w.recv, w.recvOK, w.selected = v, true, wc
		r.resumeG(w)
		return
	}
	if !st.ops.trySend(v) {
		r.internal(g, "send on a channel that was not ready")
	}
}

// execRecv performs g's receive from st and returns the value.
func (r *run) execRecv(g *goroutine, st *chanState, c int) (any, bool) {
	id := r.chanObj(st, g)
	e := r.record(g, OpRecv, id)
	if g.op.polled {
		return g.op.pollV, g.op.pollOK
	}
	if n := st.ops.length(); n > 0 {
		v, ok, _ := st.ops.tryRecv()
		r.acquire(e, id)
		// A sender blocked on the full buffer now moves its value in, as in the Go runtime.
		if w, _ := r.partnerFull(g, st); n == st.cap && w != nil {
			e.With = w.id
			st.ops.trySend(w.sendValue())
			r.resumeG(w)
		}
		return v, ok
	}
	if w, wc := r.partner(g, st, true); w != nil {
		e.With = w.id
		r.acquire(e, id)
		v := w.sendValueCase(wc)
		w.selected = wc
		r.resumeG(w)
		return v, true
	}
	if st.closed {
		r.acquire(e, id)
		return st.ops.zero(), false
	}
	r.internal(g, "receive from a channel that was not ready")
	return nil, false
}

// partnerFull finds a sender blocked on st's buffer, which has just lost one value.
func (r *run) partnerFull(g *goroutine, st *chanState) (*goroutine, int) {
	var best *goroutine
	bestCase := 0
	for _, w := range r.gs {
		if w == g || w.state != gPending {
			continue
		}
		i, s := r.waitsOnCase(w, st, true)
		if i < -1 || !s {
			continue
		}
		if best == nil || w.since < best.since {
			best, bestCase = w, i
		}
	}
	if best != nil {
		best.selected = bestCase
	}
	return best, bestCase
}

func (w *goroutine) sendValue() any { return w.sendValueCase(w.selected) }

func (w *goroutine) sendValueCase(c int) any {
	if w.op.kind == OpSelect {
		return w.op.cases[c].val
	}
	return w.op.val
}

// internal reports a violation of heddle's own invariants.
func (r *run) internal(g *goroutine, msg string) {
	r.fail(VerdictInternal, "heddle internal error: "+msg, g, nil)
	r.block(g)
}

// plainError is the panic value of channel misuse, formatted as the Go runtime formats its own.
type plainError string

func (e plainError) Error() string { return string(e) }
func (e plainError) RuntimeError() {}
