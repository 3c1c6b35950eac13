package debugger

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// controller is the scheduler of one debuggee: it answers the debug protocol
// (wire.DebugEvent) and records the run's checkpoints and decisions.
type controller struct {
	ln   net.Listener
	path string

	mu        sync.Mutex
	connected chan struct{} // closed when the debuggee has dialled in
	conn      net.Conn
	enc       *json.Encoder
	start     wire.DebugStart
	started   bool
	// What the run did so far.
	checkpoints []Checkpoint
	decisions   []decision
	points      int
	last        *wire.DebugPoint
	spawned     []wire.DebugSpawned // goroutines started since the last point
	goids       map[string]int64
	// byGoid names the goroutine a runtime goroutine carries now: one that returned hands its
	// runtime goroutine to the next go statement, so over a run one id carries several.
	byGoid map[int64]string
	bug    *Bug
	trace  *record.Trace
	ended  chan struct{}
	endErr string
	// What the run is to do.
	plan planned
	// breaking is the reason of the stop the debuggee is about to make in debugBreak,
	// consumed by the core when the target reports the stop.
	breaking string
	breakAt  *Checkpoint
	// grew is closed, and replaced, whenever the run records a checkpoint or a decision or
	// ends: a trailer of this run waits on it.
	grew chan struct{}
	// leader, for a trailer (trail.go), is the controller of the run it trails; hold is the
	// checkpoint it stops at once the leader stopped (-1 until then), and wake is closed then.
	leader *controller
	hold   int
	wake   chan struct{}
	quit   chan struct{}
}

// planned is how the controller steers the run.
type planned struct {
	// follow holds the pick of each decision, by name, to replay.
	follow []string
	// leftOut are the subtests the run skips, as the replayed schedule's exploration did
	// (record.Schedule.LeftOut).
	leftOut []string
	// breakAt is the checkpoint to stop at, -1 for none.
	breakAt int
	// stopOnBug stops where a bug is found.
	stopOnBug bool
	// next, if set, is the goroutine to pick at the next decision where it can run; the run
	// then stops when it resumes.
	next      string
	breakNext bool
	// stepping is the goroutine a step is under way on: where the schedule leaves the choice
	// free, it continues while it can, as the user who steps it expects, rather than the
	// goroutine that ran last (a child a go statement started runs to its first scheduling
	// point, and is the current goroutine there).
	stepping string
}

// Checkpoint is a resumption of a goroutine by the scheduler: it is about to perform Op.
type Checkpoint struct {
	Index     int
	Goroutine string
	Op        string
	Position  *record.Pos
	Decision  bool
	// DecisionIndex is the decision that picked the goroutine, or -1.
	DecisionIndex int
	Step          int
	New           bool
	Func          string
	// Obj is the logical id of the operation's object (G1#2), objID its number in the run.
	Obj   string
	objID rt.ObjID
	goid  int64
}

// decision is a point with several alternatives and the pick made there.
type decision struct {
	point *wire.DebugPoint
	pick  int
	rt    rt.Decision
}

func (d *decision) pickName() string { return d.point.Alts[d.pick].Name }

func newController(path string) (*controller, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("debug control socket: %w", err)
	}
	c := &controller{ln: ln, path: path, connected: make(chan struct{}), ended: make(chan struct{}), goids: map[string]int64{}, byGoid: map[int64]string{},
		grew: make(chan struct{}), hold: -1, wake: make(chan struct{}), quit: make(chan struct{})}
	c.plan.breakAt = -1
	go c.accept()
	return c, nil
}

func (c *controller) close() {
	c.ln.Close()
	c.mu.Lock()
	select {
	case <-c.quit:
	default:
		close(c.quit)
	}
	if c.conn != nil {
		c.conn.Close()
	}
	c.mu.Unlock()
}

func (c *controller) accept() {
	conn, err := c.ln.Accept()
	if err != nil {
		return
	}
	c.ln.Close()
	c.mu.Lock()
	c.conn = conn
	c.enc = json.NewEncoder(conn)
	c.mu.Unlock()
	close(c.connected)
}

// begin starts the run of test with plan p. The debuggee must have connected.
func (c *controller) begin(test string, tm rt.TimeModel, q time.Duration, p planned) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("the run has already started")
	}
	c.started = true
	c.plan = p
	c.start = wire.DebugStart{V: wire.Version, Test: test, BreakAt: p.breakAt, Time: tm, Quantum: q, LeftOut: p.leftOut}
	if p.breakAt >= 0 && p.next == "" {
		// The debuggee replays the plan on its own up to the checkpoint: no round trip per
		// scheduling point.
		c.start.Follow = p.follow
	} else {
		c.start.BreakAt = -1
	}
	if c.leader != nil {
		// A trailer replays on its own up to the leader's checkpoint and stops only where the
		// leader stopped.
		c.plan.breakAt = c.hold
	}
	err := c.enc.Encode(&c.start)
	conn := c.conn
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("starting the debuggee's run: %w", err)
	}
	go c.serve(conn)
	return nil
}

