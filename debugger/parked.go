package debugger

import (
	"context"
	"slices"

	"github.com/heddledbg/heddle/bidir"
)

// Going back re-executes (bidir), but not always from the start: the debugger keeps a few
// incarnations parked at places of the recorded execution, stopped and waiting, as Bruening's
// thesis keeps spare processes at checkpoints along the run (ch. 3). A move whose target lies
// at or after a parked incarnation's place takes it and goes the rest of the way; one that
// stands at the target itself costs no execution at all. They come from two sources:
//
//   - after every move the debugger places incarnations, in the background, where a step back
//     from the new stop will need them (reposition): the line before the stop, or the
//     checkpoint that a count of line steps or of a segment's length starts from; a continue
//     has taken two along to its stop's checkpoint already (trail.go);
//   - the incarnation that a backward move replaces stays parked where the user left it, so
//     that a next after a step back, or a continue after a reverse continue along the chain of
//     continues, is that incarnation's stop (redo), and a reverse continue after such a
//     continue the stop of the one it left (undo).
//
// An incarnation is parked only at a place of the recorded execution, and is used only when
// the decisions it made are a prefix of the plan of the move that takes it: by determinism it
// is then where a fresh incarnation would be after the same steps.

// maxParked bounds the incarnations kept parked: each is a debuggee and a debugger process.
const maxParked = 4

// maxShadowSteps bounds the line steps made to place an incarnation mid-segment.
const maxShadowSteps = 64

// parked is an incarnation kept at a place, or on its way there.
type parked struct {
	// target is the place, with its Steps since its checkpoint (-1: unknown).
	target bidir.Stop
	// ready is closed when the incarnation is there; n is nil if it could not get there.
	ready chan struct{}
	n     *navInc
	// hit is the serial of the breakpoint hit it stands at on the chain of continues
	// (bidir.Hits), or 0.
	hit int
	// cancel gives up the way there.
	cancel context.CancelFunc
	// kept is set for an incarnation that a move left where the user stood, which a move
	// back there takes as it is.
	kept bool
}

func (e *parked) isReady() bool {
	select {
	case <-e.ready:
		return true
	default:
		return false
	}
}

// usable reports whether an incarnation at t can go to the place steps line steps after
// checkpoint k.
func usable(t bidir.Stop, k, steps int) bool {
	return t.Checkpoint < k || t.Checkpoint == k && t.Steps >= 0 && t.Steps <= steps
}

// later reports whether place a is after place b.
func later(a, b bidir.Stop) bool {
	return a.Checkpoint > b.Checkpoint || a.Checkpoint == b.Checkpoint && a.Steps > b.Steps
}

// takeParked returns the parked incarnation nearest before the place steps line steps after
// checkpoint k, made to follow plan p, or nil if there is none. It waits for one still on its
// way there.
func (d *Debugger) takeParked(ctx context.Context, p planned, k, steps int) *navInc {
	for {
		d.mu.Lock()
		best := -1
		for i, e := range d.parked {
			if !usable(e.target, k, steps) {
				continue
			}
			if best < 0 || better(e, d.parked[best]) {
				best = i
			}
		}
		if best < 0 {
			d.mu.Unlock()
			return nil
		}
		e := d.parked[best]
		d.parked = slices.Delete(d.parked, best, best+1)
		d.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			discard(e)
			return nil
		}
		n := e.n
		if n == nil {
			continue
		}
		if !n.follows(p) {
			n.Close()
			continue
		}
		return n
	}
}

// better reports whether a move back should take parked incarnation a rather than b: the
// latest place; of two at the same place, one that is there already; of two there, the one a
// move left where the user stood, so that going back and forth between two lines uses the
// same two incarnations whichever placed one got there first.
func better(a, b *parked) bool {
	if later(a.target, b.target) || later(b.target, a.target) {
		return later(a.target, b.target)
	}
	if a.isReady() != b.isReady() {
		return a.isReady()
	}
	return a.kept && !b.kept
}

// follows reports whether the parked incarnation n is on plan p's execution, and if so makes
// it follow p from here.
func (n *navInc) follows(p planned) bool {
	c := n.in.ctrl
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.ended:
		return false
	default:
	}
	if c.bug != nil || n.last.ended || len(c.decisions) > len(p.follow) {
		return false
	}
	for i := range c.decisions {
		if c.decisions[i].pickName() != p.follow[i] {
			return false
		}
	}
	n.plan = p
	c.plan.follow = slices.Clone(p.follow)
	c.plan.stopOnBug = p.stopOnBug
	c.plan.next, c.plan.breakNext, c.plan.stepping = "", false, ""
	return true
}

