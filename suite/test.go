package suite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/internal/testmatch"
	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/server"
	"github.com/heddledbg/heddle/wire"
)

// Flags are the flags of heddle test and heddle run; the remaining arguments are build
// flags (passed to the go command) and package patterns, as for go test.
type Flags struct {
	run      string
	skip     string
	strategy string
	budget   string
	steps    int
	seed     uint64
	depth    int
	bound    int
	workers  int
	jsonOut  bool
	verbose  bool
	out      string
	isolate  bool
	stop     bool
	serve    bool
	instr    string
	noInstr  string
	hang     time.Duration
	time     rt.TimeModel
	quantum  time.Duration
	race     bool
	shard    shardFlag
	group    bool
	atomic   string
	goTest   goTestFlags
	// The bounds of the results kept (keep.go): files and bytes per test, bytes in -out.
	keepFiles    int
	keepBytes    byteSize
	keepOutBytes byteSize
	// What Check makes of -budget, -run and -skip.
	spec   budgetSpec
	filter testFilter

	// Stdout gets the report, as go test's standard output; Stderr gets heddle's own
	// messages and the progress line. Nil means the process's.
	Stdout, Stderr io.Writer
}

func (f *Flags) stdout() io.Writer {
	if f.Stdout == nil {
		return os.Stdout
	}
	return f.Stdout
}

func (f *Flags) stderr() io.Writer {
	if f.Stderr == nil {
		return os.Stderr
	}
	return f.Stderr
}

// goTestFlags are go test's flags that heddle test accepts for a Go developer's habits, with
// their meaning under heddle, or that it refuses, saying why.
type goTestFlags struct {
	count    int
	failfast bool
	timeout  time.Duration
	parallel int
	shuffle  string
	cpu      string
	dir      string // -C, which must come first and was handled then
	out      string // -o, refused
}

// Register defines the flags of heddle test and heddle run in fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.run, "run", "", "explore only tests matching `regexp`")
	fs.StringVar(&f.skip, "skip", "", "do not explore tests matching `regexp`")
	fs.StringVar(&f.strategy, "strategy", "portfolio", "search strategy: "+explorer.StrategyNames())
	fs.StringVar(&f.budget, "budget", defaultBudget, "budget per test: a number of runs, a duration, or runs=N,time=D; or for the whole run, total=D, which heddle divides among the tests (first a share for each, then more to the searches still finding new schedules), each test getting at most time=D and runs=N if given (docs/budget.md)")
	fs.IntVar(&f.steps, "steps", rt.DefaultMaxSteps, "step bound per run; a run that reaches it while making progress is cut (counted, not a bug)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for the random and pct strategies")
	fs.IntVar(&f.depth, "depth", 3, "bug depth of the pct strategy")
	fs.IntVar(&f.bound, "bound", 2, "largest preemption bound of the bounded strategy")
	fs.IntVar(&f.workers, "workers", 1, "worker processes per test")
	fs.Var(&f.shard, "shard", "explore share `i/n` of each test's search (i from 0), one of n CI jobs whose results heddle merge combines; by default from $TEST_TOTAL_SHARDS and $TEST_SHARD_INDEX (Bazel) or $JOB_COMPLETION_INDEX and $HEDDLE_SHARDS (Kubernetes)")
	fs.BoolVar(&f.jsonOut, "json", false, "print go test -json's events (test2json's) of -v's output, one JSON object per line, with heddle's fields (docs/formats.md)")
	fs.BoolVar(&f.verbose, "v", false, "print every test explored, as go test -v, with heddle's statistics in its output")
	fs.StringVar(&f.out, "out", record.ResultDir, "directory for schedule, trace and exploration files")
	f.keepBytes, f.keepOutBytes = defaultKeepBytes, defaultKeepOutBytes
	fs.IntVar(&f.keepFiles, "keep-files", defaultKeepFiles, "most files kept in a test's results directory: the latest exploration's, its bugs' traces simplest first, then the newest others (0: no bound)")
	fs.Var(&f.keepBytes, "keep-bytes", "most bytes kept in a test's results directory, as -keep-files: a `size` such as 10MB (0: no bound)")
	fs.Var(&f.keepOutBytes, "keep-out-bytes", "most bytes kept in the -out directory, a `size` such as 200MB: the oldest files that this run did not write are removed first (0: no bound)")
	fs.BoolVar(&f.isolate, "isolate", false, "run every schedule in a fresh process (programs with global state)")
	fs.BoolVar(&f.stop, "stop", false, "stop a test's exploration at its first bug")
	fs.BoolVar(&f.serve, "serve", false, "open the web view on the results")
	fs.StringVar(&f.instr, "instrument", "", "comma-separated package patterns outside the main module to instrument too")
	fs.StringVar(&f.noInstr, "no-instrument", "", "comma-separated package patterns not to instrument")
	fs.BoolVar(&f.race, "race", true, RaceUsage)
	fs.DurationVar(&f.hang, "hang", rt.DefaultHang, "wall-clock limit between two scheduling points (infinite loops)")
	fs.BoolVar(&f.group, "group", false, "run the packages named as one process group, all under one scheduler, their sockets to each other scheduled too: programs under heddle run, under heddle test the one test of each package that -run matches (docs/processes.md)")
	fs.StringVar(&f.atomic, "atomic", explorer.AtomicC, "checker of //heddle:atomic functions whose verdict makes a warning: "+strings.Join(explorer.AtomicCheckers, ", ")+" (docs/atomicity.md)")
	fs.TextVar(&f.time, "time", rt.TimeQuantum, "model of time: quantum (time passes with work: each step moves the clock by -quantum, and a timer past its deadline may fire at any later step), synctest (the clock advances only when every goroutine is blocked) or adversarial (a timer may fire at any step); docs/time.md")
	fs.DurationVar(&f.quantum, "quantum", rt.DefaultQuantum, "how far each step moves the clock under -time=quantum")
	g := &f.goTest
	fs.IntVar(&g.count, "count", 1, "go test's -count: -count=1 is accepted (heddle caches no results); heddle explores each test once, with as many runs as -budget allows, so other counts are refused")
	fs.BoolVar(&g.failfast, "failfast", false, "stop at the first bug: end that test's search and explore no further tests")
	fs.DurationVar(&g.timeout, "timeout", 0, "fail a package whose exploration takes longer than `d`, as go test does (0: no limit; -budget bounds each test, or the whole run)")
	fs.IntVar(&g.parallel, "parallel", 0, "go test's -parallel, accepted and ignored: heddle runs t.Parallel subtests in their parent's place (-workers sets heddle's processes per test; under a total budget, the build flag -p how many tests are explored at a time)")
	fs.StringVar(&g.shuffle, "shuffle", "off", "go test's -shuffle (off, on or a seed), accepted and ignored: each test is explored in processes of its own, so the order of tests changes nothing")
	fs.StringVar(&g.cpu, "cpu", "", "go test's -cpu, accepted and ignored: heddle runs one goroutine at a time, whatever GOMAXPROCS is")
	fs.StringVar(&g.dir, "C", "", "change to `dir` before anything else, as go test -C (it must be the first flag)")
	fs.StringVar(&g.out, "o", "", "refused: the test binary heddle builds is instrumented and serves only heddle's worker protocol (go test -c -o builds one of your own)")
}

