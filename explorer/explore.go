package explorer

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// wire.EnvDebugRuns=file logs every run's events and decisions to file, for debugging heddle.
var debugRuns = func() io.Writer {
	if p := os.Getenv(wire.EnvDebugRuns); p != "" {
		if f, err := os.Create(p); err == nil {
			return f
		}
	}
	return nil
}()

// Options configure an exploration.
type Options struct {
	// Strategy is one of Strategies; empty means Portfolio.
	Strategy Strategy
	// Budgets. Zero means unlimited for runs and time (random and pct default to 1,000 runs).
	MaxRuns int
	MaxTime time.Duration
	// MaxSteps bounds each run (rt.Config.MaxSteps); a run that reaches it is cut.
	MaxSteps int
	// Seed makes random, pct and portfolio reproducible.
	Seed uint64
	// Depth is PCT's bug depth d (default 3; the portfolio runs depths 1 to 3).
	Depth int
	// Bound is the largest preemption bound of iterative deepening (default 2).
	Bound int
	// StopOnBug ends the exploration at the first bug.
	StopOnBug bool
	// Prefix restricts the exploration to schedules that start with these decisions
	// (explore from a checkpoint).
	Prefix []rt.Decision
	// Progress, if set, is called after every run.
	Progress func(*record.Stats)
	// OnNode, if set, receives every new node of the schedule tree.
	OnNode func(record.Node)
	// OnBug, if set, receives every new distinct bug as it is found.
	OnBug func(*Bug)
	// Hang is the wall-clock limit between two scheduling points (rt.Config.Hang).
	Hang time.Duration
	// Time is the model of time (rt.Config.Time), and Quantum its quantum (rt.Config.Quantum).
	Time    rt.TimeModel
	Quantum time.Duration
	// Outcomes makes the report count runs by terminal outcome (Report.Outcomes), for
	// comparing strategies; it costs a string per run.
	Outcomes bool
	// Shard and Shards split a search among machines, and Part and Parts each shard's share
	// among processes (shard.go): this exploration takes part Part of Parts of shard Shard of
	// Shards of a systematic search's runs, and the samplers of random, pct and the portfolio
	// the seeds of that share. A share of 0 of 0 is the whole.
	Shard, Shards, Part, Parts int
	// ReportCost, if set, estimates the time the caller will take to report the exploration
	// once it ends (writing the schedule tree it received); the search stops early enough
	// for it to fit in MaxTime.
	ReportCost func() time.Duration
	// IgnoreAccesses turns off the lockset check (rt.Config.IgnoreAccesses), and with it the
	// accesses that the atomicity checkers classify.
	IgnoreAccesses bool
	// Atomicity is the checker whose verdict on //heddle:atomic functions makes a warning:
	// one of AtomicCheckers, C (both MC-ind and MC-mover) if empty (atomic.go).
	Atomicity string
	// serial makes every run execute the //heddle:atomic functions serially: the search
	// that tells whether a failure is one that no serial order gives (atomic.go).
	serial bool
}

// Bug is a distinct bug found by an exploration.
type Bug struct {
	Kind    rt.VerdictKind
	Message string
	// Key identifies the bug across runs, schedules and shards: its kind and its signature,
	// the source positions where its goroutines block, or where it panicked or failed.
	Key string
	// Schedule is the simplest schedule found that exhibits the bug, by
	// record.Simplicity.Simpler: the fewest preemptions, then the fewest decisions.
	Schedule    []rt.Decision
	Preemptions int
	Hits        int // runs that exhibited it
	// Strategy is the strategy that found the bug: the exploration's, or the portfolio member
	// ("dpor", "pct-d1", "pct-d2", "pct-d3", "random"), or "race-window" for a failure that
	// JPF's race window found behind a lockset warning (window.go). Run is the exploration's
	// run, counted from 1, that found it first.
	Strategy string
	Run      int
	// Result is the run of Schedule, re-executed in detail mode (positions and stacks) once the
	// exploration ends.
	Result *rt.Result
	// earlier is a detailed run of a less simple schedule, for a budget that runs out before
	// Schedule is replayed.
	earlier *rt.Result
	// shape is the bug's kind and operations, without positions or goroutine names.
	shape string
	// timeout is, for a bug of the timeout search, the timer site its schedule replays with
	// under adversarial time.
	timeout string
}

// Report is the outcome of an exploration.
type Report struct {
	Stats record.Stats
	Bugs  []*Bug
	// LockTrees analyses the lock operations of the exploration's first run (JPF's lock
	// trees with gate locks, and the lock-order graph).
	LockTrees *locktree.Report
	// First is the exploration's first run, replayed in detail: the run the lock trees come
	// from. An exploration in this process replays it only if the trees warn of a lock-order
	// inversion, whose report shows the run.
	First *rt.Result
	// Outcomes counts runs by terminal outcome (verdict and final state digest), for
	// comparing strategies, when Options.Outcomes is set.
	Outcomes map[string]int
	// Divergence says where the first run that did not replay its schedule left it (Stats.Diverged
	// counts them): heddle's limitation, such as uninstrumented code or map iteration order,
	// not a bug of the program.
	Divergence string
	// Warnings are the findings of the lockset check and the atomicity checkers, once each.
	Warnings []*Warning
	// Atomicity is each //heddle:atomic function's count of executions and of those that
	// each checker flagged (atomic.go), in the order the exploration met them.
	Atomicity []*record.AtomicityCheck
	// Err is why the exploration did not start: an unknown strategy.
	Err error
}