// discard ends a parked incarnation, or its way there.
func discard(e *parked) {
	if e.cancel != nil {
		e.cancel()
	}
	go func() {
		<-e.ready
		if e.n != nil {
			e.n.Close()
		}
	}()
}

// keep parks incarnation in, which stands at place at, hit hit of the chain of continues (0
// for none), and reports whether it did.
func (d *Debugger) keep(in *incarnation, at bidir.Stop, hit int) bool {
	if at.Ended || at.Checkpoint < 0 {
		return false
	}
	if in.midStep() {
		// Delve would resume the interrupted step at the next continue.
		return false
	}
	h := halt{goid: d.threads.goid(in, d.threads.id(at.Goroutine)), reason: "step"}
	if at.Steps == 0 {
		in.ctrl.mu.Lock()
		if at.Checkpoint < len(in.ctrl.checkpoints) {
			cp := in.ctrl.checkpoints[at.Checkpoint]
			h.cp = &cp
		}
		in.ctrl.mu.Unlock()
	}
	n := &navInc{d: d, in: in, sink: in.capture(), plan: d.plan(-1), started: true, last: h, at: at, placed: true}
	e := &parked{target: at, ready: make(chan struct{}), n: n, hit: hit, kept: true}
	close(e.ready)
	d.mu.Lock()
	if d.ctx.Err() != nil {
		// The debugger is closing.
		d.mu.Unlock()
		in.release(n.sink)
		return false
	}
	d.parked = append(d.parked, e)
	d.mu.Unlock()
	// The stop shown still is the one the move leaves, where e stands: e is what a move back
	// there takes (redo, undo), useful whatever the shown stop's neighbours are.
	d.trimParked(e)
	return true
}

// shadows returns the places a step back from cur starts incarnations for: the line before
// cur; from a stop whose line steps are unknown, its checkpoint twice (one incarnation counts
// them while the other goes there); from a checkpoint, the goroutine's previous one twice
// (one measures the segment, the other goes to its last line but one).
func (d *Debugger) shadows(cur bidir.Stop) []bidir.Stop {
	at := func(k, steps int) bidir.Stop { return bidir.Stop{Checkpoint: k, Steps: steps} }
	switch {
	case cur.Ended || cur.Checkpoint < 0:
		return nil
	case cur.Steps > 0:
		if cur.Steps-1 > maxShadowSteps {
			return []bidir.Stop{at(cur.Checkpoint, 0)}
		}
		return []bidir.Stop{at(cur.Checkpoint, cur.Steps-1)}
	case cur.Steps < 0:
		return []bidir.Stop{at(cur.Checkpoint, 0), at(cur.Checkpoint, 0)}
	}
	for j := min(cur.Checkpoint, len(d.recorded)) - 1; j >= 0; j-- {
		if d.recorded[j].Goroutine == cur.Goroutine {
			return []bidir.Stop{at(j, 0), at(j, 0)}
		}
	}
	return []bidir.Stop{at(max(cur.Checkpoint-1, 0), 0)}
}

// reposition places incarnations, in the background, where a step back from the current
// stop will need them: a parked incarnation before such a place goes on to it, or else a
// fresh one goes there. It ends the oldest parked incarnations beyond maxParked.
func (d *Debugger) reposition() {
	in := d.current()
	if in == nil {
		return
	}
	d.record(in)
	d.mu.Lock()
	if d.ctx.Err() != nil || d.cur == nil {
		d.mu.Unlock()
		return
	}
	want := d.shadows(*d.cur)
	covered := make([]bool, len(d.parked))
	var missing []bidir.Stop
	for _, t := range want {
		if i := d.parkedAt(t, covered); i >= 0 {
			covered[i] = true
			continue
		}
		missing = append(missing, t)
	}
	var from []*navInc
	for _, t := range missing {
		// The latest ready incarnation placed for an earlier stop that can go on to t, and
		// covers no other place.
		best := -1
		for i, e := range d.parked {
			if !covered[i] && !e.kept && e.isReady() && e.n != nil && usable(e.target, t.Checkpoint, t.Steps) &&
				(best < 0 || later(e.target, d.parked[best].target)) {
				best = i
			}
		}
		var n *navInc
		if best >= 0 {
			n = d.parked[best].n
			d.parked = slices.Delete(d.parked, best, best+1)
			covered = slices.Delete(covered, best, best+1)
		}
		from = append(from, n)
	}
	for i, t := range missing {
		ctx, cancel := context.WithCancel(d.ctx)
		e := &parked{target: t, ready: make(chan struct{}), cancel: cancel}
		d.parked = append(d.parked, e)
		covered = append(covered, true)
		d.wg.Add(1)
		go d.place(ctx, e, from[i])
	}
	d.mu.Unlock()
	d.trimParked(nil)
}

