package suite

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/wire"
)

// pkgRun is a package of a run under a total budget: what was built, its tests, and what is
// printed of it once none of its tests can get more time.
type pkgRun struct {
	item    any // *instrument.BuildError or *instrument.Binary
	w       *driver.Worker
	problem string // why the package has no tests to explore (packageDone's problem), if so
	tests   []*testRun
	elapsed time.Duration
	// cut is what ended the package's exploration early: an interrupt, -failfast or
	// -timeout.
	cut     string
	bug     bool // a test of the package has a bug
	printed bool
	// ctx is the package's context, with its -timeout, from its first exploration on.
	ctx    context.Context
	cancel context.CancelFunc
}

// testRun is a test of a run under a total budget.
type testRun struct {
	a       *allotment
	held    *heldTest
	o       testOutcome
	settled bool // no more time can be given to it
}

// job is a test of a run under a total budget, with its package.
type job struct {
	p *pkgRun
	t *testRun
}

// totalRun is a run under a total budget: its packages, the allocator that divides the budget
// among their tests (budget.go), and what the lanes that explore tests side by side share,
// under mu.
type totalRun struct {
	ctx   context.Context
	opts  wire.Options
	f     Flags
	rep   *reporter
	lanes int
	alloc *allocator
	pkgs  []*pkgRun
	jobs  []job // the first pass's, in go test's order

	mu     sync.Mutex
	next   int  // the first pass's next job
	anyBug bool // a test has a bug
	bugs   int
	failed bool // a package failed otherwise than by a test's bug
}

// runTotal explores the tests of the packages built under a total budget, as the allocator
// divides it (budget.go): a first pass over every test, then a second over the searches that
// more time may change. Each package is printed, in go test's order, once none of its tests
// can get more time; under -v, each test's output says how its time was given, and a line on
// standard error sums it up, with built, the time the build took. The total counts from the
// end of the build.
func runTotal(ctx context.Context, work []any, spec budgetSpec, opts wire.Options, f Flags, filter testFilter, rep *reporter, gorace string, built time.Duration, lanes int) (bugs int, failed, interrupted bool) {
	start := time.Now()
	r := &totalRun{ctx: ctx, opts: opts, f: f, rep: rep, lanes: lanes,
		alloc: newAllocator(spec.total, spec.time, lanes, func() time.Duration { return time.Since(start) })}
	rep.hold = true
	defer func() { rep.hold = false }()
	r.listTests(work, filter, gorace)
	r.inLanes(r.firstLane)
	r.closePackages()
	if ctx.Err() != nil {
		r.flushInterrupted()
		return r.bugs, r.failed, true
	}
	// The second pass: the time left, to the searches that may still find something.
	r.alloc.startExtra()
	r.inLanes(r.extraLane)
	r.flush(true, nil)
	if ctx.Err() != nil {
		return r.bugs, r.failed, true
	}
	if f.verbose {
		fmt.Fprintf(f.stderr(), "heddle: %s; the build took %v before it\n", r.alloc.summary(), built.Round(100*time.Millisecond))
	}
	return r.bugs, r.failed, false
}

// listTests lists the tests of every package that the filter selects, so that the first pass
// knows how many share the time.
func (r *totalRun) listTests(work []any, filter testFilter, gorace string) {
	for _, item := range work {
		p := &pkgRun{item: item}
		r.pkgs = append(r.pkgs, p)
		bin, ok := item.(*instrument.Binary)
		if !ok {
			continue
		}
		if bin.NoTestFiles {
			p.problem = pkgNoTestFiles
			continue
		}
		p.w = newWorker(bin, gorace, r.f)
		listStart := time.Now()
		names, err := driver.List(r.ctx, p.w)
		p.elapsed += time.Since(listStart)
		if err != nil {
			p.problem = fmt.Sprintf("cannot list the tests: %v", err)
			continue
		}
		for _, test := range names {
			if filter.match(test) {
				p.tests = append(p.tests, &testRun{a: r.alloc.add(bin.Package, test)})
			}
		}
		if len(p.tests) == 0 {
			p.problem = pkgNoTests
		}
		for _, t := range p.tests {
			r.jobs = append(r.jobs, job{p, t})
		}
	}
}

// inLanes runs lane in r.lanes goroutines side by side, each with a reporter of its own, and
// waits for them.
func (r *totalRun) inLanes(lane func(*reporter)) {
	var wg sync.WaitGroup
	for range r.lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lane(r.laneReporter())
		}()
	}
	wg.Wait()
}

// laneReporter is the reporter of a lane: rep itself when there is one lane, so that the
// progress line and the live web view work as without a total.
func (r *totalRun) laneReporter() *reporter {
	if r.lanes == 1 {
		return r.rep
	}
	return &reporter{w: io.Discard, f: r.f, hold: true}
}

