package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/timeline"
	"github.com/heddledbg/heddle/worker"
	"github.com/heddledbg/heddle/worker/remote"
)

// pkgRun is a package of a run under a total budget: what was built, its tests, and what is
// printed of it once none of its tests can get more time.
type pkgRun struct {
	item    any // *instrument.BuildError or *instrument.Binary
	w       *remote.Worker
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

// runTotal explores the tests of the packages built under a total budget, as the allocator
// divides it (budget.go): a first pass over every test, then a second over the searches that
// more time may change. Each package is printed, in go test's order, once none of its tests
// can get more time; under -v, each test's output says how its time was given, and a line on
// standard error sums it up, with built, the time the build took. The total counts from the
// end of the build.
func runTotal(ctx context.Context, work []any, spec budgetSpec, opts worker.Options, f Flags, filter testFilter, rep *reporter, gorace string, built time.Duration, lanes int) (bugs int, failed, interrupted bool) {
	start := time.Now()
	alloc := newAllocator(spec.total, spec.time, lanes, func() time.Duration { return time.Since(start) })
	rep.hold = true
	defer func() { rep.hold = false }()

	// The tests of every package, so that the first pass knows how many share the time.
	var pkgs []*pkgRun
	for _, item := range work {
		p := &pkgRun{item: item}
		pkgs = append(pkgs, p)
		bin, ok := item.(*instrument.Binary)
		if !ok {
			continue
		}
		if bin.NoTestFiles {
			p.problem = pkgNoTestFiles
			continue
		}
		p.w = &remote.Worker{Path: bin.Path, Dir: bin.Dir, Env: []string{worker.EnvPackage + "=" + bin.Package, worker.EnvBinary + "=" + digest(bin.Path), gorace}}
		if bin.Test {
			p.w.Args = worker.TestArgs(true)
		}
		listStart := time.Now()
		names, err := remote.List(ctx, p.w)
		p.elapsed += time.Since(listStart)
		if err != nil {
			p.problem = fmt.Sprintf("cannot list the tests: %v", err)
			continue
		}
		for _, test := range names {
			if filter.match(test) {
				p.tests = append(p.tests, &testRun{a: alloc.add(bin.Package, test)})
			}
		}
		if len(p.tests) == 0 {
			p.problem = pkgNoTests
		}
	}

	// explore explores t, with budget, in ctx, reporting to r: a reporter of its own for each
	// lane, since lanes explore side by side. It touches nothing that another lane does.
	explore := func(ctx context.Context, p *pkgRun, t *testRun, budget time.Duration, r *reporter) (pass, testOutcome, *heldTest) {
		o := opts
		o.MaxTime = budget
		var log searchLog
		var out testOutcome
		began := time.Now()
		if instrument.Runtime(t.a.pkg) {
			r.begin(t.a.pkg, t.a.test)
			out = r.verdict(t.a.pkg, t.a.test, &timeline.Stats{}, began, testOutcome{verdict: verdictUnexplorable,
				reason: fmt.Sprintf("%s is part of heddle's runtime, which instrumented code calls, so heddle does not instrument it: its tests would run outside heddle's control", t.a.pkg)})
		} else {
			out = exploreTestLog(ctx, p.w, t.a.pkg, t.a.test, o, f, r, &log)
		}
		final := out.verdict != verdictClean && out.verdict != verdictCut || out.ended != ""
		return pass{wall: time.Since(began), searched: log.searched, runs: log.runs, complete: log.complete, final: final, samples: log.samples}, out, r.held
	}
	// record takes in what explore returned, with mu held.
	record := func(p *pkgRun, t *testRun, ps pass, out testOutcome, held *heldTest, r *reporter) {
		t.o, t.held = out, held
		p.elapsed += ps.wall
		alloc.done(t.a, ps)
		t.settled = !alloc.open(t.a)
		if out.verdict == verdictBug {
			p.bug = true
		}
		if out.verdict == verdictInterrupted && ctx.Err() != nil {
			p.cut = "interrupted" // Ctrl-C; -timeout fails the package as a bug does
		}
		if r != rep {
			for path := range r.written {
				if rep.written == nil {
					rep.written = map[string]bool{}
				}
				rep.written[path] = true
			}
			clear(r.written)
		}
	}
	// laneReporter is the reporter of a lane: rep itself when there is one lane, so that the
	// progress line and the live web view work as without a total.
	laneReporter := func() *reporter {
		if lanes == 1 {
			return rep
		}
		return &reporter{w: io.Discard, f: f, hold: true}
	}

	// flush prints the packages, in order, up to the first one whose tests may still get
	// more time; with all, up to last whatever their tests (every package if last is nil).
	flush := func(all bool, last *pkgRun) {
		for _, p := range pkgs {
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
			if be, ok := p.item.(*instrument.BuildError); ok {
				rep.buildFailed(be.Package, be.Output, "build failed")
				failed = true
				continue
			}
			pkg := p.item.(*instrument.Binary).Package
			if p.problem != "" {
				if p.problem != pkgNoTestFiles && p.problem != pkgNoTests {
					failed = true
				}
				rep.packageDone(pkg, p.problem, p.elapsed)
				continue
			}
			pkgFailed := false
			for _, t := range p.tests {
				if t.held == nil {
					continue // not explored: -failfast, -timeout or an interrupt came first
				}
				t.held.held = true
				t.held.budget = &BudgetUse{First: t.a.first.Seconds(), Extra: t.a.extra.Seconds(), Used: t.a.used.Seconds(), Reason: t.a.reason, line: t.a.why()}
				rep.release(t.held)
				bugs += t.o.bugs
				switch t.o.verdict {
				case verdictBug:
					pkgFailed = true
				case verdictInterrupted:
					pkgFailed, failed = true, true
				}
			}
			status := ""
			switch {
			case p.cut == "interrupted":
				status = "interrupted"
			case p.cut == "-timeout" && !pkgFailed:
				// Its time ran out before a test began: go test names the timeout.
				status, failed = context.Cause(p.ctx).Error(), true
			case pkgFailed:
				status = pkgFail
			}
			rep.packageDone(pkg, status, p.elapsed)
			if p == last {
				return
			}
		}
	}

	// The first pass: every test once, in go test's order, lanes at a time.
	type job struct {
		p *pkgRun
		t *testRun
	}
	var jobs []job
	for _, p := range pkgs {
		for _, t := range p.tests {
			jobs = append(jobs, job{p, t})
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := 0
	anyBug := false
	for range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := laneReporter()
			for {
				mu.Lock()
				for next < len(jobs) && ctx.Err() == nil {
					j := jobs[next]
					if j.p.ctx == nil {
						j.p.ctx, j.p.cancel = ctx, func() {}
						if f.goTest.timeout > 0 {
							j.p.ctx, j.p.cancel = context.WithTimeoutCause(ctx, f.goTest.timeout, fmt.Errorf("test timed out after %v (-timeout)", f.goTest.timeout))
						}
					}
					if j.p.bug && f.goTest.failfast || j.p.ctx.Err() != nil {
						// What -failfast or -timeout leaves unexplored gets no time at all.
						if j.p.cut == "" {
							j.p.cut = "-failfast"
							if j.p.ctx.Err() != nil {
								j.p.cut = "-timeout"
							}
						}
						j.t.settled = true
						next++
						continue
					}
					break
				}
				if next == len(jobs) || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				j := jobs[next]
				next++
				// While more of the package's tests follow, a process waits for the next one:
				// most of a short exploration is the start of its process.
				j.p.w.KeepSpare(next < len(jobs) && jobs[next].p == j.p)
				budget := alloc.firstBudget(j.t.a, len(jobs)-next+1)
				mu.Unlock()
				ps, out, held := explore(j.p.ctx, j.p, j.t, budget, r)
				mu.Lock()
				record(j.p, j.t, ps, out, held, r)
				anyBug = anyBug || out.verdict == verdictBug
				if ctx.Err() == nil {
					flush(false, nil)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, p := range pkgs {
		if p.cancel != nil {
			p.cancel()
		}
		if p.w != nil {
			p.w.Close()
		}
	}
	if ctx.Err() != nil {
		var last *pkgRun
		for _, j := range jobs[:next] {
			last = j.p
		}
		if last != nil && last.cut == "" {
			last.cut = "interrupted"
		}
		flush(true, last)
		return bugs, failed, true
	}

	// The second pass: the time left, to the searches that may still find something, lanes
	// at a time.
	alloc.startExtra()
	for range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := laneReporter()
			for {
				mu.Lock()
				var a *allotment
				var b time.Duration
				ok := ctx.Err() == nil
				if ok {
					a, b, ok = alloc.next()
				}
				if !ok {
					mu.Unlock()
					return
				}
				p, t := findTest(pkgs, a)
				switch {
				case b == 0:
				case f.goTest.failfast && anyBug:
					alloc.refuse(a, "no extra time: -failfast and a bug found")
				case f.goTest.timeout > 0 && f.goTest.timeout-p.elapsed < b+alloc.perExploration():
					alloc.refuse(a, "no extra time: the package's -timeout leaves too little")
				}
				if a.extra == 0 {
					t.settled = true
					flush(false, nil)
					mu.Unlock()
					continue
				}
				rctx, cancel := ctx, context.CancelFunc(func() {})
				if f.goTest.timeout > 0 {
					rctx, cancel = context.WithTimeoutCause(ctx, f.goTest.timeout-p.elapsed, fmt.Errorf("test timed out after %v (-timeout)", f.goTest.timeout))
				}
				mu.Unlock()
				ps, out, held := explore(rctx, p, t, a.extra, r)
				cancel()
				mu.Lock()
				record(p, t, ps, out, held, r)
				t.settled = true
				if ctx.Err() == nil {
					flush(false, nil)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		flush(true, nil)
		return bugs, failed, true
	}
	flush(true, nil)
	if f.verbose {
		fmt.Fprintf(os.Stderr, "heddle: %s; the build took %v before it\n", alloc.summary(), built.Round(100*time.Millisecond))
	}
	return bugs, failed, false
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
