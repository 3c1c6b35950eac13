package debugger

import (
	"context"
	"sync"

	"github.com/heddledbg/heddle/bidir"
)

// A continue stops at a breakpoint hit somewhere after the last checkpoint, and the first step
// back from there starts two incarnations at that checkpoint (bidir: one counts the line steps
// to the hit while the other waits to go one fewer). Placed after the stop, they replay the
// run from its start while the user waits. So a continue takes them along instead: two
// trailers follow the running incarnation, the leader, a checkpoint behind. A trailer replays
// on its own to the leader's last checkpoint and asks the core there; the core answers only
// once the leader went past it (controller.trail), and lets it replay on its own again up to
// the leader's new last checkpoint (controller.extend). When the leader stops, the trailers
// stop at its last checkpoint, and are parked there, where the step back finds them with
// nothing or little left to replay.

// trailers is how many incarnations trail a continue: as many as a step back from a hit
// starts at its checkpoint.
const trailers = 2

// trailer is an incarnation that trails the leader, or is on its way to start trailing.
type trailer struct {
	e *parked

	mu sync.Mutex
	// at is the checkpoint to stop at, -1 while the leader runs; ctrl is the trailer's
	// controller once it trails.
	at   int
	ctrl *controller
}

// startTrailers starts the trailers of a continue of incarnation leader, whose run has begun.
func (d *Debugger) startTrailers(leader *incarnation) []*trailer {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ctx.Err() != nil {
		return nil
	}
	var ts []*trailer
	for range trailers {
		ctx, cancel := context.WithCancel(d.ctx)
		t := &trailer{e: &parked{ready: make(chan struct{}), cancel: cancel}, at: -1}
		ts = append(ts, t)
		d.wg.Add(1)
		go d.trail(ctx, t, leader)
	}
	return ts
}

// trail takes a fresh incarnation along leader's run, until the leader stops (releaseTrailers).
func (d *Debugger) trail(ctx context.Context, t *trailer, leader *incarnation) {
	defer d.wg.Done()
	defer close(t.e.ready)
	defer trace("trail")()
	in, err := d.fresh(ctx)
	if err != nil {
		return
	}
	n := &navInc{d: d, in: in, sink: in.capture(), plan: d.plan(-1)}
	l := leader.ctrl
	l.mu.Lock()
	from := len(l.checkpoints) - 1
	picks := make([]string, len(l.decisions))
	for i := range l.decisions {
		picks[i] = l.decisions[i].pickName()
	}
	l.mu.Unlock()
	t.mu.Lock()
	at := t.at
	if at < 0 {
		in.ctrl.leader = l
		t.ctrl = in.ctrl
	}
	t.mu.Unlock()
	var st bidir.Stop
	if at >= 0 {
		// The leader stopped before this one could start: it goes there as one placed after
		// the stop would.
		st, err = n.Goto(ctx, at)
	} else {
		n.plan.follow = picks
		if err = n.run(ctx, from); err == nil {
			st, err = n.stop(ctx, false)
		}
		t.mu.Lock()
		at = t.at
		t.mu.Unlock()
		if err == nil && n.last.cp != nil {
			n.moved(st, false)
			err = n.in.ensureBreakpoints(ctx, d.breakpointVersion())
		}
	}
	if err != nil || n.last.cp == nil || n.last.bug != nil || st.Checkpoint != at {
		n.Close()
		return
	}
	t.e.n = n
}

// releaseTrailers ends the trailing of leader's continue, which stopped: each trailer stops at
// the leader's last checkpoint and is parked there. If the leader's run ended, they are ended.
func (d *Debugger) releaseTrailers(ts []*trailer, leader *incarnation, ended bool) {
	if len(ts) == 0 {
		return
	}
	leader.ctrl.mu.Lock()
	k := len(leader.ctrl.checkpoints) - 1
	leader.ctrl.mu.Unlock()
	if ended || k < 0 {
		for _, t := range ts {
			discard(t.e)
		}
		return
	}
	d.mu.Lock()
	for _, t := range ts {
		t.e.target = bidir.Stop{Checkpoint: k, Steps: 0}
		d.parked = append(d.parked, t.e)
	}
	d.mu.Unlock()
	trailing := true
	for _, t := range ts {
		t.mu.Lock()
		t.at = k
		c := t.ctrl
		t.mu.Unlock()
		if c != nil {
			c.release(k)
		} else {
			trailing = false
		}
	}
	if trailing {
		// They are about to stand at k: the spares wait for the next move's end (topUp). One
		// still waiting for its incarnation replays from the start, and the spares it would
		// wait for are loaded at once.
		d.mu.Lock()
		d.sparesLater = true
		d.mu.Unlock()
	}
	d.trimParked(nil)
}
