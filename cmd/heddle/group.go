package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/group"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/timeline"
	"github.com/heddledbg/heddle/worker"
)

// groupTest is the test name of a process group's files and report lines.
const groupTest = "group"

// buildGroup builds the main packages of a process group, in dir, and returns them as
// members in the order named: the first is process P1.
func buildGroup(ctx context.Context, dir string, pkgs, build []string) ([]group.Member, func(), error) {
	if len(pkgs) < 2 {
		return nil, nil, fmt.Errorf("-group: a process group needs at least two main packages, got %d", len(pkgs))
	}
	res, err := instrument.Build(ctx, instrument.Config{Dir: dir, Packages: pkgs, BuildFlags: build})
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
	var members []group.Member
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
			return nil, nil, fmt.Errorf("-group: %s is not one main package (a member is a package pattern that names one program)", p)
		}
		members = append(members, group.Member{Package: found.Package, Binary: found.Path, Dir: found.Dir})
	}
	return members, cleanup, nil
}

func isLocal(p string) bool {
	return p == "." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}

// groupProgram is the program of a group's files.
func groupProgram(members []group.Member) timeline.Program {
	prog := timeline.Program{Package: members[0].Package, Test: groupTest, Dir: members[0].Dir}
	var paths []string
	for _, m := range members {
		paths = append(paths, m.Package)
	}
	prog.Group = strings.Join(paths, ",")
	return prog
}

// runGroup explores a process group: heddle run -group.
func runGroup(ctx context.Context, dir string, pkgs, build []string, f testFlags, opts worker.Options) int {
	members, cleanup, err := buildGroup(ctx, dir, pkgs, build)
	if err != nil {
		fmt.Fprintln(os.Stderr, "heddle:", err)
		return exitUsage
	}
	defer cleanup()
	eo := explorer.OptionsOf(opts)
	r, err := group.New(ctx, members, eo)
	if err != nil {
		fmt.Fprintln(os.Stderr, "heddle:", err)
		return exitUsage
	}
	defer r.Close()
	prog := groupProgram(members)
	pkg := prog.Package
	rep := newReporter(os.Stdout, f)
	start := time.Now()
	rep.begin(pkg, groupTest)
	var tree collectTree
	eo.OnNode = func(n timeline.Node) { tree.add(n) }
	eo.Progress = func(s *timeline.Stats) { rep.progress(groupTest, s, opts.MaxTime, start) }
	stop := context.AfterFunc(ctx, func() {}) // an interrupt ends the exploration at the budget's next check
	defer stop()
	report := explorer.ExploreOn(r, eo)
	rep.end()
	if ctx.Err() != nil {
		rep.verdict(pkg, groupTest, &report.Stats, start, testOutcome{verdict: verdictInterrupted, reason: "interrupted before the exploration ended"})
		return exitUsage
	}
	stats := report.Stats
	dirOut := timeline.TestDir(f.out, pkg, groupTest)
	var saved []savedBug
	for i, b := range report.Bugs {
		if b.Kind == rt.VerdictUnsupported {
			rep.verdict(pkg, groupTest, &stats, start, testOutcome{verdict: verdictUnexplorable, reason: b.Message})
			return exitUsage
		}
		wb := explorer.WireBug(b)
		if b.Result != nil {
			wb.Trace = r.Trace(b.Result, prog, opts.Strategy)
		}
		sb := savedBug{Bug: wb}
		if wb.Trace != nil {
			sb.Path = timeline.BugFile(dirOut, "", wb.Kind, i+1)
			if err := timeline.WriteFile(sb.Path, wb.Trace); err != nil {
				rep.note(pkg, groupTest, err.Error())
				sb.Path = ""
			}
		}
		saved = append(saved, sb)
	}
	if report.Divergence != "" {
		rep.note(pkg, groupTest, fmt.Sprintf("%d runs did not follow their schedule and were skipped; the first: %s", stats.Diverged, report.Divergence))
	}
	stats.Bugs = len(saved)
	var shard *timeline.Shard
	if opts.Shards > 1 {
		shard = &timeline.Shard{Index: opts.Shard, Of: opts.Shards}
	}
	if err := writeProgramExploration(filepath.Join(dirOut, timeline.ExplorationFile), timeline.Program{Package: pkg, Test: groupTest, Group: prog.Group}, opts.Strategy, shard, &stats, timeline.MergeTrees(tree.nodes), saved, nil, nil); err != nil {
		rep.note(pkg, groupTest, err.Error())
	}
	o := testOutcome{verdict: verdictClean, bugs: len(saved)}
	if opts.StopOnBug && len(saved) > 0 {
		o.ended = "the first bug (-stop)"
	}
	switch {
	case len(saved) > 0:
		o.verdict = verdictBug
	case stats.Cut > 0:
		o.verdict = verdictCut
	}
	rep.bugs(pkg, groupTest, saved)
	rep.verdict(pkg, groupTest, &stats, start, o)
	if len(saved) > 0 {
		return exitBug
	}
	return exitOK
}

// replayGroup replays the schedule of a process group count times, with the members built
// once and their processes kept across the replays, and returns the traces.
func replayGroup(ctx context.Context, dir string, s *timeline.Schedule, count int) ([]*timeline.Trace, error) {
	members, cleanup, err := buildGroup(ctx, dir, s.Program.Members(), nil)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	r, err := group.New(ctx, members, explorer.Options{Time: s.Time})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []*timeline.Trace
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