func (c *controller) serve(conn net.Conn) {
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	defer func() {
		c.mu.Lock()
		select {
		case <-c.ended:
		default:
			if c.endErr == "" {
				c.endErr = "the debuggee exited before its run ended"
			}
			close(c.ended)
		}
		c.mu.Unlock()
	}()
	for sc.Scan() {
		var ev wire.DebugEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			c.mu.Lock()
			c.endErr = fmt.Sprintf("the debuggee sent a malformed message: %v", err)
			c.mu.Unlock()
			return
		}
		if !c.trail(&ev) {
			return
		}
		c.mu.Lock()
		reply, answer := c.handle(&ev)
		if answer {
			if err := c.enc.Encode(reply); err != nil {
				c.endErr = fmt.Sprintf("answering the debuggee: %v", err)
				c.mu.Unlock()
				return
			}
		}
		c.mu.Unlock()
		if ev.Type == "end" {
			return
		}
	}
}

// handle records ev and decides the reply; c.mu is held.
func (c *controller) handle(ev *wire.DebugEvent) (wire.DebugReply, bool) {
	var r wire.DebugReply
	switch ev.Type {
	case "spawned":
		c.spawned = append(c.spawned, *ev.Spawned)
		return r, false
	case "point":
		p := ev.Point
		c.points++
		c.last = p
		c.spawned = c.spawned[:0]
		for _, g := range p.Goroutines {
			if g.Goid != 0 {
				c.goids[g.ID] = g.Goid
			}
		}
		if ev.Auto {
			r.Pick = ev.Pick
			if d := len(c.decisions); len(p.Alts) > 1 && d < len(c.plan.follow) && p.Alts[r.Pick].Name != c.plan.follow[d] {
				c.plan.follow = c.plan.follow[:d]
			}
		} else {
			r.Pick = c.pick(p)
		}
		if len(p.Alts) > 1 {
			d := decision{point: p, pick: r.Pick, rt: rt.Decision{Kind: p.Kind, Step: int32(p.Step), Pick: int32(r.Pick), Current: -1}}
			d.rt.Alts = make([]int32, len(p.Alts))
			for i, a := range p.Alts {
				if p.Kind == rt.DecideGoroutine || p.Kind == rt.DecideWake {
					d.rt.Alts[i] = int32(a.G)
				} else {
					d.rt.Alts[i] = int32(a.Case)
				}
			}
			if p.Kind == rt.DecideGoroutine || p.Kind == rt.DecideWake {
				d.rt.Pick = int32(p.Alts[r.Pick].G)
				if p.Current >= 0 {
					d.rt.Current = int32(p.Alts[p.Current].G)
				}
			} else {
				d.rt.Pick = int32(p.Alts[r.Pick].Case)
			}
			c.decisions = append(c.decisions, d)
			c.grow()
		}
		return r, !ev.Auto
	case "resumed":
		res := ev.Resumed
		cp := Checkpoint{Index: len(c.checkpoints), Goroutine: res.G, Op: res.Op, Position: res.Pos, Decision: res.Decision >= 0,
			DecisionIndex: res.Decision, Step: res.Step, New: res.New, Func: res.Func, Obj: res.Obj, objID: res.ObjID, goid: res.Goid}
		c.goids[res.G] = res.Goid
		c.byGoid[res.Goid] = res.G
		c.checkpoints = append(c.checkpoints, cp)
		c.grow()
		if ev.Auto {
			return r, false
		}
		if cp.Index == c.plan.breakAt || (c.plan.breakNext && cp.Decision) {
			c.plan.breakNext = false
			r.Break = true
			c.breaking = "checkpoint"
			c.breakAt = &c.checkpoints[len(c.checkpoints)-1]
		} else if c.leader != nil {
			c.extend(&r)
		}
		return r, true
	case "bug":
		c.bug = &Bug{Kind: ev.Kind, Message: ev.Message}
		if ev.Point != nil {
			c.last = ev.Point
		}
		if c.plan.stopOnBug {
			r.Break = true
			c.breaking = "bug"
			c.breakAt = nil
		}
		return r, true
	case "end":
		c.trace = ev.Trace
		c.endErr = ev.Error
		close(c.ended)
		c.grow()
		return r, false
	}
	return r, true
}

// grow tells the trailers that the run went on; c.mu is held.
func (c *controller) grow() {
	close(c.grew)
	c.grew = make(chan struct{})
}