// A Runner performs one run steered by a guide, in detail mode (positions and stacks) if
// detail is set. Explore's runner runs the program in this process; package driver has
// one that runs every run in a process of its own.
type Runner interface {
	Run(gd *Guide, detail bool) *rt.Result
}

// A DetailLimiter is a Runner whose replays in detail mode can be held to a deadline. The
// replay of the first run for its lock trees is held to the end of the time budget: past it,
// the trees are those of the run's beginning. The replays that report bugs are not held.
type DetailLimiter interface {
	Runner
	LimitDetail(deadline time.Time)
}

// A Harness performs one run: it calls run exactly once with the run's root function, from the
// goroutine that should drive the run. A test harness uses it to give every run a fresh
// *testing.T.
type Harness func(run func(body func()))

// Body is the Harness of a plain function.
func Body(body func()) Harness { return func(run func(func())) { run(body) } }

type inProcess struct {
	h   Harness
	cfg rt.Config
	// reuse makes the results of runs without detail valid only until the next run
	// (rt.Config.Reuse): the explorer digests each before the next and clones what it keeps.
	reuse bool
	// The run in progress: its configuration and result, and the function the harness calls,
	// made once rather than as a closure per run.
	cur rt.Config
	res *rt.Result
	// deadline stops the runs of the search at the end of the time budget, and
	// detailDeadline the replays in detail mode; the replays that report bugs have none.
	deadline, detailDeadline time.Time
	body                     func(body func())
	// lockPositions makes the next runs without detail record their lock operations'
	// positions (rt.Config.LockPositions): the first run's, for its lock trees.
	lockPositions bool
}

func (p *inProcess) LimitDetail(deadline time.Time) { p.detailDeadline = deadline }

func (p *inProcess) Run(gd *Guide, detail bool) *rt.Result {
	gd.start()
	p.cur = p.cfg
	p.cur.Chooser = gd
	p.cur.Detail = detail
	p.cur.Deadline = p.deadline
	if detail {
		p.cur.Deadline = p.detailDeadline
	}
	p.cur.Reuse = p.reuse && !detail
	p.cur.LockPositions = p.lockPositions && !detail
	p.cur.AskAlways = len(gd.Sleep) > 0
	p.cur.StepAccesses = gd.footprints && !p.cur.IgnoreAccesses
	p.cur.Persistent = gd.persistent
	gd.recorded = p.cur.StepAccesses
	p.cur.Watch = gd.Watch
	p.cur.Serial = gd.Serial
	p.cur.TimerSites = gd.Timeouts
	if gd.Timeout != "" {
		p.cur.Time, p.cur.Timeout = rt.TimeAdversarial, gd.Timeout
	}
	if p.body == nil {
		p.body = p.runBody
	}
	p.h(p.body)
	res := p.res
	p.res = nil
	if res == nil {
		res = &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictInternal, Message: "the harness did not perform the run"}}
	}
	if gd.diverged != "" {
		res.Verdict = rt.Verdict{Kind: rt.VerdictDiverged, Message: gd.diverged}
	}
	return res
}

func (p *inProcess) runBody(body func()) { p.res = rt.Run(p.cur, body) }

// Explore runs body many times in this process under the strategy of opts. Each run starts
// body as the root goroutine; goroutines left over from a run are torn down before the next.
func Explore(body func(), opts Options) *Report { return ExploreWith(Body(body), opts) }

// ExploreWith is Explore with a harness around every run.
func ExploreWith(h Harness, opts Options) *Report {
	cfg := runConfig(opts)
	cfg.IgnoreAccesses = opts.IgnoreAccesses
	return explore(&inProcess{h: h, cfg: cfg, reuse: true}, opts)
}

// ExploreOn explores with the runs performed by r.
func ExploreOn(r Runner, opts Options) *Report { return explore(r, opts) }

// RunGuided performs one run of h steered by gd, with the run limits of opts (MaxSteps, Hang,
// Time, and MaxTime as what is left of the time budget), and returns its result; gd.Log then
// holds what the guide saw.
func RunGuided(h Harness, gd *Guide, opts Options, detail bool) *rt.Result {
	p := &inProcess{h: h, cfg: runConfig(opts)}
	if opts.MaxTime > 0 {
		// What is left of the time budget of an exploration that runs elsewhere.
		p.deadline = time.Now().Add(opts.MaxTime)
		p.detailDeadline = p.deadline
	}
	return p.Run(gd, detail)
}