// check refuses go test's flags that have no meaning under heddle, with one line that says
// why, or nil.
func (g *goTestFlags) check(name string) error {
	switch {
	case g.dir != "":
		return fmt.Errorf("-C flag must be first flag on command line")
	case g.count != 1:
		return fmt.Errorf("-count %d: heddle explores each test once, with as many runs as -budget allows (-budget runs=N); only -count=1 is accepted", g.count)
	case g.out != "":
		return fmt.Errorf("-o %s: the test binary heddle builds is instrumented and serves only heddle's worker protocol; go test -c -o builds one of your own", g.out)
	case g.timeout < 0:
		return fmt.Errorf("-timeout %v: want 0 (no limit) or more", g.timeout)
	case g.parallel < 0:
		return fmt.Errorf("-parallel %d: want 1 or more", g.parallel)
	}
	if g.shuffle != "off" && g.shuffle != "on" {
		if _, err := strconv.ParseInt(g.shuffle, 10, 64); err != nil {
			return fmt.Errorf("-shuffle %q: want off, on or an integer seed", g.shuffle)
		}
	}
	if g.cpu != "" {
		for _, c := range strings.Split(g.cpu, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(c)); err != nil || n < 1 {
				return fmt.Errorf("-cpu %q: want a comma-separated list of numbers of CPUs", g.cpu)
			}
		}
	}
	return nil
}

