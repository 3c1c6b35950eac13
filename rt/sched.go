package rt

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"
)

// active is the run in progress in this process, or nil. Runs are strictly sequential within a
// process (parallel exploration uses several worker processes), so a single pointer, written
// only between runs, identifies the run of every controlled goroutine.
var active *run

// epoch numbers runs. Channels and timers remember the epoch in which they were last
// initialised, so objects that outlive a run (package-level channels) are reset lazily when
// the next run first touches them; the stand-ins of package sync start afresh in each run's
// side table (syncOf).
var epoch uint64

// poisoned is set when a run could not be torn down (a goroutine never reached a scheduling
// point again). The process can no longer run anything under control.
var poisoned error

// Config parameterises one run.
type Config struct {
	// Chooser makes every decision. Nil means: always the first alternative.
	Chooser Chooser
	// MaxSteps bounds the number of steps. A run that reaches it while making progress ends
	// as cut, which is not a bug; a run whose goroutines only spun for 10,000 steps (or half
	// the bound, if that is less) ends as a livelock first. Zero means DefaultMaxSteps.
	MaxSteps int
	// Deadline, if not zero, stops a run still going at that time, with verdict stopped: one
	// long run does not overrun the exploration's time budget.
	Deadline time.Time
	// ThreadBlocks makes starting a goroutine and a started goroutine's exit scheduling points
	// of their own, and continues, at a decision, the goroutine that performed the last step:
	// the atomic blocks of Bruening's thesis, where thread start and death end blocks and the
	// Java main thread is live (Tables 4.1 and 4.2; docs/exitblock.md). The root's exit is
	// not one: the JVM's main thread dies after every other thread has ended.
	ThreadBlocks bool
	// Detail records source positions of every step and the stacks of blocked goroutines.
	// It is slower; explorations run without it and replay the schedules of bugs with it.
	Detail bool
	// LockPositions records, without Detail, the source position (Event.PC) of each step
	// that locks or unlocks a mutex: the lock trees need no more, and a run in detail mode
	// costs a walk of the stack at every step.
	LockPositions bool
	// Hang bounds the wall-clock time between two scheduling points. A goroutine that runs
	// longer (an infinite loop with no synchronization) ends the run with a hang verdict and
	// poisons the process. Zero means DefaultHang.
	Hang time.Duration
	// ForeignWait bounds how long a run whose goroutines all wait on channels that heddle does
	// not control (channels made by uninstrumented code) waits for one of them in real time
	// before the run is declared deadlocked. Zero means 1s.
	ForeignWait time.Duration
	// Time is the model of time: when the virtual clock may advance.
	Time TimeModel
	// Quantum is how far each step moves the virtual clock under TimeQuantum. Zero means
	// DefaultQuantum.
	Quantum time.Duration
	// TimerSites asks for Result.TimerSites: where the run set timers that a goroutine may
	// wait for (a timer's channel, AfterFunc, a context's deadline), the timeouts that the
	// timeout search tries one by one.
	TimerSites bool
	// Timeout restricts TimeAdversarial to the timeout search's question about one timeout:
	// what if the timer set at this site (a TimerSites entry) fires before the work it waits
	// for? The clock steps early only while such a timer is pending and a goroutine other
	// than the one that set it can run: a timer that beats only its own goroutine's work
	// would need that goroutine alone to be delayed for the whole duration.
	Timeout string
	// AskAlways makes the chooser see every scheduling point, even those with a single
	// alternative (which are not recorded as decisions), so that a strategy can track sleep
	// sets exactly and abandon a run whose only enabled goroutine is asleep.
	AskAlways bool
	// Resumed, if not nil, is called by a goroutine each time the scheduler resumes it, before
	// it performs its operation (or, for a new goroutine, before its function starts). A
	// debugger uses it to number checkpoints and to stop a goroutine at one.
	Resumed func(Resumption)
	// Reuse lets the result share the runtime's storage, which the next run reuses: it is then
	// valid only until the next call of Run (Result.Clone keeps it), and costs no copy. An
	// exploration that digests every run before the next sets it.
	Reuse bool
	// Bug, if not nil, is called when a run ends with a bug verdict, before any goroutine is
	// torn down, by the goroutine that found the bug: a debugger stops there with every
	// goroutine still at its blocking operation.
	Bug func(*Verdict)
	// Spawned, if set, is told of every go statement, which is not a scheduling point: a
	// debugger stopped between two points learns of the goroutines started since the last.
	Spawned func(Spawn)
	// IgnoreAccesses turns off the lockset check: the plain memory accesses that instrumented
	// code reports cost only a test of this flag.
	IgnoreAccesses bool
	// Serial runs the executions of //heddle:atomic functions serially: a goroutine inside
	// one is not preempted while it can go on (region.go).
	Serial bool
	// Watch lists positions ("file:line:col") of plain accesses whose order the run records in
	// Result.Watched: the race window confirms a race by the order of its two accesses.
	Watch []string
	// StepAccesses records every plain access in Result.Accesses (and Point.Accesses), so that
	// a strategy can tell the variables each step read and wrote. It needs the lockset check
	// (not IgnoreAccesses), which numbers the variables.
	StepAccesses bool
	// Persistent computes, at each decision between goroutines, a persistent set by Stoller's
	// Algorithm 2-MLD from the goroutines' bounds (Declare) and the lockset check's modes,
	// and offers it in Point.Persistent (persistent.go).
	Persistent bool
	// Mirror writes the state of every lock, wait group and once into its own words, where
	// Go's sync keeps it, for a debugger that reads the program's memory (mirror.go).
	Mirror bool
}

// Spawn describes a goroutine started by a go statement.
type Spawn struct {
	Parent, Child string  // logical ids
	Fn            uintptr // the child's function
}

// Resumption describes a goroutine resumed by the scheduler.
type Resumption struct {
	G    GID
	Name string // logical id, G1.2
	Goid int64  // the runtime goroutine it runs on, as stack traces and debuggers number it
	Step int    // the step it is about to perform
	Op   OpKind
	Obj  ObjID
	// PC is the position of the operation in the user's code (detail mode), 0 for a new
	// goroutine or when unknown.
	PC uintptr
	// Decision is the index of the decision that picked the goroutine, or -1 when it was the
	// only alternative or was resumed by a partner that completed its operation.
	Decision int
	// New is set when the goroutine is about to start; Fn is then its function (detail mode).
	New bool
	Fn  uintptr
}

// A Chooser makes decisions. Choose returns an index into p.Alts, or -1 to abandon the run
// (a strategy's way to prune a schedule that is known to be redundant).
type Chooser interface {
	Choose(p *Point) int
}

type gstate uint8

const (
	gReady   gstate = iota // created or resumed, will run to its next scheduling point
	gPending               // stopped before g.op
	gParked                // waiting for another goroutine or the clock to complete g.op
	gDone                  // returned, exited or torn down
)

