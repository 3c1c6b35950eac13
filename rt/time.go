package rt

import (
	"container/heap"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Virtual time starts at a fixed instant, so that replays print the same times, and an
// unremarkable one, as a real clock's reading is: no boundary of a second, minute, hour, day,
// month or year, and no daylight-saving change near it. It was midnight of January 1st, when
// robfig/cron's TestJob runs the jobs it schedules for January 1st at 00:00:01 "to never fire":
// a second job's run took its WaitGroup below zero in every schedule, where go test passes.
var clockBase = time.Date(2025, 6, 18, 14, 27, 36, 518043219, time.UTC)

// TimeModel says when the virtual clock may advance.
type TimeModel uint8

const (
	// TimeQuantum, the default, is Go's time: it passes while goroutines work. Outside a
	// synctest bubble, every step, and every reading of the clock, moves the clock on by the
	// quantum (Config.Quantum), about what a step of real Go costs. A timer whose deadline has
	// passed is then an enabled alternative at every later decision: the clock's step fires
	// it, and when that happens is a choice of the strategy like any other, never before the
	// deadline. A 1 ns timer therefore fires in the middle of other goroutines' work, as in
	// Go, and a 2 s guard around a millisecond of work never does. When every goroutine waits,
	// the clock jumps to the next deadline as under TimeSynctest; inside a bubble, TimeSynctest
	// holds exactly (docs/time.md).
	TimeQuantum TimeModel = iota
	// TimeSynctest is the time of Go's testing/synctest (Go 1.25): the clock advances only when
	// every goroutine is durably blocked, and then jumps to the next deadline. A timeout
	// therefore beats a piece of work only where that work itself waits: it sleeps, waits on a
	// timer, or blocks on something that only the clock will release. A goroutine is durably
	// blocked when it waits on an object of the run: a channel made by instrumented code, a
	// mutex, a WaitGroup, a Cond, a sleep. Go's synctest does not count a blocked Lock, since
	// a goroutine outside the bubble could unlock it; under heddle every holder is a goroutine
	// of the run, so a Lock is durable too. A goroutine waiting on a channel heddle did not
	// make (a foreign channel, such as the Done channel of a context from uninstrumented code)
	// is not durably blocked: before the clock advances, heddle waits for such channels in
	// real time, for as long as the next deadline is away (at most Config.ForeignWait).
	//
	// When every goroutine is blocked and no timer would wake one (a ticker nobody reads), the
	// clock does not advance: the goroutines are blocked for ever, as in synctest. Timers due
	// at the same instant fire in one step of the clock, in the order they were set; the
	// goroutines they wake then race as in Go: each runs only to its next scheduling point, and
	// the order of their following steps is a decision like any other.
	TimeSynctest
	// TimeAdversarial lets the clock advance at any step while a timer is set, so a timeout may
	// fire before work that does not wait at all: the work would have to run longer than the
	// timeout. A bug found so names the goroutines that were still running (Verdict.Timing).
	TimeAdversarial
)

// DefaultQuantum is how far a step moves the clock under TimeQuantum: the cost of a cheap
// synchronization operation in real Go (BENCHMARKS.md measures them: an uncontended Lock and
// Unlock, a buffered send and receive, an atomic add take from 5 to 40 ns on this project's
// machines; a hand-off between goroutines takes hundreds). The lower end is taken, so that a
// timer fires no earlier, in steps, than the fastest real program could reach it.
const DefaultQuantum = 10 * time.Nanosecond

var timeModelNames = [...]string{TimeQuantum: "quantum", TimeSynctest: "synctest", TimeAdversarial: "adversarial"}

//go:norace
func (m TimeModel) String() string {
	if int(m) < len(timeModelNames) {
		return timeModelNames[m]
	}
	return "time(" + strconv.Itoa(int(m)) + ")"
}

// ParseTimeModel is the inverse of TimeModel.String; the empty string is TimeQuantum.
//
//go:norace
func ParseTimeModel(s string) (TimeModel, error) {
	if s == "" {
		return TimeQuantum, nil
	}
	for i, n := range timeModelNames {
		if n == s {
			return TimeModel(i), nil
		}
	}
	return 0, fmt.Errorf("unknown time model %q (want quantum, synctest or adversarial)", s)
}

// MarshalText and UnmarshalText carry a TimeModel by name (on the wire, in launch
// configurations).
//
//go:norace
func (m TimeModel) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

//go:norace
func (m *TimeModel) UnmarshalText(b []byte) error {
	v, err := ParseTimeModel(string(b))
	*m = v
	return err
}

// clockEnabled reports whether the clock's step is an alternative now. others tells whether
// some goroutine can run, working whether one of those is not spinning (goroutine.spinning).
//
// Under synctest time, goroutines that only spin (a Gosched or select-default loop waiting
// for a flag that a timer sets) are not durably blocked, and testing/synctest itself would
// hang on them; but outside a bubble real time passes while they spin, and the test
// terminates under go test. So the clock may advance while every goroutine that can run is
// spinning, to any pending timer: fairness then makes the spinners let it step.
//
//go:norace
func (r *run) clockEnabled(others, working bool) bool {
	if !r.clock.pending() || r.bubbleStopped() {
		return false
	}
	next := r.clock.timers[0].when
	if r.rootDone() && next > r.window {
		// The test has returned, and its window ends before this timer would fire.
		return false
	}
	switch {
	case r.cfg.Time == TimeAdversarial:
		// Fairness: while a goroutine can run, the clock advances at most once between two
		// of its steps; otherwise a schedule could let time run forever and starve every
		// goroutine.
		return !others || !r.clockLast
	case r.cfg.Time == TimeQuantum && r.bubble == nil && next <= r.clock.now:
		return true // a timer is due
	case working:
		return false
	}
	return others || r.clockWakes()
}

// timeoutAgainstWork reports, for the timeout search (Config.Timeout), whether the clock may
// step now: when no goroutine can run, when the next timer is due anyway, or when a timer of
// the timeout is pending and a goroutine other than the one that set it can run. A step early
// makes every goroutine that can run a goroutine that did not reach its next wait in time, and
// one whose work since its last wait would then have taken more than timeoutLongest is a
// machine that stopped: robfig/cron's tests fired a 0.48 s and then a 1 s timer while the
// test's goroutine, which had never waited, could run, and ran a job twice, which go test
// never does.
//
//go:norace
func (r *run) timeoutAgainstWork(alts []Alt) bool {
	if len(alts) == 0 || r.clock.timers[0].when <= r.clock.now {
		return true
	}
	for _, a := range alts {
		if a.G != ClockID && r.clock.timers[0].when-r.gOf(a.G).working >= int64(timeoutLongest) {
			return false
		}
	}
	for _, t := range r.clock.timers {
		if t.target && t.creator != nil && slices.ContainsFunc(alts, func(a Alt) bool { return a.G != t.creator.id }) {
			return true
		}
	}
	return false
}

// clockWakes reports whether some timer, when it fires, unblocks a goroutine: synctest's time
// advances only "to the next time that will unblock at least one goroutine". Without one (a
// ticker nobody reads), the goroutines are blocked for ever.
//
//go:norace
func (r *run) clockWakes() bool {
	for _, t := range r.clock.timers {
		switch t.kind {
		case timerSleep, timerFunc:
			return true
		case timerChan:
			if w, _ := r.parked(t.st, false); w != nil {
				return true
			}
		}
	}
	return false
}

// An early fire is a timer that the adversarial clock fired while goroutines could still run.
type earlyFire struct {
	step  int32 // the clock's step
	at    int64 // the virtual time it fired at, since the run began
	dur   int64
	set   int32 // the step that set the timer
	alive []GID // the goroutines that could run
}

// noteEarly records that t fires at the current step, which the clock took while the
// alternatives r.alts could run.
//
//go:norace
func (r *run) noteEarly(t *timer) {
	f := earlyFire{step: int32(len(r.events) - 1), at: r.clock.now, dur: t.dur, set: t.set}
	for _, a := range r.alts {
		if a.G != ClockID {
			f.alive = append(f.alive, a.G)
		}
	}
	r.early = append(r.early, f)
}

// timing explains, for a bug found with adversarial time or time that passes with work, each
// timer that fired while goroutines could still run: those goroutines would have had to run,
// without waiting, for longer than the timer's duration.
//
//go:norace
func (r *run) timing() []string {
	prefix := ""
	switch {
	case r.cfg.Timeout != "":
		prefix = "in the timeout search, "
	case r.cfg.Time == TimeAdversarial:
		prefix = "with adversarial time, "
	}
	var out []string
	// The last fires, nearest the bug: a ticker may have fired thousands of times before.
	for _, f := range r.early[max(0, len(r.early)-timingFires):] {
		what := prefix + "the timer of " + time.Duration(f.dur).String()
		if f.set >= 0 {
			what += " set at " + r.stepPos(f.set)
		}
		when := ""
		if r.cfg.Time == TimeQuantum {
			when = fmt.Sprintf(" at %v of virtual time,", time.Duration(f.at))
		}
		for _, id := range f.alive {
			g := r.gs[id.index()]
			if file, line, _ := Position(g.pc); r.cfg.Timeout != "" && g.state == gParked && file != "" && f.set >= 0 {
				// The timeout search's question, answered: the goroutine the timer beat
				// blocks where it would have handed over its work.
				out = append(out, fmt.Sprintf("if the timer of %v set at %s fires before %s reaches %s:%d, %s blocks there forever (%s)",
					time.Duration(f.dur), r.stepPos(f.set), r.gname(g), filepath.Base(file), line, r.gname(g), r.awakeSince(g, f.step)))
				continue
			}
			out = append(out, fmt.Sprintf("%s fired%s while %s was still running (%s)", what, when, r.gname(g), r.awakeSince(g, f.step)))
		}
	}
	return out
}

// timingFires is how many of the last timers that fired while goroutines worked a bug's
// report explains.
const timingFires = 3

// awakeSince says since when goroutine g had run without waiting, before step.
//
//go:norace
func (r *run) awakeSince(g *goroutine, step int32) string {
	for i := step - 1; i >= 0; i-- {
		e := &r.events[i]
		if e.Child == g.id {
			return "it had not waited since it was started at " + r.stepPos(i)
		}
		for _, p := range e.Partners {
			if p.G == g.id {
				if e.G == ClockID {
					return "it had not waited since its " + p.Op.String() + " ended at the previous tick of the clock"
				}
				return fmt.Sprintf("it had not waited since %s completed its %s at %s", r.gname(r.gs[e.G.index()]), p.Op, r.stepPos(i))
			}
		}
	}
	return "it had never waited"
}

// stepPos is the short position (file:line) of step i, or the step's number when unknown.
//
//go:norace
func (r *run) stepPos(i int32) string {
	file, line, _ := Position(r.events[i].PC)
	if file == "" {
		return "step " + strconv.Itoa(int(i))
	}
	return filepath.Base(file) + ":" + strconv.Itoa(line)
}

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
	dur     int64 // the duration it was last set for
	set     int32 // the step that last set it
	period  int64 // tickers
	seq     uint64
	index   int // in the heap, -1 when not scheduled
	active  bool
	g       *goroutine // timerSleep: the sleeper
	st      *chanState // timerChan: the channel C
	c       chan time.Time
	f       func() // timerFunc
	creator *goroutine
	// target tells a timer of the timeout that the timeout search asks about (Config.Timeout).
	target bool
}

