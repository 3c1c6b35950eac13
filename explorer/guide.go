package explorer

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"

	"github.com/heddledbg/heddle/rt"
)

// A Guide steers one run: it replays a schedule prefix, then extends it by a policy, keeping
// a sleep set if it was given one. It is the rt.Chooser of every strategy, so that a run can
// be described completely by a Guide and executed in this process or in a worker.
type Guide struct {
	// Prefix holds the pick of each decision to replay: a goroutine id for goroutine and wake
	// decisions, a case index or value for select and choose decisions.
	Prefix []int32
	// Kinds, if not nil, holds the expected kind of each prefix decision, to detect divergence.
	Kinds []rt.DecisionKind
	// Names, if not nil, replaces Prefix: the picks as written in schedule files (logical
	// goroutine ids, case numbers), matched against the alternatives as the run meets them.
	Names []string
	// Sleep is the sleep set that takes effect after the last prefix decision's step.
	Sleep []Sleeper
	// Policy extends the schedule after the prefix.
	Policy Policy
	Seed   uint64
	// PCT parameters: the number of priority change points and the estimated run length.
	Depth, Length int
	// Bound limits preemptions after the prefix (preemption-bounded search); -1 means none.
	Bound int
	// Shard of Shards and Part of Parts, when there are more than one, keep the run inside its
	// share of a split systematic search (Options.Shard, Options.Part; shard.go): at a split
	// node, the policy's pick gives way to one of the share's alternatives. SplitFrom is the
	// number of decisions of the fixed prefix, which the split does not count.
	Shard, Shards, Part, Parts, SplitFrom int
	// Plan, if not empty, is a wakeup sequence to follow after the prefix (optimal DPOR):
	// Plan[0] is the step the last prefix decision picks, and each later element a goroutine
	// to schedule next, with the picks of the data decisions within its step. A planned
	// goroutine that is not offered ends the plan; the policy goes on from there.
	Plan []PlanStep
	// Timeouts marks a run of the timeout search (timeout.go), which lists where it set timers
	// (rt.Config.TimerSites). Timeout, if set, is the site of the timer whose firing first
	// the run asks about, under adversarial time (rt.Config.Timeout).
	Timeouts bool
	Timeout  string

	// Watch lists the positions of accesses whose order the run records (rt.Config.Watch),
	// for the race window.
	Watch []string
	// Serial runs the executions of //heddle:atomic functions serially (rt.Config.Serial).
	Serial bool

	// noLog leaves the log empty, for strategies that do not build a tree from it. logFull
	// says that the run had more decisions than the log keeps (maxLogged).
	noLog, logFull bool
	// footprints asks for the run's plain accesses (rt.Config.StepAccesses), by which the
	// sleepers that carry the footprint of their step are woken (stoller); recorded is set
	// by the runner that recorded them.
	footprints, recorded bool
	// persistent asks rt for persistent sets (rt.Config.Persistent), within which the guide
	// picks after its prefix (stoller-ps).
	persistent bool
	// prefixObjs is the number of objects used before the last decision of the prefix.
	prefixObjs int32

	// Filled during the run.
	log       []logged
	diverged  string
	pcg       *pcg
	rng       *rand.Rand
	evSeen    int
	accSeen   int
	sleepOn   bool
	sleep     []Sleeper
	prios     map[rt.GID]int
	changeAt  []int
	steps     int
	preempted int
	planPos   int     // the next element of Plan, -1 once the plan is abandoned
	planData  []int32 // data picks left of the planned step in progress
	altBuf    []rt.Alt
	sh        []share // the levels of the split
	at        split   // the run's position in the split
}

// PlanStep is one step of a Guide's plan.
type PlanStep struct {
	G    rt.GID
	Data []int32 `json:",omitempty"`
}

// Sleeper is a goroutine in a sleep set, with the operation it is stopped before.
type Sleeper struct {
	G    rt.GID
	Op   rt.OpKind
	Objs []rt.ObjID
	// Yields tells that the goroutine's step may be a poll that yields (rt.Alt.Yields).
	Yields bool
	// foot, if not nil, is what the goroutine's step did when a run took it (stoller): the
	// sleeper wakes by Stoller's relation on whole steps instead of rt.Dependent.
	foot *footprint
}

