package wire

import (
	"time"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// BreakFunc is the function the debugger sets a breakpoint on. The debuggee calls it when the
// adapter asks it to stop at a checkpoint or at a bug; the stack of the goroutine that calls
// it, without heddle's frames, ends at the user's line.
const BreakFunc = "github.com/heddledbg/heddle/worker.debugBreak"

// DebugStart tells a debuggee which test to run.
type DebugStart struct {
	V        int    `json:"v"`
	Test     string `json:"test"`
	MaxSteps int    `json:"maxSteps,omitempty"`
	// BreakAt, when not negative, is the checkpoint to stop at. Until then the debuggee
	// follows Follow (the picks of the decisions, by name; then the current goroutine, or
	// the first alternative) on its own, reporting without waiting for replies; from
	// checkpoint BreakAt on, it asks.
	BreakAt int      `json:"breakAt"`
	Follow  []string `json:"follow,omitempty"`
	// Time is the model of time of the run, and Quantum its quantum.
	Time    rt.TimeModel  `json:"time,omitempty"`
	Quantum time.Duration `json:"quantum,omitempty"`
	// LeftOut are the subtests that the run skips, as the replayed schedule's exploration did
	// (record.Schedule.LeftOut).
	LeftOut []string `json:"leftOut,omitempty"`
}

// DebugEventType is the kind of a DebugEvent.
type DebugEventType string

// The kinds of DebugEvent.
const (
	EventPoint   DebugEventType = "point"   // a scheduling point (DebugEvent.Point)
	EventResumed DebugEventType = "resumed" // a checkpoint (DebugEvent.Resumed)
	EventSpawned DebugEventType = "spawned" // a goroutine started (DebugEvent.Spawned)
	EventBug     DebugEventType = "bug"     // the run ends with a bug (DebugEvent.Kind, Message)
	EventEnd     DebugEventType = "end"     // the run's end (DebugEvent.Trace, or Error)
)

// DebugEvent is what a debuggee reports.
type DebugEvent struct {
	Type DebugEventType `json:"type"`
	// point: a scheduling point, including those with a single alternative.
	Point *DebugPoint `json:"point,omitempty"`
	// resumed: a goroutine was resumed by the scheduler (a checkpoint).
	Resumed *DebugResumed `json:"resumed,omitempty"`
	// bug: the run ends with a bug of this kind (before teardown).
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message,omitempty"`
	// end: the run's detailed trace.
	Trace *record.Trace `json:"trace,omitempty"`
	Error string        `json:"error,omitempty"`
	// Auto marks an event the debuggee decided on its own (DebugStart.BreakAt): it waits for
	// no reply, and Pick is the alternative it chose at a point.
	Auto bool `json:"auto,omitempty"`
	Pick int  `json:"pick,omitempty"`
	// spawned: a go statement started a goroutine (not a scheduling point; no reply).
	Spawned *DebugSpawned `json:"spawned,omitempty"`
}

// DebugSpawned is a goroutine started since the last scheduling point.
type DebugSpawned struct {
	G      string      `json:"g"`
	Parent string      `json:"parent"`
	Func   string      `json:"func,omitempty"`
	Pos    *record.Pos `json:"pos,omitempty"` // the function's first line
}

// DebugPoint is a scheduling point.
type DebugPoint struct {
	Kind    rt.DecisionKind `json:"kind"`
	Alts    []DebugAlt      `json:"alts"`
	Current int             `json:"current"`
	Step    int             `json:"step"`
	// Decision is the index the point gets in the schedule when it has several alternatives.
	Decision int `json:"decision"`
	// Goroutines is the state of every goroutine that has not finished.
	Goroutines []DebugGoroutine `json:"goroutines"`
}

// DebugAlt is one alternative of a point.
type DebugAlt struct {
	G    rt.GID      `json:"g"`
	Name string      `json:"name"` // G1.2, clock, or the case or value
	Op   string      `json:"op"`
	Obj  string      `json:"obj,omitempty"`
	Case int         `json:"case"`
	Pos  *record.Pos `json:"pos,omitempty"`
}

// DebugGoroutine is a goroutine's state at a point.
type DebugGoroutine struct {
	ID    string      `json:"id"`
	Goid  int64       `json:"goid"`
	State string      `json:"state"` // blocked, running
	Op    string      `json:"op,omitempty"`
	Obj   string      `json:"obj,omitempty"`
	Pos   *record.Pos `json:"pos,omitempty"`
}

// DebugResumed is a checkpoint: goroutine G is about to perform its operation.
type DebugResumed struct {
	G    string      `json:"g"`
	Goid int64       `json:"goid"`
	Step int         `json:"step"`
	Op   string      `json:"op,omitempty"`
	Pos  *record.Pos `json:"pos,omitempty"`
	// Obj is the object of the operation (G1#2) and ObjID its number in the run (the id
	// in the object's rt state), or rt.NoObj.
	Obj      string   `json:"obj,omitempty"`
	ObjID    rt.ObjID `json:"objId"`
	Decision int      `json:"decision"`
	New      bool     `json:"new,omitempty"`
	// Func is the function a new goroutine is about to run.
	Func string `json:"func,omitempty"`
}

// DebugReply answers a DebugEvent. For a point, Pick is the chosen alternative's index. For a
// resumption or a bug, Break asks the debuggee to stop in the debugger there.
type DebugReply struct {
	Pick  int  `json:"pick"`
	Break bool `json:"break,omitempty"`
	// Extend, answering a resumption, lets the debuggee go on replaying on its own, as up to
	// DebugStart.BreakAt.
	Extend *DebugExtend `json:"extend,omitempty"`
}

// DebugExtend moves the checkpoint up to which a debuggee replays on its own to BreakAt,
// following Follow, the picks of the decisions from the From-th on. A debuggee that has not
// made exactly From decisions ignores it.
type DebugExtend struct {
	From    int      `json:"from"`
	Follow  []string `json:"follow,omitempty"`
	BreakAt int      `json:"breakAt"`
}