// runConfig is the configuration of the runs of opts: their limits, the model of time, and
// the thesis's thread blocks for the strategy that measures as the thesis did.
func runConfig(opts Options) rt.Config {
	return rt.Config{MaxSteps: opts.MaxSteps, Hang: opts.Hang, Time: opts.Time, Quantum: opts.Quantum, ThreadBlocks: opts.Strategy == ExitBlockRWThesis}
}

type explorer struct {
	opts    Options
	r       Runner
	rep     *Report
	start   time.Time
	bugs    map[string]*Bug
	base    []int32
	kinds   []rt.DecisionKind
	maxLen  int
	stopped bool
	// timedOut is set when a run was stopped at the end of the time budget.
	timedOut bool
	// sawTimer is set once a run set a timer: the search then keeps a share of the budget for
	// the timeout search (timeout.go), which sets timeouts while it runs, with the timeout it
	// asks about in timeout and the sites of the timers its runs set in timerSites.
	sawTimer, timeouts bool
	timeout            string
	timerSites         []string
	first              []rt.Decision // the first run's schedule, for the lock trees
	// firstLocks says whether the first run locked or unlocked anything: a run that did not
	// has empty lock trees, which need no replay in detail mode for their positions.
	firstLocks bool
	// firstTrees are the lock trees of the first run, when the run recorded its lock
	// operations' positions (rt.Config.LockPositions): they need no replay in detail mode.
	firstTrees *locktree.Report

	// byRun maps the cheap key of a buggy run (runKey) to its bug, so that only the first run
	// of each pays for the replay in detail mode that finds the bug's signature.
	byRun  map[string]*Bug
	member string // the strategy making the current run, for Bug.Strategy
	// warnings are the lockset check's findings by key.
	warnings map[string]*Warning
	// atomic holds the atomicity checkers' findings by function, atomicOrder the functions
	// in the order met (atomic.go).
	atomic      map[funcKey]*atomicFunc
	atomicOrder []*atomicFunc
	atomicRun   atomicRun // the checkers' index of the current run, kept for its storage
}

func explore(r Runner, opts Options) *Report {
	strategy, err := ParseStrategy(string(opts.Strategy))
	if err != nil {
		return &Report{Err: err}
	}
	opts.Strategy = strategy
	if opts.Depth == 0 {
		opts.Depth = 3
	}
	if opts.Bound == 0 {
		opts.Bound = 2
	}
	e := &explorer{opts: opts, r: r, rep: &Report{Outcomes: map[string]int{}}, start: time.Now(), bugs: map[string]*Bug{}, member: string(opts.Strategy)}
	if p, ok := r.(*inProcess); ok && opts.MaxTime > 0 {
		p.deadline = e.searchEnd()
	}
	for _, d := range opts.Prefix {
		e.base = append(e.base, d.Pick)
		e.kinds = append(e.kinds, d.Kind)
	}
	switch opts.Strategy {
	case Portfolio:
		e.portfolio()
	case DPOR:
		e.systematic(&optimal{}, -1)
	case DPORSleep:
		e.systematic(dpor{}, -1)
	case DFS:
		e.systematic(naive{}, -1)
	case ExitBlock:
		e.systematic(exitBlock{}, -1)
	case ExitBlockRW:
		e.systematic(newExitBlockRW(false), -1)
	case ExitBlockDD:
		e.systematic(exitBlockDD{}, -1)
	case ExitBlockRWDD:
		e.systematic(newExitBlockRW(true), -1)
	case ExitBlockRWThesis:
		e.systematic(newExitBlockRWThesis(), -1)
	case Stoller:
		e.systematic(&stoller{}, -1)
	case StollerPS:
		e.systematic(&stoller{persistent: true}, -1)
	case Bounded:
		// Each deeper bound searches a new tree that contains the previous one: only the last
		// tree is reported, so node ids stay unique.
		emit, last := e.opts.OnNode, []record.Node(nil)
		if emit != nil {
			e.opts.OnNode = func(n record.Node) { last = append(last, n) }
		}
		for b := 0; b <= opts.Bound && !e.stopped; b++ {
			last = last[:0]
			if e.systematic(bounded{}, b) && b < opts.Bound {
				// Every schedule fits in this bound: deeper bounds find nothing new.
				break
			}
		}
		for _, n := range last {
			emit(n)
		}
		e.opts.OnNode = emit
	case Random, PCT:
		e.sample()
	}
	e.raceWindows()
	e.timeoutSearch()
	e.finish()
	return e.rep
}

// systematic runs a tree search to completion or budget; it reports whether it completed and
// no alternative was cut by the preemption bound.
func (e *explorer) systematic(br brancher, bound int) bool {
	s := e.newSearch(br, bound)
	for !s.ended && !e.overBudget() {
		s.step()
	}
	if !s.complete || e.timedOut {
		// Also after a shallower bound's search completed: preemption bounding searches
		// again, deeper, and this search is the exploration's last.
		e.rep.Stats.Complete = false
		return false
	}
	// A cut run leaves the schedules beyond the step bound unexplored.
	e.rep.Stats.Complete = e.rep.Stats.Cut == 0
	return e.rep.Stats.PrunedBound == s.pruned
}