type clock struct {
	// mono is the monotonic reading of the run's start (monoBase).
	mono int64
	now  int64
	// read is how far readings of the clock have moved it on (Now): it is added to what the
	// program reads, not to the time timers fall due at, so timers set at one instant stay
	// due together, and a timer still never fires before the reading it was set after plus
	// its duration, since read only grows.
	read   int64
	seq    uint64
	timers timerHeap
	// worked is how far work moved now on (TimeQuantum): the quantum of each step and reading,
	// without the clock's own jumps to a timer. shortest is the shortest duration of a timer
	// set in the run, -1 if none was.
	worked, shortest int64
	// due holds the objects the clock's next step touches (clockObjs) while dueValid: a
	// decision offers the clock with them, and tens of thousands of sleepers due at once
	// would otherwise be listed again at every decision. dueWhen is their deadline.
	due      []ObjID
	dueWhen  int64
	dueValid bool
}

// push adds timer t to the heap, and to the objects of the next step if it falls due with
// them.
//
//go:norace
func (c *clock) push(t *timer) {
	heap.Push(&c.timers, t)
	switch {
	case !c.dueValid:
	case t.when < c.dueWhen:
		c.dueValid = false
	case t.when == c.dueWhen:
		c.due = t.appendObjs(c.due)
	}
}

