package dap

import (
	"github.com/heddledbg/heddle/debugger"
	"github.com/heddledbg/heddle/record"
)

// The bodies of heddle's own events and responses (docs/dap.md), as the client reads them.
// The debugger's results are Go values that know nothing of DAP; the functions here translate
// them. internal/tsgen writes the VS Code extension's TypeScript types from these types, and
// the fields of each body are in the order encoding/json gives a map's keys, the order the
// adapter has always written them in.

// Bug is a bug an exploration found (heddle/bugFound), or that a stop is at.
type Bug struct {
	ID         int            `json:"id"`
	Kind       string         `json:"kind"`
	Message    string         `json:"message"`
	Goroutines []BugGoroutine `json:"goroutines,omitempty"`
	// Schedule is the saved trace file, and Replay the command that replays it; both are
	// empty until the search has ended and the bug's run has been re-executed in detail.
	Schedule string `json:"schedule,omitempty"`
	Replay   string `json:"replay,omitempty"`
}

// BugGoroutine is a goroutine involved in a bug.
type BugGoroutine struct {
	ID       string      `json:"id"`
	State    string      `json:"state"`
	Op       string      `json:"op,omitempty"`
	Position *record.Pos `json:"position,omitempty"`
}

func bugBody(b *debugger.Bug) Bug {
	out := Bug{ID: b.ID, Kind: b.Kind, Message: b.Message, Schedule: b.Schedule, Replay: b.Replay}
	for _, g := range b.Goroutines {
		out.Goroutines = append(out.Goroutines, BugGoroutine(g))
	}
	return out
}

// BugFound is the body of heddle/bugFound: exploration ID found Bug.
type BugFound struct {
	Bug Bug `json:"bug"`
	ID  int `json:"id"`
}

// Progress reports on a running exploration (heddle/progress).
type Progress struct {
	ID                 int     `json:"id"`
	Runs               int     `json:"runs"`
	SchedulesPerSecond float64 `json:"schedulesPerSecond"`
	Bugs               int     `json:"bugs"`
	ElapsedMs          int64   `json:"elapsedMs"`
}

// ExploreDone reports the end of an exploration (heddle/exploreDone).
type ExploreDone struct {
	ID        int    `json:"id"`
	Runs      int    `json:"runs"`
	Bugs      int    `json:"bugs"`
	Complete  bool   `json:"complete"`
	Cancelled bool   `json:"cancelled"`
	Error     string `json:"error,omitempty"`
	// Warnings are the checks' findings that are not bugs, as heddle test prints them.
	Warnings []*record.Warning `json:"warnings,omitempty"`
}

// CheckpointEvent is the body of heddle/checkpoint: the stop is at checkpoint Index, where
// Goroutine resumes.
type CheckpointEvent struct {
	Goroutine string `json:"goroutine"`
	Index     int    `json:"index"`
}

// Checkpoint is a resumption of a goroutine by the scheduler: it is about to perform Op.
type Checkpoint struct {
	Index     int         `json:"index"`
	Goroutine string      `json:"goroutine"`
	Op        string      `json:"op,omitempty"`
	Position  *record.Pos `json:"position,omitempty"`
	Decision  bool        `json:"decision"`
	// DecisionIndex is the decision that picked the goroutine, or -1.
	DecisionIndex int    `json:"decisionIndex"`
	Step          int    `json:"step"`
	New           bool   `json:"new,omitempty"`
	Func          string `json:"func,omitempty"`
	// Obj is the logical id of the operation's object (G1#2).
	Obj string `json:"obj,omitempty"`
}

// Checkpoints is the response to heddle/checkpoints: the recorded execution's checkpoints
// and the one the stop is at (-1 if none).
type Checkpoints struct {
	Checkpoints []Checkpoint `json:"checkpoints"`
	Current     int          `json:"current"`
}

// checkpointsBody and runnableBody make the lists, never nil (internal/tsgen says so).
func checkpointsBody(current int, cps []debugger.Checkpoint) Checkpoints {
	out := Checkpoints{Checkpoints: make([]Checkpoint, len(cps)), Current: current}
	for i, c := range cps {
		out.Checkpoints[i] = Checkpoint{Index: c.Index, Goroutine: c.Goroutine, Op: c.Op, Position: c.Position,
			Decision: c.Decision, DecisionIndex: c.DecisionIndex, Step: c.Step, New: c.New, Func: c.Func, Obj: c.Obj}
	}
	return out
}

// Runnable is a goroutine the user may schedule next.
type Runnable struct {
	ID       string      `json:"id"`
	Op       string      `json:"op"`
	Position *record.Pos `json:"position,omitempty"`
	Current  bool        `json:"current"`
}

// RunnableGoroutines is the response to heddle/runnable: Redo says that scheduling one makes
// the decision the stop is at again.
type RunnableGoroutines struct {
	Goroutines []Runnable `json:"goroutines"`
	Redo       bool       `json:"redo"`
}

func runnableBody(gs []debugger.Runnable, redo bool) RunnableGoroutines {
	out := RunnableGoroutines{Goroutines: make([]Runnable, len(gs)), Redo: redo}
	for i, g := range gs {
		out.Goroutines[i] = Runnable(g)
	}
	return out
}

// Explored is the response to heddle/explore: exploration ID shares the first Prefix
// decisions of the session's schedule.
type Explored struct {
	ID     int `json:"id"`
	Prefix int `json:"prefix"`
}

// SavedSchedule is the response to heddle/saveSchedule.
type SavedSchedule struct {
	Path string `json:"path"`
}

// WebView is the response to heddle/webview: the URL of the session's web view.
type WebView struct {
	URL string `json:"url"`
}