// Check checks the flags of the command name (heddle test or heddle run) once they are
// parsed, and completes them: -failfast stops each search at its first bug, a shard's results
// go to the shard's directory, and -budget, -run and -skip are parsed. Its error is the line
// to print.
func (f *Flags) Check(name string) error {
	if err := f.goTest.check(name); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if f.goTest.failfast {
		f.stop = true
	}
	if err := resolveShard(&f.shard, os.Getenv); err != nil {
		return fmt.Errorf("heddle: -shard: %v", err)
	}
	if f.workers < 1 {
		return fmt.Errorf("heddle: -workers %d: want 1 or more", f.workers)
	}
	if f.shard.total > 1 {
		f.out = record.ShardDir(f.out, f.shard.index, f.shard.total)
	}
	spec, err := parseBudget(f.budget)
	if err != nil {
		return fmt.Errorf("heddle: %v", err)
	}
	f.spec = spec
	if !slices.Contains(explorer.AtomicCheckers, f.atomic) {
		return fmt.Errorf("heddle: unknown -atomic checker %q (want one of %s)", f.atomic, strings.Join(explorer.AtomicCheckers, ", "))
	}
	if _, err := explorer.ParseStrategy(f.strategy); err != nil {
		return fmt.Errorf("heddle: -strategy: %v", err)
	}
	if f.filter.Filter, err = testmatch.New(f.run, f.skip); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

// options are the search's options that the flags give; with tree, the workers stream the
// schedule tree.
func (f *Flags) options(budget time.Duration, tree bool) wire.Options {
	opts := wire.Options{Strategy: f.strategy, MaxRuns: f.spec.runs, MaxTime: budget, MaxSteps: f.steps, Seed: f.seed,
		Depth: f.depth, Bound: f.bound, StopOnBug: f.stop, Hang: f.hang, Time: f.time, Quantum: f.quantum, Tree: tree, Atomicity: f.atomic}
	if f.shard.total > 1 {
		opts.Shard, opts.Shards = f.shard.index, f.shard.total
	}
	return opts
}

// Test explores the tests of the packages that patterns name, or with tests false their main
// functions (heddle run), built in dir with the go command's build flags, as f, which has
// passed Check, says. It prints what it finds as go test does, and returns heddle's exit code.
func Test(ctx context.Context, dir string, patterns, build []string, tests bool, f *Flags) int {
	if f.group {
		budget := f.spec.time
		if f.spec.total > 0 && (budget == 0 || f.spec.total < budget) {
			budget = f.spec.total // one search: the whole total
		}
		return runGroup(ctx, dir, patterns, build, tests, f.filter, *f, f.options(budget, false))
	}
	res, built, code := buildTests(ctx, dir, patterns, build, tests, *f)
	if res == nil {
		return code
	}
	defer os.RemoveAll(res.WorkDir)
	// The warnings are about the instrumented copy only (a go version raised for the
	// runtime), harmless for the user's module; printed on every run they would be noise.
	if f.verbose {
		for _, w := range res.Warnings {
			fmt.Fprintln(f.stderr(), "heddle: warning:", w)
		}
	}
	rep := newReporter(*f)
	if f.serve {
		srv, err := server.New(server.Options{})
		if err != nil {
			fmt.Fprintln(f.stderr(), "heddle:", err)
			return ExitUsage
		}
		defer srv.Close()
		rep.srv = srv
		fmt.Fprintf(f.stderr(), "heddle: web view at %s\n", srv.URL())
	}
	gorace, err := RaceEnv(res.WorkDir)
	if err != nil {
		fmt.Fprintln(f.stderr(), "heddle:", err)
		return ExitUsage
	}
	var bugs int
	var failed, interrupted bool
	if opts := f.options(f.spec.time, true); f.spec.total > 0 {
		bugs, failed, interrupted = runTotal(ctx, workList(res), f.spec, opts, *f, f.filter, rep, gorace, built, totalLanes(build, *f))
	} else {
		bugs, failed, interrupted = explorePackages(ctx, workList(res), opts, *f, rep, gorace)
	}
	if interrupted {
		rep.finish()
		fmt.Fprintln(f.stderr(), "heddle: interrupted")
		return ExitUsage
	}
	return finishRun(ctx, rep, *f, failed || bugs > 0)
}

// buildTests instruments and builds the packages. It returns nil and the exit code when
// nothing can be explored: a package that cannot be loaded is reported as go test reports it.
func buildTests(ctx context.Context, dir string, patterns, build []string, tests bool, f Flags) (*instrument.Result, time.Duration, int) {
	cfg := instrument.Config{Dir: dir, Packages: patterns, Test: tests, BuildFlags: WithRace(build, f.race), Instrument: splitList(f.instr), Skip: splitList(f.noInstr), KeepGoing: true}
	start := time.Now()
	res, err := instrument.Build(ctx, cfg)
	if err == nil {
		return res, time.Since(start), ExitOK
	}
	err = raceBuildError(err)
	var be *instrument.BuildError
	var le *instrument.LoadError
	switch {
	case errors.As(err, &le):
		reportLoadErrors(le, f)
		return nil, 0, ExitBug
	case errors.As(err, &be):
		fmt.Fprintln(f.stderr(), be.Output)
		fmt.Fprintf(f.stderr(), "heddle: %s does not build\n", be.Package)
	default:
		fmt.Fprintln(f.stderr(), "heddle:", err)
	}
	return nil, 0, ExitUsage
}

// reportLoadErrors fails the packages that cannot be loaded, in the go command's words, as go
// test does.
func reportLoadErrors(le *instrument.LoadError, f Flags) {
	rep := newReporter(f)
	for i, pe := range le.Errors {
		if i > 0 && pe.Package == le.Errors[i-1].Package {
			continue
		}
		var out strings.Builder
		for _, x := range le.Errors[i:] {
			if x.Package == pe.Package {
				fmt.Fprintf(&out, "%s\n", strings.TrimPrefix(x.String(), "-: "))
			}
		}
		rep.buildFailed(pe.Package, out.String(), "setup failed")
	}
	rep.finish()
}

// workList is the packages of a build in go test's order, built or not: each an
// *instrument.Binary or an *instrument.BuildError.
func workList(res *instrument.Result) []any {
	work := make([]any, 0, len(res.Binaries)+len(res.Failed))
	for i := range res.Binaries {
		work = append(work, &res.Binaries[i])
	}
	for _, be := range res.Failed {
		work = append(work, be)
	}
	slices.SortStableFunc(work, func(a, b any) int { return strings.Compare(workPackage(a), workPackage(b)) })
	return work
}

// explorePackages explores the tests of each package in turn, each test with the budget of
// opts. It returns the bugs found, whether a package failed otherwise, and whether heddle
// was interrupted.
func explorePackages(ctx context.Context, work []any, opts wire.Options, f Flags, rep *reporter, gorace string) (bugs int, failed, interrupted bool) {
	for _, item := range work {
		if be, ok := item.(*instrument.BuildError); ok {
			rep.buildFailed(be.Package, be.Output, "build failed")
			failed = true
			continue
		}
		bin := item.(*instrument.Binary)
		if bin.NoTestFiles {
			rep.packageDone(bin.Package, pkgNoTestFiles, 0)
			continue
		}
		n, pkgFailed, stop := explorePackage(ctx, bin, opts, f, rep, gorace)
		bugs, failed = bugs+n, failed || pkgFailed
		if stop {
			return bugs, failed, true
		}
	}
	return bugs, failed, false
}

// explorePackage explores the tests of one package that the filter selects, in the
// package's -timeout, and prints the package's line.
func explorePackage(ctx context.Context, bin *instrument.Binary, opts wire.Options, f Flags, rep *reporter, gorace string) (bugs int, failed, interrupted bool) {
	start := time.Now()
	pkgCtx, cancel := packageContext(ctx, f.goTest.timeout, f.goTest.timeout)
	defer cancel()
	w := newWorker(bin, gorace, f)
	names, err := driver.List(pkgCtx, w)
	if err != nil {
		if pkgCtx.Err() != nil {
			err = context.Cause(pkgCtx)
		}
		rep.packageDone(bin.Package, fmt.Sprintf("cannot list the tests: %v", err), time.Since(start))
		return 0, true, false
	}
	pkgFailed, matched := false, 0
	for _, test := range names {
		if pkgFailed && f.goTest.failfast {
			break
		}
		if !f.filter.match(test) {
			continue
		}
		matched++
		var o testOutcome
		if instrument.Runtime(bin.Package) {
			rep.begin(bin.Package, test)
			o = rep.unexplorable(bin.Package, test, opts.Strategy, &record.Stats{}, time.Now(), runtimeReason(bin.Package))
		} else {
			o = exploreTest(pkgCtx, w, bin.Package, test, opts, f, rep)
		}
		bugs += o.bugs
		switch o.verdict {
		case verdictBug:
			pkgFailed = true
		case verdictInterrupted:
			pkgFailed, failed = true, true
		}
		if ctx.Err() != nil {
			rep.packageDone(bin.Package, "interrupted", time.Since(start))
			return bugs, failed, true
		}
		if pkgCtx.Err() != nil {
			break // -timeout
		}
	}
	status := ""
	switch {
	case pkgFailed:
		status = pkgFail
	case matched == 0:
		status = pkgNoTests
	}
	rep.packageDone(bin.Package, status, time.Since(start))
	return bugs, failed, false
}

// packageContext is a package's context under -timeout (0: none) with left of it to run,
// which ends, as go test's timeout does, saying so.
func packageContext(ctx context.Context, timeout, left time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, left, fmt.Errorf("test timed out after %v (-timeout)", timeout))
}