// goroutine is a controlled goroutine.
type goroutine struct {
	id     GID
	parent *goroutine
	seq    int32 // 1-based index among the parent's children
	nchild int32
	nobj   int32 // objects first touched by this goroutine
	state  gstate
	wake   *parker // its carrier's
	gp     uintptr // its carrier's runtime descriptor (getg), to tell callers apart
	goid   int64   // its carrier's id in the runtime's stack traces
	op     op
	since  uint64 // order in which goroutines became pending: FIFO for channel partners
	// working is the virtual time since which g has worked without waiting: its creation, or
	// the end of its last wait (timeoutAgainstWork).
	working int64
	// listed says that g is in the run's candidates list (run.candidates).
	listed  bool
	fn      uintptr
	start   func() // its function until its carrier starts it, for Stack's listing
	created int32  // step that created it, -1 for the root
	exited  int32
	bubble  *bubble // the synctest bubble it belongs to, or nil
	noLeak  bool    // heddle's own watcher, left out of the leak check
	// Results of operations completed on g's behalf by another goroutine.
	done     bool // op completed by a partner
	recv     any
	recvOK   bool
	selected int
	panicMsg string // a parked send whose channel was closed panics when it resumes
	// real is the half of a buffered channel's operation that the partner which completed
	// g's left to g, to do on the real channel when it resumes: the race detector orders a
	// buffer's operations by the goroutines that make them (race.go).
	real realHalf
	// Detail mode.
	pc    uintptr
	stack []uintptr
	// The logical id, kept across runs with the goroutine struct of the same GID: most runs of
	// an exploration create the same goroutines, and the name is a function of the parent's
	// name and seq.
	name       string
	nameParent string
	nameSeq    int32
	// Fairness (CHESS, Musuvathi and Qadeer, PLDI 2008, §3): a goroutine that polls in a loop
	// yields, and may not run again until every alternative in waitFor (those enabled when it
	// polled, at step polled) has stepped since or is not offered. lastStep is the step g last
	// performed; polledBefore tells a loop's polls from the first.
	waitFor      []GID
	polled       int32
	lastStep     int32
	polledBefore bool
	// offeredSince is the step since which g has waited at its scheduling point, and, for the
	// clock, since which it has been offered at every decision, offeredAt being the last
	// decision (run.decides) that offered it: an alternative passed over for a time slice is
	// starved (run.starved).
	offeredSince, offeredAt int32
	// A goroutine spins when it polls again after doing nothing since its previous poll but
	// read shared state (atomic loads, len, other polls): its loop cannot change anything, so
	// only another goroutine (or time) can end it. quiet tells whether g did nothing else
	// since its last poll, wasQuiet what quiet was before g's latest step. A goroutine that
	// does work between polls (a loop that checks ctx.Done with a select default, then
	// locks, sends, or calls a method that does) is not spinning however often it polls.
	spinning, quiet, wasQuiet bool
	// spins counts g's polls in a row while spinning. Time passes for a goroutine that only
	// spins once it has spun clockSpins times: a few reads of shared state in a row (a test
	// that asks a circuit breaker's state five times while its timer is set) are not a wait.
	spins int32
	// asleep is 1 while g waits for a wake (wake, sleep).
	asleep uint32
	// bound is what g declared it may still do (Declare), or nil.
	bound *Bound
	// lastLoad is the object of g's last step if it was an atomic load, else NoObj: a load
	// of the same object right after it changes nothing, so it polls.
	lastLoad ObjID
	// atomicDepth counts the executions of //heddle:atomic functions g is in; region is the
	// index of the outermost one in run.regions while atomicDepth > 0.
	atomicDepth int32
	region      int32
}

type run struct {
	cfg       Config
	epoch     uint64
	gs        []*goroutine
	cur       *goroutine
	root      *goroutine
	resume    []*goroutine
	objs      []objInfo
	events    []Event
	decisions []Decision
	alts      []Alt
	altObjs   []ObjID
	// parkedSelects are the goroutines parked in a select at the decision being made.
	parkedSelects []*goroutine
	// selMarks[o] is selStamp when object o is a case of a select in parkedSelects: an
	// alternative on no such object completes no select, which addCompletedSelects then
	// tells without looking at each select (yamux's fifty streams park a hundred).
	selMarks []uint32
	selStamp uint32
	// candidates holds, in the order of their ids once sorted, the goroutines a decision
	// looks at: every pending goroutine and every one parked in a select, and others that
	// were until the next decision drops them. A decision costs what it offers, not the
	// run's goroutines: ants' tests start a hundred thousand.
	candidates []*goroutine
	unsorted   bool
	point      Point
	nsince     uint64
	steps      int
	progress   atomic.Int64 // scheduling points reached, for the hang watchdog
	// busy counts the running goroutine's calls into heddle between scheduling points (its
	// memory accesses); activity publishes it to the watchdog every activityEvery calls, so
	// that a goroutine that computes is not taken for one that hangs.
	busy     uint64
	activity atomic.Uint64
	// unseen is set while the lockset check has nothing to record of an access (IgnoreAccesses,
	// solo): access then only counts it, inline. noteSolo keeps it.
	unseen bool
	// computed is set, by the watchdog, when it gave up on a goroutine that kept executing
	// instrumented code: how long it did.
	computed time.Duration
	// foreign is set, by the goroutine itself, when a goroutine heddle does not control
	// called instrumented code during the run: the run ends as unsupported.
	foreign atomic.Pointer[string]
	// differs says how heddle gave the program something other than Go would have (Differs):
	// a failure of the program's checks after it is not the program's bug.
	differs      string
	differsSited bool
	ended        bool
	aborted      bool
	tearing      atomic.Bool // teardown has begun (aborted is set): see sleep
	// torn holds, from the start of teardown, the carriers of the goroutines it ends (controls).
	torn    atomic.Pointer[map[uintptr]struct{}]
	verdict Verdict
	done    chan struct{} // receives when the run ends
	live    atomic.Int32  // goroutines whose carrier has not finished with them
	idle    chan struct{} // receives once when live drops to zero
	chans   []chanKey
	acc     *accesses // the lockset check's state, from the first synchronization or access
	watched []string  // the positions of Config.Watch reached, in order
	// timerSites are the sites of Result.TimerSites, in the order the run first set them.
	timerSites []string
	addrs      ptrTable[ObjID]
	// syncs is the side table of the stand-ins of package sync used in the run, by address,
	// with their states in syncArena (nsync in use).
	syncs     ptrTable[*syncObj]
	syncArena []*[syncChunk]syncObj
	nsync     int
	clock     clock
	quantum   int64 // cfg.Quantum
	// window is the virtual time at which the lifecycle window ends, once the root has
	// returned (LeakWindow); returned is when it returned. rootName names the root in
	// verdicts: the test's name, or main.
	window, returned int64
	rootName         string
	// testFailed is set when the test failed (t.Error, t.Fatal) before the run ended
	// (TestFailed), whatever ended it.
	testFailed bool
	exits      bool // the root is a program's main (NameMain)
	pending    []GoroutineState
	hasForeign bool // a foreign channel was seen: parked goroutines may need polling
	connected  bool // a connection of the virtual network was made (Connected)
	clockLast  bool // the last step was the clock's
	clockNext  []ObjID
	startG     GID   // the goroutine picked for the next step
	startD     int32 // the decision that picked it, -1 if it was the only alternative
	// worked is the last step that was work: a step of a goroutine that was not spinning,
	// or of the clock. A run whose last stretch steps were all spinning is a livelock.
	// A step is taken for work when recorded; prevWorked lets poll take that back.
	worked, prevWorked int
	// sliceG has taken the last slice steps in a row (sliceSteps).
	sliceG  *goroutine
	slice   int
	decides int32 // calls of decide, for run.starved
	stretch int
	waiting []bool // fair's scratch
	// lastRelease maps an object to the step of its last release-like operation, for the
	// happens-before arrows of the trace (detail mode).
	lastRelease map[ObjID]int32
	// heldKnown tells whether the lockset check follows the locks held from the run's start.
	heldKnown bool
	// early lists the timers that the adversarial clock fired while goroutines could still
	// run (detail mode); bubble is the synctest bubble in progress, or nil.
	early  []earlyFire
	bubble *bubble
	// history is the record of the operations checked for linearizability (history.go);
	// checking is set while the running goroutine checks it (CheckHistory).
	history  history
	checking atomic.Bool
	// regions are the executions of //heddle:atomic functions (region.go).
	regions []Region
	// tx is the transactional happens-before graph of the regions (velodrome.go), from the
	// run's first region on; nil before, and in a run without regions.
	tx *txGraph
	// ignore are the goroutines that the program's leak checks pass over (leak.go).
	ignore leakIgnore
	// Kept across runs: the goroutine structs by GID and the names of objects by ObjID (up to
	// maxCached each), and storage that result copies out unless cfg.Reuse is set: the
	// decisions' alternatives, and the steps' first partners with their objects.
	gcache      []*goroutine
	objNames    []objName
	decAlts     []int32
	partners    []Partner
	partnerObjs []ObjID
	shared      Result // the result of a run with cfg.Reuse

	// stepAccs are the plain accesses, in order (Config.StepAccesses).
	stepAccs []VarAccess
}