// firstLane explores tests of the first pass, one after the other, until none is left.
func (r *totalRun) firstLane(lr *reporter) {
	for {
		r.mu.Lock()
		j, budget, ok := r.nextJob()
		r.mu.Unlock()
		if !ok {
			return
		}
		ps, out, held := r.explore(j.p.ctx, j.p, j.t, budget, lr)
		r.mu.Lock()
		r.record(j.p, j.t, ps, out, held, lr)
		r.anyBug = r.anyBug || out.verdict == verdictBug
		if r.ctx.Err() == nil {
			r.flush(false, nil)
		}
		r.mu.Unlock()
	}
}

// nextJob takes the first pass's next test, with its budget, with mu held: false when none is
// left or heddle was interrupted. What -failfast or -timeout leaves unexplored gets no time at
// all.
func (r *totalRun) nextJob() (job, time.Duration, bool) {
	for r.next < len(r.jobs) && r.ctx.Err() == nil {
		j := r.jobs[r.next]
		if j.p.ctx == nil {
			j.p.ctx, j.p.cancel = packageContext(r.ctx, r.f.goTest.timeout, r.f.goTest.timeout)
		}
		if !(j.p.bug && r.f.goTest.failfast || j.p.ctx.Err() != nil) {
			break
		}
		if j.p.cut == "" {
			j.p.cut = "-failfast"
			if j.p.ctx.Err() != nil {
				j.p.cut = "-timeout"
			}
		}
		j.t.settled = true
		r.next++
	}
	if r.next == len(r.jobs) || r.ctx.Err() != nil {
		return job{}, 0, false
	}
	j := r.jobs[r.next]
	r.next++
	// While more of the package's tests follow, a process waits for the next one: most of a
	// short exploration is the start of its process.
	j.p.w.KeepSpare(r.next < len(r.jobs) && r.jobs[r.next].p == j.p)
	return j, r.alloc.firstBudget(j.t.a, len(r.jobs)-r.next+1), true
}

// extraLane explores tests of the second pass, one after the other, until the allocator has
// no time left to give.
func (r *totalRun) extraLane(lr *reporter) {
	for {
		r.mu.Lock()
		p, t, a, ok := r.nextExtra()
		if !ok {
			r.mu.Unlock()
			return
		}
		if a.extra == 0 {
			t.settled = true
			r.flush(false, nil)
			r.mu.Unlock()
			continue
		}
		ctx, cancel := packageContext(r.ctx, r.f.goTest.timeout, r.f.goTest.timeout-p.elapsed)
		r.mu.Unlock()
		ps, out, held := r.explore(ctx, p, t, a.extra, lr)
		cancel()
		r.mu.Lock()
		r.record(p, t, ps, out, held, lr)
		t.settled = true
		if r.ctx.Err() == nil {
			r.flush(false, nil)
		}
		r.mu.Unlock()
	}
}

// nextExtra takes the test to which the allocator gives more time, with mu held; its extra
// time is 0 when it gets none. It returns false when the allocator has no more to give, or
// heddle was interrupted.
func (r *totalRun) nextExtra() (*pkgRun, *testRun, *allotment, bool) {
	if r.ctx.Err() != nil {
		return nil, nil, nil, false
	}
	a, b, ok := r.alloc.next()
	if !ok {
		return nil, nil, nil, false
	}
	p, t := findTest(r.pkgs, a)
	switch {
	case b == 0:
	case r.f.goTest.failfast && r.anyBug:
		r.alloc.refuse(a, "no extra time: -failfast and a bug found")
	case r.f.goTest.timeout > 0 && r.f.goTest.timeout-p.elapsed < b+r.alloc.perExploration():
		r.alloc.refuse(a, "no extra time: the package's -timeout leaves too little")
	}
	return p, t, a, true
}

// explore explores t, with budget, in ctx, reporting to lr: a reporter of its own for each
// lane, since lanes explore side by side. It touches nothing that another lane does.
func (r *totalRun) explore(ctx context.Context, p *pkgRun, t *testRun, budget time.Duration, lr *reporter) (pass, testOutcome, *heldTest) {
	o := r.opts
	o.MaxTime = budget
	var log searchLog
	var out testOutcome
	began := time.Now()
	if instrument.Runtime(t.a.pkg) {
		lr.begin(t.a.pkg, t.a.test)
		out = lr.verdict(t.a.pkg, t.a.test, &record.Stats{}, began, testOutcome{verdict: verdictUnexplorable, reason: runtimeReason(t.a.pkg)})
	} else {
		out = exploreTestLog(ctx, p.w, t.a.pkg, t.a.test, o, r.f, lr, &log)
	}
	final := out.verdict != verdictClean && out.verdict != verdictCut && !out.unfinished || out.ended != ""
	return pass{wall: time.Since(began), searched: log.searched, runs: log.runs, complete: log.complete, final: final, samples: log.samples}, out, lr.held
}

