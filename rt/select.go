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
//
//go:norace
func SendCase[T any](ch chan<- T, v T) Case {
	return Case{send: true, ops: typedChan[T]{bidi[T](ch)}, val: v}
}

// RecvCase is the case `case <-ch` (and its assigning forms).
//
//go:norace
func RecvCase[T any](ch <-chan T) Case {
	return Case{ops: typedChan[T]{bidi[T](ch)}}
}

// Recvd converts the value received by a select case on ch to the channel's element type.
//
//go:norace
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
//
//go:norace
func Select(hasDefault bool, cases ...Case) (chosen int, recv any, recvOK bool) {
	r, g := current()
	if r == nil {
		if !hasDefault {
			initWait()
		}
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
	g.op = op{kind: OpSelect, obj: obj, cases: cases}
	r.yield(g)
	alts := r.alts[:0]
	for i := range cases {
		if r.caseReady(&cases[i]) {
			alts = append(alts, Alt{G: g.id, Op: opFor(cases[i].send), Obj: cases[i].st.obj.id, Case: i})
		}
	}
	r.alts = alts
	switch len(alts) {
	case 0:
		if hasDefault {
			r.record(g, OpSelect, NoObj)
			r.selectObjs(cases)
			r.poll(g)
			return -1, nil, false
		}
		r.parkOn(g)
		i := g.selected
		if cases[i].send {
			g.panicIfClosed()
			g.realHalf(cases[i].st, cases[i].val)
			return i, nil, false
		}
		g.realHalf(cases[i].st, nil)
		return i, g.recv, g.recvOK
	case 1:
		chosen = alts[0].Case
	default:
		k := r.choose(DecideSelect, alts, -1)
		if k < 0 {
			r.block(g)
		}
		chosen = alts[k].Case
	}
	c := &cases[chosen]
	if c.send {
		r.trySend(g, c.st, c.val, chosen)
		r.selectObjs(cases)
		return chosen, nil, false
	}
	v, ok, _ := r.tryRecv(g, c.st, chosen)
	r.selectObjs(cases)
	return chosen, v, ok
}

// selectObjs makes the step of a select touch every channel it looked at: the case that did
// not fire was read too (it was not ready), so the step depends on all of them.
//
//go:norace
func (r *run) selectObjs(cases []Case) {
	e := &r.events[len(r.events)-1]
	for _, c := range cases {
		if c.st != nil {
			e.Objs = append(e.Objs, c.st.obj.id)
		}
	}
}

//go:norace
func opFor(send bool) OpKind {
	if send {
		return OpSend
	}
	return OpRecv
}

// caseReady reports whether a select case can proceed now.
//
//go:norace
func (r *run) caseReady(c *Case) bool {
	if c.send {
		return r.sendReady(c.st)
	}
	return r.recvReady(c.st)
}

// pollForeign tries, without blocking, the operation of a goroutine parked on channels that
// heddle does not control. A success has already happened in the real channel: it completes
// the goroutine.
//
//go:norace
func (r *run) pollForeign(g *goroutine) bool {
	o := &g.op
	try := func(st *chanState, send bool, val any) (any, bool, bool) {
		if st == nil || !st.foreign {
			return nil, false, false
		}
		if send {
			return nil, false, st.ops.trySend(val)
		}
		return st.ops.tryRecv()
	}
	switch o.kind {
	case OpSend, OpRecv:
		if v, ok, got := try(o.ch, o.kind == OpSend, o.val); got {
			g.recv, g.recvOK, g.selected = v, ok, -1
			return true
		}
	case OpSelect:
		for i, c := range o.cases {
			if v, ok, got := try(c.st, c.send, c.val); got {
				g.recv, g.recvOK, g.selected = v, ok, i
				return true
			}
		}
	}
	return false
}

// pollParked completes the goroutines parked on foreign channels that became ready, and
// reports whether it completed any.
//
//go:norace
func (r *run) pollParked() bool {
	any := false
	for _, w := range r.gs {
		if w.state == gParked && w.op.kind != OpSleep && w.op.kind != OpCondWait && r.onForeign(w) && r.pollForeign(w) {
			r.resumeG(w)
			any = true
		}
	}
	return any
}

//go:norace
func (r *run) onForeign(w *goroutine) bool {
	switch w.op.kind {
	case OpSend, OpRecv:
		return w.op.ch != nil && w.op.ch.foreign
	case OpSelect:
		for _, c := range w.op.cases {
			if c.st != nil && c.st.foreign {
				return true
			}
		}
	}
	return false
}

// waitForeign is called when no goroutine can run. If some wait to receive from foreign
// channels, they are not durably blocked (see TimeSynctest): it waits for one of those
// channels in real time, up to cfg.ForeignWait, or less when the clock may advance: up to the
// next deadline, which the program would have waited for in real time too (with adversarial
// time, the clock advances at once). It reports whether one became ready, and resumed it.
//
//go:norace
func (r *run) waitForeign() bool {
	if !r.hasForeign {
		return false
	}
	for _, w := range r.gs {
		if w.state == gParked && r.onForeign(w) {
			limit := r.cfg.ForeignWait
			if r.clockEnabled(false, false) {
				if r.cfg.Time == TimeAdversarial {
					return false
				}
				limit = min(limit, time.Duration(r.clock.timers[0].when-r.clock.now))
			}
			return limit > 0 && r.waitForeignSlow(limit)
		}
	}
	return false
}

// A wait for foreign channels looks at them first after foreignPollFirst, then at twice the
// previous pause, up to foreignPollMax: a channel that becomes ready is seen at most that
// late.
const (
	foreignPollFirst = 10 * time.Microsecond
	foreignPollMax   = time.Millisecond
)

// waitForeignSlow is kept out of line: its frame is large, and goroutine stacks are small.
//
//go:noinline
//go:norace
func (r *run) waitForeignSlow(limit time.Duration) bool {
	var cases []reflect.SelectCase
	var who []*goroutine
	var idx []int
	add := func(w *goroutine, i int, st *chanState) {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(st.ops.chanValue())})
		who = append(who, w)
		idx = append(idx, i)
	}
	for _, w := range r.gs {
		if w.state != gParked {
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
	// The wait polls, sleeping between looks, rather than selecting on a timer's channel too:
	// it runs hidden from the race detector (next), and a timer set while hidden carries none
	// of the setter's history, so the detector took the timer's own reading of the clock, when
	// it fired, for a race with the time package's initialisation, and died reporting it from
	// the runtime's timer thread (ants: a segmentation fault of the worker). time.Sleep's timer
	// only readies the goroutine, which the detector does not see.
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectDefault})
	var i int
	var v reflect.Value
	var ok bool
	for start, pause := time.Now(), foreignPollFirst; ; pause = min(2*pause, foreignPollMax) {
		if i, v, ok = reflect.Select(cases); i != len(cases)-1 {
			break
		}
		left := limit - time.Since(start)
		if left <= 0 {
			return false
		}
		time.Sleep(min(pause, left))
	}
	w := who[i]
	w.recv, w.recvOK, w.selected = v.Interface(), ok, idx[i]
	r.resumeG(w)
	return true
}

// selectReal runs a select outside a run, with the real Go semantics.
//
//go:norace
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