// runtimeReason says why the tests of pkg, a package of heddle's runtime, are not explored.
func runtimeReason(pkg string) string {
	return fmt.Sprintf("%s is part of heddle's runtime, which instrumented code calls, so heddle does not instrument it: its tests would run outside heddle's control", pkg)
}

// newWorker is the worker of a built package, whose test binary (or program) it runs as f
// says: -v, and -run and -skip, which select subtests too.
func newWorker(bin *instrument.Binary, gorace string, f Flags) *driver.Worker {
	w := &driver.Worker{Path: bin.Path, Dir: bin.Dir, Env: []string{wire.EnvPackage + "=" + bin.Package, wire.EnvBinary + "=" + digest(bin.Path), gorace}}
	if bin.Test {
		w.Args = wire.TestArgs(true)
	}
	if f.verbose {
		w.Env = append(w.Env, wire.EnvVerbose+"=1")
	}
	w.Env = append(w.Env, wire.Selecting(f.run, f.skip)...)
	return w
}

// finishRun ends a run that was not interrupted: it bounds -out (-keep-out-bytes), and with
// -serve keeps the web view until interrupted. It returns heddle's exit code: as go test's, a
// package that does not build fails as a test does.
func finishRun(ctx context.Context, rep *reporter, f Flags, failed bool) int {
	rep.finish()
	if n, freed, err := keepOut(f.out, rep.written, int64(f.keepOutBytes)); err != nil {
		fmt.Fprintln(f.stderr(), "heddle: -keep-out-bytes:", err)
	} else if n > 0 && f.verbose {
		fmt.Fprintf(f.stderr(), "heddle: removed the %s oldest results (%.1f MB) from %s, to keep it under %s (-keep-out-bytes)\n", plural(n, "file"), float64(freed)/(1<<20), f.out, &f.keepOutBytes)
	}
	code := ExitOK
	if failed {
		code = ExitBug
	}
	if rep.srv != nil {
		fmt.Fprintf(f.stderr(), "heddle: done; the web view stays at %s until Ctrl-C\n", rep.srv.URL())
		<-ctx.Done()
	}
	return code
}

// testFilter is -run and -skip, as go test applies them (package testmatch): a test is explored
// if they select its name, and its workers run the subtests they select.
type testFilter struct{ *testmatch.Filter }

func (t testFilter) match(name string) bool { return t.Filter.Match(name) }

