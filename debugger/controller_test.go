package debugger

import (
	"slices"
	"testing"
	"time"

	"github.com/heddledbg/heddle/wire"
)

// TestPick checks the controller's default schedule: the recorded decisions first, then the
// goroutine being stepped while it can run, then the current goroutine.
func TestPick(t *testing.T) {
	// G1 stands at a select with default after starting G1.2, which ran to its first
	// scheduling point and is the current goroutine there, as in pond's Submit.
	point := &wire.DebugPoint{Current: 1, Alts: []wire.DebugAlt{{Name: "G1", Op: "select"}, {Name: "G1.2", Op: "len"}}}
	blocked := &wire.DebugPoint{Current: -1, Alts: []wire.DebugAlt{{Name: "G1.2"}, {Name: "G1.3"}}}
	for _, tc := range []struct {
		name     string
		p        *wire.DebugPoint
		follow   []string
		stepping string
		want     string
	}{
		{"current when nothing is stepped", point, nil, "", "G1.2"},
		{"the stepped goroutine", point, nil, "G1", "G1"},
		{"the recorded decision first", point, []string{"G1.2"}, "G1", "G1.2"},
		{"the stepped goroutine cannot run", blocked, nil, "G1", "G1.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &controller{plan: planned{follow: tc.follow, stepping: tc.stepping}}
			if got := tc.p.Alts[c.pick(tc.p)].Name; got != tc.want {
				t.Errorf("picked %s, want %s", got, tc.want)
			}
		})
	}
}

// TestTrail checks that a trailer keeps behind its leader (trail.go): it answers a point only
// as the leader decided it, lets a goroutine resume at a checkpoint only once the leader went
// past it, and stops at the leader's last checkpoint when released.
func TestTrail(t *testing.T) {
	newCtrl := func() *controller {
		c := &controller{grew: make(chan struct{}), hold: -1, wake: make(chan struct{}), quit: make(chan struct{}), ended: make(chan struct{}),
			goids: map[string]int64{}, byGoid: map[int64]string{}}
		c.plan.breakAt = -1
		return c
	}
	leader, trailer := newCtrl(), newCtrl()
	trailer.leader, trailer.started = leader, true
	point := func() *wire.DebugEvent {
		return &wire.DebugEvent{Type: "point", Point: &wire.DebugPoint{Current: 0, Alts: []wire.DebugAlt{{Name: "G1"}, {Name: "G1.1"}}}}
	}
	resumed := func(g string) *wire.DebugEvent {
		return &wire.DebugEvent{Type: "resumed", Resumed: &wire.DebugResumed{G: g, Decision: -1}}
	}
	// feed hands ev to the trailer as its serve loop does, in the background.
	feed := func(ev *wire.DebugEvent) chan wire.DebugReply {
		out := make(chan wire.DebugReply, 1)
		go func() {
			if !trailer.trail(ev) {
				close(out)
				return
			}
			trailer.mu.Lock()
			r, _ := trailer.handle(ev)
			trailer.mu.Unlock()
			out <- r
		}()
		return out
	}
	lead := func(ev *wire.DebugEvent, pick int) {
		leader.mu.Lock()
		defer leader.mu.Unlock()
		leader.plan.follow = nil
		if ev.Type == "point" {
			leader.plan.next = ev.Point.Alts[pick].Name
		}
		leader.handle(ev)
		leader.plan.next, leader.plan.breakNext = "", false
	}
	notYet := func(what string, ch chan wire.DebugReply) {
		select {
		case r := <-ch:
			t.Fatalf("%s: answered %+v before the leader got there", what, r)
		default:
		}
	}
	wait := func(what string, ch chan wire.DebugReply) wire.DebugReply {
		select {
		case r, ok := <-ch:
			if !ok {
				t.Fatalf("%s: the trailer gave up", what)
			}
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: not answered once the leader went past it", what)
		}
		return wire.DebugReply{}
	}

	// The leader is at checkpoint 0: the trailer's checkpoint 0 waits for the leader's next.
	lead(resumed("G1"), 0)
	r0 := feed(resumed("G1"))
	notYet("checkpoint 0", r0)
	// The leader decides G1.1 at its first point and resumes it: checkpoint 1.
	lead(point(), 1)
	lead(resumed("G1.1"), 0)
	r := wait("checkpoint 0", r0)
	if r.Break {
		t.Fatalf("checkpoint 0: the trailer stops there, before the leader stopped")
	}
	// It may replay on its own up to the leader's last checkpoint, with the leader's picks.
	if e := r.Extend; e == nil || e.From != 0 || e.BreakAt != 1 || !slices.Equal(e.Follow, []string{"G1.1"}) {
		t.Errorf("checkpoint 0: extended by %+v, want up to checkpoint 1 following G1.1 from decision 0", e)
	}
	if r := wait("the first point", feed(point())); r.Pick != 1 {
		t.Errorf("the first point: picked %d, want 1 as the leader did", r.Pick)
	}
	r1 := feed(resumed("G1.1"))
	notYet("checkpoint 1", r1)
	// The leader stops in checkpoint 1's segment (a breakpoint hit): the trailer stops at 1.
	trailer.release(1)
	if r := wait("checkpoint 1", r1); !r.Break {
		t.Errorf("checkpoint 1: the trailer goes on, want it to stop where the leader stopped")
	}
	// From there it follows the plan of the move that takes it, not its leader: here none,
	// so the current goroutine, although the leader went on to pick another.
	trailer.mu.Lock()
	trailer.plan.follow = slices.Clone(trailer.plan.follow[:1])
	trailer.mu.Unlock()
	lead(point(), 1)
	if r := wait("a point after the stop", feed(point())); r.Pick != 0 {
		t.Errorf("a point after the stop: picked %d as the leader did, want 0, the current goroutine", r.Pick)
	}

	// A trailer whose incarnation closes gives up waiting.
	other := newCtrl()
	other.leader, other.started = newCtrl(), true
	gaveUp := make(chan bool, 1)
	go func() { gaveUp <- other.trail(resumed("G1")) == false }()
	other.mu.Lock()
	close(other.quit)
	other.mu.Unlock()
	if !<-gaveUp {
		t.Errorf("a closed trailer went on")
	}
}