// Policy is how a Guide chooses after its prefix.
type Policy uint8

const (
	// PolicyFirst continues the current goroutine when it can, else takes the first enabled
	// goroutine that is not asleep: the depth-first order.
	PolicyFirst Policy = iota
	// PolicyRandom chooses uniformly.
	PolicyRandom
	// PolicyPCT chooses by priorities with Depth-1 random change points (Burckhardt et al.).
	PolicyPCT
)

// logged is what a Guide saw at one decision after its prefix.
type logged struct {
	kind    rt.DecisionKind
	alts    []rt.Alt
	pick    int
	current int
	sleep   []Sleeper
	// planAt is the number of steps of the plan after Plan[0] performed before the decision,
	// or -1 if the guide had no plan or abandoned it.
	planAt int
	// objs is the number of objects used before the decision (with footprints).
	objs int32
	// persist is the decision's persistent set (rt.Point.Persistent), or nil.
	persist []bool
}

// Begin prepares gd for a run that a Runner outside this package steers by calling Choose
// itself (a process group's controller, which decides for several processes).
func (gd *Guide) Begin() { gd.start() }

func (gd *Guide) start() {
	gd.log, gd.logFull = gd.log[:0], false
	gd.diverged = ""
	gd.evSeen, gd.accSeen = 0, 0
	gd.sleepOn = false
	gd.sleep = nil
	gd.steps = 0
	gd.preempted = 0
	gd.planPos, gd.planData = -1, nil
	gd.altBuf = nil
	if gd.sh == nil {
		gd.sh = sharesOf(gd.Shard, gd.Shards, gd.Part, gd.Parts)
	}
	gd.at = splitStart
	if gd.Policy != PolicyFirst {
		if gd.rng == nil {
			gd.pcg = &pcg{}
			gd.pcg.Seed(gd.Seed, 0x5eed)
			gd.rng = rand.New(gd.pcg)
		} else {
			gd.pcg.Seed(gd.Seed, 0x5eed)
		}
	}
	if gd.Policy == PolicyPCT {
		if gd.prios == nil {
			gd.prios = map[rt.GID]int{}
		}
		clear(gd.prios)
		gd.changeAt = gd.changeAt[:0]
		n := max(gd.Length, 1)
		for i := 1; i < gd.Depth; i++ {
			gd.changeAt = append(gd.changeAt, gd.rng.IntN(n))
		}
	}
	if len(gd.Prefix) == 0 && len(gd.Sleep) > 0 {
		gd.sleepOn = true
		gd.sleep = append([]Sleeper(nil), gd.Sleep...)
	}
}

// Choose implements rt.Chooser.
//
//go:norace
func (gd *Guide) Choose(p *rt.Point) int {
	i := gd.choose(p)
	if len(gd.sh) > 0 && i >= 0 && len(p.Alts) > 1 && p.Index >= gd.SplitFrom {
		gd.at = gd.at.add(len(p.Alts), i, gd.sh)
	}
	return i
}

