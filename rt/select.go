package rt

import (
	"reflect"
	"time"
)

// Case is one case of a select statement, made by SendCase or RecvCase.
type Case struct {
	send bool
	ops  chanOps
	val  any
	st   *chanState
}

// SendCase is the case `case ch <- v`.
func SendCase[T any](ch chan<- T, v T) Case {
	return Case{send: true, ops: typedChan[T]{bidi[T](ch)}, val: v}
}

// RecvCase is the case `case <-ch` (and its assigning forms).
func RecvCase[T any](ch <-chan T) Case {
	return Case{ops: typedChan[T]{bidi[T](ch)}}
}

// Recvd converts the value received by a select case on ch to the channel's element type.
func Recvd[T any](_ <-chan T, v any) T {
	if v == nil {
		var z T
		return z
	}
	return v.(T)
}

// Select runs a select statement. It returns the index of the case that fired (-1 for
// default) and, for a receive case, the value received and whether it was sent rather than
// the zero value of a closed channel. Which of several ready cases fires is a decision.
func Select(hasDefault bool, cases ...Case) (chosen int, recv any, recvOK bool) {
	r, g := current()
	if r == nil {
		return selectReal(hasDefault, cases)
	}
	obj := NoObj
	for i := range cases {
		c := &cases[i]
		c.st = stateOf(r, c.ops)
		if id := r.chanObj(c.st, g); obj == NoObj {
			obj = id
		}
	}
	g.op = op{kind: OpSelect, obj: obj, cases: cases, block: !hasDefault}
	r.yield(g)
	if g.done {
		i := g.selected
		if cases[i].send {
			return i, nil, false
		}
		return i, g.recv, g.recvOK
	}
	if g.op.polled {
		i := g.op.pollIdx
		r.record(g, opFor(cases[i].send), r.chanObj(cases[i].st, g))
		r.selectObjs(cases)
		return i, g.op.pollV, g.op.pollOK
	}
	alts := r.alts[:0]
	for i := range cases {
		if r.caseReady(g, &cases[i]) {
			alts = append(alts, Alt{G: g.id, Op: opFor(cases[i].send), Obj: cases[i].st.obj.id, Case: i})
		}
	}
	// A partner stopped before its blocking operation may not have parked yet, and only a
	// parked partner makes a case ready in Go: when no case is ready on its own, default is a
	// possible outcome too.
	if hasDefault && len(alts) > 0 && !selfReady(g) {
		alts = append(alts, Alt{G: g.id, Op: OpSelect, Obj: NoObj, Case: -1})
	}
	r.alts = alts
	switch len(alts) {
	case 0:
		chosen = -1
	case 1:
		chosen = alts[0].Case
	default:
		k := r.choose(DecideSelect, alts, -1)
		if k < 0 {
			r.block(g)
		}
		chosen = alts[k].Case
	}
	if chosen < 0 {
		r.record(g, OpSelect, NoObj)
		r.selectObjs(cases)
		return -1, nil, false
	}
	c := &cases[chosen]
	if c.send {
		r.execSend(g, c.st, c.val, chosen)
		r.selectObjs(cases)
		return chosen, nil, false
	}
	v, ok := r.execRecv(g, c.st, chosen)
	r.selectObjs(cases)
	return chosen, v, ok
}

// selectObjs makes the step of a select touch every channel it looked at: the case that did
// not fire was read too (it was not ready), so the step depends on all of them.
func (r *run) selectObjs(cases []Case) {
	e := &r.events[len(r.events)-1]
	for _, c := range cases {
		if c.st != nil {
			e.Objs = append(e.Objs, c.st.obj.id)
		}
	}
}

func opFor(send bool) OpKind {
	if send {
		return OpSend
	}
	return OpRecv
}