// sample runs random or PCT schedules.
func (e *explorer) sample() {
	runs := e.opts.MaxRuns
	if runs == 0 {
		runs = 1000
	}
	policy := PolicyRandom
	if e.opts.Strategy == PCT {
		policy = PolicyPCT
	}
	s := e.newSampler(policy, e.opts.Depth, e.opts.Seed)
	for i := 0; i < runs && !e.overBudget(); i++ {
		s.step()
	}
}

func (e *explorer) overBudget() bool {
	s := &e.rep.Stats
	runs, d := e.opts.MaxRuns, e.opts.MaxTime
	if e.sawTimer && !e.timeouts {
		runs, d = runs-runs/timeoutShare, d-d/timeoutShare
	}
	return e.stopped || runs > 0 && s.Runs >= runs ||
		d > 0 && time.Since(e.start)+e.reportCost() >= d
}

// reportCost is the share of the time budget kept for reporting: replaying the bugs in
// detail mode, and what the caller needs to write the traces and the schedule tree.
func (e *explorer) reportCost() time.Duration {
	d := e.opts.MaxTime / reportShare
	if e.opts.ReportCost != nil {
		d += e.opts.ReportCost()
	}
	return d
}

// searchEnd is when the search's runs stop, with a time budget: the budget less the share
// kept for replaying the bugs found.
func (e *explorer) searchEnd() time.Time {
	return e.start.Add(e.opts.MaxTime - e.opts.MaxTime/reportShare)
}

// reportShare is the inverse of the share of a time budget kept for replaying the bugs in
// detail mode when the exploration ends.
const reportShare = 10

// FirstRunLimit is how long the first run of a search with a time budget may go on: past the
// budget, up to ten times it and at most two minutes, as go test runs a test to its end. A test
// none of whose runs ended has no verdict, and one run of a test that hammers a map from eight
// goroutines can take longer than a budget of seconds (xsync: 25 of 190 tests at 5 s). The
// runner of a search in a process per run applies it too (driver).
func FirstRunLimit(budget time.Duration) time.Duration {
	return max(budget, min(10*budget, 2*time.Minute))
}

// once executes one run and records its outcome.
func (e *explorer) once(gd *Guide) *rt.Result {
	if debugRuns != nil {
		// Before the run too: a run that crashes the process leaves its guide.
		fmt.Fprintf(debugRuns, "starting run %d prefix=%v\n", e.rep.Stats.Runs, gd.Prefix)
	}
	gd.Serial = e.opts.serial
	gd.Timeouts, gd.Timeout = e.timeouts, e.timeout
	p, local := e.r.(*inProcess)
	first := e.rep.Stats.Runs == 0 && local
	if first {
		p.lockPositions = true
		if e.opts.MaxTime > 0 {
			deadline := p.deadline
			p.deadline = e.start.Add(FirstRunLimit(e.opts.MaxTime))
			defer func() { p.deadline = deadline }()
		}
	}
	res := e.r.Run(gd, false)
	if first {
		p.lockPositions = false
	}
	other := elsewhere(gd, res)
	if other {
		// Another shard's run: the search goes on past it, the share's results leave it out.
		res.Verdict = rt.Verdict{Kind: rt.VerdictPruned}
	}
	if e.rep.Stats.Runs == 0 {
		e.first = rt.CloneDecisions(res.Decisions)
		e.firstLocks = slices.ContainsFunc(res.Events, func(ev rt.Event) bool { _, ok := lockOps[ev.Op]; return ok })
		if first && e.firstLocks {
			e.firstTrees = lockTrees(res)
		}
	}
	if debugRuns != nil {
		fmt.Fprintf(debugRuns, "run %d prefix=%v sleep=%v verdict=%s\n", e.rep.Stats.Runs, gd.Prefix, gd.Sleep, res.Verdict.Kind)
		for _, ev := range res.Events {
			fmt.Fprintf(debugRuns, "   %d %s %s obj=%d objs=%v with=%d child=%d start=%v dec=%d\n", ev.Step, res.Name(ev.G), ev.Op, ev.Obj, ev.Objs, ev.With, ev.Child, ev.Start, ev.Decision)
		}
		for i, d := range res.Decisions {
			fmt.Fprintf(debugRuns, "   decision %d step=%d alts=%v pick=%d\n", i, d.Step, d.Alts, d.Pick)
		}
		fmt.Fprintf(debugRuns, "   pending=%v clock=%v\n", res.Pending, res.Clock)
	}
	s := &e.rep.Stats
	s.Runs++
	s.Steps += res.Steps
	if !e.sawTimer {
		e.sawTimer = setsTimer(res)
	}
	if e.timeouts {
		for _, s := range res.TimerSites {
			if !slices.Contains(e.timerSites, s) {
				e.timerSites = append(e.timerSites, s)
			}
		}
	}
	if e.timeouts && res.Verdict.Kind.Bug() && (!timeoutBug[res.Verdict.Kind] || res.TestFailed) {
		// The test's own handling of its timeout, and what follows it once the test has
		// failed (its cleanup deadlocks, its goroutines leak): not a bug.
		res.Verdict = rt.Verdict{Kind: rt.VerdictOK}
	}
	e.addWarnings(res)
	e.checkAtomicity(res)
	e.maxLen = max(e.maxLen, gd.steps)
	switch {
	case res.Verdict.Kind == rt.VerdictPruned:
		if other {
			s.Elsewhere++
		} else {
			s.Aborted++
		}
	case res.Verdict.Kind == rt.VerdictStopped:
		// The budget ran out during the run: the search ends with it, incomplete.
		e.stopped, e.timedOut = true, true
		s.Stopped++
	case res.Verdict.Kind == rt.VerdictDiverged:
		s.Diverged++
		if e.rep.Divergence == "" {
			e.rep.Divergence = res.Verdict.Message
		}
	case res.Verdict.Kind.Bug():
		s.BuggyRuns++
		res = e.addBug(res)
		fallthrough
	default:
		if res.Verdict.Kind == rt.VerdictCut {
			s.Cut++
		}
		if e.opts.Outcomes {
			e.rep.Outcomes[outcome(res)]++
		}
	}
	if e.opts.Progress != nil {
		s.Elapsed = time.Since(e.start)
		e.opts.Progress(s)
	}
	return res
}