// appendObjs appends the objects that firing t touches: the timer and its channel.
//
//go:norace
func (t *timer) appendObjs(objs []ObjID) []ObjID {
	objs = append(objs, t.obj.id)
	if t.st != nil {
		objs = append(objs, t.st.obj.id)
	}
	return objs
}

// reach reports whether a timer set in the run was short enough for the run's work to make it
// due (Result.TimerReach).
//
//go:norace
func (c *clock) reach() bool { return c.shortest >= 0 && c.shortest <= c.worked }

//go:norace
func (c *clock) pending() bool { return len(c.timers) > 0 }

type timerHeap []*timer

//go:norace
func (h timerHeap) Len() int { return len(h) }

//go:norace
func (h timerHeap) Less(i, j int) bool {
	if h[i].when != h[j].when {
		return h[i].when < h[j].when
	}
	return h[i].seq < h[j].seq
}

//go:norace
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

//go:norace
func (h *timerHeap) Push(x any) { t := x.(*timer); t.index = len(*h); *h = append(*h, t) }

//go:norace
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

//go:norace
func (r *run) schedule(t *timer, d time.Duration) {
	raceRelease(t.obj.id) // setting a timer happens before it fires
	if d < 0 {
		d = 0
	}
	r.clock.seq++
	t.when, t.seq, t.active = after(r.clock.now, int64(d)), r.clock.seq, true
	t.dur, t.set = int64(d), int32(len(r.events)-1)
	if r.clock.shortest < 0 || t.dur < r.clock.shortest {
		r.clock.shortest = t.dur
	}
	if t.kind != timerSleep && t.dur < int64(timeoutLongest) && (r.cfg.TimerSites || r.cfg.Timeout != "") {
		r.noteSite(t)
	}
	r.clock.push(t)
}