// caseReady reports whether case c of g's select can proceed now without polling.
func (r *run) caseReady(g *goroutine, c *Case) bool {
	st := c.st
	switch {
	case st == nil:
		return false
	case st.closed:
		return true
	case c.send:
		if st.ops.length() < st.cap {
			return true
		}
	case st.ops.length() > 0:
		return true
	}
	w, _ := r.partner(g, st, !c.send)
	return w != nil
}

// pollForeign tries g's pending operation on foreign channels without blocking. A success has
// already happened in the real channel, so its result is kept for when g is scheduled.
func (r *run) pollForeign(g *goroutine) bool {
	o := &g.op
	if o.polled {
		return true
	}
	switch o.kind {
	case OpSend:
		o.polled = o.ch.ops.trySend(o.val)
	case OpRecv:
		if v, ok, got := o.ch.ops.tryRecv(); got {
			o.polled, o.pollV, o.pollOK = true, v, ok
		}
	case OpSelect:
		for i, c := range o.cases {
			if c.st == nil || !c.st.foreign {
				continue
			}
			if c.send {
				o.polled = c.st.ops.trySend(c.val)
			} else if v, ok, got := c.st.ops.tryRecv(); got {
				o.polled, o.pollV, o.pollOK = true, v, ok
			}
			if o.polled {
				o.pollIdx = i
				break
			}
		}
	}
	return o.polled
}

// waitForeign is called when no goroutine can run. If some wait to receive from foreign
// channels, it waits for one of those channels in real time, up to cfg.ForeignWait, and
// reports whether one became ready.
func (r *run) waitForeign() bool {
	for _, w := range r.gs {
		if w.state == gPending && (w.op.kind == OpRecv || w.op.kind == OpSelect) {
			return r.waitForeignSlow()
		}
	}
	return false
}

// waitForeignSlow is kept out of line: its frame is large, and goroutine stacks are small.
//
//go:noinline
func (r *run) waitForeignSlow() bool {
	var cases []reflect.SelectCase
	var who []*goroutine
	var idx []int
	add := func(w *goroutine, i int, st *chanState) {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(st.ops.chanValue())})
		who = append(who, w)
		idx = append(idx, i)
	}
	for _, w := range r.gs {
		if w.state != gPending {
			continue
		}
		switch w.op.kind {
		case OpRecv:
			if w.op.ch != nil && w.op.ch.foreign {
				add(w, -1, w.op.ch)
			}
		case OpSelect:
			for i, c := range w.op.cases {
				if c.st != nil && c.st.foreign && !c.send {
					add(w, i, c.st)
				}
			}
		}
	}
	if len(cases) == 0 {
		return false
	}
	timeout := time.NewTimer(r.cfg.ForeignWait)
	defer timeout.Stop()
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timeout.C)})
	i, v, ok := reflect.Select(cases)
	if i == len(cases)-1 {
		return false
	}
	w := who[i]
	w.op.polled, w.op.pollV, w.op.pollOK = true, v.Interface(), ok
	if idx[i] >= 0 {
		w.op.pollIdx = idx[i]
	}
	return true
}

// selectReal runs a select outside a run, with the real Go semantics.
func selectReal(hasDefault bool, cases []Case) (int, any, bool) {
	sc := make([]reflect.SelectCase, 0, len(cases)+1)
	for _, c := range cases {
		ch := reflect.ValueOf(c.ops.chanValue())
		if c.send {
			v := reflect.ValueOf(c.val)
			if c.val == nil {
				v = reflect.Zero(ch.Type().Elem())
			}
			sc = append(sc, reflect.SelectCase{Dir: reflect.SelectSend, Chan: ch, Send: v})
		} else {
			sc = append(sc, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: ch})
		}
	}
	if hasDefault {
		sc = append(sc, reflect.SelectCase{Dir: reflect.SelectDefault})
	}
	i, v, ok := reflect.Select(sc)
	if hasDefault && i == len(cases) {
		return -1, nil, false
	}
	var x any
	if v.IsValid() {
		x = v.Interface()
	}
	return i, x, ok
}