// DefaultMaxSteps is the step bound of a run. A million steps is an ordinary test (a loop of
// map operations, a large fan-out). A run keeps its events and decisions, about 160 bytes per
// step (measured: 156 MB for a run of 1,000,000 steps, 530 MB of peak heap with the growth of
// its slices), and the process keeps that storage for the next run; at 2,000,000 steps a run
// holds about 320 MB, which a worker can afford.
const DefaultMaxSteps = 2_000_000

// DefaultHang is the hang limit (Config.Hang) when none is given: the wall-clock time a
// goroutine may go between two scheduling points.
const DefaultHang = 10 * time.Second

// deadlineEvery+1 is how many steps pass between two looks at the clock for Config.Deadline.
const deadlineEvery = 1<<10 - 1

// pollStretch is how many consecutive steps of nothing but spinning make a livelock. Under
// fair scheduling a spinning goroutine lets every other enabled goroutine step before it
// polls again, so a correct spin-wait spins only while another goroutine works, and a
// handshake between spinning goroutines (each polls, then does a few steps of work) settles
// within a few rounds. 10,000 steps is thousands of rounds in which no goroutine did more
// than a loop body's worth of steps between two polls; it keeps a livelocked run, which every
// replay re-executes in full, to a few milliseconds.
const pollStretch = 10_000

// maxCached bounds the goroutine structs and object names a run keeps for the next one.
const maxCached = 1024

// spare is the run struct of the last run, whose storage the next one reuses.
var spare *run

