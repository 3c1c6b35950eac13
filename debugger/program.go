package debugger

import (
	"context"
	"errors"
	"fmt"
	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/testmatch"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// program is what a session debugs.
type program struct {
	mode        string
	dir         string // the package's directory
	pkg         string // its import path
	test        string // the test function, or "main"
	run, skip   string // -test.run and -test.skip: they select the test's subtests too
	binary      string
	schedule    *record.Schedule
	strategy    string
	budget      string
	stopOnBug   bool
	stopOnEntry bool
	cleanup     func()
	time        rt.TimeModel // of the runs and explorations; a schedule's own when replaying one
	quantum     time.Duration
}

// debugFlags adds to the client's build flags what debugging needs: no optimisations, and
// debug information left uncompressed, which Delve loads faster at every incarnation's start.
// The linker flag joins the client's own -ldflags, since go build keeps only the last.
func debugFlags(flags []string) []string {
	const ld = "-compressdwarf=false"
	out := make([]string, 0, len(flags)+2)
	joined := false
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		name, value, hasValue := strings.Cut(strings.TrimPrefix(f, "-"), "=")
		if name != "ldflags" && name != "-ldflags" {
			out = append(out, f)
			continue
		}
		if !hasValue && i+1 < len(flags) {
			i++
			value = flags[i]
		}
		out = append(out, "-ldflags="+strings.TrimSpace(value+" "+ld))
		joined = true
	}
	if !joined {
		out = append(out, "-ldflags="+ld)
	}
	return append(out, "-gcflags=all=-N -l")
}

// build instruments and builds the program for debugging, with optimisations off.
func build(ctx context.Context, a *LaunchConfig, out string) (*program, error) {
	p := &program{mode: a.Mode, strategy: a.Strategy, budget: a.Budget, stopOnBug: true, stopOnEntry: a.StopOnEntry, time: a.Time}
	if p.strategy == "" {
		p.strategy = "portfolio"
	}
	if p.budget == "" {
		p.budget = explorer.DefaultBudget
	}
	if a.StopOnBug != nil {
		p.stopOnBug = *a.StopOnBug
	}
	dir := a.Program
	if a.Mode == "replay" {
		s, err := record.ReadSchedule(a.Schedule)
		if err != nil {
			return nil, err
		}
		p.schedule = s
		p.test = s.Program.Test
		p.run, p.skip = s.Program.Run, s.Program.Skip
		p.time, p.quantum = s.Time, s.Quantum
		if dir == "" {
			dir = s.Program.Dir
		}
		if dir == "" {
			return nil, fmt.Errorf("the schedule %s does not say where its package is: set \"program\"", a.Schedule)
		}
		if p.test == "main" {
			p.mode = "debug"
		} else {
			p.mode = "test"
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil && strings.HasSuffix(dir, ".go") {
			dir = filepath.Dir(dir)
		} else {
			return nil, fmt.Errorf("program %q is not a package directory", a.Program)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p.dir = abs
	flags := debugFlags(a.BuildFlags)
	res, err := instrument.Build(ctx, instrument.Config{Dir: abs, Packages: []string{"."}, Test: p.mode == "test", BuildFlags: flags, Out: out})
	if err != nil {
		var be *instrument.BuildError
		if errors.As(err, &be) {
			return nil, fmt.Errorf("%s does not build:\n%s", be.Package, be.Output)
		}
		return nil, err
	}
	p.cleanup = func() { os.RemoveAll(res.WorkDir) }
	if len(res.Binaries) != 1 {
		p.cleanup()
		return nil, fmt.Errorf("%s built %d binaries, want 1", abs, len(res.Binaries))
	}
	p.binary, p.pkg = res.Binaries[0].Path, res.Binaries[0].Package
	if p.mode == "debug" {
		p.test = "main"
		return p, nil
	}
	if p.test == "" {
		if p.test, err = pickTest(ctx, p, a.Args); err != nil {
			p.cleanup()
			return nil, err
		}
	}
	return p, nil
}

// pickTest finds the one test that -test.run and -test.skip select among the package's tests,
// and keeps the patterns, which select its subtests too, as go test's do.
func pickTest(ctx context.Context, p *program, args []string) (string, error) {
	for i := 0; i < len(args); i++ {
		a := strings.TrimLeft(args[i], "-")
		name, value, hasValue := strings.Cut(a, "=")
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		switch name {
		case "test.run", "run":
			p.run = value
		case "test.skip", "skip":
			p.skip = value
		default:
			continue
		}
		if !hasValue {
			i++
		}
	}
	pattern := p.run
	filter, err := testmatch.New(p.run, p.skip)
	if err != nil {
		return "", err
	}
	w := p.worker()
	names, err := driver.List(ctx, w)
	if err != nil {
		return "", fmt.Errorf("listing the tests of %s: %v", p.pkg, err)
	}
	var match []string
	for _, n := range names {
		if filter.Match(n) {
			match = append(match, n)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(match) == 0 && pattern != "":
		return "", fmt.Errorf("no test of %s matches -test.run %q (tests: %s)", p.pkg, pattern, strings.Join(names, ", "))
	case len(match) == 0:
		return "", fmt.Errorf("%s has no tests", p.pkg)
	default:
		return "", fmt.Errorf("heddle debugs one test at a time; -test.run %q matches %s", pattern, strings.Join(match, ", "))
	}
}

// worker is the program's binary as an exploration worker.
func (p *program) worker() *driver.Worker {
	w := &driver.Worker{Path: p.binary, Dir: p.dir, Env: []string{wire.EnvPackage + "=" + p.pkg}}
	w.Env = append(w.Env, wire.Selecting(p.run, p.skip)...)
	if p.mode == "test" {
		// Verbose, as heddle test's workers: a failed run's messages are the test's log.
		w.Args = wire.TestArgs(true)
	}
	return w
}

// newSchedule returns an empty schedule file of the program.
func (p *program) newSchedule(strategy string) *record.Schedule {
	return &record.Schedule{Heddle: "schedule", Version: record.Version, Strategy: strategy, Time: p.time, Quantum: p.quantum,
		Program: record.Program{Package: p.pkg, Test: p.test, Dir: p.dir, Run: p.run, Skip: p.skip}}
}
