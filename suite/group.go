package suite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/procgroup"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// groupTest is the test name of the files and report lines of a group of programs; a group
// of test binaries names the members' tests instead.
const groupTest = "group"

// buildGroup builds the packages of a process group, in dir, and returns them as members in
// the order named: the first is process P1. With tests, each member is a test binary, which
// runs the test that pick chooses among the package's tests.
func buildGroup(ctx context.Context, dir string, pkgs, build []string, tests bool, pick func(m int, pkg string, names []string) (string, error)) ([]procgroup.Member, func(), error) {
	if len(pkgs) < 2 {
		return nil, nil, fmt.Errorf("-group: a process group needs at least two packages, got %d", len(pkgs))
	}
	res, err := instrument.Build(ctx, instrument.Config{Dir: dir, Packages: pkgs, Test: tests, BuildFlags: build})
	if err != nil {
		var be *instrument.BuildError
		if errors.As(err, &be) {
			return nil, nil, fmt.Errorf("%s\n%s does not build", be.Output, be.Package)
		}
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(res.WorkDir) }
	base := dir
	if base == "" {
		base, _ = os.Getwd()
	}
	var members []procgroup.Member
	for _, p := range pkgs {
		var found *instrument.Binary
		for i := range res.Binaries {
			b := &res.Binaries[i]
			if b.Package == p || isLocal(p) && b.Dir == filepath.Join(base, p) {
				found = b
			}
		}
		if found == nil {
			cleanup()
			return nil, nil, fmt.Errorf("-group: %s names no one package that was built as a member (a member is one main package under heddle run, one package with tests under heddle test)", p)
		}
		m := procgroup.Member{Package: found.Package, Binary: found.Path, Dir: found.Dir}
		if tests {
			names, err := driver.List(ctx, &driver.Worker{Path: m.Binary, Dir: m.Dir, Args: wire.TestArgs(true), Env: []string{wire.EnvPackage + "=" + m.Package}})
			if err == nil {
				m.Test, err = pick(len(members), m.Package, names)
			}
			if err != nil {
				cleanup()
				return nil, nil, err
			}
		}
		members = append(members, m)
	}
	return members, cleanup, nil
}

// pickTest chooses a test group's member test: the one test of the package that the filter
// selects.
func pickTest(filter testFilter) func(int, string, []string) (string, error) {
	return func(_ int, pkg string, names []string) (string, error) {
		var match []string
		for _, n := range names {
			if filter.match(n) {
				match = append(match, n)
			}
		}
		if len(match) != 1 {
			return "", fmt.Errorf("-group: -run (and -skip) must select one test of each package; in %s it matches %d of %q", pkg, len(match), names)
		}
		return match[0], nil
	}
}

// savedTests chooses the member tests that a schedule names.
func savedTests(tests []string) func(int, string, []string) (string, error) {
	return func(m int, pkg string, names []string) (string, error) {
		if !slices.Contains(names, tests[m]) {
			return "", fmt.Errorf("no test %s in %s", tests[m], pkg)
		}
		return tests[m], nil
	}
}

func isLocal(p string) bool {
	return p == "." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}

// groupProgram is the program of a group's files: the members' packages, and their tests
// for a group of test binaries.
func groupProgram(members []procgroup.Member) record.Program {
	prog := record.Program{Package: members[0].Package, Test: groupTest, Dir: members[0].Dir}
	var paths, tests []string
	for _, m := range members {
		paths = append(paths, m.Package)
		tests = append(tests, m.Test)
	}
	prog.Group = strings.Join(paths, ",")
	if members[0].Test != "" {
		prog.Test = strings.Join(tests, ",")
	}
	return prog
}

// runGroup explores a process group: heddle run -group, or heddle test -group with test
// binaries as members.
func runGroup(ctx context.Context, dir string, pkgs, build []string, tests bool, filter testFilter, f Flags, opts wire.Options) int {
	members, cleanup, err := buildGroup(ctx, dir, pkgs, build, tests, pickTest(filter))
	if err != nil {
		fmt.Fprintln(f.stderr(), "heddle:", err)
		return ExitUsage
	}
	defer cleanup()
	eo := explorer.OptionsOf(opts)
	r, err := procgroup.New(ctx, members, eo)
	if err != nil {
		fmt.Fprintln(f.stderr(), "heddle:", err)
		return ExitUsage
	}
	defer r.Close()
	return exploreGroup(ctx, r, groupProgram(members), eo, f, opts)
}