// after is the time d after now, saturated at the largest time as Go's runtime saturates a
// timer's when: a timer set for time.Duration(math.MaxInt64), the usual "no deadline", is due
// at the end of time and not, wrapped around, in the past.
//
//go:norace
func after(now, d int64) int64 {
	if t := now + d; t >= now {
		return t
	}
	return math.MaxInt64
}

// timeoutLongest bounds the timers the timeout search asks about, and the work without a wait
// it lets them beat: both stay under it. Firing a timer first is the question of a machine that
// stalls a goroutine that could run for as long: tests' guards of 10 ms to a few hundred
// time out on loaded CI machines, but a goroutine delayed for a second is rare enough that
// tests rely on it: robfig/cron's, whose every-second jobs a stall of a second runs twice,
// pass under go test -race at a load of 10, and a goroutine delayed for 10 s needs a
// machine that has stopped. clockwork's TestMyFunc waits up to 10 s for a goroutine that is
// about to sleep on its fake clock, and then advances the clock: firing that timeout first
// deadlocks it, which go test -race -count=200 never showed.
const timeoutLongest = time.Second

// noteSite records where the program set t, for the timeout search: a timer that a goroutine
// may wait for. A sleep is not one; its end early is not a timeout.
//
//go:norace
func (r *run) noteSite(t *timer) {
	site := callerSite()
	t.target = site != "" && site == r.cfg.Timeout
	if r.cfg.TimerSites && site != "" && !slices.Contains(r.timerSites, site) {
		r.timerSites = append(r.timerSites, site)
	}
}

//go:norace
func (r *run) unschedule(t *timer) bool {
	if !t.active || t.index < 0 {
		t.active = false
		return false
	}
	heap.Remove(&r.clock.timers, t.index)
	r.clock.dueValid = false
	t.active = false
	return true
}

// clockObjs lists the objects touched by the clock's next step: the timers due at the next
// deadline and their channels.
//
//go:norace
func (r *run) clockObjs() []ObjID {
	c := &r.clock
	if !c.dueValid {
		c.due = append(c.due[:0], ClockObj)
		c.dueWhen, c.dueValid = c.timers[0].when, true
		c.due = c.timers.appendDue(c.due, 0)
	}
	return c.due[:len(c.due):len(c.due)]
}

