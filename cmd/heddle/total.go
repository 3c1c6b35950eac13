package main

import (
	"context"
	"fmt"
	"os"
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
	// cut is what ended the package's first pass early: an interrupt or -timeout.
	cut     string
	printed bool
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
func runTotal(ctx context.Context, work []any, spec budgetSpec, opts worker.Options, f testFlags, filter testFilter, rep *reporter, gorace string, built time.Duration) (bugs int, failed, interrupted bool) {
	start := time.Now()
	alloc := newAllocator(spec.total, spec.time, func() time.Duration { return time.Since(start) })
	rep.hold = true
	defer func() { rep.hold = false }()

	// The tests of every package, so that the first pass knows how many share the time.
	var pkgs []*pkgRun
	waiting := 0
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
				waiting++
			}
		}
		if len(p.tests) == 0 {
			p.problem = pkgNoTests
		}
	}

	// explore explores t, with budget, in ctx; last says whether no more time can be given to
	// it after this exploration.
	explore := func(ctx context.Context, p *pkgRun, t *testRun, budget time.Duration) {
		o := opts
		o.MaxTime = budget
		var log searchLog
		began := time.Now()
		if instrument.Runtime(t.a.pkg) {
			rep.begin(t.a.pkg, t.a.test)
			t.o = rep.verdict(t.a.pkg, t.a.test, &timeline.Stats{}, began, testOutcome{verdict: verdictUnexplorable,
				reason: fmt.Sprintf("%s is part of heddle's runtime, which instrumented code calls, so heddle does not instrument it: its tests would run outside heddle's control", t.a.pkg)})
		} else {
			t.o = exploreTestLog(ctx, p.w, t.a.pkg, t.a.test, o, f, rep, &log)
		}
		wall := time.Since(began)
		t.held = rep.held
		p.elapsed += wall
		final := t.o.verdict != verdictClean && t.o.verdict != verdictCut || t.o.ended != ""
		alloc.done(t.a, pass{wall: wall, searched: log.searched, runs: log.runs, complete: log.complete, final: final, samples: log.samples})
		t.settled = !alloc.open(t.a)
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
				t.held.budget = &budgetUse{First: t.a.first.Seconds(), Extra: t.a.extra.Seconds(), Used: t.a.used.Seconds(), Reason: t.a.reason, line: t.a.why()}
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
			case pkgFailed:
				status = pkgFail
			}
			rep.packageDone(pkg, status, p.elapsed)
			if p == last {
				return
			}
		}
	}

	// The first pass: every test once.
	anyBug := false
	for _, p := range pkgs {
		pkgCtx, pkgCancel := ctx, context.CancelFunc(func() {})
		if f.goTest.timeout > 0 {
			pkgCtx, pkgCancel = context.WithTimeoutCause(ctx, f.goTest.timeout, fmt.Errorf("test timed out after %v (-timeout)", f.goTest.timeout))
		}
		pkgFailed := false
		for i, t := range p.tests {
			if pkgFailed && f.goTest.failfast || pkgCtx.Err() != nil {
				if p.cut == "" {
					p.cut = "-failfast"
					if pkgCtx.Err() != nil {
						p.cut = "-timeout"
					}
				}
				waiting -= len(p.tests) - i
				break
			}
			explore(pkgCtx, p, t, alloc.firstBudget(t.a, waiting))
			waiting--
			pkgFailed = pkgFailed || t.o.verdict == verdictBug
			anyBug = anyBug || t.o.verdict == verdictBug
			if ctx.Err() != nil {
				pkgCancel()
				p.cut = "interrupted"
				flush(true, p)
				return bugs, failed, true
			}
		}
		pkgCancel()
		if p.cut != "" {
			// What -failfast or -timeout left unexplored gets no more time either.
			for _, t := range p.tests {
				t.settled = true
			}
		}
		flush(false, nil)
	}

	// The second pass: the time left, to the searches that may still find something.
	alloc.startExtra()
	for {
		a, b, ok := alloc.next()
		if !ok {
			break
		}
		p, t := findTest(pkgs, a)
		if f.goTest.failfast && anyBug {
			a.extra, a.reason = 0, "no extra time: -failfast and a bug found"
		} else if b > 0 {
			rctx, cancel := ctx, context.CancelFunc(func() {})
			if f.goTest.timeout > 0 {
				left := f.goTest.timeout - p.elapsed
				if left < b+alloc.perExploration() {
					a.extra, a.reason = 0, "no extra time: the package's -timeout leaves too little"
					t.settled = true
					flush(false, nil)
					continue
				}
				rctx, cancel = context.WithTimeoutCause(ctx, left, fmt.Errorf("test timed out after %v (-timeout)", f.goTest.timeout))
			}
			explore(rctx, p, t, b)
			cancel()
			if ctx.Err() != nil {
				p.cut = "interrupted"
				flush(true, nil)
				return bugs, failed, true
			}
		}
		t.settled = true
		flush(false, nil)
	}
	flush(true, nil)
	if f.verbose {
		fmt.Fprintf(os.Stderr, "heddle: %s; the build took %v before it\n", alloc.summary(), built.Round(100*time.Millisecond))
	}
	return bugs, failed, false
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