//go:norace
func (gd *Guide) choose(p *rt.Point) int {
	if gd.sleepOn {
		gd.updateSleep(p)
	}
	if i, ok := gd.planned(p); ok {
		return i
	}
	if len(p.Alts) == 1 {
		if gd.asleep(p.Alts[0].G) && p.Kind == rt.DecideGoroutine {
			return -1
		}
		return 0
	}
	k := p.Index
	if k < len(gd.Names) {
		i := gd.findName(p, gd.Names[k])
		if i < 0 || gd.Kinds != nil && gd.Kinds[k] != p.Kind {
			gd.diverged = fmt.Sprintf("decision %d: the schedule picks %s %s, but the program offered %s %v%s", k, gd.kindAt(k), gd.Names[k], p.Kind, altNames(p), callerPosition(p))
			return -1
		}
		return i
	}
	if k < len(gd.Prefix) {
		i := gd.find(p, gd.Prefix[k])
		if i < 0 || gd.Kinds != nil && gd.Kinds[k] != p.Kind {
			gd.diverged = fmt.Sprintf("decision %d: expected %s %d, but the program offered %s %v%s", k, gd.kindAt(k), gd.Prefix[k], p.Kind, altValues(p), callerPosition(p))
			return -1
		}
		if k == len(gd.Prefix)-1 && len(gd.Plan) > 0 {
			gd.planPos, gd.planData = 1, gd.Plan[0].Data
		}
		if k == len(gd.Prefix)-1 && gd.recorded {
			gd.prefixObjs = int32(p.Objects())
		}
		if k == len(gd.Prefix)-1 && len(gd.Sleep) > 0 {
			gd.sleepOn = true
			gd.sleep = append([]Sleeper(nil), gd.Sleep...)
			gd.evSeen, gd.accSeen = len(p.Events()), len(p.Accesses())
		}
		return i
	}
	i := gd.extend(p)
	if i >= 0 && len(gd.sh) > 0 && k >= gd.SplitFrom && !gd.at.owns(len(p.Alts), i, gd.sh) {
		// A split node: the run goes on in its share, or stops if the share has nothing here.
		i = gd.at.owned(len(p.Alts), gd.sh)
	}
	if i < 0 {
		return -1
	}
	gd.logPoint(p, i)
	return i
}

// logPoint records decision p, decided i, after the prefix.
//
//go:norace
func (gd *Guide) logPoint(p *rt.Point, i int) {
	if len(gd.log) == maxLogged {
		gd.logFull = true
	} else if !gd.noLog {
		gd.log = append(gd.log, logged{kind: p.Kind, alts: gd.cloneAlts(p.Alts), pick: i, current: p.Current, sleep: append([]Sleeper(nil), gd.sleep...), planAt: gd.planAt()})
		if gd.recorded {
			gd.log[len(gd.log)-1].objs = int32(p.Objects())
		}
		if p.Persistent != nil {
			gd.log[len(gd.log)-1].persist = slices.Clone(p.Persistent)
		}
	}
	if p.Kind == rt.DecideGoroutine && p.Current >= 0 && i != p.Current {
		gd.preempted++
	}
}

// planned follows the plan after the prefix: it returns the pick it prescribes, if any.
//
//go:norace
func (gd *Guide) planned(p *rt.Point) (int, bool) {
	if gd.planPos < 0 || p.Index < len(gd.Prefix) {
		return 0, false
	}
	if p.Kind != rt.DecideGoroutine {
		if len(gd.planData) == 0 {
			return 0, false
		}
		v := gd.planData[0]
		gd.planData = gd.planData[1:]
		i := gd.find(p, v)
		if i < 0 || len(p.Alts) < 2 {
			return 0, false
		}
		gd.logPoint(p, i)
		return i, true
	}
	gd.planData = nil
	if gd.planPos >= len(gd.Plan) {
		gd.planPos = -1
		return 0, false
	}
	g := gd.Plan[gd.planPos].G
	for i, a := range p.Alts {
		if a.G == g {
			if len(p.Alts) > 1 {
				gd.steps++
				gd.logPoint(p, i)
			}
			gd.planPos++
			gd.planData = gd.Plan[gd.planPos-1].Data
			return i, true
		}
	}
	// The planned goroutine is not offered here (it is blocked, or held back for fairness).
	gd.planPos = -1
	return 0, false
}

// planAt is the number of planned steps after Plan[0] performed so far, -1 without a plan.
func (gd *Guide) planAt() int {
	if gd.planPos < 0 {
		return -1
	}
	return gd.planPos - 1
}

func (gd *Guide) kindAt(k int) string {
	if gd.Kinds == nil {
		return "pick"
	}
	return gd.Kinds[k].String()
}

func altValues(p *rt.Point) []int {
	v := make([]int, len(p.Alts))
	for i, a := range p.Alts {
		v[i] = altValue(p.Kind, a)
	}
	return v
}

func altValue(k rt.DecisionKind, a rt.Alt) int {
	if k == rt.DecideGoroutine || k == rt.DecideWake {
		return int(a.G)
	}
	return a.Case
}

func altName(p *rt.Point, a rt.Alt) string {
	if p.Kind == rt.DecideGoroutine || p.Kind == rt.DecideWake {
		return p.Name(a.G)
	}
	return strconv.Itoa(a.Case)
}

