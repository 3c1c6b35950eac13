package server

import (
	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/timeline"
)

// The schedule and trace files are timeline's: the server serves what the engine writes, in
// the same types. The exploration file, which only the CLI writes and the web view reads, is
// defined here.
type (
	Program          = timeline.Program
	Position         = timeline.Pos
	Decision         = timeline.Decision
	Verdict          = timeline.Verdict
	VerdictGoroutine = timeline.GoroutineState
	Frame            = timeline.Frame
	Schedule         = timeline.Schedule
	Trace            = timeline.Trace
	Goroutine        = timeline.Goroutine
	Object           = timeline.Object
	Event            = timeline.Event
)

// Exploration is the result of exploring one test.
type Exploration struct {
	Heddle    string     `json:"heddle"`
	Version   int        `json:"version"`
	Program   Program    `json:"program"`
	Strategy  string     `json:"strategy,omitempty"`
	Stats     Stats      `json:"stats"`
	Tree      []Node     `json:"tree"`
	Bugs      []Bug      `json:"bugs"`
	LockTrees *LockTrees `json:"lockTrees,omitempty"`
}

// Stats summarizes an exploration.
type Stats struct {
	Runs               int     `json:"runs"`
	Decisions          int     `json:"decisions"`
	PrunedSleep        int     `json:"prunedSleep"`
	PrunedPersistent   int     `json:"prunedPersistent"`
	PrunedDelayed      int     `json:"prunedDelayed"`
	Bugs               int     `json:"bugs"`
	Elapsed            string  `json:"elapsed,omitempty"`
	SchedulesPerSecond float64 `json:"schedulesPerSecond"`
	Complete           bool    `json:"complete"`
}

// Node is a decision point of the schedule tree. The edge into it is the
// step that was chosen: G, Op, Obj and Pos describe that step.
type Node struct {
	ID      int       `json:"id"`
	Parent  int       `json:"parent"`
	Kind    string    `json:"kind,omitempty"`
	G       string    `json:"g,omitempty"`
	Op      string    `json:"op,omitempty"`
	Obj     string    `json:"obj,omitempty"`
	Pos     *Position `json:"pos,omitempty"`
	Enabled []string  `json:"enabled"`
	Pruned  []Pruned  `json:"pruned,omitempty"`
	Leaf    *Leaf     `json:"leaf,omitempty"`
}

// Pruned is an alternative that was not explored, and why.
type Pruned struct {
	G      string `json:"g"`
	Reason string `json:"reason"`
}

// Leaf is the end of one run.
type Leaf struct {
	Verdict string `json:"verdict"`
	Bug     *int   `json:"bug,omitempty"`
}

// Bug is a bug found by an exploration.
type Bug struct {
	ID          int    `json:"id"`
	Kind        string `json:"kind"`
	Message     string `json:"message,omitempty"`
	Trace       string `json:"trace,omitempty"`
	Replay      string `json:"replay,omitempty"`
	Preemptions int    `json:"preemptions"`
	Hits        int    `json:"hits,omitempty"`
}

// LockTrees holds the per-goroutine lock trees and what was found in them: the analysis's own
// report type, which marshals to the "lockTrees" JSON.
type LockTrees = locktree.Report