// workPackage is the import path of a built binary or of a package that did not build.
func workPackage(item any) string {
	switch x := item.(type) {
	case *instrument.Binary:
		return x.Package
	case *instrument.BuildError:
		return x.Package
	}
	return ""
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func digest(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	io.Copy(h, f)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
}

// A test's verdict: exactly one per test explored.
const (
	verdictClean        = "clean"        // no bug; the search may have been stopped by the budget
	verdictBug          = "bug"          // at least one bug
	verdictCut          = "cut"          // no bug, but runs stopped at the step bound while making progress
	verdictSkipped      = "skipped"      // no bug, and the test skipped itself (t.Skip) in a run
	verdictUnexplorable = "unexplorable" // heddle could not control the test: Reason says why and where
	verdictInterrupted  = "interrupted"  // Ctrl-C before the exploration ended
)

// testOutcome is what exploring one test found.
type testOutcome struct {
	verdict string
	reason  string // why an unexplorable or interrupted test has no other verdict
	bugs    int    // distinct bugs
	// ended says what ended an incomplete search other than the budget: a bug after which
	// the test's process can run no more, or the first bug under -stop.
	ended string
	// search, if not empty, says how complete the search was in place of the statistics'
	// words: heddle merge's missing shards.
	search string
	// subtests are the test's subtests, each reported under the test as go test reports it.
	subtests []subtestResult
	// unfinished says that the test is unexplorable because no run of it ended within its
	// budget: more time may give it a verdict.
	unfinished bool
}

// searched is the outcome of a search that found bugs distinct bugs and cut runs cut at the
// step bound: a bug, else cut, else clean.
func searched(bugs, cut int) testOutcome {
	o := testOutcome{verdict: verdictClean, bugs: bugs}
	switch {
	case bugs > 0:
		o.verdict = verdictBug
	case cut > 0:
		o.verdict = verdictCut
	}
	return o
}

// exploreTest explores one test in worker processes and reports it, with exactly one verdict
// whatever happens to the workers.
func exploreTest(ctx context.Context, w *driver.Worker, pkg, test string, opts wire.Options, f Flags, rep *reporter) testOutcome {
	return exploreTestLog(ctx, w, pkg, test, opts, f, rep, nil)
}

// searchLog is what a total budget's allocator learns of a search as it goes: its progress,
// and the time the search itself took.
type searchLog struct {
	samples  []sample
	searched time.Duration
	runs     int
	complete bool
}

func (l *searchLog) record(at time.Duration, s *record.Stats, bugs int) {
	if l != nil {
		l.samples = append(l.samples, sample{at: at, decisions: s.Decisions, bugs: bugs})
	}
}

// exploreTestLog is exploreTest, recording the search's progress in log if not nil.
func exploreTestLog(ctx context.Context, w *driver.Worker, pkg, test string, opts wire.Options, f Flags, rep *reporter, log *searchLog) testOutcome {
	s := &testSearch{w: w, pkg: pkg, test: test, opts: opts, f: f, rep: rep, log: log, start: time.Now(),
		bugs: map[string]*wire.Bug{}, stats: make([]*record.Stats, max(f.workers, 1)), trees: make([]collectTree, max(f.workers, 1))}
	rep.begin(pkg, test)
	err := s.explore(ctx)
	total := merge(s.stats)
	if log != nil {
		log.searched, log.runs, log.complete = total.Elapsed, total.Runs, total.Complete
		log.record(total.Elapsed, total, len(s.order))
	}
	rep.end()
	we, o, final := s.ended(ctx, err, total)
	if final {
		return o
	}
	for _, msg := range s.failures {
		rep.note(pkg, test, msg)
	}
	if s.divergence != "" {
		rep.note(pkg, test, fmt.Sprintf("%d runs did not follow their schedule and were skipped (heddle's limitation, not a bug: uninstrumented code or map iteration order); the first: %s", total.Diverged, s.divergence))
	}
	total.Bugs = len(s.order)
	rep.publish(record.Done{Stats: *total})
	saved := s.save(total)
	o = s.outcome(we, total)
	rep.bugs(pkg, test, saved)
	rep.warnings(pkg, test, s.warnings)
	return rep.verdict(pkg, test, total, s.start, o)
}

// testSearch is the search of one test in worker processes, and what its workers streamed:
// its bugs, each once with its simplest schedule, and each worker's statistics and tree.
type testSearch struct {
	w         *driver.Worker
	pkg, test string
	opts      wire.Options
	f         Flags
	rep       *reporter
	log       *searchLog
	start     time.Time

	bugs       map[string]*wire.Bug
	order      []string          // the bugs' keys, in the order found
	stats      []*record.Stats   // each worker's
	trees      []collectTree     // one per worker, each numbered from 0
	lockTrees  *locktree.Report  // the first worker's
	failures   []string          // what workers answered instead of an exploration
	divergence string            // the first run that did not follow its schedule
	warnings   []*record.Warning // merged across the workers
	skipped    *string           // the output of a run that skipped the test (t.Skip)
	skips      []record.Skip     // the subtests that skipped themselves
	subtests   []string          // the subtests the runs started, in order
	// isolated is why the workers explored with a fresh process per run, if they did.
	isolated string
}

// explore runs the search, in one process per run with -isolate, and collects what its
// workers stream. A search whose bugs come from state that earlier runs left in the process
// (leftBehind) is done again with a fresh process per run.
func (s *testSearch) explore(ctx context.Context) error {
	if s.f.isolate {
		return s.exploreIsolated(ctx, "")
	}
	err := driver.Parallel(ctx, s.w, s.test, s.opts, s.f.workers, s.receive)
	if err != nil {
		return err
	}
	if why := s.leftBehind(ctx); why != "" {
		s.bugs, s.order, s.failures, s.divergence, s.warnings, s.lockTrees = map[string]*wire.Bug{}, nil, nil, "", nil, nil
		s.stats = make([]*record.Stats, 1)
		s.rep.restart(s.pkg, s.test)
		return s.exploreIsolated(ctx, why)
	}
	return nil
}

func (s *testSearch) exploreIsolated(ctx context.Context, why string) error {
	s.trees = []collectTree{{}}
	return driver.ExploreIsolated(ctx, s.w, s.test, s.opts, why, func(m *wire.Message) { s.receive(0, m) })
}

// leftBehind replays, each in a fresh process, the schedules of the bugs found after a
// process's first run, and says why the test must be explored with a fresh process per run
// if one of them does not happen there: the test left state behind in the process (a
// registration in a package variable, a file), which the next run tripped over, as go test
// -count=2 would. Such a bug is not the program's; a replay that diverges decides nothing.
func (s *testSearch) leftBehind(ctx context.Context) string {
	if s.isolated != "" {
		return "" // every run had a process of its own
	}
	for _, k := range s.order {
		b := s.bugs[k]
		if b.Run < 2 || b.Trace == nil {
			continue
		}
		tr, err := driver.Replay(ctx, s.w, s.test, b.Trace.Schedule(), wire.Options{})
		if err != nil || tr.Verdict.Kind == string(rt.VerdictDiverged) || tr.Verdict.Kind == b.Kind {
			continue
		}
		return fmt.Sprintf("the %s found in run %d of a process did not happen when its schedule was replayed in a fresh process (verdict %s): the test leaves state behind for the next run in the same process, as go test -count=2 would show", b.Kind, b.Run, tr.Verdict.Kind)
	}
	return ""
}

// receive takes in a message of worker i, and shows the search's progress.
func (s *testSearch) receive(i int, m *wire.Message) {
	switch m.Type {
	case wire.MsgProgress:
		s.stats[i] = m.Stats
		total := merge(s.stats)
		s.log.record(total.Elapsed, total, len(s.order))
		s.rep.progress(s.test, total, s.opts.MaxTime, s.start)
		s.rep.publish(record.Progress{Stats: *total})
	case wire.MsgNode:
		s.trees[i].add(*m.Node)
		s.rep.publishNode(i, m.Node)
	case wire.MsgRestart:
		// The worker explores again without a subtest it cannot explore: its tree so far is
		// of runs that entered the subtest. The live view starts the test's tree anew.
		s.trees[i] = collectTree{}
		s.rep.restart(s.pkg, s.test)
	case wire.MsgBug:
		s.addBug(m.Bug)
	case wire.MsgDone:
		s.done(i, m)
	case wire.MsgError:
		s.failures = append(s.failures, m.Error)
	}
}

// addBug keeps a bug once, however many runs and workers found it, with its simplest
// schedule.
func (s *testSearch) addBug(b *wire.Bug) {
	old, ok := s.bugs[b.Key]
	if !ok {
		s.bugs[b.Key] = b
		s.order = append(s.order, b.Key)
		return
	}
	hits := old.Hits + b.Hits
	if record.TraceSimplicity(b.Preemptions, b.Trace).Simpler(record.TraceSimplicity(old.Preemptions, old.Trace)) {
		*old = *b
	}
	old.Hits = hits
}

// done takes in worker i's last message: its statistics and what it found besides bugs.
func (s *testSearch) done(i int, m *wire.Message) {
	s.stats[i] = m.Stats
	s.warnings = record.MergeWarnings(s.warnings, m.Warnings)
	if s.lockTrees == nil {
		s.lockTrees = m.LockTrees
	}
	if s.divergence == "" {
		s.divergence = m.Divergence
	}
	if s.skipped == nil {
		s.skipped = m.Skipped
	}
	s.skips = record.AddSkips(s.skips, m.Skips)
	s.subtests = record.AddSubtests(s.subtests, m.Subtests)
	if m.Isolated != "" {
		s.isolated = m.Isolated
	}
	if m.Isolated != "" && s.f.verbose && i == 0 {
		s.rep.note(s.pkg, s.test, "explored with a fresh process per run: "+m.Isolated)
	}
}

// ended says how the search ended, given what exploring returned: final, with the test's
// reported outcome, when it has no other (an interrupt, a -timeout, or a test that heddle
// could not explore); otherwise the worker's exit, if the program took its worker down,
// which is then the test's bug.
func (s *testSearch) ended(ctx context.Context, err error, total *record.Stats) (we *driver.ExitError, o testOutcome, final bool) {
	switch {
	case ctx.Err() != nil:
		reason := "interrupted before the exploration ended"
		if c := context.Cause(ctx); c != ctx.Err() {
			reason = c.Error() // -timeout
		}
		return nil, s.rep.verdict(s.pkg, s.test, total, s.start, testOutcome{verdict: verdictInterrupted, reason: reason}), true
	case errors.As(err, &we) && we.Untraced():
		// Killed from outside, as by the kernel when memory ran out (xsync's map tests, a
		// worker of 24 GB), or by a user.
		reason := fmt.Sprintf("the test process ended on a signal (%s) without a Go traceback, as when the kernel kills a process whose memory ran out: heddle cannot tell it from the program's failure (a smaller -budget or -steps keeps runs shorter, and heddle's memory with them)", strings.TrimPrefix(we.Status, "signal: "))
		return nil, s.rep.unexplorable(s.pkg, s.test, s.opts.Strategy, total, s.start, reason), true
	case errors.As(err, &we):
		// The program took its worker down: os.Exit in code heddle does not control, a crash,
		// or a fatal error of the Go runtime.
		kind := "exit"
		if strings.Contains(we.Status, "signal") {
			kind = "panic"
		}
		msg := "the test process " + we.Status
		if sum := crashSummary(we.Stderr); sum != "" {
			msg += ":\n" + sum
		}
		wb := &wire.Bug{Kind: kind, Key: kind, Message: msg, Hits: 1}
		s.bugs[wb.Key] = wb
		s.order = append(s.order, wb.Key)
	case err != nil:
		return nil, s.rep.unexplorable(s.pkg, s.test, s.opts.Strategy, total, s.start, err.Error()), true
	}
	if reason := s.unexplorable(total); reason != "" {
		o := s.rep.unexplorable(s.pkg, s.test, s.opts.Strategy, total, s.start, reason)
		o.unfinished = s.unfinished(total)
		return nil, o, true
	}
	return we, testOutcome{}, false
}

// unexplorable says why heddle could not explore the test, by what its search found, or "".
func (s *testSearch) unexplorable(total *record.Stats) string {
	for _, k := range s.order {
		if b := s.bugs[k]; b.Kind == string(rt.VerdictUnsupported) || b.Kind == string(rt.VerdictInternal) {
			// Not the program's bug: heddle could not control the test, or failed itself.
			return b.Message
		}
		if fn := HeddleFrame(s.bugs[k].Message); fn != "" && s.bugs[k].Kind == string(rt.VerdictFatal) {
			return fmt.Sprintf("the test failed on what it read of the process's goroutines, which shows heddle's own (%s): a check that lists every goroutine, such as goleak's tests of itself, cannot run under heddle", fn)
		}
	}
	if len(s.order) == 0 {
		switch {
		case len(s.failures) > 0:
			return strings.Join(s.failures, "; ")
		case total.Runs == 0:
			return "the worker completed no run of the test"
		case s.unfinished(total):
			// Calling it clean would say more than heddle saw.
			return fmt.Sprintf("no run of the test ended within the time budget (%s stopped at its end, after %d steps): heddle has no verdict on it; a larger -budget gives it one", plural(total.Runs, "run"), total.Steps)
		}
	}
	return ""
}

// unfinished reports whether the search found nothing and none of its runs ended: every one
// was stopped at the end of the time budget.
func (s *testSearch) unfinished(total *record.Stats) bool {
	return len(s.order) == 0 && total.Runs > 0 && total.Stopped == total.Runs
}

// save writes the test's results: its bugs' traces, its warnings' schedules and its
// exploration, and bounds its directory (-keep-files, -keep-bytes). It returns the bugs, with
// the files of their traces.
func (s *testSearch) save(total *record.Stats) []savedBug {
	dir := record.TestDir(s.f.out, s.pkg, s.test)
	var saved []savedBug
	var wrote []current
	for i, k := range s.order {
		b := s.bugs[k]
		sb := savedBug{Bug: b}
		if b.Trace != nil {
			b.Trace.Program.Dir = s.w.Dir
			sb.Path = record.BugFile(dir, "", b.Kind, i+1)
			if err := record.WriteFile(sb.Path, b.Trace); err != nil {
				s.rep.note(s.pkg, s.test, err.Error())
				sb.Path = ""
			} else {
				wrote = append(wrote, current{path: sb.Path, simplicity: record.TraceSimplicity(b.Preemptions, b.Trace), trace: true})
			}
		}
		saved = append(saved, sb)
	}
	prog := record.Program{Package: s.pkg, Test: s.test, Dir: s.w.Dir}
	for _, p := range saveWarningSchedules(dir, prog, s.f.time, s.f.quantum, s.warnings, func(err error) { s.rep.note(s.pkg, s.test, err.Error()) }) {
		wrote = append(wrote, current{path: p})
	}
	if p, ok := s.writeExploration(dir, total, saved); ok {
		wrote = append(wrote, current{path: p})
	}
	s.rep.keep(s.pkg, s.test, dir, wrote)
	return saved
}

// writeExploration writes the test's exploration file in dir, and loads it in the live web
// view; it returns the file, and whether it was written.
func (s *testSearch) writeExploration(dir string, total *record.Stats, saved []savedBug) (string, bool) {
	path := filepath.Join(dir, record.ExplorationFile)
	var tree [][]record.Node
	for _, t := range s.trees {
		tree = append(tree, t.nodes)
	}
	if err := writeExploration(path, s.pkg, s.test, s.opts.Strategy, s.f.shard.exploration(), total, record.MergeTrees(tree...), saved, s.lockTrees, s.warnings, s.skipped != nil && len(s.order) == 0, s.skips, s.subtests); err != nil {
		s.rep.note(s.pkg, s.test, err.Error())
		return "", false
	}
	if s.rep.srv != nil {
		if err := s.rep.srv.Load(path); err != nil {
			s.rep.note(s.pkg, s.test, "web view: "+err.Error())
		}
	}
	return path, true
}

// outcome is the outcome of the test's search, we the worker's exit if the program took it
// down; a test that skipped itself adds its output to the test's.
func (s *testSearch) outcome(we *driver.ExitError, total *record.Stats) testOutcome {
	o := searched(len(s.order), total.Cut)
	var traces []*record.Trace
	for _, k := range s.order {
		traces = append(traces, s.bugs[k].Trace)
	}
	o.subtests = subtestResults(s.test, s.subtests, s.skips, failedIn(traces))
	if s.skipped != nil && o.verdict != verdictBug {
		// As go test reports a test that called t.Skip, with its output: a run that fails
		// would make it a failure, as go test's run would be.
		o.verdict = verdictSkipped
		if *s.skipped != "" {
			s.rep.output(*s.skipped, nil, nil)
		}
	}
	switch {
	case we != nil:
		o.ended = "the test process's " + we.Status
	case slices.ContainsFunc(s.order, func(k string) bool { return s.bugs[k].Kind == string(rt.VerdictHang) }):
		o.ended = "the hang"
	case s.opts.StopOnBug && len(s.order) > 0:
		o.ended = "the first bug (-stop)"
		if s.f.goTest.failfast {
			o.ended = "the first bug (-failfast)"
		}
	}
	return o
}

// foundBy is the report's line on which strategy found a bug, in which run; empty for a bug
// that no run found (a worker that died).
func foundBy(b *wire.Bug) string {
	if b.Strategy == "" {
		return ""
	}
	return fmt.Sprintf("    found by %s in run %d\n", b.Strategy, b.Run)
}

type savedBug struct {
	*wire.Bug
	Path string
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// merge adds up the statistics of the shards of one exploration.
func merge(ss []*record.Stats) *record.Stats {
	out := &record.Stats{}
	out.Complete = true
	any := false
	for _, s := range ss {
		if s == nil {
			out.Complete = false
			continue
		}
		any = true
		out.Add(s)
	}
	if !any {
		out.Complete = false
	}
	return out
}

// collectTree merges the node messages of an exploration: a node sent again (parent -2)
// carries the alternatives its search pruned.
type collectTree struct {
	nodes []record.Node
	index map[int]int
}

func (c *collectTree) add(n record.Node) {
	if c.index == nil {
		c.index = map[int]int{}
	}
	if n.Parent == record.Revisit {
		if i, ok := c.index[n.ID]; ok {
			c.nodes[i].Pruned = n.Pruned
		}
		return
	}
	c.index[n.ID] = len(c.nodes)
	c.nodes = append(c.nodes, n)
}

// writeExploration writes the exploration file of docs/formats.md; shard, if not nil, is the
// share of the search it holds.
func writeExploration(path, pkg, test, strategy string, shard *record.Shard, s *record.Stats, tree []record.Node, bugs []savedBug, lt *locktree.Report, ws []*record.Warning, skipped bool, skips []record.Skip, subtests []string) error {
	e := newExploration(record.Program{Package: pkg, Test: test}, strategy, shard, s, tree, bugs, lt, ws)
	e.Skipped, e.Skips, e.Subtests = skipped, skips, subtests
	return writeExplorationFile(path, e)
}

// unexplorable reports that heddle could not explore the test, and says why in the test's
// exploration file, in place of an earlier search's: the web view then lists the test as the
// CLI does, and shows no stale result for it.
func (r *reporter) unexplorable(pkg, test, strategy string, s *record.Stats, start time.Time, reason string) testOutcome {
	s.Elapsed = time.Since(start)
	e := newExploration(record.Program{Package: pkg, Test: test}, strategy, r.f.shard.exploration(), s, nil, nil, nil, nil)
	e.Unexplorable = reason
	dir := record.TestDir(r.f.out, pkg, test)
	path := filepath.Join(dir, record.ExplorationFile)
	if err := writeExplorationFile(path, e); err != nil {
		r.note(pkg, test, err.Error())
	} else {
		r.keep(pkg, test, dir, []current{{path: path}})
		if r.srv != nil {
			if err := r.srv.Load(path); err != nil {
				r.note(pkg, test, "web view: "+err.Error())
			}
		}
	}
	return r.verdict(pkg, test, s, start, testOutcome{verdict: verdictUnexplorable, reason: reason})
}

// writeExplorationFile writes an exploration to path, compressed, and removes the plain
// exploration file that an earlier version of heddle wrote beside it, which readers would take
// for a second exploration of the test.
func writeExplorationFile(path string, e *record.Exploration) error {
	if err := record.WriteFile(path, e); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(filepath.Dir(path), record.PlainExplorationFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeProgramExploration is writeExploration for any program, such as a process group.
func writeProgramExploration(path string, prog record.Program, strategy string, shard *record.Shard, s *record.Stats, tree []record.Node, bugs []savedBug, lt *locktree.Report, ws []*record.Warning) error {
	return writeExplorationFile(path, newExploration(prog, strategy, shard, s, tree, bugs, lt, ws))
}

// newExploration is the exploration file of a program's search.
func newExploration(prog record.Program, strategy string, shard *record.Shard, s *record.Stats, tree []record.Node, bugs []savedBug, lt *locktree.Report, ws []*record.Warning) *record.Exploration {
	e := &record.Exploration{Heddle: "exploration", Version: record.Version, Program: prog,
		Strategy: strategy, Shard: shard, LockTrees: lt, Tree: tree, Bugs: []record.Bug{}, Stats: *s}
	for _, w := range ws {
		e.Warnings = append(e.Warnings, *w)
	}
	e.Stats.Bugs = len(bugs)
	index := map[string]int{}
	for i, b := range bugs {
		index[b.Key] = i
		sb := record.Bug{ID: i, Kind: b.Kind, Message: b.Message, Preemptions: b.Preemptions, Hits: b.Hits, Key: b.Key}
		if b.Path != "" {
			sb.Trace, sb.Replay = filepath.Base(b.Path), "heddle replay "+b.Path
		}
		e.Bugs = append(e.Bugs, sb)
	}
	if e.Tree == nil {
		e.Tree = []record.Node{}
	}
	for i := range e.Tree {
		n := &e.Tree[i]
		if n.Enabled == nil {
			n.Enabled = []string{} // a leaf: no alternatives
		}
		if n.Leaf != nil {
			if id, ok := index[n.Leaf.Key]; ok && n.Leaf.Key != "" {
				n.Leaf.Bug = &id
			}
		}
	}
	return e
}

// crashSummary is what a crashed worker's stderr says: the Go runtime's panic or fatal error
// line, which comes first, and the last lines, where the failing goroutine's stack ends.
func crashSummary(stderr string) string {
	tail := strings.TrimSpace(lastLines(stderr, 5))
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			if !strings.Contains(tail, l) {
				return l + "\n" + tail
			}
			break
		}
	}
	return tail
}

// saveWarningSchedules saves the schedule of the run that each atomicity warning names, sets
// the warning's replay command, and returns the files it wrote.
func saveWarningSchedules(dir string, prog record.Program, tm rt.TimeModel, q time.Duration, warnings []*record.Warning, fail func(error)) (paths []string) {
	n := 0
	for _, w := range warnings {
		a := w.Atomicity
		if a == nil || len(a.Schedule) == 0 {
			continue
		}
		n++
		path := filepath.Join(dir, fmt.Sprintf("warning-%s-%d.schedule.json", w.Kind, n))
		s := &record.Schedule{Heddle: "schedule", Version: record.Version, Program: prog, Decisions: a.Schedule, Time: tm, Quantum: q}
		if err := record.WriteFile(path, s); err != nil {
			fail(err)
			continue
		}
		a.Replay = self() + " replay " + path
		paths = append(paths, path)
	}
	return paths
}

// heddleNames matches a name under heddle's module path in a stack the program printed.
var heddleNames = regexp.MustCompile(`github\.com/heddledbg/heddle[/.]\S*`)

// HeddleFrame returns the first function of heddle's runtime (instrument.Runtime) named in a
// failure's message, or "": a test that failed on a stack showing heddle's goroutines failed
// on heddle, not on the program.
func HeddleFrame(msg string) string {
	for _, fn := range heddleNames.FindAllString(msg, -1) {
		if i := strings.LastIndexByte(fn, '('); i > 0 && strings.HasSuffix(fn, ")") {
			fn = fn[:i] // the arguments of a traceback's line
		}
		if instrument.Runtime(rt.FuncPackage(fn)) {
			return fn
		}
	}
	return ""
}