// appendDue appends the objects of the timers of the subheap at i that fall due with the
// heap's first: by the heap's order, they are the subheap's root and the children of each.
//
//go:norace
func (h timerHeap) appendDue(objs []ObjID, i int) []ObjID {
	if i >= len(h) || h[i].when != h[0].when {
		return objs
	}
	objs = h[i].appendObjs(objs)
	objs = h.appendDue(objs, 2*i+1)
	return h.appendDue(objs, 2*i+2)
}

// fireClock performs the clock's step: time advances to the next deadline and every timer due
// then fires, in the order the timers were set.
//
//go:norace
func (r *run) fireClock() {
	next := r.clock.timers[0].when
	r.clock.now = max(r.clock.now, next)
	e := r.record(clockG, OpClock, NoObj)
	if r.ended {
		return // the step bound: see Go
	}
	e.Objs = append(e.Objs, ClockObj)
	early := r.cfg.Detail && len(r.alts) > 1 && (r.cfg.Time == TimeAdversarial || r.cfg.Time == TimeQuantum && r.bubble == nil)
	r.clock.dueValid = false
	for len(r.clock.timers) > 0 && r.clock.timers[0].when == next {
		t := heap.Pop(&r.clock.timers).(*timer)
		t.active = false
		if early {
			r.noteEarly(t)
		}
		e = &r.events[len(r.events)-1]
		e.Objs = t.appendObjs(e.Objs)
		switch t.kind {
		case timerSleep:
			if t.g.state == gParked && t.g.op.kind == OpSleep {
				r.resumeG(t.g)
			}
		case timerChan:
			// Hidden from the race detector, as the clock's whole step: the receiver of the
			// tick acquires what setting the timer released (race.go).
			r.releaseModel(e, t.st.obj.id)
			r.deliverTick(t)
			if t.period > 0 {
				// A ticker that fell behind drops the ticks it missed, as Go's does.
				when := after(next, t.period)
				if when <= r.clock.now {
					when += (r.clock.now-when)/t.period*t.period + t.period
				}
				r.clock.seq++
				t.when, t.seq, t.active = when, r.clock.seq, true
				t.dur, t.set = t.period, int32(len(r.events)-1)
				r.clock.push(t)
			}
		case timerFunc:
			child := r.newG(t.creator, t.f)
			raceStartAfter(child, t.obj.id)
			r.accessGo(t.creator, child)
			e = &r.events[len(r.events)-1]
			e.Child = child.id
			r.resume = append(r.resume, child)
		}
	}
}

