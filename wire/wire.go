package wire

import (
	"fmt"
	"slices"
	"time"

	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// Version is the version of Request and Message, and of DebugStart. Version 2 names the
// fields of a Guide in lower camel case, as every other message does; version 3 sends a
// run's log of decisions as changes from point to point (LoggedPoint).
const Version = 3

// Command is what a Request asks of a worker.
type Command string

// The commands of a Request.
const (
	// CmdList asks for the registered tests: a MsgTests message.
	CmdList Command = "list"
	// CmdExplore asks for an exploration of Request.Test in the worker: MsgProgress, MsgNode,
	// MsgFound and MsgBug messages, then MsgDone (or MsgIsolate, from a process that can run
	// one schedule only). A MsgRestart voids the nodes and bugs streamed before it.
	CmdExplore Command = "explore"
	// CmdReplay asks for one detailed run of Request.Schedule: a MsgTrace message.
	CmdReplay Command = "replay"
	// CmdRun asks for one run steered by Request.Guide, for controller-side explorations that
	// isolate every run in its own process: a MsgResult message.
	CmdRun Command = "run"
)

// MessageType is the kind of a Message.
type MessageType string

// The kinds of Message. Final reports which end an answer.
const (
	MsgTests    MessageType = "tests"    // the registered tests (Message.Tests)
	MsgProgress MessageType = "progress" // the exploration's statistics so far
	MsgNode     MessageType = "node"     // a node of the schedule tree
	MsgFound    MessageType = "found"    // a new bug, before its trace
	MsgBug      MessageType = "bug"      // a bug with its detailed trace
	MsgDone     MessageType = "done"     // the exploration's end, with its statistics
	MsgResult   MessageType = "result"   // the result of a run
	MsgTrace    MessageType = "trace"    // the detailed trace of a replay
	MsgIsolate  MessageType = "isolate"  // the process can run one schedule only (Message.Error says why)
	MsgError    MessageType = "error"    // the request failed (Message.Error)
	MsgRestart  MessageType = "restart"  // the exploration starts again without a subtest: what came before is void
	MsgAlive    MessageType = "alive"    // the process's runs made progress since its last heartbeat (any request)
)

// Heartbeat is how often a worker whose runs make progress says so (MsgAlive): its controller
// then waits for its answer as long as that goes on.
const Heartbeat = 10 * time.Second

// Request is what a controller asks of a worker.
type Request struct {
	V        int              `json:"v"`
	Cmd      Command          `json:"cmd"`
	Test     string           `json:"test,omitempty"`
	Options  Options          `json:"options,omitempty"`
	Schedule *record.Schedule `json:"schedule,omitempty"`
	Guide    *Guide           `json:"guide,omitempty"`
	Detail   bool             `json:"detail,omitempty"`
	// LeftOut, in a "run" request, are the subtests that the run skips because heddle cannot
	// explore them, each with why (as go test names them).
	LeftOut map[string]string `json:"leftOut,omitempty"`
}

// Options are the serialisable options of an exploration (explorer.Options without its
// callbacks).
type Options struct {
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
	Part      int           `json:"part,omitempty"`
	Parts     int           `json:"parts,omitempty"`
	Time      rt.TimeModel  `json:"time,omitempty"`
	Quantum   time.Duration `json:"quantum,omitempty"`
	// Atomicity is the atomicity checker (explorer.Options.Atomicity).
	Atomicity string `json:"atomicity,omitempty"`
}

// Message is one line a worker writes.
type Message struct {
	Type      MessageType      `json:"type"`
	Tests     []string         `json:"tests,omitempty"`
	Stats     *record.Stats    `json:"stats,omitempty"`
	Node      *record.Node     `json:"node,omitempty"`
	Bug       *Bug             `json:"bug,omitempty"`
	LockTrees *locktree.Report `json:"lockTrees,omitempty"`
	Trace     *record.Trace    `json:"trace,omitempty"`
	// Result and Log answer a "run" request.
	Result *rt.Result    `json:"result,omitempty"`
	Log    []LoggedPoint `json:"log,omitempty"`
	// DecisionsKept says, for each of Result's decisions, how much of the previous
	// decision's alternatives come before and after its own (DeltaDecisions).
	DecisionsKept []Kept `json:"decisionsKept,omitempty"`
	// Error says what went wrong in an "error" message; in an "isolate" message, which
	// answers an "explore" request of a process that can run one schedule only (its package
	// started goroutines during init, rt.InitGoroutines), it says why.
	Error string `json:"error,omitempty"`
	// Divergence, in a "done" message, is the exploration's first divergence
	// (explorer.Report.Divergence).
	Divergence string `json:"divergence,omitempty"`
	// Isolated, in a "done" message, says why the test was explored with a fresh process per
	// run although the controller did not ask for it (the "isolate" answer's Error).
	Isolated string `json:"isolated,omitempty"`
	// Warnings, in a "done" message, are the checks' findings that are not bugs.
	Warnings []*record.Warning `json:"warnings,omitempty"`
	// Atomicity, in a "done" message, is what the atomicity checkers found of each
	// //heddle:atomic function (explorer.Report.Atomicity).
	Atomicity []*record.AtomicityCheck `json:"atomicity,omitempty"`
	// Skipped, in a "done" message, is the output of the first run in which the test skipped
	// itself (t.Skip), its message last; nil if no run did. In a "result" message, it is the
	// output of the run, if the test skipped itself in it.
	Skipped *string `json:"skipped,omitempty"`
	// Skips, in a "done" message, are the subtests that skipped themselves, each from the
	// first run in which it did; in a "result" message, those of the run.
	Skips []record.Skip `json:"skips,omitempty"`
	// Subtests, in a "done" message, are the subtests that the exploration's runs started,
	// in the order in which they first did; in a "result" message, those of the run.
	Subtests []string `json:"subtests,omitempty"`
}

// Final reports whether m ends the worker's answer: nothing follows it.
func (m *Message) Final() bool {
	switch m.Type {
	case MsgDone, MsgResult, MsgTrace, MsgTests, MsgIsolate, MsgError:
		return true
	}
	return false
}

// Bug is a bug on the wire, with its detailed trace.
type Bug struct {
	Kind        string `json:"kind"`
	Message     string `json:"message"`
	Key         string `json:"key"`
	Hits        int    `json:"hits"`
	Preemptions int    `json:"preemptions"`
	// Strategy found the bug first, in the exploration's run Run (explorer.Bug.Strategy and
	// explorer.Bug.Run).
	Strategy string        `json:"strategy,omitempty"`
	Run      int           `json:"run,omitempty"`
	Trace    *record.Trace `json:"trace,omitempty"`
}

// Guide is an explorer.Guide on the wire: how to steer one run. The fields mean what the
// explorer.Guide fields of the same names do.
type Guide struct {
	Prefix []int32           `json:"prefix,omitempty"`
	Kinds  []rt.DecisionKind `json:"kinds,omitempty"`
	Names  []string          `json:"names,omitempty"`
	Sleep  []Sleeper         `json:"sleep,omitempty"`
	Policy uint8             `json:"policy,omitempty"`
	Seed   uint64            `json:"seed,omitempty"`
	Depth  int               `json:"depth,omitempty"`
	Length int               `json:"length,omitempty"`
	Bound  int               `json:"bound"`
	Shard  int               `json:"shard,omitempty"`
	Shards int               `json:"shards,omitempty"`
	Plan   []PlanStep        `json:"plan,omitempty"`
	// Part, Parts and SplitFrom are explorer.Guide's.
	Part      int `json:"part,omitempty"`
	Parts     int `json:"parts,omitempty"`
	SplitFrom int `json:"splitFrom,omitempty"`
	// Watch lists the positions of accesses whose order the run records (explorer.Guide.Watch).
	Watch []string `json:"watch,omitempty"`
	// Serial, Timeouts and Timeout are explorer.Guide's.
	Serial   bool   `json:"serial,omitempty"`
	Timeouts bool   `json:"timeouts,omitempty"`
	Timeout  string `json:"timeout,omitempty"`
}

// Sleeper is a goroutine in a sleep set, with the operation it is stopped before.
type Sleeper struct {
	G    rt.GID     `json:"g"`
	Op   rt.OpKind  `json:"op"`
	Objs []rt.ObjID `json:"objs,omitempty"`
	// Yields: the sleeper's step may be a poll that yields (rt.FairObj).
	Yields bool `json:"yields,omitempty"`
}

// PlanStep is one step of a guide's plan.
type PlanStep struct {
	G    rt.GID  `json:"g"`
	Data []int32 `json:"data,omitempty"`
}

// MaxMessage bounds a message of a worker, which the controller reads as one line: an
// isolated run's result carries every step of the run for the controller's search.
const MaxMessage = 256 << 20

// StepBytes is about what a step of a run adds to a "result" message: 294 bytes a step in one
// of ants' runs of 201,207 steps, with its decisions and log sent as changes (Delta).
const StepBytes = 300

// LoggedPoint is what a guide recorded at one decision after its prefix.
//
// In a message, a point's alternatives and sleep set are given as a change from the point
// before it (Delta): consecutive points of a run mostly differ by the goroutine that just
// moved, and a run of a thousand goroutines would otherwise repeat them all at every step.
type LoggedPoint struct {
	Kind    rt.DecisionKind `json:"kind"`
	Alts    []rt.Alt        `json:"alts"`
	Pick    int             `json:"pick"`
	Current int             `json:"current"`
	Sleep   []Sleeper       `json:"sleep,omitempty"`
	PlanAt  int             `json:"planAt"`
	// AltsKept and SleepKept, in a message, are how many of the previous point's
	// alternatives and sleepers come before Alts and Sleep, and after them.
	AltsKept  Kept `json:"altsKept,omitzero"`
	SleepKept Kept `json:"sleepKept,omitzero"`
}

// Kept is how much of the previous point's list a point's list shares: the first Head
// elements and the last Tail, with the point's own elements between them.
type Kept struct {
	Head int `json:"head,omitempty"`
	Tail int `json:"tail,omitempty"`
}

// Delta rewrites a log as it is sent: each point's lists as a change from the previous
// point's. It changes ls in place.
func Delta(ls []LoggedPoint) {
	for i := len(ls) - 1; i > 0; i-- {
		ls[i].AltsKept, ls[i].Alts = keep(ls[i-1].Alts, ls[i].Alts, altEqual)
		ls[i].SleepKept, ls[i].Sleep = keep(ls[i-1].Sleep, ls[i].Sleep, sleeperEqual)
	}
}

// Undelta restores the log that Delta rewrote, in place. A point that keeps more of the
// previous point's list than it has is an error: the message is corrupt.
func Undelta(ls []LoggedPoint) error {
	for i := 1; i < len(ls); i++ {
		var err error
		if ls[i].Alts, err = unkeep(ls[i-1].Alts, ls[i].Alts, ls[i].AltsKept); err != nil {
			return fmt.Errorf("log point %d: alternatives: %w", i, err)
		}
		if ls[i].Sleep, err = unkeep(ls[i-1].Sleep, ls[i].Sleep, ls[i].SleepKept); err != nil {
			return fmt.Errorf("log point %d: sleep set: %w", i, err)
		}
		ls[i].AltsKept, ls[i].SleepKept = Kept{}, Kept{}
	}
	if len(ls) > 0 && (ls[0].AltsKept != Kept{} || ls[0].SleepKept != Kept{}) {
		return fmt.Errorf("log point 0 keeps elements of no previous point")
	}
	return nil
}

// DeltaDecisions returns a copy of ds in which each decision's alternatives are a change
// from the previous decision's, and what each decision keeps of them, as Delta does for a log.
func DeltaDecisions(ds []rt.Decision) ([]rt.Decision, []Kept) {
	out := slices.Clone(ds)
	ks := make([]Kept, len(ds))
	for i := 1; i < len(ds); i++ {
		ks[i], out[i].Alts = keep(ds[i-1].Alts, ds[i].Alts, func(a, b *int32) bool { return *a == *b })
	}
	return out, ks
}

// UndeltaDecisions restores, in place, the decisions that DeltaDecisions rewrote.
func UndeltaDecisions(ds []rt.Decision, ks []Kept) error {
	if len(ks) == 0 {
		return nil
	}
	if len(ks) != len(ds) {
		return fmt.Errorf("%d decisions and %d changes", len(ds), len(ks))
	}
	if ks[0] != (Kept{}) {
		return fmt.Errorf("decision 0 keeps alternatives of no previous decision")
	}
	for i := 1; i < len(ds); i++ {
		var err error
		if ds[i].Alts, err = unkeep(ds[i-1].Alts, ds[i].Alts, ks[i]); err != nil {
			return fmt.Errorf("decision %d: %w", i, err)
		}
	}
	return nil
}

// keep returns how much of prev cur shares at its start and at its end, and the rest of cur.
func keep[T any](prev, cur []T, eq func(a, b *T) bool) (Kept, []T) {
	var k Kept
	for k.Head < len(prev) && k.Head < len(cur) && eq(&prev[k.Head], &cur[k.Head]) {
		k.Head++
	}
	for k.Tail < len(prev)-k.Head && k.Tail < len(cur)-k.Head && eq(&prev[len(prev)-1-k.Tail], &cur[len(cur)-1-k.Tail]) {
		k.Tail++
	}
	return k, cur[k.Head : len(cur)-k.Tail]
}

func unkeep[T any](prev, own []T, k Kept) ([]T, error) {
	if k.Head < 0 || k.Tail < 0 || k.Head > len(prev) || k.Tail > len(prev)-k.Head {
		return nil, fmt.Errorf("keeps %d and %d of %d", k.Head, k.Tail, len(prev))
	}
	if k == (Kept{}) {
		return own, nil
	}
	out := make([]T, 0, k.Head+len(own)+k.Tail)
	out = append(append(append(out, prev[:k.Head]...), own...), prev[len(prev)-k.Tail:]...)
	return out, nil
}

func altEqual(a, b *rt.Alt) bool {
	return a.G == b.G && a.Op == b.Op && a.Obj == b.Obj && a.Case == b.Case && a.Yields == b.Yields && slices.Equal(a.Objs, b.Objs)
}

func sleeperEqual(a, b *Sleeper) bool {
	return a.G == b.G && a.Op == b.Op && a.Yields == b.Yields && slices.Equal(a.Objs, b.Objs)
}