// parkedAt returns the index of a parked incarnation at (or on its way to) place t that is not
// covered yet, or -1.
func (d *Debugger) parkedAt(t bidir.Stop, covered []bool) int {
	for i, e := range d.parked {
		if !covered[i] && e.target.Checkpoint == t.Checkpoint && e.target.Steps == t.Steps {
			return i
		}
	}
	return -1
}

// place takes incarnation n, or a fresh one if n is nil, to e's target.
func (d *Debugger) place(ctx context.Context, e *parked, n *navInc) {
	defer d.wg.Done()
	defer close(e.ready)
	defer trace("place")()
	p := d.plan(-1)
	if n != nil && !n.follows(p) {
		n.Close()
		n = nil
	}
	if n == nil {
		in, err := d.fresh(ctx)
		// The spare is replaced once this one is placed, or when the move that runs then ends
		// (goMotion, goCaptured): loading another while a move runs, which may be waiting for
		// this one, would slow both.
		defer func() {
			d.mu.Lock()
			idle := d.moving == 0
			d.mu.Unlock()
			if idle {
				d.startSpare()
			}
		}()
		if err != nil {
			return
		}
		n = &navInc{d: d, in: in, sink: in.capture(), plan: p}
	}
	var err error
	done := 0
	if at, ok := n.Where(); ok && at.Checkpoint == e.target.Checkpoint && at.Steps >= 0 && at.Steps <= e.target.Steps {
		done = at.Steps
	} else {
		_, err = n.Goto(ctx, e.target.Checkpoint)
	}
	for i := done; err == nil && i < e.target.Steps; i++ {
		_, err = n.Step(ctx)
	}
	if err != nil || n.last.bug != nil || n.at.Checkpoint != e.target.Checkpoint || n.at.Steps != e.target.Steps {
		n.Close()
		return
	}
	e.n = n
}

// trimParked ends parked incarnations beyond maxParked, oldest first: first those that
// neither stand where a step back from the current stop needs one (shadows) nor where a
// next or a continue from it goes (redo), nor is the one just kept, then others. One on its
// way gives up.
func (d *Debugger) trimParked(kept *parked) {
	d.mu.Lock()
	useful := make([]bool, len(d.parked))
	for i, e := range d.parked {
		useful[i] = e == kept
	}
	if cur := d.cur; cur != nil {
		for _, t := range d.shadows(*cur) {
			// The one a move back there would take.
			j := -1
			for i, e := range d.parked {
				if !useful[i] && e.target.Checkpoint == t.Checkpoint && e.target.Steps == t.Steps && (j < 0 || better(e, d.parked[j])) {
					j = i
				}
			}
			if j >= 0 {
				useful[j] = true
			}
		}
		for i, e := range d.parked {
			if e.hit != 0 || cur.Steps >= 0 && e.target.Checkpoint == cur.Checkpoint && e.target.Steps == cur.Steps+1 {
				useful[i] = true
			}
		}
	}
	var drop []*parked
	for _, spare := range []bool{false, true} {
		for i := 0; len(d.parked) > maxParked && i < len(d.parked); {
			if spare || !useful[i] {
				drop = append(drop, d.parked[i])
				d.parked = slices.Delete(d.parked, i, i+1)
				useful = slices.Delete(useful, i, i+1)
				continue
			}
			i++
		}
	}
	d.mu.Unlock()
	for _, e := range drop {
		discard(e)
	}
}