// exploreGroup explores the group that r runs, and reports it as the one test of its first
// member's package, which ends with go test's line for the package, as heddle test ends each
// package.
func exploreGroup(ctx context.Context, r *procgroup.Runner, prog record.Program, eo explorer.Options, f Flags, opts wire.Options) int {
	pkg, test := prog.Package, prog.Test
	rep := newReporter(f)
	start := time.Now()
	rep.begin(pkg, test)
	var tree collectTree
	eo.OnNode = func(n record.Node) { tree.add(n) }
	eo.Progress = func(s *record.Stats) { rep.progress(test, s, opts.MaxTime, start) }
	stop := context.AfterFunc(ctx, func() {}) // an interrupt ends the exploration at the budget's next check
	defer stop()
	report := explorer.ExploreOn(r, eo)
	rep.end()
	if report.Err != nil {
		fmt.Fprintln(f.stderr(), "heddle:", report.Err)
		return ExitUsage
	}
	done := func(status string) {
		rep.packageDone(pkg, status, time.Since(start))
		rep.finish()
	}
	if ctx.Err() != nil {
		rep.verdict(pkg, test, &report.Stats, start, testOutcome{verdict: verdictInterrupted, reason: "interrupted before the exploration ended"})
		done("interrupted")
		return ExitUsage
	}
	stats := report.Stats
	saved, unsupported := saveGroupBugs(r, report, prog, f.out, opts.Strategy, rep)
	if unsupported != nil {
		rep.verdict(pkg, test, &stats, start, testOutcome{verdict: verdictUnexplorable, reason: unsupported.Message})
		done("")
		return ExitUsage
	}
	o := saveGroupExploration(report, &stats, prog, f.out, opts, tree, saved, rep)
	rep.bugs(pkg, test, saved)
	rep.verdict(pkg, test, &stats, start, o)
	if len(saved) > 0 {
		done(pkgFail)
		return ExitBug
	}
	done("")
	return ExitOK
}

// saveGroupBugs writes the traces of a group's bugs, up to the first that says heddle cannot
// explore the group, which it returns.
func saveGroupBugs(r *procgroup.Runner, report *explorer.Report, prog record.Program, out, strategy string, rep *reporter) (saved []savedBug, unsupported *explorer.Bug) {
	dir := record.TestDir(out, prog.Package, prog.Test)
	for i, b := range report.Bugs {
		if b.Kind == rt.VerdictUnsupported {
			return saved, b
		}
		wb := explorer.WireBug(b)
		if b.Result != nil {
			wb.Trace = r.Trace(b.Result, prog, strategy)
		}
		sb := savedBug{Bug: wb}
		if wb.Trace != nil {
			sb.Path = record.BugFile(dir, "", wb.Kind, i+1)
			if err := record.WriteFile(sb.Path, wb.Trace); err != nil {
				rep.note(prog.Package, prog.Test, err.Error())
				sb.Path = ""
			}
		}
		saved = append(saved, sb)
	}
	return saved, nil
}

// saveGroupExploration writes a group's exploration file, with its statistics, stats, which
// it completes, and returns the outcome of its search.
func saveGroupExploration(report *explorer.Report, stats *record.Stats, prog record.Program, out string, opts wire.Options, tree collectTree, saved []savedBug, rep *reporter) testOutcome {
	pkg, test := prog.Package, prog.Test
	if report.Divergence != "" {
		rep.note(pkg, test, fmt.Sprintf("%d runs did not follow their schedule and were skipped; the first: %s", stats.Diverged, report.Divergence))
	}
	stats.Bugs = len(saved)
	var shard *record.Shard
	if opts.Shards > 1 {
		shard = &record.Shard{Index: opts.Shard, Of: opts.Shards}
	}
	path := filepath.Join(record.TestDir(out, pkg, test), record.ExplorationFile)
	if err := writeProgramExploration(path, record.Program{Package: pkg, Test: test, Group: prog.Group}, opts.Strategy, shard, stats, record.MergeTrees(tree.nodes), saved, nil, nil); err != nil {
		rep.note(pkg, test, err.Error())
	}
	o := searched(len(saved), stats.Cut)
	if opts.StopOnBug && len(saved) > 0 {
		o.ended = "the first bug (-stop)"
	}
	return o
}

// replayGroup replays the schedule of a process group count times, with the members built
// once and their processes kept across the replays, and returns the traces.
func replayGroup(ctx context.Context, dir string, s *record.Schedule, count int) ([]*record.Trace, error) {
	tests := s.Program.Test != groupTest
	var names []string
	if tests {
		names = strings.Split(s.Program.Test, ",")
	}
	members, cleanup, err := buildGroup(ctx, dir, s.Program.Members(), nil, tests, savedTests(names))
	if err != nil {
		return nil, err
	}
	defer cleanup()
	r, err := procgroup.New(ctx, members, explorer.Options{Time: s.Time})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []*record.Trace
	for range count {
		res, err := explorer.ReplayOn(r, s)
		if err != nil {
			return nil, err
		}
		tr := r.Trace(res, s.Program, s.Strategy)
		tr.Program = s.Program
		out = append(out, tr)
	}
	return out, nil
}
