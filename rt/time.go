package rt

import (
	"container/heap"
	"time"
)

// Virtual time starts at a fixed instant, so that replays print the same times.
var clockBase = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

type timerKind uint8

const (
	timerSleep timerKind = iota
	timerChan
	timerFunc
)

type timer struct {
	obj     objState
	kind    timerKind
	when    int64 // virtual nanoseconds since clockBase
	period  int64 // tickers
	seq     uint64
	index   int // in the heap, -1 when not scheduled
	active  bool
	g       *goroutine // timerSleep: the sleeper
	st      *chanState // timerChan: the channel C
	c       chan time.Time
	f       func() // timerFunc
	creator *goroutine
}

type clock struct {
	now    int64
	seq    uint64
	timers timerHeap
}

func (c *clock) pending() bool { return len(c.timers) > 0 }

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].when != h[j].when {
		return h[i].when < h[j].when
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) { t := x.(*timer); t.index = len(*h); *h = append(*h, t) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

func (r *run) schedule(t *timer, d time.Duration) {
	raceRelease(t.obj.id) // setting a timer happens before it fires
	if d < 0 {
		d = 0
	}
	r.clock.seq++
	t.when, t.seq, t.active = r.clock.now+int64(d), r.clock.seq, true
	heap.Push(&r.clock.timers, t)
}

func (r *run) unschedule(t *timer) bool {
	if !t.active || t.index < 0 {
		t.active = false
		return false
	}
	heap.Remove(&r.clock.timers, t.index)
	t.active = false
	return true
}

// clockObjs lists the objects touched by the clock's next step: the timers due at the next
// deadline and their channels.
func (r *run) clockObjs() []ObjID {
	start := len(r.altObjs)
	r.altObjs = append(r.altObjs, ClockObj)
	next := r.clock.timers[0].when
	for _, t := range r.clock.timers {
		if t.when == next {
			r.altObjs = append(r.altObjs, t.obj.id)
			if t.st != nil {
				r.altObjs = append(r.altObjs, t.st.obj.id)
			}
		}
	}
	return r.altObjs[start:len(r.altObjs):len(r.altObjs)]
}

// fireClock performs the clock's step: time advances to the next deadline and every timer due
// then fires, in the order the timers were set.
func (r *run) fireClock() {
	if r.rootDone() {
		r.afterRoot++
	}
	next := r.clock.timers[0].when
	r.clock.now = next
	e := r.record(clockG, OpClock, NoObj)
	e.Objs = append(e.Objs, ClockObj)
	for len(r.clock.timers) > 0 && r.clock.timers[0].when == next {
		t := heap.Pop(&r.clock.timers).(*timer)
		t.active = false
		e = &r.events[len(r.events)-1]
		e.Objs = append(e.Objs, t.obj.id)
		if t.st != nil {
			e.Objs = append(e.Objs, t.st.obj.id)
		}
		switch t.kind {
		case timerSleep:
			if t.g.state == gParked && t.g.op.kind == OpSleep {
				r.resumeG(t.g)
			}
		case timerChan:
			r.release(e, t.st.obj.id)
			r.deliverTick(t)
			if t.period > 0 {
				r.clock.seq++
				t.when, t.seq, t.active = next+t.period, r.clock.seq, true
				heap.Push(&r.clock.timers, t)
			}
		case timerFunc:
			child := r.newG(t.creator, t.f)
			raceStartAfter(child, t.obj.id)
			e = &r.events[len(r.events)-1]
			e.Child = child.id
			r.resume = append(r.resume, child)
		}
	}
}

// deliverTick sends the current time on a timer's channel: to a waiting receiver directly, or
// into the one-element buffer; a tick that finds the buffer full is dropped, as in Go.
func (r *run) deliverTick(t *timer) {
	now := clockBase.Add(time.Duration(r.clock.now))
	if w, wc := r.parked(t.st, false); w != nil {
		w.recv, w.recvOK, w.selected = now, true, wc
		r.resumeG(w)
		return
	}
	select {
	case t.c <- now:
	default:
	}
}

// Now returns the current virtual time (the real time outside a run).
func Now() time.Time {
	if r := active; r != nil {
		return clockBase.Add(time.Duration(r.clock.now))
	}
	return time.Now()
}

// Since returns the virtual time elapsed since t.
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Until returns the virtual duration until t.
func Until(t time.Time) time.Duration { return t.Sub(Now()) }

// Sleep pauses the goroutine for at least d of virtual time.
func Sleep(d time.Duration) {
	r, g := current()
	if r == nil {
		time.Sleep(d)
		return
	}
	if d <= 0 {
		Gosched()
		return
	}
	t := &timer{kind: timerSleep, g: g, index: -1}
	id := r.timerObj(t, g)
	g.op = op{kind: OpTimer, obj: id}
	r.yield(g)
	r.timerEvent(g, OpSleep, id)
	r.schedule(t, d)
	g.op = op{kind: OpSleep, obj: id}
	r.park(g)
}

func (r *run) timerObj(t *timer, g *goroutine) ObjID {
	id, _ := r.touch(&t.obj, ObjTimer, g)
	return id
}

// Timer is time.Timer on the virtual clock.
type Timer struct {
	C    <-chan time.Time
	t    *timer
	real *time.Timer
}

func newTimer(d, period time.Duration, f func()) (*timer, chan time.Time) {
	r, g := current()
	t := &timer{kind: timerChan, period: int64(period), index: -1, creator: g}
	var c chan time.Time
	if f != nil {
		t.kind, t.f = timerFunc, f
	} else {
		c = MakeChan[time.Time](1)
		t.c = c
		t.st = stateOf(r, typedChan[time.Time]{c})
		t.st.timer = t
	}
	id := r.timerObj(t, g)
	if t.st != nil {
		r.chanObj(t.st, g)
	}
	g.op = op{kind: OpTimer, obj: id}
	r.yield(g)
	r.timerEvent(g, OpTimer, id)
	r.schedule(t, d)
	return t, c
}

// NewTimer creates a Timer that sends the virtual time on its channel after d.
func NewTimer(d time.Duration) *Timer {
	if active == nil {
		rt := time.NewTimer(d)
		return &Timer{C: rt.C, real: rt}
	}
	t, c := newTimer(d, 0, nil)
	return &Timer{C: c, t: t}
}

// AfterFunc calls f in its own goroutine after d of virtual time.
func AfterFunc(d time.Duration, f func()) *Timer {
	if active == nil {
		return &Timer{real: time.AfterFunc(d, f)}
	}
	t, _ := newTimer(d, 0, f)
	return &Timer{t: t}
}

// After is NewTimer(d).C.
func After(d time.Duration) <-chan time.Time { return NewTimer(d).C }

// Stop prevents the timer from firing. As since Go 1.23, no stale value is received from C
// after Stop returns.
func (t *Timer) Stop() bool {
	if t.real != nil {
		return t.real.Stop()
	}
	r, g := current()
	if r == nil || t.t == nil {
		return false
	}
	return r.stopTimer(t.t, g)
}

// Reset changes the timer to expire after d, reporting whether it had been active.
func (t *Timer) Reset(d time.Duration) bool {
	if t.real != nil {
		return t.real.Reset(d)
	}
	r, g := current()
	if r == nil || t.t == nil {
		return false
	}
	was := r.stopTimer(t.t, g)
	r.schedule(t.t, d)
	return was
}

func (r *run) stopTimer(t *timer, g *goroutine) bool {
	id := r.timerObj(t, g)
	g.op = op{kind: OpTimer, obj: id}
	r.yield(g)
	r.timerEvent(g, OpTimer, id)
	was := r.unschedule(t)
	if t.c != nil {
		select {
		case <-t.c:
		default:
		}
	}
	return was
}

// Ticker is time.Ticker on the virtual clock.
type Ticker struct {
	C    <-chan time.Time
	t    *timer
	real *time.Ticker
}

// NewTicker returns a Ticker that ticks every d of virtual time.
func NewTicker(d time.Duration) *Ticker {
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	if active == nil {
		rt := time.NewTicker(d)
		return &Ticker{C: rt.C, real: rt}
	}
	t, c := newTimer(d, d, nil)
	return &Ticker{C: c, t: t}
}

// Tick is NewTicker(d).C, or nil for d <= 0.
func Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return NewTicker(d).C
}

// Stop turns off the ticker.
func (t *Ticker) Stop() {
	if t.real != nil {
		t.real.Stop()
		return
	}
	if r, g := current(); r != nil && t.t != nil {
		r.stopTimer(t.t, g)
	}
}

// Reset stops the ticker and resets its period to d.
func (t *Ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	if t.real != nil {
		t.real.Reset(d)
		return
	}
	if r, g := current(); r != nil && t.t != nil {
		r.stopTimer(t.t, g)
		t.t.period = int64(d)
		r.schedule(t.t, d)
	}
}

// timerEvent records a step that sets or stops a timer: it touches the timer and the clock.
func (r *run) timerEvent(g *goroutine, kind OpKind, id ObjID) {
	e := r.record(g, kind, id)
	e.Objs = append(e.Objs, id, ClockObj)
}
