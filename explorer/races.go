package explorer

import (
	"slices"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// A race is a pair of dependent accesses of different goroutines (or of the clock) that
// happens-before does not order: the later one could have come first. early and late are the
// events of the two accesses; late is len(res.Events) for an operation still pending when the
// run ended. g is the goroutine of the later access (rt.ClockID for the clock).
type race struct {
	early, late int
	g           rt.GID
	op          rt.OpKind  // the later access
	objs        []rt.ObjID // valid only during the call
}

// access is one goroutine's last access to an object, kept for race detection. vc is the
// goroutine's clock just after the access.
type access struct {
	ev    int
	op    rt.OpKind
	count int32 // the access's index in its goroutine's program order
	vc    []int32
}

// objAccesses holds an object's happens-before summary: the clock of its last write, the join
// of the clocks of the reads since, and each goroutine's last access and last write.
type objAccesses struct {
	wclock, rclock []int32
	last, write    []access // by slot; count 0 for none
}

// raceFinder finds a run's races in one forward pass with vector clocks. For each access it
// looks back only at each other goroutine's last dependent access to the same objects: its
// last write for a read, its last access of any kind for a write. An earlier access of that
// goroutine is ordered before the last one by program order, so it races with the new access
// only through the last. The cost of a run is its number of accesses times the number of
// goroutines.
type raceFinder struct {
	n     int // slots: the run's goroutines, then the clock
	vc    [][]int32
	count []int32
	objs  []*objAccesses // by object id + objBase
	// immediate keeps only the races of Abdulla et al. (2014, §3): an access of goroutine q
	// that happens before another candidate's access is ordered through it, not a race.
	immediate bool
	cands     []*access
	candSlot  []int
	one       [1]rt.ObjID // an event's object as a slice, without allocating
	// deadline, if not zero, stops forEachRace at that time, with late set: the races of a
	// run of hundreds of thousands of steps take longer to find than the run took. work
	// counts the clock entries and candidates looked at since the time was last read: one
	// access of a run of thousands of goroutines can cost more than a thousand steps of a
	// small run, so the time is read by the work done, not by steps.
	deadline time.Time
	late     bool
	work     int
	// total is the work of the whole analysis, which the portfolio charges to DPOR's share.
	total int
	// tooLarge is set, and the analysis stopped, for a run whose goroutines and objects are
	// too many for the finder's clocks (maxRaceCells), or whose analysis takes more work than
	// limit.
	tooLarge bool
	limit    int
}

// maxRaceCells bounds a run's goroutines times its objects: the finder keeps, for each
// object, an access and a clock per goroutine. A run of ants' tests, with a hundred thousand
// goroutines each with a timer of its own, would need terabytes.
const maxRaceCells = 1 << 22

// maxWorkPerStep bounds the analysis's work by the run's steps. A step's cost grows with the
// goroutines that touched the same objects without order between them: two thousand
// goroutines that each sleep once took seconds per run.
const maxWorkPerStep = 1 << 16

// lateEvery is the work between two readings of the time (raceFinder.work): about a
// millisecond.
const lateEvery = 1 << 20

// over reports whether the deadline has passed, reading the time once lateEvery work was done.
func (rf *raceFinder) over() bool {
	if rf.late || rf.tooLarge {
		return true
	}
	if rf.work < lateEvery {
		return false
	}
	rf.total += rf.work
	rf.work = 0
	rt.Analysing()
	if rf.limit > 0 && rf.total > rf.limit {
		rf.tooLarge = true
		return true
	}
	rf.late = !rf.deadline.IsZero() && time.Now().After(rf.deadline)
	return rf.late
}

func (rf *raceFinder) slot(g rt.GID) int {
	if g == rt.ClockID {
		return rf.n - 1
	}
	return int(g)
}

func (rf *raceFinder) gid(slot int) rt.GID {
	if slot == rf.n-1 {
		return rt.ClockID
	}
	return rt.GID(slot)
}

// forEachRace calls f for every race of run res, in the order of the later access.
func (rf *raceFinder) forEachRace(res *rt.Result, f func(race)) {
	evs := res.Events
	rf.n = len(res.Goroutines) + 1
	if rf.n*(len(res.Objects)+objBase) > maxRaceCells {
		rf.tooLarge = true
		return
	}
	rf.limit = (len(res.Events) + 256) * maxWorkPerStep
	if !rf.deadline.IsZero() && time.Now().After(rf.deadline) {
		rf.late = true
		return
	}
	rf.vc = make([][]int32, rf.n)
	for i := range rf.vc {
		rf.vc[i] = make([]int32, rf.n)
	}
	rf.count = make([]int32, rf.n)
	rf.objs = rf.objs[:0]
	fair := yields(evs)
	// Only a run with a timer that its work could make due has steps whose order with other
	// steps moves the step at which it is due.
	timed := res.TimerReach
	for j := range evs {
		if rf.work += rf.n; rf.over() {
			return
		}
		e := &evs[j]
		p := rf.slot(e.G)
		objs := e.Objs
		if objs == nil && e.Obj != rt.NoObj {
			rf.one[0] = e.Obj
			objs = rf.one[:]
		}
		rf.check(j, p, e.Op, objs, rf.vc[p], f)
		if fair {
			rf.check(j, p, fairAccess(e.Yields), fairObjs, rf.vc[p], f)
		}
		tOp, tOK := rt.OpNone, false
		if timed {
			tOp, tOK = timeAccess(e.G, objs)
		}
		if tOK {
			rf.check(j, p, tOp, timeObjs, rf.vc[p], f)
		}
		for _, pt := range e.Partners {
			rf.check(j, rf.slot(pt.G), pt.Op, pt.Objs, rf.vc[rf.slot(pt.G)], f)
		}
		// Setting or stopping a timer races with the clock's next step, whatever it was then:
		// the clock is a process whose pending step is not recorded until it runs.
		if e.G != rt.ClockID && slices.Contains(objs, rt.ClockObj) {
			f(race{early: j, late: j, g: rt.ClockID})
		}
		rf.apply(j, p, e.Op, objs)
		if fair {
			rf.apply(j, p, fairAccess(e.Yields), fairObjs)
		}
		if tOK {
			rf.apply(j, p, tOp, timeObjs)
		}
		for _, pt := range e.Partners {
			q := rf.slot(pt.G)
			join(rf.vc[q], rf.vc[p])
			rf.apply(j, q, pt.Op, pt.Objs)
		}
		if e.Child != rt.NoG {
			copy(rf.vc[rf.slot(e.Child)], rf.vc[p])
		}
	}
	// Goroutines that never performed the operation they were stopped before.
	for _, gs := range res.Pending {
		if rf.over() {
			return
		}
		objs := gs.Objs
		if objs == nil && gs.Obj != rt.NoObj {
			objs = []rt.ObjID{gs.Obj}
		}
		p := rf.slot(gs.ID)
		rf.check(len(evs), p, gs.Op, objs, rf.vc[p], f)
	}
	if len(res.Clock) > 0 {
		p := rf.n - 1
		rf.check(len(evs), p, rt.OpClock, res.Clock, rf.vc[p], f)
	}
}

// check reports the races of slot p's access at event j, whose clock before it is before.
func (rf *raceFinder) check(j, p int, op rt.OpKind, objs []rt.ObjID, before []int32, f func(race)) {
	rf.cands, rf.candSlot = rf.cands[:0], rf.candSlot[:0]
	for _, o := range objs {
		oa := rf.obj(o)
		if oa == nil {
			continue
		}
		byQ := oa.last
		if op.ReadOnly() {
			byQ = oa.write
		}
		rf.work += len(byQ)
		for q := range byQ {
			c := &byQ[q]
			if c.count == 0 || q == p || c.count <= before[q] || c.op.ReadOnly() && op.ReadOnly() || rf.isCand(q, c) {
				continue
			}
			rf.cands = append(rf.cands, c)
			rf.candSlot = append(rf.candSlot, q)
		}
	}
	for i, c := range rf.cands {
		if rf.immediate {
			if rf.work += len(rf.cands); rf.over() {
				return
			}
			if rf.orderedThrough(i) {
				continue
			}
		}
		f(race{early: c.ev, late: j, g: rf.gid(p), op: op, objs: objs})
	}
}

// isCand reports whether slot q's access c is a candidate already, through another object.
func (rf *raceFinder) isCand(q int, c *access) bool {
	for i, d := range rf.cands {
		if rf.candSlot[i] == q && d.count == c.count {
			return true
		}
	}
	return false
}

// orderedThrough reports whether candidate i happens before another candidate.
func (rf *raceFinder) orderedThrough(i int) bool {
	c, q := rf.cands[i], rf.candSlot[i]
	for k, d := range rf.cands {
		if k != i && d.vc[q] >= c.count {
			return true
		}
	}
	return false
}

// apply performs slot p's access at event j on the clocks.
func (rf *raceFinder) apply(j, p int, op rt.OpKind, objs []rt.ObjID) {
	c := rf.vc[p]
	write := !op.ReadOnly()
	for _, o := range objs {
		oa := rf.obj(o)
		if oa == nil {
			i := int(o) + objBase
			if i >= len(rf.objs) {
				rf.objs = append(rf.objs, make([]*objAccesses, i+1-len(rf.objs))...)
			}
			oa = &objAccesses{last: make([]access, rf.n), write: make([]access, rf.n)}
			rf.objs[i] = oa
		}
		join(c, oa.wclock)
		if write {
			join(c, oa.rclock)
		}
	}
	rf.count[p]++
	c[p] = rf.count[p]
	for _, o := range objs {
		oa := rf.obj(o)
		if op == rt.OpUnlock || op == rt.OpRUnlock || op == rt.OpOnceDone {
			// A release cannot be reversed with the acquisition that follows it: the race is
			// between the acquisitions, so the goroutine's acquisition stays its last access.
			oa.wclock = append(oa.wclock[:0], c...)
			clear(oa.rclock)
			continue
		}
		oa.last[p].set(j, op, rf.count[p], c, rf.immediate)
		if write {
			oa.write[p].set(j, op, rf.count[p], c, rf.immediate)
			oa.wclock = append(oa.wclock[:0], c...)
			clear(oa.rclock)
		} else {
			if oa.rclock == nil {
				oa.rclock = make([]int32, rf.n)
			}
			join(oa.rclock, c)
		}
	}
}

// objBase offsets object ids in raceFinder.objs, for the pseudo-objects rt.ClockObj,
// rt.FairObj and rt.TimeObj.
const objBase = -int(rt.TimeObj)

// fairObjs is rt.FairObj as an access's objects.
var fairObjs = []rt.ObjID{rt.FairObj}

// fairAccess returns a step's access to rt.FairObj: a write for a poll that yields, a read
// for every other step, which conflicts only with such a write.
func fairAccess(yields bool) rt.OpKind {
	if yields {
		return rt.OpYield
	}
	return rt.OpAtomicLoad
}

// timeObjs is rt.TimeObj as an access's objects.
var timeObjs = []rt.ObjID{rt.TimeObj}

// timeAccess returns a step's access to rt.TimeObj: a write for a step that sets or stops a
// timer, a read for every other step of a goroutine, which conflicts only with such a write.
func timeAccess(g rt.GID, objs []rt.ObjID) (rt.OpKind, bool) {
	switch {
	case g == rt.ClockID:
		return rt.OpNone, false
	case slices.Contains(objs, rt.ClockObj):
		return rt.OpYield, true
	}
	return rt.OpAtomicLoad, true
}

// yields reports whether a run has a poll that yields: only then do its steps access
// rt.FairObj, since reads alone never race.
func yields(evs []rt.Event) bool {
	return slices.ContainsFunc(evs, func(e rt.Event) bool { return e.Yields })
}

func (rf *raceFinder) obj(o rt.ObjID) *objAccesses {
	if i := int(o) + objBase; i >= 0 && i < len(rf.objs) {
		return rf.objs[i]
	}
	return nil
}

func (a *access) set(ev int, op rt.OpKind, count int32, vc []int32, keepVC bool) {
	a.ev, a.op, a.count = ev, op, count
	if keepVC {
		a.vc = append(a.vc[:0], vc...)
	}
}

func join(dst, src []int32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}