// Run executes body as the root goroutine G1 of a new run under control and returns when the
// run has ended and every goroutine it started has been torn down. The result is the
// caller's, unless cfg.Reuse is set.
//
//go:norace
func Run(cfg Config, body func()) *Result {
	if active != nil {
		if r, _ := current(); r != nil {
			// A test of heddle's own engine, explored by heddle: its runs would share the
			// scheduler with the run that controls them.
			where := "?"
			if _, file, line, ok := runtime.Caller(1); ok {
				where = fmt.Sprintf("%s:%d", filepath.Base(file), line)
			}
			Fail(VerdictUnsupported, "the test runs heddle's scheduler itself (rt.Run, called at "+where+"), which cannot run inside a run that heddle controls", false)
		}
		panic("rt: Run called while a run is in progress")
	}
	if poisoned != nil {
		return &Result{Verdict: Verdict{Kind: VerdictHang, Message: poisoned.Error()}}
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.Hang == 0 {
		cfg.Hang = DefaultHang
	}
	if cfg.ForeignWait == 0 {
		cfg.ForeignWait = time.Second
	}
	if cfg.Quantum <= 0 {
		cfg.Quantum = DefaultQuantum
	}
	r := spare
	if r == nil {
		r = new(run)
	}
	spare = nil
	r.reset(cfg)
	r.quantum = int64(cfg.Quantum)
	r.stretch = max(1, min(pollStretch, cfg.MaxSteps/2))
	clockG.lastStep, clockG.offeredAt = -1, -2
	r.raceStart()
	root := r.newG(nil, body)
	r.root = root
	r.cur = root
	r.adoptInit()
	// A goroutine heddle did not start may call in at any time: it finds the run whole.
	active = r
	wake(root)
	r.wait()
	r.teardown()
	r.unmirror()
	r.raceVerdict()
	active = nil
	res := r.result()
	if poisoned == nil {
		spare = r
	}
	return res
}

//go:norace
func (r *run) reset(cfg Config) {
	epoch++
	clear(r.events)
	*r = run{
		cfg:           cfg,
		epoch:         epoch,
		gs:            r.gs[:0],
		resume:        r.resume[:0],
		objs:          r.objs[:0],
		events:        r.events[:0],
		decisions:     r.decisions[:0],
		alts:          r.alts[:0],
		altObjs:       r.altObjs[:0],
		parkedSelects: r.parkedSelects[:0],
		selMarks:      r.selMarks,
		selStamp:      r.selStamp,
		candidates:    r.candidates[:0],
		chans:         r.chans[:0],
		addrs:         r.addrs,
		syncs:         r.syncs,
		syncArena:     r.syncArena,
		acc:           r.acc,
		done:          r.done,
		idle:          r.idle,
		startG:        NoG,
		clock:         clock{timers: r.clock.timers[:0], due: r.clock.due[:0], shortest: -1, mono: monoBase()},
		early:         r.early[:0],
		gcache:        r.gcache,
		objNames:      r.objNames,
		decAlts:       r.decAlts[:0],
		partners:      r.partners[:0],
		partnerObjs:   r.partnerObjs[:0],
		stepAccs:      r.stepAccs[:0],
		waiting:       r.waiting,
		regions:       r.regions[:0],
		shared:        Result{Goroutines: r.shared.Goroutines, Objects: r.shared.Objects},
	}
	r.addrs.clear()
	r.syncs.clear()
	if r.acc != nil {
		r.acc.reset()
	}
	if r.done == nil {
		r.done = make(chan struct{}, 1)
		r.idle = make(chan struct{}, 1)
	}
	if cfg.Detail {
		r.lastRelease = make(map[ObjID]int32)
	}
	if cfg.Persistent {
		// 2-MLD needs the locks each goroutine holds from the first step on.
		accessesUsed.Store(true)
	}
	r.heldKnown = accessesUsed.Load() && !cfg.IgnoreAccesses
}

// wait blocks the driver until the run ends, or until the watchdog finds that the running
// goroutine stopped reaching scheduling points.
//
//go:norace
func (r *run) wait() {
	hung, outside := r.await(r.done)
	if !hung {
		return
	}
	r.ended = true
	switch msg := r.foreign.Load(); {
	case msg != nil:
		// The running goroutine waits outside heddle, likely for the foreign one.
		poisoned = errors.New("rt: " + *msg)
		r.verdict = Verdict{Kind: VerdictUnsupported, Message: *msg}
	case outside != "":
		poisoned = fmt.Errorf("rt: %s; the process cannot run more schedules", outside)
		r.verdict = Verdict{Kind: VerdictUnsupported, Message: outside + ". Heddle runs one goroutine at a time, and cannot tell what it waits for, so it cannot explore this test"}
	default:
		var fns, files []string
		if r.cur != nil && r.cur.goid != 0 {
			// One listing of the goroutines serves both questions.
			_, fns, files = stackOf(r.cur.goid)
		}
		stack := loopingAt(fns, files)
		at := ""
		if len(stack) > 0 {
			at = " at " + stack[0].Position()
		}
		if fn := stalledIn(fns); fn != "" && r.computed == 0 {
			// No access was counted for the hang limit, yet the goroutine is in heddle's own
			// code: one of heddle's calls took that long (its bookkeeping of the accesses of a
			// test that touches hundreds of millions of addresses), not the program.
			poisoned = fmt.Errorf("rt: goroutine %s spent over %v in heddle's own code (%s)%s: heddle's cost, not a hang of the program; the process cannot run more schedules", r.gname(r.cur), r.cfg.Hang, fn, at)
			r.verdict = Verdict{Kind: VerdictUnsupported, Message: poisoned.Error()}
			return
		}
		ran, computing := r.cfg.Hang, ""
		if r.computed > 0 {
			ran, computing = r.computed, fmt.Sprintf(", executing instrumented code all along: heddle's limit for code that computes is %d times the hang limit", computeLimit)
		}
		poisoned = fmt.Errorf("rt: goroutine %s ran for %v without reaching a scheduling point%s (an infinite loop?)%s; the process cannot run more schedules", r.gname(r.cur), ran, at, computing)
		r.verdict = Verdict{Kind: VerdictHang, Message: poisoned.Error(), Goroutines: []GoroutineState{{ID: r.cur.id, State: "running", Stack: stack}}}
	}
}

// teardown ends every goroutine of the run that has not returned: each is woken in turn and
// calls runtime.Goexit, which runs its deferred calls; rt operations in those calls exit again
// at once.
//
//go:norace
func (r *run) teardown() {
	if poisoned != nil {
		return
	}
	torn := make(map[uintptr]struct{}, len(r.gs))
	for _, g := range r.gs {
		if g.state != gDone {
			torn[g.gp] = struct{}{}
		}
	}
	r.torn.Store(&torn)
	r.aborted = true
	r.tearing.Store(true)
	for _, g := range r.gs {
		if atomic.CompareAndSwapUint32(&g.asleep, 1, 0) {
			g.wake.unpark()
		}
	}
	select {
	case <-r.idle:
	default:
		if hung, _ := r.await(r.idle); hung {
			poisoned = fmt.Errorf("rt: a goroutine did not exit during teardown (blocked in a deferred call outside heddle's control)")
		}
	}
	for _, k := range r.chans {
		unregisterChan(k)
	}
}

// newG creates a controlled goroutine that will run f once it is first resumed.
//
//go:norace
func (r *run) newG(parent *goroutine, f func()) *goroutine {
	id := len(r.gs)
	var ng *goroutine
	if id < len(r.gcache) {
		ng = r.gcache[id]
	} else {
		ng = new(goroutine)
		if id < maxCached {
			r.gcache = append(r.gcache, ng)
		}
	}
	c := takeCarrier()
	*ng = goroutine{
		id:           GID(id),
		parent:       parent,
		wake:         &c.wake,
		created:      -1,
		exited:       -1,
		state:        gReady,
		asleep:       1, // its carrier waits for the first wake
		name:         ng.name,
		nameParent:   ng.nameParent,
		nameSeq:      ng.nameSeq,
		waitFor:      ng.waitFor[:0],
		lastStep:     -1,
		offeredSince: int32(r.steps),
		offeredAt:    -2,
		lastLoad:     NoObj,
		start:        f,
		working:      r.clock.now,
	}
	if parent != nil {
		ng.bound = parent.bound
		if ng.bubble = parent.bubble; ng.bubble != nil {
			ng.bubble.live++
		}
		parent.nchild++
		ng.seq = parent.nchild
		ng.created = int32(len(r.events)) - 1
	}
	if r.cfg.Detail || raceEnabled {
		ng.fn = funcPC(f)
	}
	r.gs = append(r.gs, ng)
	r.noteSolo()
	raceHide()
	r.live.Add(1)
	raceShow()
	c.r, c.g, c.f = r, ng, f
	return ng
}

// body runs goroutine g of run r on its carrier, from its first resumption. It returns when
// g returned, recovered from a panic, or was torn down before it started; a goroutine that
// exits (runtime.Goexit, teardown) ends its carrier.
//
//go:norace
func (r *run) body(g *goroutine, f func()) {
	if r.aborted {
		g.state = gDone
		return
	}
	if r.cfg.Resumed != nil {
		r.resumed(g, true)
	}
	returned := false
	defer r.bodyEnd(g, &returned)
	f()
	returned = true
}

// bodyEnd ends g's body: it returned, panicked, or exited (runtime.Goexit: t.Fatal, or
// teardown). It is a method rather than a function literal, since only a declared function
// can be //go:norace: goroutines are reused from run to run, and the detector would see
// their writes to g across hand-offs hidden from it.
//
//go:norace
func (r *run) bodyEnd(g *goroutine, returned *bool) {
	if *returned {
		if r.cfg.ThreadBlocks && g.parent != nil && !r.ended {
			g.op = op{kind: OpExit, obj: NoObj}
			r.yield(g)
		}
		r.exit(g)
		return
	}
	if p := recover(); p != nil {
		g.state = gDone
		if r.aborted {
			return
		}
		kind, msg := panicVerdict(p)
		r.fail(kind, msg, g, panicStack())
		return
	}
	if r.aborted {
		g.state = gDone
		return
	}
	r.exit(g)
}

// retire counts a goroutine out of the run; the last one tells teardown.
//
//go:norace
func (r *run) retire() {
	raceHide()
	defer raceShow()
	if r.live.Add(-1) == 0 {
		select {
		case r.idle <- struct{}{}:
		default: // the watchdog has given up on the teardown
		}
	}
}

// exit retires g and passes control on.
//
//go:norace
func (r *run) exit(g *goroutine) {
	g.state = gDone
	g.exited = int32(r.steps)
	if g == r.root && !r.ended {
		if r.exits {
			r.verdict = Verdict{Kind: VerdictOK}
			r.finish()
			return
		}
		r.returned = r.clock.now
		r.window = r.clock.now + int64(LeakWindow)
	}
	if r.ended {
		return
	}
	e := r.record(g, OpExit, NoObj)
	if g.bubble != nil {
		r.bubbleExit(g, e)
	}
	if r.ended {
		return
	}
	if n := r.next(g); n != nil {
		r.cur = n
		wake(n)
	}
}

// yield stops the current goroutine g before its pending operation g.op. It returns when g has
// been chosen to perform the operation, or when another goroutine completed it (g.done).
//
//go:norace
func (r *run) yield(g *goroutine) {
	if r.aborted {
		runtime.Goexit()
	}
	if r.cfg.Detail {
		g.pc, g.stack = callers()
	}
	g.state = gPending
	r.list(g)
	g.done = false
	g.offeredSince = int32(r.steps)
	r.nsince++
	g.since = r.nsince
	n := r.next(g)
	if n == g {
		g.state = gReady
		if r.cfg.Resumed != nil {
			r.resumed(g, false)
		}
		return
	}
	r.switchTo(g, n)
	if r.aborted {
		runtime.Goexit()
	}
	g.state = gReady
	if r.cfg.Resumed != nil {
		r.resumed(g, false)
	}
}

// resumed reports g's resumption to the Resumed hook. The decision that picked g is the last
// one when it picked g at the current step.
//
//go:norace
func (r *run) resumed(g *goroutine, isNew bool) {
	d := -1
	if r.startG == g.id && r.startD >= 0 {
		d = int(r.startD)
	}
	r.cfg.Resumed(Resumption{G: g.id, Name: r.gname(g), Goid: g.goid, Step: r.steps, Op: g.op.kind, Obj: g.op.obj, PC: g.pc, Decision: d, New: isNew, Fn: g.fn})
}

// park blocks g (whose operation another goroutine or the clock will complete) until it is
// resumed.
//
//go:norace
func (r *run) park(g *goroutine) {
	g.state = gParked
	r.nsince++
	g.since = r.nsince
	if g.op.kind == OpSelect {
		r.list(g)
	}
	r.waitOn(g)
	r.switchTo(g, r.next(g))
	if r.aborted {
		runtime.Goexit()
	}
	g.state = gReady
	if r.cfg.Resumed != nil {
		r.resumed(g, false)
	}
}

// next decides who runs after the current goroutine cur stopped (pending, parked or exited).
// It first drains the resume queue: goroutines whose operation was completed by someone else
// run to their next scheduling point before any decision. It returns nil when the run ended.
//
//go:norace
func (r *run) next(cur *goroutine) *goroutine {
	if raceEnabled {
		raceHide() // the scheduler's own state and counters order nothing of the program's
		defer raceShow()
		r.raceStep(cur)
	}
	r.progress.Add(1)
	for {
		if r.ended {
			return nil
		}
		if len(r.resume) > 0 {
			return r.takeResumed()
		}
		if r.hasForeign && r.pollParked() {
			continue
		}
		n := r.decide(cur)
		if n != clockG {
			return n
		}
		r.fireClock()
	}
}

// takeResumed removes the first goroutine of the resume queue and returns it.
//
//go:norace
func (r *run) takeResumed() *goroutine {
	n := r.resume[0]
	r.resume = r.resume[:copy(r.resume, r.resume[1:])]
	return n
}

// wake hands control to n, and sleep waits for g's turn, on the parker of n's and g's carriers
// (park.go). The hand-off is hidden from the race detector, which is told of heddle's modelled
// synchronization instead (race.go).
//
// A goroutine is woken once per sleep: g.asleep goes from 1 to 0 for the one that wakes it,
// the scheduler or teardown. Teardown runs while the goroutine that ended the run may still be
// running (finishing the operation whose step ended it); a wake that it sent to that goroutine
// too would stay pending in the parker and start its carrier again, with no goroutine, once it
// is back in the pool.
//
//go:norace
func wake(n *goroutine) {
	raceHide()
	defer raceShow()
	if !atomic.CompareAndSwapUint32(&n.asleep, 1, 0) {
		return // teardown took it
	}
	n.wake.unpark()
}

// switchTo hands control from g to n (nil: to nobody, as the run has ended) and waits for g's
// turn. g is asleep before n can run, so that n may wake it at once.
//
//go:norace
func (r *run) switchTo(g, n *goroutine) {
	raceHide()
	atomic.StoreUint32(&g.asleep, 1)
	raceShow()
	if n != nil {
		r.cur = n
		wake(n)
	}
	sleep(r, g)
}

// sleep waits for g's wake, g being asleep. It returns at once, without a wake, when teardown
// began before g was asleep and did not see it; the caller then exits, as r.aborted says.
//
//go:norace
func sleep(r *run, g *goroutine) {
	raceHide()
	if r.tearing.Load() && atomic.CompareAndSwapUint32(&g.asleep, 1, 0) {
		raceShow()
		return
	}
	g.wake.park()
	raceShow()
	raceWoken(g)
}

// list adds g, which became pending or parked in a select, to the decisions' candidates.
//
//go:norace
func (r *run) list(g *goroutine) {
	if g.listed {
		return
	}
	g.listed = true
	if n := len(r.candidates); n > 0 && r.candidates[n-1].id > g.id {
		r.unsorted = true
	}
	r.candidates = append(r.candidates, g)
}

// sortByID sorts gs by id, by insertion: the list is short and mostly sorted. It is written
// out rather than a call of package slices, whose writes, made on one carrier, the race
// detector would see race with a later append's read on another, the hand-offs between
// carriers being hidden from it.
//
//go:norace
func sortByID(gs []*goroutine) {
	for i := 1; i < len(gs); i++ {
		for j := i; j > 0 && gs[j-1].id > gs[j].id; j-- {
			gs[j-1], gs[j] = gs[j], gs[j-1]
		}
	}
}

// clockG is the pseudo-goroutine whose step advances the virtual clock. Its steps are work:
// time passing is progress.
var clockG = &goroutine{id: ClockID, lastLoad: NoObj}

// decide collects the enabled alternatives and asks the chooser. It returns nil, after ending
// the run, when nothing can run.
//
//go:norace
func (r *run) decide(cur *goroutine) *goroutine {
	alts := r.alts[:0]
	r.altObjs = r.altObjs[:0]
	r.parkedSelects = r.parkedSelects[:0]
	if r.selStamp++; r.selStamp == 0 {
		clear(r.selMarks)
		r.selStamp = 1
	}
	curIdx := -1
	yielded, working := false, false
	if cur != nil && cur == r.sliceG && r.slice >= sliceSteps {
		r.slice = 0
		r.yieldToOthers(cur)
	}
	if r.cfg.ThreadBlocks {
		// The goroutine whose block just ended, not a child it started that ran on to its
		// first scheduling point.
		if n := len(r.events); n > 0 && r.events[n-1].G >= 0 {
			cur = r.gs[r.events[n-1].G]
		}
	}
	if r.unsorted {
		sortByID(r.candidates)
		r.unsorted = false
	}
	kept := r.candidates[:0]
	for _, g := range r.candidates {
		if g.state != gPending && (g.state != gParked || g.op.kind != OpSelect) {
			g.listed = false
			continue
		}
		kept = append(kept, g)
		if g.state == gParked {
			r.parkedSelects = append(r.parkedSelects, g)
			for _, c := range g.op.cases {
				if c.st != nil {
					r.markSelect(c.st.obj.id)
				}
			}
		}
		if g.state == gPending && r.enabled(g) {
			yielded = yielded || len(g.waitFor) > 0
			working = working || g.spins < clockSpins
			if g == cur {
				curIdx = len(alts)
			}
			alts = r.appendAlt(alts, g)
		}
	}
	r.candidates = kept
	if len(alts) == 0 && r.waitForeign() {
		return r.takeResumed()
	}
	if r.clockEnabled(len(alts) > 0, working) && (r.cfg.Timeout == "" || r.timeoutAgainstWork(alts)) {
		alts = append(alts, Alt{G: ClockID, Op: OpClock, Obj: NoObj, Objs: r.clockObjs()})
	}
	if s := r.starved(alts); s >= 0 {
		r.starve(alts, s)
		yielded = true
	}
	if len(r.parkedSelects) > 0 {
		for i := range alts {
			r.addCompletedSelects(&alts[i])
		}
	}
	if yielded {
		alts, curIdx = r.fair(alts, curIdx)
	}
	if r.cfg.Serial && curIdx >= 0 && cur.atomicDepth > 0 {
		alts, curIdx = alts[curIdx:curIdx+1], 0
	}
	r.alts = alts
	if len(alts) == 0 {
		if r.connected && !r.allDone() {
			r.graceConnected()
		}
		r.end()
		return nil
	}
	i, d := 0, int32(-1)
	if len(alts) > 1 || r.cfg.AskAlways {
		if len(alts) > 1 {
			d = int32(len(r.decisions))
		}
		if i = r.choose(DecideGoroutine, alts, curIdx); i < 0 {
			return nil
		}
	}
	r.startG, r.startD = alts[i].G, d
	return r.gOf(alts[i].G)
}

// poll marks g's step as a poll. A goroutine that polls for the second time or later is in a
// polling loop, and yields: it lets every other goroutine enabled now step before it runs
// again (CHESS's priority relation, PLDI 2008 §3.2), so that a spin-wait lets the goroutine
// it waits for run under every strategy, and a loop that polls now and then (a worker that
// checks a done channel with a select default between batches) lets the others run. The
// first poll does not yield: a select with default in straight-line code is not waiting for
// anyone, and a yield there would take away schedules of its bugs from every strategy. A poll
// that yields is marked (Event.Yields): the reductions count it as a write of FairObj.
//
//go:norace
func (r *run) poll(g *goroutine) {
	if g.bound != nil {
		r.checkBoundPoll(g)
	}
	again := g.polledBefore
	g.polledBefore = true
	g.spinning = again && g.wasQuiet
	g.quiet = true
	if g.spinning {
		g.spins++
	} else {
		g.spins = 0
	}
	if g.spinning {
		r.worked = r.prevWorked
	}
	g.waitFor = g.waitFor[:0]
	if !again {
		return
	}
	if n := len(r.events); n > 0 && r.events[n-1].G == g.id {
		r.events[n-1].Yields = true
	}
	r.yieldToOthers(g)
}

// clockSpins is how many polls in a row a goroutine spins before the clock may advance while
// it can run. A loop that waits for time by polling shared state polls without end, and
// reaches it; a bounded loop of reads (eapache's breaker test reads the state five times in
// a row, its timer set to fire in 10 ms) does not, and time does not pass in the middle of it,
// as under testing/synctest, where time passes only when every goroutine is blocked.
const clockSpins = 1000

// sliceSteps is the time slice: how many steps in a row a goroutine may take while others
// can run before it yields to them, as poll makes it yield. Go's scheduler preempts a
// goroutine that runs for 10ms; without a slice, a strategy that keeps running the current
// goroutine would spin for the whole step bound in a loop that polls by doing work (a
// TryAcquire that succeeds and a Release, until another goroutine queues), which real Go ends
// at the next preemption.
const sliceSteps = 10_000

// starved returns the index in alts of the alternative that has waited the longest to step, if
// that is a time slice (sliceSteps) or more, else -1. A goroutine waits from its scheduling
// point on, whether or not it could run meanwhile, as a waiter for a mutex does in Go's
// starvation mode; the clock from when a timer fell due, while it stays due.
//
//go:norace
func (r *run) starved(alts []Alt) int {
	n := r.decides
	r.decides++
	s, since := -1, int32(r.steps)-sliceSteps
	for i, a := range alts {
		g := r.gOf(a.G)
		if a.G == ClockID && (g.offeredAt != n-1 || g.lastStep >= g.offeredSince) {
			g.offeredSince = int32(r.steps)
		}
		g.offeredAt = n
		if len(alts) > 1 && g.offeredSince <= since {
			s, since = i, g.offeredSince
		}
	}
	return s
}

// starve makes every other alternative wait until alts[s] has stepped. Go's scheduler runs a
// goroutine that has been runnable for a time slice, and fires a timer that is due; a
// strategy that always passes one over (two goroutines that wake each other on a Cond while a
// third's 300 ns sleep is due) would run to the step bound where Go's run ends.
//
//go:norace
func (r *run) starve(alts []Alt, s int) {
	id := alts[s].G
	if id != ClockID {
		g := r.gs[id.index()]
		g.waitFor = g.waitFor[:0]
	}
	for _, a := range alts {
		if a.G == id || a.G == ClockID {
			continue
		}
		// What else h waited for is dropped: waiting stays acyclic, with id waiting for none.
		h := r.gs[a.G.index()]
		h.polled = int32(r.steps)
		h.waitFor = append(h.waitFor[:0], id)
	}
}

// yieldToOthers makes g wait until every other goroutine that can run now, and the clock if a
// timer is set, has stepped or is no longer offered.
//
//go:norace
func (r *run) yieldToOthers(g *goroutine) {
	g.polled = int32(r.steps)
	g.waitFor = g.waitFor[:0]
	for _, h := range r.gs {
		if h != g && (h.state == gReady || h.state == gPending && r.enabled(h)) {
			g.waitFor = append(g.waitFor, h.id)
		}
	}
	if r.clock.pending() {
		g.waitFor = append(g.waitFor, ClockID)
	}
}

// fair removes from alts the goroutines that yielded and must still let another alternative
// step first, and returns the index of cur among the rest (-1 if it was removed: running
// another goroutine then is no preemption).
//
//go:norace
func (r *run) fair(alts []Alt, cur int) ([]Alt, int) {
	// Decide every alternative against the whole set before removing any.
	r.waiting = r.waiting[:0]
	for _, a := range alts {
		r.waiting = append(r.waiting, a.G != ClockID && r.waits(r.gs[a.G]))
	}
	out := alts[:0]
	newCur := -1
	for i, a := range alts {
		if r.waiting[i] {
			continue
		}
		if i == cur {
			newCur = len(out)
		}
		out = append(out, a)
	}
	return out, newCur
}

// waits reports whether g, which yielded, must still let an alternative step: one that was
// enabled when g polled, is offered at this decision and has not stepped since. The clock counts as
// enabled when g polled if a timer was set. Alternatives that stepped or were not offered
// leave g.waitFor for good. Waiting is acyclic (a goroutine that waits for h polled after
// h's last step, and the clock waits for no one), so some alternative never waits.
//
//go:norace
func (r *run) waits(g *goroutine) bool {
	// starved marked every alternative of this decision offered at r.decides-1: a lookup in
	// alts would make a decision cost the square of the spinning goroutines (ants' workers,
	// a thousand, spin on a lock of their own).
	now := r.decides - 1
	w := g.waitFor[:0]
	for _, id := range g.waitFor {
		if h := r.gOf(id); h.lastStep <= g.polled && h.offeredAt == now {
			w = append(w, id)
		}
	}
	g.waitFor = w
	return len(w) > 0
}

// choose records a decision among alts and returns the chosen index, or -1 after ending the run
// when the chooser abandoned it.
//
//go:norace
func (r *run) choose(kind DecisionKind, alts []Alt, cur int) int {
	p := &r.point
	p.Kind, p.Alts, p.Current, p.Index, p.Step, p.run = kind, alts, cur, len(r.decisions), r.steps, r
	p.Persistent = nil
	if kind == DecideGoroutine && r.cfg.Persistent && len(alts) > 1 {
		p.Persistent = r.persistent(alts, cur)
	}
	i := 0
	if r.cfg.Chooser != nil {
		i = r.cfg.Chooser.Choose(p)
	}
	if i < 0 || i >= len(alts) {
		if i >= len(alts) {
			r.fail(VerdictInternal, fmt.Sprintf("chooser returned %d of %d alternatives", i, len(alts)), nil, nil)
			return -1
		}
		r.verdict = Verdict{Kind: VerdictPruned}
		r.finish()
		return -1
	}
	if len(alts) < 2 {
		return i
	}
	d := Decision{Kind: kind, Step: int32(r.steps), Pick: int32(i), Current: -1}
	if cur >= 0 {
		d.Current = int32(alts[cur].G)
	}
	// The alternatives of every decision share r.decAlts; result copies them out.
	start := len(r.decAlts)
	for _, a := range alts {
		if kind == DecideGoroutine || kind == DecideWake {
			r.decAlts = append(r.decAlts, int32(a.G))
		} else {
			r.decAlts = append(r.decAlts, int32(a.Case))
		}
	}
	d.Alts = r.decAlts[start:len(r.decAlts):len(r.decAlts)]
	if kind == DecideGoroutine || kind == DecideWake {
		d.Pick = int32(alts[i].G)
	} else {
		d.Pick = int32(alts[i].Case)
	}
	r.decisions = append(r.decisions, d)
	return i
}

//go:norace
func (r *run) gOf(id GID) *goroutine {
	if id == ClockID {
		return clockG
	}
	return r.gs[id.index()]
}

//go:norace
func (r *run) rootDone() bool { return r.root.state == gDone }

// resumeG queues g, whose operation was completed by the current step, to run to its next
// scheduling point before the next decision. The completed operation is recorded on the step's
// event as a partner's: it belongs to g's program order.
//
//go:norace
func (r *run) resumeG(g *goroutine) {
	if n := len(r.events); n > 0 && g.op.kind != OpNone {
		e := &r.events[n-1]
		start := len(r.partnerObjs)
		if g.op.kind == OpSelect {
			for _, c := range g.op.cases {
				if c.st != nil {
					r.partnerObjs = append(r.partnerObjs, c.st.obj.id)
				}
			}
		} else {
			r.partnerObjs = append(r.partnerObjs, g.op.obj)
		}
		p := Partner{G: g.id, Op: g.op.kind, Objs: r.partnerObjs[start:len(r.partnerObjs):len(r.partnerObjs)]}
		if e.Partners == nil {
			// The first partner of a step, by far the most common case, is kept in the run's
			// storage; a second one moves the step's partners to a slice of their own.
			r.partners = append(r.partners, p)
			k := len(r.partners)
			e.Partners = r.partners[k-1 : k : k]
		} else {
			e.Partners = append(e.Partners, p)
		}
		if e.With == NoG {
			e.With = g.id
		}
	}
	r.raceResume(g)
	r.accessResume(g)
	g.working = r.clock.now
	g.op.kind = OpNone
	g.done = true
	g.state = gReady
	r.resume = append(r.resume, g)
}

// record appends the event of the step the current goroutine g performs and enforces the step
// bound.
//
//go:norace
func (r *run) record(g *goroutine, kind OpKind, obj ObjID) *Event {
	r.steps++
	if g == r.sliceG {
		r.slice++
	} else {
		r.sliceG, r.slice = g, 1
	}
	r.clockLast = g == clockG
	if !r.clockLast && r.cfg.Time == TimeQuantum && r.bubble == nil {
		r.clock.now += r.quantum
		r.clock.worked += r.quantum
	}
	g.lastStep, g.lastLoad = int32(r.steps), NoObj
	// The stretch is judged up to the previous step, before this one changes what g is
	// doing: whether a step is work is known only once poll has seen it.
	if r.steps-1-r.worked >= r.stretch && !r.ended {
		r.livelock()
	}
	g.wasQuiet = g.quiet
	if !kind.ReadOnly() {
		g.quiet, g.spinning = false, false
	}
	r.prevWorked = r.worked
	if !g.spinning {
		r.worked = r.steps
	}
	n := len(r.events)
	if n < cap(r.events) {
		r.events = r.events[:n+1]
	} else {
		r.events = append(r.events, Event{})
	}
	// The element is zero (reset clears the previous run's events), so only the fields that
	// are not zero are written, without building a whole Event aside.
	e := &r.events[n]
	e.Step, e.G, e.Op, e.Obj = int32(n), g.id, kind, obj
	if g.bound != nil {
		r.checkBound(g, kind, obj)
	}
	e.With, e.Child, e.Decision = NoG, NoG, -1
	if g.id == r.startG {
		e.Start, e.Decision = true, r.startD
		r.startG = NoG
	}
	if g != clockG && (r.cfg.Detail || r.cfg.LockPositions && lockOp(kind)) {
		e.PC, _ = callers()
	}
	if r.steps&deadlineEvery == 0 && !r.cfg.Deadline.IsZero() && !r.ended && time.Now().After(r.cfg.Deadline) {
		r.verdict = Verdict{Kind: VerdictStopped, Message: fmt.Sprintf("stopped after %d steps at the end of the time budget", r.steps)}
		r.finish()
	}
	if r.steps > r.cfg.MaxSteps && !r.ended {
		if r.rootDone() {
			r.endAfterReturn()
			return e
		}
		r.verdict = Verdict{Kind: VerdictCut, Message: fmt.Sprintf("stopped at the step bound of %d while making progress", r.cfg.MaxSteps)}
		r.finish()
	}
	if r.rootDone() && r.clock.now > r.window && !r.ended {
		r.endAfterReturn()
	}
	if r.foreign.Load() != nil && !r.ended {
		r.finish()
	}
	return e
}

// livelock ends a run in which, for the last r.stretch steps, every goroutine that stepped
// was spinning, blaming the spinning goroutines.
//
//go:norace
func (r *run) livelock() {
	if r.rootDone() {
		// Goroutines that only poll after the test returned are still running: goleak sees
		// them, whatever they wait for.
		r.endAfterReturn()
		return
	}
	if r.clock.pending() && !r.bubbleStopped() && r.clockWakes() {
		// A goroutine waits for the clock (it sleeps, or waits on a timer's channel): the
		// spinners wait for time, as a spin-wait beside a time.Sleep does under go test, and
		// the clock steps once they have spun clockSpins times each, which takes more than
		// the stretch when they are many (ants' TestMaxBlockingSubmit: nine workers poll a flag
		// while the test sleeps for a second).
		return
	}
	r.verdict = Verdict{Kind: VerdictLivelock, Message: fmt.Sprintf("for %d steps under fair scheduling, every goroutine only polled (runtime.Gosched, a select default, a failed TryLock, a repeated atomic load) and none made progress", r.stretch)}
	for _, g := range r.gs {
		if g.state != gDone && g.spinning {
			r.verdict.Goroutines = append(r.verdict.Goroutines, r.goroutineState(g))
		}
	}
	r.finish()
}

// fail ends the run with a bug verdict caused by goroutine g (nil for none).
//
//go:norace
func (r *run) fail(kind VerdictKind, msg string, g *goroutine, stack []uintptr) {
	if r.ended {
		return
	}
	r.verdict = Verdict{Kind: kind, Message: msg}
	if g != nil {
		gs := r.goroutineState(g)
		if stack != nil {
			// Where it failed, not its last operation.
			gs.Stack, gs.PC = frames(stack), 0
		}
		// What it did, not the state it was left in (a misuse stops g as it calls).
		switch kind {
		case VerdictPanic, VerdictMisuse, VerdictAssert:
			gs.State, gs.Op, gs.Obj, gs.Objs = "panicked", OpNone, NoObj, nil
		case VerdictExit:
			gs.State, gs.Op, gs.Obj, gs.Objs = "exited", OpNone, NoObj, nil
		}
		r.verdict.Goroutines = append(r.verdict.Goroutines, gs)
	}
	r.finish()
}

//go:norace
func (r *run) finish() {
	if r.ended {
		return
	}
	if msg := r.foreign.Load(); msg != nil {
		// Whatever happened next, the run was not under heddle's control.
		r.verdict = Verdict{Kind: VerdictUnsupported, Message: *msg}
	}
	r.differed()
	if r.verdict.Kind.Bug() && Ending != nil {
		Ending(&r.verdict)
	}
	if len(r.early) > 0 && r.verdict.Kind.Bug() {
		r.verdict.Timing = r.timing()
	}
	r.atomicEnd()
	r.txEnd()
	if bug := r.cfg.Bug; bug != nil && r.verdict.Kind.Bug() {
		r.cfg.Bug = nil
		bug(&r.verdict)
	}
	r.ended = true
	// What every goroutine and the clock were about to do, before teardown ends them.
	for _, g := range r.gs {
		// A goroutine stopped before its exit step (Config.ThreadBlocks) has returned.
		if (g.state == gPending || g.state == gParked) && g.op.kind != OpExit {
			r.pending = append(r.pending, r.goroutineState(g))
		}
	}
	if r.clock.pending() {
		r.clockNext = append([]ObjID(nil), r.clockObjs()...)
	}
	select {
	case r.done <- struct{}{}:
	default: // the watchdog has just given up on the run
	}
}

// Connected records that the active run made a connection of the virtual network (rt/net).
//
//go:norace
func Connected() {
	if r := active; r != nil {
		r.connected = true
	}
}

// allDone reports whether every goroutine of the run has ended.
//
//go:norace
func (r *run) allDone() bool {
	for _, g := range r.gs {
		if g.state != gDone {
			return false
		}
	}
	return true
}

// graceConnected lets the goroutines that heddle did not start finish their work before a run
// that made a connection is judged blocked. Uninstrumented code may serve the connection on a
// goroutine of its own (net/http's Serve, called through a method value): the run is then not
// under heddle's control, and a deadlock reported before that goroutine got to run would be a
// false alarm; one that calls in sets foreign, and the run ends as unsupported. The wait ends
// when every other goroutine of the process waits (blockingWait): how long that takes depends
// on the machine's load, the verdict does not. The hang limit, or 10 s for a debuggee, whose
// limit is a person's patience, bounds it.
//
//go:norace
func (r *run) graceConnected() {
	self, limit := goid(), min(r.cfg.Hang, DefaultHang)
	for start := time.Now(); r.foreign.Load() == nil && time.Since(start) < limit; {
		if !othersWork(allStacks(), self, self) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// end classifies a run in which nothing can run any more.
//
//go:norace
func (r *run) end() {
	if r.ended {
		return
	}
	var blocked []*goroutine
	for _, g := range r.gs {
		if g.state != gDone {
			blocked = append(blocked, g)
		}
	}
	switch {
	case len(blocked) == 0:
		r.verdict = Verdict{Kind: VerdictOK}
	case r.rootDone():
		r.endAfterReturn()
		return
	default:
		r.verdict = Verdict{Kind: VerdictDeadlock, Message: "all goroutines are blocked"}
		for _, g := range blocked {
			r.verdict.Goroutines = append(r.verdict.Goroutines, r.goroutineState(g))
		}
	}
	r.finish()
}

//go:norace
func (r *run) goroutineState(g *goroutine) GoroutineState {
	s := GoroutineState{ID: g.id, State: "running"}
	switch g.state {
	case gPending, gParked:
		s.State = "blocked"
		s.Op = g.op.kind
		s.Obj = g.op.obj
		if g.op.kind == OpSelect {
			for _, c := range g.op.cases {
				if c.st != nil {
					s.Objs = append(s.Objs, c.st.obj.id)
				}
			}
		}
	case gDone:
		s.State = "done"
	}
	s.PC = g.pc
	if g.stack != nil {
		s.Stack = frames(g.stack)
	}
	return s
}

// Running reports whether the caller is the running goroutine of a run.
//
//go:norace
func Running() bool {
	r, _ := current()
	return r != nil
}

// Poisoned returns why the process can run no more schedules (a goroutine that never came
// back to heddle), or nil.
//
//go:norace
func Poisoned() error { return poisoned }

// current returns the running run and goroutine, or nils outside a run. Only the running
// goroutine may call it during a run, and the goroutines of a run being torn down; a caller
// that is neither is a goroutine heddle does not control (an http.Handler that net/http
// runs, a callback of an uninstrumented package). Its operations cannot be scheduled: it
// proceeds as outside a run, and the run ends as unsupported at its next step.
//
//go:norace
func current() (*run, *goroutine) {
	r := active
	if r == nil {
		return nil, nil
	}
	g := r.cur
	if g == nil || r.foreignCaller(g) {
		r.callFrom()
		return nil, nil
	}
	if r.aborted {
		runtime.Goexit()
	}
	return r, g
}

// foreignCaller reports whether the caller is neither g, the running goroutine, nor one of the
// run's goroutines being torn down.
//
//go:norace
func (r *run) foreignCaller(g *goroutine) bool {
	gp := getg()
	if gp == 0 {
		// No descriptor on this platform: only a call made while g is stopped is told apart.
		return g.state != gReady
	}
	return gp != g.gp && !(r.aborted && r.controls(gp))
}

// controls reports whether gp carries one of the goroutines that teardown ends: every one of
// them calls it, so it is a lookup, not a pass over the run's goroutines (a hundred thousand
// in ants' tests).
//
//go:norace
func (r *run) controls(gp uintptr) bool {
	torn := r.torn.Load()
	if torn == nil {
		return false
	}
	_, ok := (*torn)[gp]
	return ok
}

// callFrom records a call of instrumented code from a goroutine heddle does not control,
// with the caller's position.
//
//go:norace
func (r *run) callFrom() {
	if r.foreign.Load() != nil {
		return
	}
	where := ""
	var pcs [32]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for {
		f, more := frames.Next()
		if !inRT(f.Function) {
			where = fmt.Sprintf(" at %s:%d (%s)", f.File, f.Line, f.Function)
			break
		}
		if !more {
			break
		}
	}
	msg := "instrumented code was called from a goroutine heddle did not start" + where
	switch fn, pkg := starter(); {
	case pkg != "":
		msg += ", which " + fn + " started: a callback from a package that heddle does not instrument. Heddle cannot schedule such a goroutine, so it cannot explore this test; -instrument " + pkg + " puts the package under control"
	case fn == rtPrefix+".Go":
		msg += ": the program started it outside any run (in TestMain, or during a package initialisation that waited for it, which then ran it as a plain goroutine). Heddle cannot schedule such a goroutine, so it cannot explore this test"
	default:
		msg += ": a callback from uninstrumented code, such as an http.Handler that net/http runs. Heddle cannot schedule such a goroutine, so it cannot explore this test"
	}
	r.foreign.CompareAndSwap(nil, &msg)
}

// RunEpoch numbers the run that the caller belongs to, 0 outside a run. Packages beyond rt that
// keep state for a run (the virtual network's listeners, rt/net) discard it when another run
// begins.
//
//go:norace
func RunEpoch() uint64 {
	r, _ := current()
	if r == nil {
		return 0
	}
	return r.epoch
}

// Unsupported ends the run in progress as one heddle cannot explore, with msg saying why, at
// its next step. Unlike the other functions of rt, any goroutine may call it: a goroutine of
// heddle's own that notices something outside the run's control (a real connection to one of
// the run's listeners) reports it so.
//
//go:norace
func Unsupported(msg string) {
	if r := active; r != nil {
		r.foreign.CompareAndSwap(nil, &msg)
	}
}

// lockOp reports whether op locks or unlocks a mutex.
func lockOp(op OpKind) bool {
	return op == OpLock || op == OpUnlock || op == OpRLock || op == OpRUnlock
}