// deliverTick sends the current time on a timer's channel: to a waiting receiver directly, or
// into the one-element buffer; a tick that finds the buffer full is dropped, as in Go.
//
//go:norace
func (r *run) deliverTick(t *timer) {
	now := r.clock.instant()
	if g := t.creator; g != nil && g.bubble != nil {
		// A bubble's timer sends the bubble's time, which its goroutines compare with their
		// readings of time.Now.
		now = synctestBase.Add(time.Duration(r.clock.now - g.bubble.start))
	}
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

// readingTick is how far a reading of the clock moves it under TimeSynctest, outside a bubble:
// about what a reading of the real clock and a little work take. Much more would fail correct
// code that bounds its own overhead (ratelimit's TestUnlimited: a thousand Takes, each reading
// the clock, in under a millisecond). Under TimeQuantum a reading is work like a step, and
// moves the clock by the quantum.
const readingTick = 100 * time.Nanosecond

// Now returns the current virtual time (the real time outside a run). In a synctest bubble,
// time starts at midnight UTC 2000-01-01, as testing/synctest's does, and stands still while
// goroutines run. Outside a bubble, each call moves the clock on: code written for the real
// clock takes two readings to differ when work happened between them (a cache whose touched
// entry must expire later than before, an entry with a nanosecond's lifetime expired by the
// next look), and would fail on a clock that stands still, which no real machine has. The
// clock is the run's, so time stays monotonic across goroutines, and a replay of the same
// schedule reads the same times. Under TimeSynctest the readings do not move timers: two set
// at the same instant for the same duration still fall due together.
//
//go:norace
func Now() time.Time {
	if r := active; r != nil && r.cur.bubble == nil {
		if r.cfg.Time == TimeQuantum {
			r.clock.now += r.quantum
			r.clock.worked += r.quantum
		} else {
			r.clock.read += int64(readingTick)
		}
	}
	return Instant()
}

// Instant returns the virtual time as Now does, without moving the clock on: for heddle's own
// arithmetic on the deadlines a program gives (a context's, a connection's), so that a timeout
// of d sets a timer of exactly d, due with the program's other timers of d set then.
//
//go:norace
func Instant() time.Time {
	if r := active; r != nil {
		if b := r.cur.bubble; b != nil {
			return synctestBase.Add(time.Duration(r.clock.now - b.start))
		}
		return r.clock.instant()
	}
	return outside(time.Now())
}

// RealTime converts t, an instant of the virtual clock, into the real clock's instant as far
// from now, for a deadline that goes to the operating system: an *os.File's, or a real
// socket's that rt/net wraps. The virtual clock starts in 2025, so a deadline a second from
// its now is long past for the kernel, and a read would time out at once, failing correct
// code. The zero time (no deadline) stays zero; outside a run the two clocks are one.
//
//go:norace
func RealTime(t time.Time) time.Time {
	if t.IsZero() || active == nil {
		return t
	}
	return time.Now().Add(t.Sub(Instant()))
}

// Since returns the virtual time elapsed since t.
//
//go:norace
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Until returns the virtual duration until t.
//
//go:norace
func Until(t time.Time) time.Duration { return t.Sub(Now()) }

// Sleep pauses the goroutine for at least d of virtual time.
//
//go:norace
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
	r.atomicWait(g, fmt.Sprintf("sleeps for %v", d))
	r.park(g)
}

//go:norace
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

//go:norace
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
//
//go:norace
func NewTimer(d time.Duration) *Timer {
	if !Running() {
		rt := time.NewTimer(d)
		return &Timer{C: rt.C, real: rt}
	}
	t, c := newTimer(d, 0, nil)
	return &Timer{C: c, t: t}
}

// AfterFunc calls f in its own goroutine after d of virtual time.
//
//go:norace
func AfterFunc(d time.Duration, f func()) *Timer {
	if !Running() {
		return &Timer{real: time.AfterFunc(d, f)}
	}
	t, _ := newTimer(d, 0, f)
	return &Timer{t: t}
}

// After is NewTimer(d).C.
//
//go:norace
func After(d time.Duration) <-chan time.Time { return NewTimer(d).C }

// Stop prevents the timer from firing. As since Go 1.23, no stale value is received from C
// after Stop returns.
//
//go:norace
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
//
//go:norace
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

//go:norace
func (r *run) stopTimer(t *timer, g *goroutine) bool {
	id := r.timerObj(t, g)
	if t.st != nil {
		// A timer made in an earlier run (a package's) has its channel's object of that run:
		// the clock's step, which lists it, needs this run's.
		r.chanObj(t.st, g)
	}
	g.op = op{kind: OpTimer, obj: id}
	r.yield(g)
	r.timerEvent(g, OpTimer, id)
	was := r.unschedule(t)
	if t.c != nil {
		// Since Go 1.23 a value that fired but was not received is discarded, and the timer
		// counts as stopped before it fired (runtime's timer.stop: timerchandrain).
		select {
		case <-t.c:
			was = true
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
//
//go:norace
func NewTicker(d time.Duration) *Ticker {
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	if !Running() {
		rt := time.NewTicker(d)
		return &Ticker{C: rt.C, real: rt}
	}
	t, c := newTimer(d, d, nil)
	return &Ticker{C: c, t: t}
}

// Tick is NewTicker(d).C, or nil for d <= 0.
//
//go:norace
func Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return NewTicker(d).C
}

// Stop turns off the ticker.
//
//go:norace
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
//
//go:norace
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
//
//go:norace
func (r *run) timerEvent(g *goroutine, kind OpKind, id ObjID) {
	e := r.record(g, kind, id)
	e.Objs = append(e.Objs, id, ClockObj)
}