func altNames(p *rt.Point) []string {
	v := make([]string, len(p.Alts))
	for i, a := range p.Alts {
		v[i] = altName(p, a)
	}
	return v
}

func (gd *Guide) findName(p *rt.Point, name string) int {
	for i, a := range p.Alts {
		if altName(p, a) == name {
			return i
		}
	}
	return -1
}

//go:norace
func (gd *Guide) find(p *rt.Point, v int32) int {
	for i, a := range p.Alts {
		if int32(altValue(p.Kind, a)) == v {
			return i
		}
	}
	return -1
}

// extend chooses after the prefix.
//
//go:norace
func (gd *Guide) extend(p *rt.Point) int {
	if p.Kind != rt.DecideGoroutine {
		if gd.Policy == PolicyFirst {
			return 0
		}
		return gd.rng.IntN(len(p.Alts))
	}
	gd.steps++
	// Outside a persistent set, a goroutine is as good as asleep: its step need not be
	// explored here.
	awake := func(i int) bool { return (p.Persistent == nil || p.Persistent[i]) && !gd.asleep(p.Alts[i].G) }
	bounded := gd.Bound >= 0 && gd.preempted >= gd.Bound && p.Current >= 0
	switch {
	case bounded:
		if awake(p.Current) {
			return p.Current
		}
		return -1
	case gd.Policy == PolicyFirst:
		if p.Current >= 0 && awake(p.Current) {
			return p.Current
		}
		for i := range p.Alts {
			if awake(i) {
				return i
			}
		}
		return -1
	case gd.Policy == PolicyRandom:
		n := 0
		for i := range p.Alts {
			if awake(i) {
				n++
			}
		}
		if n == 0 {
			return -1
		}
		k := gd.rng.IntN(n)
		for i := range p.Alts {
			if awake(i) {
				if k == 0 {
					return i
				}
				k--
			}
		}
	case gd.Policy == PolicyPCT:
		// PCT (Burckhardt et al., ASPLOS 2010): every goroutine gets a random priority >= d
		// when first seen; the highest-priority enabled goroutine runs; at each of the d-1
		// change points the running goroutine drops to a priority below all initial ones.
		best, bestP := -1, -1
		for i, a := range p.Alts {
			pr, ok := gd.prios[a.G]
			if !ok {
				pr = gd.Depth + gd.rng.IntN(1<<20)
				gd.prios[a.G] = pr
			}
			if pr > bestP {
				best, bestP = i, pr
			}
		}
		for j, at := range gd.changeAt {
			if at == gd.steps {
				gd.prios[p.Alts[best].G] = gd.Depth - 1 - j
				return gd.extendPCTAgain(p)
			}
		}
		return best
	}
	return -1
}

func (gd *Guide) extendPCTAgain(p *rt.Point) int {
	best, bestP := -1, -1
	for i, a := range p.Alts {
		if pr := gd.prios[a.G]; pr > bestP {
			best, bestP = i, pr
		}
	}
	return best
}

func (gd *Guide) asleep(g rt.GID) bool {
	for _, s := range gd.sleep {
		if s.G == g {
			return true
		}
	}
	return false
}

// updateSleep wakes every sleeper that a step performed since the last call depends on.
//
//go:norace
func (gd *Guide) updateSleep(p *rt.Point) {
	events := p.Events()
	if gd.recorded {
		gd.wakeSteps(events, p.Accesses())
	} else {
		for _, e := range events[gd.evSeen:] {
			gd.sleep = wake(gd.sleep, &e)
		}
	}
	gd.evSeen = len(events)
}

