package explorer

import (
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/wire"
)

// The conversions between the explorer's values and those of the worker protocol, which
// carries explorations, runs and their results between heddle and the processes that run
// the program (package wire).

// OptionsOf converts options received from a controller.
func OptionsOf(w wire.Options) Options {
	return Options{Strategy: Strategy(w.Strategy), MaxRuns: w.MaxRuns, MaxTime: w.MaxTime, MaxSteps: w.MaxSteps,
		Seed: w.Seed, Depth: w.Depth, Bound: w.Bound, StopOnBug: w.StopOnBug, Hang: w.Hang, Prefix: w.Prefix,
		Shard: w.Shard, Shards: w.Shards, Part: w.Part, Parts: w.Parts, Time: w.Time, Quantum: w.Quantum, Atomicity: w.Atomicity}
}

// Wire returns what a worker needs to steer a run as gd would.
func (gd *Guide) Wire() *wire.Guide {
	w := &wire.Guide{Prefix: gd.Prefix, Kinds: gd.Kinds, Names: gd.Names, Sleep: wireSleep(gd.Sleep),
		Policy: uint8(gd.Policy), Seed: gd.Seed, Depth: gd.Depth, Length: gd.Length, Bound: gd.Bound,
		Shard: gd.Shard, Shards: gd.Shards, Part: gd.Part, Parts: gd.Parts, SplitFrom: gd.SplitFrom, Watch: gd.Watch, Serial: gd.Serial, Timeouts: gd.Timeouts, Timeout: gd.Timeout}
	for _, p := range gd.Plan {
		w.Plan = append(w.Plan, wire.PlanStep{G: p.G, Data: p.Data})
	}
	return w
}

// GuideOf returns the guide that a controller sent.
func GuideOf(w *wire.Guide) *Guide {
	gd := &Guide{Prefix: w.Prefix, Kinds: w.Kinds, Names: w.Names, Sleep: sleepOf(w.Sleep),
		Policy: Policy(w.Policy), Seed: w.Seed, Depth: w.Depth, Length: w.Length, Bound: w.Bound,
		Shard: w.Shard, Shards: w.Shards, Part: w.Part, Parts: w.Parts, SplitFrom: w.SplitFrom, Watch: w.Watch, Serial: w.Serial, Timeouts: w.Timeouts, Timeout: w.Timeout}
	for _, p := range w.Plan {
		gd.Plan = append(gd.Plan, PlanStep{G: p.G, Data: p.Data})
	}
	return gd
}

func wireSleep(ss []Sleeper) []wire.Sleeper {
	var out []wire.Sleeper
	for _, s := range ss {
		out = append(out, wire.Sleeper{G: s.G, Op: s.Op, Objs: s.Objs, Yields: s.Yields})
	}
	return out
}

func sleepOf(ws []wire.Sleeper) []Sleeper {
	var out []Sleeper
	for _, s := range ws {
		out = append(out, Sleeper{G: s.G, Op: s.Op, Objs: s.Objs, Yields: s.Yields})
	}
	return out
}

// Log returns what the guide recorded during its last run, for the controller that sent it.
func (gd *Guide) Log() []wire.LoggedPoint {
	out := make([]wire.LoggedPoint, len(gd.log))
	for i, l := range gd.log {
		out[i] = wire.LoggedPoint{Kind: l.kind, Alts: l.alts, Pick: l.pick, Current: l.current, Sleep: wireSleep(l.sleep), PlanAt: l.planAt}
	}
	wire.Delta(out)
	return out
}

// SetLog restores a log received from a worker, and the divergence of its run. It changes ls.
func (gd *Guide) SetLog(ls []wire.LoggedPoint, diverged string) error {
	if err := wire.Undelta(ls); err != nil {
		return err
	}
	// A full log may have left decisions out: the worker's guide stopped there (maxLogged).
	gd.log, gd.logFull = gd.log[:0], len(ls) >= maxLogged
	for _, l := range ls {
		gd.log = append(gd.log, logged{kind: l.Kind, alts: l.Alts, pick: l.Pick, current: l.Current, sleep: sleepOf(l.Sleep), planAt: l.PlanAt})
	}
	gd.diverged = diverged
	return nil
}

// Diverged returns the divergence message of the guide's last run, if any.
func (gd *Guide) Diverged() string { return gd.diverged }

// WireBug converts a bug to the wire, without its trace: a bug as it is found.
func WireBug(b *Bug) *wire.Bug {
	return &wire.Bug{Kind: string(b.Kind), Message: b.Message, Key: b.Key, Hits: b.Hits, Preemptions: b.Preemptions, Strategy: b.Strategy, Run: b.Run}
}

// WireBugTrace converts a bug to the wire with the trace of its detailed run, if it has one.
func WireBugTrace(b *Bug, prog record.Program, strategy string) *wire.Bug {
	wb := WireBug(b)
	if b.Result != nil {
		wb.Trace = record.FromResult(b.Result, prog, strategy)
	}
	return wb
}