// addBug files a buggy run under its bug, and returns the run's result, which it may have
// cloned: a replay in detail mode reuses the storage of the run's result.
func (e *explorer) addBug(res *rt.Result) *rt.Result {
	pre := preemptions(res.Decisions)
	rk := runKey(res)
	b := e.byRun[rk]
	if b == nil {
		res = res.Clone()
		var detail *rt.Result
		key := signature(res)
		if !e.canReplay() || res.Verdict.Kind == rt.VerdictUnsupported || res.Verdict.Kind == rt.VerdictInternal {
			// The run left the process unable to run another (a goroutine that never came
			// back), or it showed that heddle cannot explore the test (its message says where,
			// and a replay would run again what heddle cannot control: a copy of the test
			// binary, a wait outside heddle), or heddle failed in it (a run in a process of its
			// own too long to answer, which a replay would make again): the report shows the
			// run itself, without positions.
			detail = res
			if key == "" {
				key = shape(res)
			}
		}
		if key == "" {
			// The run was fast, without positions: replay it once in detail mode for them.
			detail = e.r.Run(e.scheduleGuide(res.Decisions, e.timeout), true)
			if detail.Verdict.Kind == res.Verdict.Kind {
				key = signature(detail)
			}
			if key == "" {
				// The replay did not reproduce the run (a program that is not deterministic
				// under its schedule): file it with a bug of the same shape, if there is one.
				key, detail = shape(res), nil
				for _, o := range e.rep.Bugs {
					if o.shape == key {
						key = o.Key
						break
					}
				}
			}
		}
		if b = e.bugs[key]; b == nil {
			b = &Bug{Kind: res.Verdict.Kind, Message: res.Verdict.Message, Key: key, Schedule: res.Decisions, Preemptions: pre, Result: detail, shape: shape(res), timeout: e.timeout}
			b.Strategy, b.Run = e.member, e.rep.Stats.Runs
			e.bugs[key] = b
			e.rep.Bugs = append(e.rep.Bugs, b)
			e.rep.Stats.Bugs++
			if e.opts.OnBug != nil {
				e.opts.OnBug(b)
			}
			switch res.Verdict.Kind {
			case rt.VerdictHang, rt.VerdictInternal, rt.VerdictUnsupported:
				e.stopped = true
			}
			if e.opts.StopOnBug {
				e.stopped = true
			}
			pre = -1 // the schedule is already this run's
		}
		if e.byRun == nil {
			e.byRun = map[string]*Bug{}
		}
		e.byRun[rk] = b
	}
	if pre >= 0 && simplicity(pre, res.Decisions).Simpler(simplicity(b.Preemptions, b.Schedule)) {
		// A simpler schedule of the same bug: its detailed run is replayed when the
		// exploration ends.
		if b.Result != nil {
			b.earlier = b.Result
		}
		b.Schedule, b.Preemptions, b.Message, b.Result = res.Clone().Decisions, pre, res.Verdict.Message, nil
	}
	b.Hits++
	return res
}

// simplicity is the rank of a schedule of preemptions preemptions and decisions ds among a
// bug's schedules.
func simplicity(preemptions int, ds []rt.Decision) record.Simplicity {
	return record.Simplicity{Replayable: true, Preemptions: preemptions, Decisions: len(ds)}
}

func preemptions(ds []rt.Decision) int {
	n := 0
	for i := range ds {
		if ds[i].Preemptive() {
			n++
		}
	}
	return n
}