// redo makes motion m of thread from the current stop by adopting the incarnation parked
// where it goes, which a backward move left there: for a next, the line after the stop; for a
// continue, the hit after it on the chain of continues (bidir.Hits), which the same
// breakpoints reach again. It reports whether it did; done is called only then.
func (d *Debugger) redo(m Motion, thread int, done func(error)) bool {
	in := d.current()
	d.mu.Lock()
	cur, version, bug, hitConditions := d.cur, d.bpVersion, d.curBug, d.hitConditions
	d.mu.Unlock()
	if in == nil || cur == nil || cur.Ended || bug != nil {
		return false
	}
	if m == Next && (cur.Steps < 0 || d.threads.id(cur.Goroutine) != thread) || m == Continue && hitConditions {
		return false
	}
	if in.midStep() {
		return false
	}
	id, err := d.begin()
	if err != nil {
		done(err)
		return true
	}
	d.mu.Lock()
	from := d.from
	d.mu.Unlock()
	var match func(e *parked) bool
	switch m {
	case Next:
		match = func(e *parked) bool {
			t := e.target
			return t.Checkpoint == cur.Checkpoint && t.Steps == cur.Steps+1 && e.n.at.Goroutine == cur.Goroutine
		}
	case Continue:
		next, serial, ok := d.hits.Following(from)
		match = func(e *parked) bool { return ok && e.hit == serial && e.n.at.Same(next) }
	}
	d.mu.Lock()
	i := slices.IndexFunc(d.parked, func(e *parked) bool {
		return e.isReady() && e.n != nil && e.n.in.version == version && match(e)
	})
	var n *navInc
	if i >= 0 {
		n = d.parked[i].n
		d.parked = slices.Delete(d.parked, i, i+1)
	}
	d.mu.Unlock()
	if n != nil && !n.follows(d.plan(-1)) {
		n.Close()
		n = nil
	}
	if n == nil {
		// The motion is made as usual, from the same place on the chain.
		d.end(id)
		d.hits.Stay(from)
		return false
	}
	done(nil)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer d.reposition()
		reason := "step"
		if m == Continue {
			reason = "breakpoint"
			d.hits.Continued(from, *cur, n.at, true)
		} else {
			n.in.ctrl.mu.Lock()
			n.in.ctrl.plan.stepping = cur.Goroutine
			n.in.ctrl.mu.Unlock()
		}
		d.adopt(id, n, n.at, reason, cur)
	}()
	return true
}

// undo returns the incarnation parked at the hit before the current stop on the chain of
// continues, where a reverse continue by nav goes, or nil if there is none.
func (d *Debugger) undo(nav *bidir.Navigator) *navInc {
	if nav.Hits == nil || nav.FromStart {
		return nil
	}
	h, ok := nav.Hits.Previous(nav.From)
	serial := nav.Hits.Serial(nav.From - 1)
	if !ok || h.Nth == 0 || serial == 0 {
		return nil
	}
	d.mu.Lock()
	version := d.bpVersion
	i := slices.IndexFunc(d.parked, func(e *parked) bool {
		return e.isReady() && e.n != nil && e.hit == serial && e.n.in.version == version && e.n.at.Same(h.Stop)
	})
	var n *navInc
	if i >= 0 {
		n = d.parked[i].n
		d.parked = slices.Delete(d.parked, i, i+1)
	}
	d.mu.Unlock()
	if n == nil {
		return nil
	}
	if !n.follows(d.plan(-1)) {
		n.Close()
		return nil
	}
	nav.Hits.Back(nav.From)
	return n
}

// parkedExactly returns the incarnation parked at place (k, steps) itself, if one is there
// already and on plan p's execution, or nil.
func (d *Debugger) parkedExactly(p planned, k, steps int) *navInc {
	d.mu.Lock()
	i := -1
	for j, e := range d.parked {
		if e.isReady() && e.n != nil && e.n.at.Checkpoint == k && e.n.at.Steps == steps && (i < 0 || better(e, d.parked[i])) {
			i = j
		}
	}
	var n *navInc
	if i >= 0 {
		n = d.parked[i].n
		d.parked = slices.Delete(d.parked, i, i+1)
	}
	d.mu.Unlock()
	if n != nil && !n.follows(p) {
		n.Close()
		n = nil
	}
	return n
}

// midStep reports whether a breakpoint of another goroutine interrupted a step of in's, which
// Delve resumes at the next continue.
func (in *incarnation) midStep() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.interrupted != ""
}
