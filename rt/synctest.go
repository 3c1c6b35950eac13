package rt

import "time"

// synctestBase is where the clock of a synctest bubble starts, as in testing/synctest.
var synctestBase = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// A bubble is a testing/synctest bubble: the goroutine that runs Bubble's function and every
// goroutine started in the bubble, directly or not (AfterFunc's too).
type bubble struct {
	obj   objState
	root  *goroutine // runs the function; the clock stops when it has returned
	start int64      // the virtual time at which the bubble began
	live  int        // goroutines of the bubble that have not exited
}

// Bubble runs f in a new goroutine, the root of a bubble, and returns when every goroutine of
// the bubble has exited, as testing/synctest.Test does. Under heddle the whole run already has
// synctest's time (TimeSynctest); what a bubble adds is its own clock origin (midnight UTC
// 2000-01-01), the end of time when its root returns (a goroutine of the bubble that then waits
// for a timer is blocked for ever), and Wait. A bubble that cannot end (its goroutines all
// blocked, with no timer to wake them) leaves Bubble's caller blocked: the run ends as a
// deadlock, where Go's synctest.Test panics.
//
//go:norace
func Bubble(f func()) {
	r, g := current()
	if r == nil {
		panic("rt.Bubble called outside a run")
	}
	if g.bubble != nil || r.bubble != nil {
		panic("synctest.Test called from within a synctest bubble")
	}
	b := &bubble{start: r.clock.now}
	id, _ := r.touch(&b.obj, ObjWaitGroup, g)
	r.bubble = b
	defer func() {
		if r.bubble == b {
			r.bubble = nil
		}
	}()
	e := r.record(g, OpGo, NoObj)
	if r.ended {
		return // as in Go
	}
	e.Objs = append(e.Objs, id)
	g.bubble = b // inherited by the root, and by every goroutine started in the bubble
	b.root = r.newG(g, f)
	g.bubble = nil
	e.Child = b.root.id
	r.resume = append(r.resume, b.root)
	if r.cfg.Spawned != nil {
		r.cfg.Spawned(Spawn{Parent: r.gname(g), Child: r.gname(b.root), Fn: funcPC(f)})
	}
	g.op = op{kind: OpBubble, obj: id}
	r.yield(g)
	r.acquire(r.record(g, OpBubble, id), id)
}

// BubbleWait blocks until every other goroutine of the caller's bubble is durably blocked (see
// TimeSynctest), as testing/synctest.Wait does. It is a step of its own: the goroutines that
// became durably blocked do so before it in every schedule.
//
//go:norace
func BubbleWait() {
	r, g := current()
	if r == nil {
		panic("rt.BubbleWait called outside a run")
	}
	b := g.bubble
	if b == nil {
		panic("goroutine is not in a bubble")
	}
	g.op = op{kind: OpBubbleWait, obj: b.obj.id}
	r.yield(g)
	r.acquire(r.record(g, OpBubbleWait, b.obj.id), b.obj.id)
}

// quiet reports whether every goroutine of b other than g is durably blocked or has exited.
// It runs when no goroutine is ready (the resume queue is drained before each decision).
//
//go:norace
func (r *run) quiet(b *bubble, g *goroutine) bool {
	for _, h := range r.gs {
		if h == g || h.bubble != b {
			continue
		}
		switch h.state {
		case gReady:
			return false
		case gPending:
			if h.op.kind != OpBubbleWait && r.enabled(h) {
				return false
			}
		case gParked:
			if r.onForeign(h) {
				return false
			}
		}
	}
	return true
}

// bubbleStopped reports whether the clock has stopped: the root of the bubble in progress has
// returned.
//
//go:norace
func (r *run) bubbleStopped() bool {
	return r.bubble != nil && r.bubble.root.state == gDone
}

// bubbleExit counts g, which has just exited (step e), out of its bubble. The exit touches
// the bubble, which Bubble's caller waits on.
//
//go:norace
func (r *run) bubbleExit(g *goroutine, e *Event) {
	b := g.bubble
	b.live--
	e.Objs = append(e.Objs, b.obj.id)
	r.release(e, b.obj.id)
}