// addPrediction records a bug that a brancher predicted from run res without executing it (a
// lock cycle found by ExitBlock-DD's reverse lock chain analysis). Its schedule is the run's;
// a new one is replayed in detail mode at once, for the positions of its message.
func (e *explorer) addPrediction(res *rt.Result, p prediction) {
	if b := e.bugs[p.key]; b != nil {
		b.Hits++
		return
	}
	b := &Bug{Kind: p.kind, Message: p.message(res), Key: p.key, Schedule: res.Decisions, Hits: 1, Strategy: e.member, Run: e.rep.Stats.Runs}
	for i := range res.Decisions {
		if res.Decisions[i].Preemptive() {
			b.Preemptions++
		}
	}
	gd := &Guide{Bound: -1}
	for _, d := range res.Decisions {
		gd.Prefix = append(gd.Prefix, d.Pick)
		gd.Kinds = append(gd.Kinds, d.Kind)
	}
	if dr := e.r.Run(gd, true); dr.Verdict.Kind != rt.VerdictDiverged && len(dr.Events) >= len(res.Events) {
		b.Message = p.message(dr)
	}
	e.bugs[p.key] = b
	e.rep.Bugs = append(e.rep.Bugs, b)
	e.rep.Stats.Bugs++
	if e.opts.OnBug != nil {
		e.opts.OnBug(b)
	}
	if e.opts.StopOnBug {
		e.stopped = true
	}
}

// runKey is a cheap key of a buggy run, computed without positions: its kind and the
// logical goroutines involved with their operations, or its message when none is. Runs with
// the same key are taken to be the same bug; runs with different keys may still be (the same
// positions reached by other goroutines), which their signatures find.
func runKey(res *rt.Result) string {
	var parts []string
	for _, g := range res.Verdict.Goroutines {
		parts = append(parts, res.Name(g.ID)+":"+g.Op.String())
	}
	slices.Sort(parts)
	k := string(res.Verdict.Kind) + "|" + strings.Join(parts, ",")
	if len(parts) == 0 {
		k += "|" + res.Verdict.Message
	}
	return k
}

// shape names a bug by its kind and the operations of the goroutines involved, or its
// message when none is: coarser than its signature, and free of goroutine names too.
func shape(res *rt.Result) string {
	var parts []string
	for _, g := range res.Verdict.Goroutines {
		parts = append(parts, g.Op.String())
	}
	slices.Sort(parts)
	k := string(res.Verdict.Kind) + "|" + strings.Join(slices.Compact(parts), ",")
	if len(parts) == 0 {
		k += "|" + variable.ReplaceAllString(res.Verdict.Message, "#")
	}
	return k
}

// signature names a bug by what does not depend on the schedule that exhibited it, nor on
// addresses, values or goroutine numbers: its kind and the source positions of the
// goroutines involved (where each blocks, or where it panicked), or, for a test that failed,
// the positions of its failure messages (t.Fatal at x_test.go:12). It is empty when the run
// lacks the positions (a run without detail) and needs a replay in detail mode.
func signature(res *rt.Result) string {
	var parts []string
	switch res.Verdict.Kind {
	case rt.VerdictLivelock, rt.VerdictHang:
		// Where the step bound or the watchdog caught a goroutine is an accident of timing.
		return string(res.Verdict.Kind)
	}
	for _, g := range res.Verdict.Goroutines {
		var file string
		var line int
		switch {
		case len(g.Stack) > 0:
			file, line = g.Stack[0].File, g.Stack[0].Line
		case g.PC != 0:
			file, line, _ = rt.Position(g.PC)
		}
		if file == "" {
			return ""
		}
		op := g.State
		if g.State == "blocked" {
			op = g.Op.String()
		}
		parts = append(parts, fmt.Sprintf("%s@%s:%d", op, file, line))
	}
	if len(parts) == 0 {
		for _, m := range failureSites.FindAllStringSubmatch(res.Verdict.Message, -1) {
			parts = append(parts, m[1])
		}
		if len(parts) == 0 {
			parts = []string{variable.ReplaceAllString(res.Verdict.Message, "#")}
		}
	}
	slices.Sort(parts)
	// Goroutines blocked at the same place are one part of the bug, however many there are.
	return string(res.Verdict.Kind) + "|" + strings.Join(slices.Compact(parts), ",")
}

var (
	// failureSites finds the positions that testing prefixes to the messages of t.Error and
	// t.Fatal ("x_test.go:12: want 3"), which the harness puts after "test failed: ", or one
	// per line under "test failed:".
	failureSites = regexp.MustCompile(`(?m)(?:^\s*|: )([\w.+-]+\.go:\d+):`)
	// variable matches the parts of a message that change from run to run: numbers and
	// addresses.
	variable = regexp.MustCompile(`0x[0-9a-fA-F]+|\d+`)
)

// leafBug is the key of the bug a run that ended in a bug was filed under.
func (e *explorer) leafBug(res *rt.Result) string {
	if b := e.byRun[runKey(res)]; b != nil {
		return b.Key
	}
	return ""
}

// outcome digests a run's terminal state: verdict, and what every unfinished goroutine waits
// on. Strategies that agree on the set of outcomes agree on deadlocks and final verdicts.
func outcome(res *rt.Result) string {
	var parts []string
	for _, g := range res.Pending {
		parts = append(parts, res.Name(g.ID)+":"+g.Op.String()+":"+res.ObjName(g.Obj))
	}
	slices.Sort(parts)
	return string(res.Verdict.Kind) + "|" + res.Verdict.Message + "|" + strings.Join(parts, ",")
}

