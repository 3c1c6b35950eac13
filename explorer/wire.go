package explorer

import (
	"time"

	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/timeline"
)

// The controller protocol between heddle and a worker process (an instrumented test binary
// run with HEDDLE_WORKER=1, or a program binary): the controller writes one Request as JSON to
// the worker's file descriptor 3; the worker answers with JSON messages, one per line, on file
// descriptor 4, and exits. Everything the worker prints on stdout and stderr is the program's
// own output. See docs/protocol.md.

// ProtocolVersion is the version of Request and Message.
const ProtocolVersion = 1

// Request is what a controller asks of a worker.
type Request struct {
	V int `json:"v"`
	// Cmd is "list" (the registered tests), "explore" (an exploration of Test in the worker),
	// "replay" (one detailed run of Schedule) or "run" (one run steered by Guide, for
	// controller-side explorations that isolate every run in its own process).
	Cmd      string             `json:"cmd"`
	Test     string             `json:"test,omitempty"`
	Options  WireOptions        `json:"options,omitempty"`
	Schedule *timeline.Schedule `json:"schedule,omitempty"`
	Guide    *Guide             `json:"guide,omitempty"`
	Detail   bool               `json:"detail,omitempty"`
}

// WireOptions are the serialisable Options.
type WireOptions struct {
	Strategy  string        `json:"strategy,omitempty"`
	MaxRuns   int           `json:"maxRuns,omitempty"`
	MaxTime   time.Duration `json:"maxTime,omitempty"`
	MaxSteps  int           `json:"maxSteps,omitempty"`
	Seed      uint64        `json:"seed,omitempty"`
	Depth     int           `json:"depth,omitempty"`
	Bound     int           `json:"bound,omitempty"`
	StopOnBug bool          `json:"stopOnBug,omitempty"`
	Hang      time.Duration `json:"hang,omitempty"`
	Tree      bool          `json:"tree,omitempty"`
	Prefix    []rt.Decision `json:"prefix,omitempty"`
	Shard     int           `json:"shard,omitempty"`
	Shards    int           `json:"shards,omitempty"`
	Time      rt.TimeModel  `json:"time,omitempty"`
}

// Options converts to explorer Options.
func (w WireOptions) Options() Options {
	return Options{Strategy: w.Strategy, MaxRuns: w.MaxRuns, MaxTime: w.MaxTime, MaxSteps: w.MaxSteps,
		Seed: w.Seed, Depth: w.Depth, Bound: w.Bound, StopOnBug: w.StopOnBug, Hang: w.Hang, Prefix: w.Prefix,
		Shard: w.Shard, Shards: w.Shards, Time: w.Time}
}

// Message is one line a worker writes.
type Message struct {
	Type      string           `json:"type"` // tests, progress, node, found, bug, done, result, trace, error
	Tests     []string         `json:"tests,omitempty"`
	Stats     *timeline.Stats  `json:"stats,omitempty"`
	Node      *timeline.Node   `json:"node,omitempty"`
	Bug       *WireBug         `json:"bug,omitempty"`
	LockTrees *locktree.Report `json:"lockTrees,omitempty"`
	Trace     *timeline.Trace  `json:"trace,omitempty"`
	// Result and Log answer a "run" request.
	Result *rt.Result    `json:"result,omitempty"`
	Log    []LoggedPoint `json:"log,omitempty"`
	Error  string        `json:"error,omitempty"`
	// Divergence, in a "done" message, is Report.Divergence.
	Divergence string `json:"divergence,omitempty"`
	// Warnings, in a "done" message, are Report.Warnings.
	Warnings []*Warning `json:"warnings,omitempty"`
}

// WireBug is a bug on the wire, with its detailed trace.
type WireBug struct {
	Kind        string `json:"kind"`
	Message     string `json:"message"`
	Key         string `json:"key"`
	Hits        int    `json:"hits"`
	Preemptions int    `json:"preemptions"`
	// Strategy found the bug first, in the exploration's run Run (Bug.Strategy, Bug.Run).
	Strategy string          `json:"strategy,omitempty"`
	Run      int             `json:"run,omitempty"`
	Trace    *timeline.Trace `json:"trace,omitempty"`
}

// LoggedPoint is a Guide's record of one decision after its prefix, on the wire.
type LoggedPoint struct {
	Kind    rt.DecisionKind `json:"kind"`
	Alts    []rt.Alt        `json:"alts"`
	Pick    int             `json:"pick"`
	Current int             `json:"current"`
	Sleep   []Sleeper       `json:"sleep,omitempty"`
	PlanAt  int             `json:"planAt"`
}

// Log returns what the guide recorded during its last run.
func (gd *Guide) Log() []LoggedPoint {
	out := make([]LoggedPoint, len(gd.log))
	for i, l := range gd.log {
		out[i] = LoggedPoint{Kind: l.kind, Alts: l.alts, Pick: l.pick, Current: l.current, Sleep: l.sleep, PlanAt: l.planAt}
	}
	return out
}

// SetLog restores a log received from a worker.
func (gd *Guide) SetLog(ls []LoggedPoint, diverged string) {
	gd.log = gd.log[:0]
	for _, l := range ls {
		gd.log = append(gd.log, logged{kind: l.Kind, alts: l.Alts, pick: l.Pick, current: l.Current, sleep: l.Sleep, planAt: l.PlanAt})
	}
	gd.diverged = diverged
}

// Diverged returns the divergence message of the guide's last run, if any.
func (gd *Guide) Diverged() string { return gd.diverged }

// WireBugOf converts a bug, with its detailed run, to the wire.
func WireBugOf(b *Bug, prog timeline.Program, strategy string) *WireBug {
	wb := &WireBug{Kind: string(b.Kind), Message: b.Message, Key: b.Key, Hits: b.Hits, Preemptions: b.Preemptions, Strategy: b.Strategy, Run: b.Run}
	if b.Result != nil {
		wb.Trace = timeline.FromResult(b.Result, prog, strategy)
	}
	return wb
}