// wakeSteps wakes the sleepers dependent with the steps performed since the last decision,
// step by step: a sleeper with a footprint by Stoller's relation on whole steps (eq. (4) needs
// all of a step's operations on an object), the others by rt.Dependent on each event.
func (gd *Guide) wakeSteps(events []rt.Event, accs []rt.VarAccess) {
	var t *footprint
	flush := func() {
		if t != nil {
			t.finish()
			out := gd.sleep[:0]
			for _, s := range gd.sleep {
				if s.foot == nil || !t.dependent(s.foot) {
					out = append(out, s)
				}
			}
			gd.sleep = out
		}
	}
	for i := gd.evSeen; i < len(events); i++ {
		e := &events[i]
		if e.Start || t == nil {
			flush()
			t = &footprint{g: e.G}
		}
		t.add(e, int32(i))
		// The accesses made before the next event belong to this step; so do those made
		// before the first event, between the last decision and the step.
		for ; gd.accSeen < len(accs) && accs[gd.accSeen].Event <= int32(i)+1; gd.accSeen++ {
			t.accs = append(t.accs, accs[gd.accSeen])
		}
		out := gd.sleep[:0]
		for _, s := range gd.sleep {
			if s.foot != nil || !wakes(&s, e) {
				out = append(out, s)
			}
		}
		gd.sleep = out
	}
	flush()
	gd.accSeen = len(accs)
}

// wake removes from a sleep set the sleepers that event e is dependent with.
//
//go:norace
func wake(sleep []Sleeper, e *rt.Event) []Sleeper {
	out := sleep[:0]
	for _, s := range sleep {
		if !wakes(&s, e) {
			out = append(out, s)
		}
	}
	return out
}

// wakes reports whether event e is dependent with sleeper s's operation.
func wakes(s *Sleeper, e *rt.Event) bool {
	if s.G == e.G || e.With == s.G || e.Yields || s.Yields || rt.Dependent(e.Op, eventObjs(e), s.Op, s.Objs) {
		return true
	}
	// rt.TimeObj: a timer set or stopped against any step of another goroutine.
	eop, eok := timeAccess(e.G, eventObjs(e))
	sop, sok := timeAccess(s.G, s.Objs)
	return eok && sok && !(eop.ReadOnly() && sop.ReadOnly())
}

func eventObjs(e *rt.Event) []rt.ObjID {
	if e.Objs != nil {
		return e.Objs
	}
	if e.Obj == rt.NoObj {
		return nil
	}
	return []rt.ObjID{e.Obj}
}

// cloneAlts copies a point's alternatives into storage shared by the run's log: the nodes
// made from the log keep them, so the storage is never reused, only carved up.
//
//go:norace
func (gd *Guide) cloneAlts(alts []rt.Alt) []rt.Alt {
	if len(gd.altBuf)+len(alts) > cap(gd.altBuf) {
		gd.altBuf = make([]rt.Alt, 0, max(256, 4*len(alts)))
	}
	k := len(gd.altBuf)
	gd.altBuf = append(gd.altBuf, alts...)
	out := gd.altBuf[k:len(gd.altBuf):len(gd.altBuf)]
	for i, a := range alts {
		out[i] = a
		if a.Objs != nil {
			out[i].Objs = append([]rt.ObjID(nil), a.Objs...)
		}
	}
	return out
}

// maxLogged is the most decisions a run's log keeps, about 120 MB: a tree search cannot branch
// from a longer run. Each logged decision keeps its alternatives, and a first run of two
// million decisions among eight goroutines took a worker built with the race detector to
// 24 GB, where the kernel killed it (xsync's counters and maps).
const maxLogged = 1 << 18

// callerPosition says where the program was when it asked for decision p: a chooser is called
// on the goroutine that reached the scheduling point, so the first frame of the stack that is
// neither heddle's nor the Go runtime's is in the user's code, unless the goroutine is
// exiting. It is computed only when a run diverges, since runs without detail record no
// positions.
func callerPosition(p *rt.Point) string {
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function != "" && !heddleFrame(f.Function) {
			return fmt.Sprintf(", at %s:%d", f.File, f.Line)
		}
		if !more {
			break
		}
	}
	// The decision comes after a goroutine's exit: say which step it follows.
	if evs := p.Events(); len(evs) > 0 {
		last := evs[len(evs)-1]
		return fmt.Sprintf(", after %s %s", p.Name(last.G), last.Op)
	}
	return ""
}

func heddleFrame(fn string) bool {
	pkg := rt.FuncPackage(fn)
	return pkg == "runtime" || rt.RuntimePackage(pkg)
}