// Replay runs body once on schedule s in detail mode. A schedule that no longer fits the
// program ends with a diverged verdict naming the first decision that differs.
func Replay(body func(), s *record.Schedule, opts Options) (*rt.Result, error) {
	return ReplayWith(Body(body), s, opts)
}

// ReplayWith is Replay with a harness around the run.
func ReplayWith(h Harness, s *record.Schedule, opts Options) (*rt.Result, error) {
	opts.Time, opts.Quantum = s.Time, s.Quantum
	opts.Strategy = Strategy(s.Strategy)
	return replay(&inProcess{h: h, cfg: runConfig(opts)}, s)
}

// ReplayOn replays schedule s with the run performed by r, in detail mode.
func ReplayOn(r Runner, s *record.Schedule) (*rt.Result, error) { return replay(r, s) }

func replay(r Runner, s *record.Schedule) (*rt.Result, error) {
	kinds, names, err := s.Picks()
	if err != nil {
		return nil, err
	}
	gd := &Guide{Kinds: kinds, Names: names, Bound: -1}
	res := r.Run(gd, true)
	if res.Verdict.Kind != rt.VerdictDiverged && len(res.Decisions) < len(names) {
		res.Verdict = rt.Verdict{Kind: rt.VerdictDiverged, Message: fmt.Sprintf("the run ended after %d decisions, but the schedule has %d", len(res.Decisions), len(names))}
	}
	if v := s.Verdict; v != nil && v.Atomicity != nil && v.Atomicity.Failure != "" && string(res.Verdict.Kind) == v.Atomicity.Failure {
		// The failure that the exploration's serial search showed no serial order gives.
		res.Verdict = rt.Verdict{Kind: rt.VerdictAtomicity, Message: v.Message, Goroutines: res.Verdict.Goroutines,
			Atomicity: &rt.AtomicFunc{Func: v.Atomicity.Func, Decl: v.Atomicity.Decl.String(), Failure: res.Verdict.Kind}}
	}
	return res, nil
}

// finish replays in detail mode, for positions and stacks, the schedule of every bug that
// has no detailed run yet, and the first run's, for the lock trees. The replays are part of
// the budget: past it, a bug keeps the detailed run it has, the one that found its signature,
// with that run's schedule, and the lock trees are left out.
func (e *explorer) finish() {
	over := func() bool { return e.opts.MaxTime > 0 && time.Since(e.start) >= e.opts.MaxTime }
	for _, b := range e.rep.Bugs {
		if b.Result != nil || !e.canReplay() {
			continue
		}
		if !over() || b.earlier == nil {
			b.Result = e.r.Run(e.scheduleGuide(b.Schedule, b.timeout), true)
			if b.Result.Verdict.Kind == b.Kind && b.Kind == rt.VerdictAtomicity {
				// A cycle of the transactional graph names its steps' positions in detail
				// mode only.
				b.Message = b.Result.Verdict.Message
			}
			if b.Result.Verdict.Kind == b.Kind || b.earlier == nil {
				continue
			}
		}
		b.Result, b.Schedule, b.Preemptions, b.Message = b.earlier, b.earlier.Decisions, preemptions(b.earlier.Decisions), b.earlier.Verdict.Message
	}
	e.serialCheck(over)
	if e.rep.Stats.Runs > 0 && !e.firstLocks {
		// Most tests' first run: a replay in detail mode would cost as much as the run,
		// for trees without a lock.
		e.rep.LockTrees = lockTrees(&rt.Result{})
	} else if e.rep.Stats.Runs > 0 && !over() && e.canReplay() {
		// The first run shows the program's lock trees. A long one costs seconds to replay
		// in detail, so past the budget the trees are those of its beginning. A run in this
		// process recorded the positions the trees need, and is replayed only for the trace
		// of a lock-order inversion (Report.First).
		if l, ok := e.r.(DetailLimiter); ok && e.opts.MaxTime > 0 {
			l.LimitDetail(e.start.Add(e.opts.MaxTime))
		}
		e.rep.LockTrees = e.firstTrees
		if e.firstTrees == nil || len(e.firstTrees.Warnings) > 0 {
			e.rep.First = e.r.Run(scheduleGuide(e.first), true)
		}
		if e.firstTrees == nil {
			e.rep.LockTrees = lockTrees(e.rep.First)
		}
	}
	e.nameLocks(over)
	e.atomicWarnings(over)
	e.rep.Stats.Elapsed = time.Since(e.start)
}

// canReplay reports whether the runner can still run: a process in which a goroutine never
// came back to heddle (a hang) can run no more.
func (e *explorer) canReplay() bool {
	_, local := e.r.(*inProcess)
	return !local || rt.Poisoned() == nil
}