// record takes in what explore returned, with mu held.
func (r *totalRun) record(p *pkgRun, t *testRun, ps pass, out testOutcome, held *heldTest, lr *reporter) {
	t.o, t.held = out, held
	p.elapsed += ps.wall
	r.alloc.done(t.a, ps)
	t.settled = !r.alloc.open(t.a)
	if out.verdict == verdictBug {
		p.bug = true
	}
	if out.verdict == verdictInterrupted && r.ctx.Err() != nil {
		p.cut = "interrupted" // Ctrl-C; -timeout fails the package as a bug does
	}
	if lr != r.rep {
		for path := range lr.written {
			if r.rep.written == nil {
				r.rep.written = map[string]bool{}
			}
			r.rep.written[path] = true
		}
		clear(lr.written)
	}
}

// closePackages ends the packages' contexts and stops their workers.
func (r *totalRun) closePackages() {
	for _, p := range r.pkgs {
		if p.cancel != nil {
			p.cancel()
		}
		if p.w != nil {
			p.w.Close()
		}
	}
}

// flushInterrupted prints the packages up to the last one the first pass began, which the
// interrupt cut, whatever their tests.
func (r *totalRun) flushInterrupted() {
	var last *pkgRun
	for _, j := range r.jobs[:r.next] {
		last = j.p
	}
	if last != nil && last.cut == "" {
		last.cut = "interrupted"
	}
	r.flush(true, last)
}

// flush prints the packages, in order, up to the first one whose tests may still get more
// time; with all, up to last whatever their tests (every package if last is nil).
func (r *totalRun) flush(all bool, last *pkgRun) {
	for _, p := range r.pkgs {
		if p.printed {
			if p == last {
				return
			}
			continue
		}
		for _, t := range p.tests {
			if !all && !t.settled {
				return
			}
		}
		p.printed = true
		r.printPackage(p)
		if p == last {
			return
		}
	}
}

// printPackage prints a package: its tests' held verdicts and go test's line for it.
func (r *totalRun) printPackage(p *pkgRun) {
	if be, ok := p.item.(*instrument.BuildError); ok {
		r.rep.buildFailed(be.Package, be.Output, "build failed")
		r.failed = true
		return
	}
	pkg := p.item.(*instrument.Binary).Package
	if p.problem != "" {
		if p.problem != pkgNoTestFiles && p.problem != pkgNoTests {
			r.failed = true
		}
		r.rep.packageDone(pkg, p.problem, p.elapsed)
		return
	}
	pkgFailed := r.releaseTests(p)
	status := ""
	switch {
	case p.cut == "interrupted":
		status = "interrupted"
	case p.cut == "-timeout" && !pkgFailed:
		// Its time ran out before a test began: go test names the timeout.
		status, r.failed = context.Cause(p.ctx).Error(), true
	case pkgFailed:
		status = pkgFail
	}
	r.rep.packageDone(pkg, status, p.elapsed)
}

// releaseTests prints the held verdicts of a package's tests, each with how its time was
// given, and returns whether one failed.
func (r *totalRun) releaseTests(p *pkgRun) (pkgFailed bool) {
	for _, t := range p.tests {
		if t.held == nil {
			continue // not explored: -failfast, -timeout or an interrupt came first
		}
		t.held.held = true
		t.held.budget = &BudgetUse{First: t.a.first.Seconds(), Extra: t.a.extra.Seconds(), Used: t.a.used.Seconds(), Reason: t.a.reason, line: t.a.why()}
		r.rep.release(t.held)
		r.bugs += t.o.bugs
		switch t.o.verdict {
		case verdictBug:
			pkgFailed = true
		case verdictInterrupted:
			pkgFailed, r.failed = true, true
		}
	}
	return pkgFailed
}

// totalLanes is how many tests a run under a total budget explores at a time: as go test
// runs test binaries, the build flag -p, GOMAXPROCS by default, here divided by the worker
// processes each exploration takes. The live web view (-serve) shows one test at a time.
func totalLanes(build []string, f Flags) int {
	if f.serve || f.goTest.failfast {
		// -failfast explores no test after a bug: tests side by side would have begun.
		return 1
	}
	n := runtime.GOMAXPROCS(0)
	for i, a := range build {
		v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "p=")
		if !ok && strings.TrimLeft(a, "-") == "p" && i+1 < len(build) {
			v, ok = build[i+1], true
		}
		if p, err := strconv.Atoi(v); ok && err == nil && p > 0 {
			n = p
		}
	}
	return max(1, n/max(f.workers, 1))
}

// findTest finds the package and the test of an allotment.
func findTest(pkgs []*pkgRun, a *allotment) (*pkgRun, *testRun) {
	for _, p := range pkgs {
		for _, t := range p.tests {
			if t.a == a {
				return p, t
			}
		}
	}
	panic("heddle: no test " + a.test + " in the run") // the allocator holds only the run's tests
}
