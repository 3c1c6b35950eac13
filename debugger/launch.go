package debugger

import (
	"cmp"
	"fmt"
	"os"
	"strings"

	"github.com/heddledbg/heddle/bidir"
	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// LaunchConfig says what to debug and how (docs/dap.md, "Launch").
type LaunchConfig struct {
	// Mode is "test" (one test of a package), "debug" (a main package) or "replay" (the run
	// of a schedule file); "" is "test".
	Mode string
	// Program is the package directory (test, debug; replay: where the schedule says).
	Program string
	// Args are the program's arguments; in test mode, -test.run selects the test.
	Args       []string
	BuildFlags []string
	Env        map[string]string
	Cwd        string
	// StopOnEntry stops at checkpoint 0.
	StopOnEntry bool
	// Schedule is the schedule file a replay follows.
	Schedule string
	// Strategy and Budget are the defaults of Explore.
	Strategy string
	Budget   string
	// StopOnBug stops where a bug happens; nil means true.
	StopOnBug *bool
	// Time is the model of time of the runs; a replayed schedule keeps its own.
	Time rt.TimeModel
}

// check says what is wrong with c in the user's terms, and fills in the default mode.
func (c *LaunchConfig) check() error {
	if c.Mode == "" {
		c.Mode = "test"
	}
	switch c.Mode {
	case "test", "debug":
		if c.Program == "" {
			return fmt.Errorf("mode %q needs \"program\", the package directory", c.Mode)
		}
	case "replay":
		if c.Schedule == "" {
			return fmt.Errorf("mode \"replay\" needs \"schedule\", a schedule or trace file")
		}
	default:
		return fmt.Errorf("unknown mode %q (want test, debug or replay)", c.Mode)
	}
	if _, err := explorer.ParseStrategy(c.Strategy); err != nil {
		return err
	}
	if c.Budget != "" {
		if _, err := explorer.ParseTestBudget(c.Budget); err != nil {
			return err
		}
	}
	return nil
}

// Launch builds the program and launches the first incarnation; the client then sets its
// breakpoints on it (Current), and Start starts the run.
func (d *Debugger) Launch(cfg LaunchConfig) error {
	if err := cfg.check(); err != nil {
		return err
	}
	d.mu.Lock()
	if d.prog != nil {
		d.mu.Unlock()
		return fmt.Errorf("this session already debugs %s", d.prog.pkg)
	}
	d.mu.Unlock()
	d.front.Output("console", "heddle: building "+cfg.Program+cfg.Schedule+" for debugging\n")
	p, err := build(d.ctx, &cfg, d.tmp)
	if err != nil {
		return err
	}
	spec := Spec{Binary: p.binary, Env: map[string]string{}, Cwd: cfg.Cwd}
	if spec.Cwd == "" {
		spec.Cwd = p.dir
	}
	if p.mode == "test" {
		spec.Args = wire.TestArgs(false, cfg.Args...)
	} else {
		spec.Args = cfg.Args
	}
	for k, v := range cfg.Env {
		spec.Env[k] = v
	}
	spec.Env[wire.EnvPackage] = p.pkg
	for _, kv := range wire.Selecting(p.run, p.skip) {
		k, v, _ := strings.Cut(kv, "=")
		spec.Env[k] = v
	}
	// The program's temporary directory is the user's, not the one the debugger runs with
	// (wire.EnvTmpdir says why it goes by another name).
	spec.Env[wire.EnvTmpdir] = cmp.Or(spec.Env["TMPDIR"], os.TempDir())
	delete(spec.Env, "TMPDIR")
	d.mu.Lock()
	d.prog, d.spec = p, spec
	if p.schedule != nil {
		if _, names, err := p.schedule.Picks(); err == nil {
			d.follow, d.leftOut = names, p.schedule.LeftOut
		}
	}
	d.mu.Unlock()
	in, err := d.prepare(d.ctx)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.active = in
	d.mu.Unlock()
	return nil
}

// Start lets the first incarnation run. done is called when it runs, or with the error that
// kept it from running.
func (d *Debugger) Start(done func(error)) {
	in := d.current()
	if in == nil {
		done(fmt.Errorf("launch first"))
		return
	}
	d.goCaptured(in, done, func(id int, sink chan Event) {
		if err := in.finish(d.ctx, d.breakpointVersion(), true); err != nil {
			done(err)
			return
		}
		done(nil)
		p := d.plan(-1)
		if d.prog.stopOnEntry {
			p.breakAt = 0
		}
		if err := in.ctrl.begin(d.prog.test, d.prog.time, d.prog.quantum, p); err != nil {
			d.errorf("%v", err)
			return
		}
		d.startSpare()
		d.hits.Start()
		var ts []*trailer
		if p.breakAt < 0 {
			ts = d.startTrailers(in)
		}
		h, err := d.await(d.ctx, in, sink, false)
		d.releaseTrailers(ts, in, err != nil || h.ended)
		if err != nil {
			d.errorf("%v", err)
			return
		}
		if p.breakAt < 0 {
			d.hits.Continued(0, bidir.Stop{}, d.position(d.ctx, in, h), h.hit())
		}
		if h.ended {
			d.reportEnd(in)
		}
		if h.cp != nil && h.cp.Index == 0 {
			h.reason = "entry"
		}
		d.settle(id, in, sink)
		d.present(in, h, -1)
	})
}