// scheduleGuide replays a run's decisions.
func scheduleGuide(ds []rt.Decision) *Guide {
	gd := &Guide{Bound: -1}
	for _, d := range ds {
		gd.Prefix = append(gd.Prefix, d.Pick)
		gd.Kinds = append(gd.Kinds, d.Kind)
	}
	return gd
}

// lockOps are the operations lock trees are built from.
var lockOps = map[rt.OpKind]locktree.Op{rt.OpLock: locktree.Acquire, rt.OpUnlock: locktree.Release,
	rt.OpRLock: locktree.RAcquire, rt.OpRUnlock: locktree.RRelease}

// lockTrees analyses the lock acquisitions and releases of a detailed run, and names each
// lock by the program's expression at its first operation. Acquisitions carry their place in
// happens-before without locks, up to maxStamped clock entries in all (and none past
// maxClockCells): past them the run's later inversions are judged without it, as unordered.
func lockTrees(res *rt.Result) *locktree.Report {
	var evs []locktree.Event
	names := map[string]string{}
	namer := record.NewNamer()
	stamps := map[int]*locktree.Stamp{}
	// The clocks cost goroutines times goroutines and objects: xsync's test of ten thousand
	// maps, twenty thousand goroutines, made them tens of gigabytes.
	slots := len(res.Goroutines) + 1
	if slots*(slots+len(res.Objects)) <= maxClockCells && slices.ContainsFunc(res.Events, func(e rt.Event) bool { return e.Op == rt.OpLock || e.Op == rt.OpRLock }) {
		budget := maxStamped
		mutexFreeClocks(res, func(j, slot int, vc []int32) {
			if op := res.Events[j].Op; (op == rt.OpLock || op == rt.OpRLock) && budget >= len(vc) {
				budget -= len(vc)
				stamps[j] = &locktree.Stamp{Slot: slot, Clock: slices.Clone(vc)}
			}
		})
	}
	for j, e := range res.Events {
		op, ok := lockOps[e.Op]
		if !ok {
			continue
		}
		file, line, _ := rt.Position(e.PC)
		lock := res.ObjName(e.Obj)
		evs = append(evs, locktree.Event{G: res.Name(e.G), Lock: lock, Op: op, Pos: locktree.Pos{File: file, Line: line}, HB: stamps[j]})
		if names[lock] == "" && file != "" {
			if x := namer.Expr(record.Pos{File: file, Line: line}, e.Op.String()); x != "" {
				names[lock] = x
			}
		}
	}
	lt := locktree.Analyze(evs)
	lt.Names = names
	return lt
}

// maxClockCells bounds the clocks lockTrees computes, in entries: 64 MB. A run with more
// goroutines times goroutines and objects has no stamps, its inversions judged as unordered.
const maxClockCells = 1 << 24

// maxStamped bounds the clock entries lockTrees keeps: 16 MB.
const maxStamped = 1 << 22

// TraceLockEvents extracts the lock acquisitions and releases of a trace's steps before step
// upTo.
func TraceLockEvents(tr *record.Trace, upTo int) []locktree.Event {
	byName := make(map[string]locktree.Op, len(lockOps))
	for k, op := range lockOps {
		byName[k.String()] = op
	}
	var out []locktree.Event
	for _, e := range tr.Events {
		if e.Step >= upTo {
			break
		}
		op, ok := byName[e.Op]
		if !ok {
			continue
		}
		ev := locktree.Event{G: e.G, Lock: e.Obj, Op: op}
		if e.Pos != nil {
			ev.Pos = locktree.Pos{File: e.Pos.File, Line: e.Pos.Line}
		}
		out = append(out, ev)
	}
	return out
}

func (e *explorer) emitNode(n *node, parent *node, res *rt.Result) {
	tn := record.Node{ID: n.id, Parent: -1, Kind: n.kind.String(), Enabled: n.names}
	if parent != nil {
		tn.Parent = parent.id
		tn.G, tn.Op, tn.Obj = edge(parent, res)
	}
	e.opts.OnNode(tn)
}

// edge describes the alternative chosen at n.
func edge(n *node, res *rt.Result) (g, op, obj string) {
	a := n.alts[n.pick]
	return n.names[n.pick], a.Op.String(), res.ObjName(a.Obj)
}

// emitLeaf adds the leaf where a run ended, under the deepest node of the run.
func (e *explorer) emitLeaf(t *tree, res *rt.Result) {
	leaf := record.Node{ID: t.nextID, Parent: -1, Leaf: &record.Leaf{Verdict: string(res.Verdict.Kind)}}
	t.nextID++
	if res.Verdict.Kind.Bug() {
		leaf.Leaf.Key = e.leafBug(res)
	}
	if len(t.stack) > 0 {
		p := t.stack[len(t.stack)-1]
		leaf.Parent = p.id
		leaf.G, leaf.Op, leaf.Obj = edge(p, res)
	}
	e.opts.OnNode(leaf)
}

// emitPruned sends a node again with the alternatives its search left out.
func (e *explorer) emitPruned(n *node, pruned []record.Pruned) {
	e.opts.OnNode(record.Node{ID: n.id, Parent: record.Revisit, Pruned: pruned})
}