// trail makes a trailer's run keep behind its leader's: it holds event ev, a point the leader
// has not decided yet or the resumption of a goroutine at the leader's last checkpoint, until
// the leader goes past it or stops (release). The points it lets go are decided as the leader
// decided them. It reports false if the controller closes meanwhile.
func (c *controller) trail(ev *wire.DebugEvent) bool {
	l := c.leader
	if l == nil || ev.Auto {
		return true
	}
	for {
		c.mu.Lock()
		hold, decided, seen, known := c.hold, len(c.decisions), len(c.checkpoints), len(c.plan.follow)
		c.mu.Unlock()
		released := hold >= 0
		if released && seen > hold {
			// It stopped where the leader did: from there on it is an incarnation like any
			// other, which follows the plan of the move that takes it.
			return true
		}
		l.mu.Lock()
		ready := released
		switch ev.Type {
		case "point":
			ready = ready || len(ev.Point.Alts) < 2 || decided < len(l.decisions)
		case "resumed":
			ready = ready || seen+1 < len(l.checkpoints)
		default:
			ready = true
		}
		var picks []string
		for i := known; i < len(l.decisions); i++ {
			picks = append(picks, l.decisions[i].pickName())
		}
		grew := l.grew
		l.mu.Unlock()
		if ready {
			c.mu.Lock()
			if len(c.plan.follow) == known {
				c.plan.follow = append(c.plan.follow, picks...)
			}
			c.mu.Unlock()
			return true
		}
		select {
		case <-grew:
		case <-c.wake:
		case <-c.quit:
			return false
		}
	}
}

// extend lets a trailer, which trail let go on from the checkpoint it asked at, replay on its
// own up to its leader's last checkpoint (or the one it is to stop at): one round trip for the
// stretch, and no goroutine states at its scheduling points, rather than one at each. c.mu is
// held.
func (c *controller) extend(r *wire.DebugReply) {
	if c.hold >= 0 && len(c.checkpoints) > c.hold {
		return
	}
	l := c.leader
	l.mu.Lock()
	to := len(l.checkpoints) - 1
	for i := len(c.plan.follow); i < len(l.decisions); i++ {
		c.plan.follow = append(c.plan.follow, l.decisions[i].pickName())
	}
	l.mu.Unlock()
	if c.hold >= 0 {
		to = c.hold
	}
	if to < len(c.checkpoints) || len(c.plan.follow) < len(c.decisions) {
		return
	}
	r.Extend = &wire.DebugExtend{From: len(c.decisions), Follow: slices.Clone(c.plan.follow[len(c.decisions):]), BreakAt: to}
}

// release makes a trailer stop at checkpoint k, where its leader stopped.
func (c *controller) release(k int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hold >= 0 {
		return
	}
	c.hold = k
	if c.started {
		c.plan.breakAt = k
	}
	close(c.wake)
}

// pick chooses an alternative of p: the planned goroutine, the recorded pick, or else the
// goroutine being stepped, the current goroutine (no preemption), the first alternative
// otherwise.
func (c *controller) pick(p *wire.DebugPoint) int {
	if len(p.Alts) < 2 {
		return 0
	}
	if c.plan.next != "" {
		for i, a := range p.Alts {
			if a.Name == c.plan.next {
				c.plan.next = ""
				c.plan.breakNext = true
				return i
			}
		}
	}
	d := len(c.decisions)
	if d < len(c.plan.follow) {
		if i := slices.IndexFunc(p.Alts, func(a wire.DebugAlt) bool { return a.Name == c.plan.follow[d] }); i >= 0 {
			return i
		}
		// The schedule diverged: follow it no further.
		c.plan.follow = c.plan.follow[:d]
	}
	if i := slices.IndexFunc(p.Alts, func(a wire.DebugAlt) bool { return a.Name == c.plan.stepping }); i >= 0 && c.plan.stepping != "" {
		return i
	}
	if p.Current >= 0 {
		return p.Current
	}
	return 0
}

// takeBreak returns and clears the reason of a stop the debuggee made on the controller's
// request, or "" if it made none.
func (c *controller) takeBreak() (string, *Checkpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, cp := c.breaking, c.breakAt
	c.breaking, c.breakAt = "", nil
	return r, cp
}

// snapshot returns a copy of what the run did so far.
func (c *controller) snapshot() state {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := state{checkpoints: slices.Clone(c.checkpoints), decisions: slices.Clone(c.decisions), last: c.last, spawned: slices.Clone(c.spawned),
		goids: make(map[string]int64, len(c.goids))}
	for k, v := range c.goids {
		st.goids[k] = v
	}
	if c.bug != nil {
		b := *c.bug
		st.bug = &b
	}
	return st
}

// state is what a run did up to a moment.
type state struct {
	checkpoints []Checkpoint
	decisions   []decision
	last        *wire.DebugPoint
	spawned     []wire.DebugSpawned // goroutines started since the last point
	goids       map[string]int64
	bug         *Bug
}

// picks returns the names of the decisions' picks.
func (s *state) picks() []string {
	out := make([]string, len(s.decisions))
	for i := range s.decisions {
		out[i] = s.decisions[i].pickName()
	}
	return out
}
