package server

import "github.com/heddledbg/heddle/locktree"

// These types mirror docs/formats.md. The server keeps its own copy so that
// it can validate what it is given and serve it without depending on how the
// engine represents traces in memory.

// Program identifies the program under test.
type Program struct {
	Package string `json:"package,omitempty"`
	Test    string `json:"test,omitempty"`
	Binary  string `json:"binary,omitempty"`
}

// Position is a line in the user's own source.
type Position struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// Decision is one choice made during a run.
type Decision struct {
	Kind string   `json:"kind"`
	Pick string   `json:"pick"`
	Of   []string `json:"of,omitempty"`
	At   string   `json:"at,omitempty"`
	// Step is the index of the step the decision precedes; only traces carry it.
	Step *int `json:"step,omitempty"`
}

// Verdict is how a run ended.
type Verdict struct {
	Kind       string             `json:"kind"`
	Message    string             `json:"message,omitempty"`
	Goroutines []VerdictGoroutine `json:"goroutines,omitempty"`
	Cycle      []string           `json:"cycle,omitempty"`
}

// VerdictGoroutine is the state of one goroutine when a run ended.
type VerdictGoroutine struct {
	ID    string    `json:"id"`
	State string    `json:"state,omitempty"`
	Op    string    `json:"op,omitempty"`
	Obj   string    `json:"obj,omitempty"`
	Pos   *Position `json:"pos,omitempty"`
	Stack []Frame   `json:"stack,omitempty"`
}

// Frame is one entry of a goroutine's stack.
type Frame struct {
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// Schedule is the minimal description of one execution.
type Schedule struct {
	Heddle    string     `json:"heddle"`
	Version   int        `json:"version"`
	Program   Program    `json:"program"`
	Strategy  string     `json:"strategy,omitempty"`
	Seed      int64      `json:"seed"`
	Decisions []Decision `json:"decisions"`
	Verdict   *Verdict   `json:"verdict,omitempty"`
}

// Trace is a schedule plus everything observed along it.
type Trace struct {
	Heddle     string      `json:"heddle"`
	Version    int         `json:"version"`
	Program    Program     `json:"program"`
	Strategy   string      `json:"strategy,omitempty"`
	Seed       int64       `json:"seed,omitempty"`
	Decisions  []Decision  `json:"decisions"`
	Goroutines []Goroutine `json:"goroutines"`
	Objects    []Object    `json:"objects"`
	Events     []Event     `json:"events"`
	Verdict    *Verdict    `json:"verdict,omitempty"`
}

// Goroutine describes one goroutine of a trace.
type Goroutine struct {
	ID     string `json:"id"`
	Parent string `json:"parent"`
	Func   string `json:"func,omitempty"`
	// Created is the step of the go statement, -1 for the root goroutine.
	Created int `json:"created"`
	// Exited is the step of the goroutine's exit, -1 if it never exited.
	Exited int       `json:"exited"`
	Pos    *Position `json:"pos,omitempty"`
}

// Object is a synchronization object of a trace.
type Object struct {
	ID   string    `json:"id"`
	Kind string    `json:"kind"`
	Pos  *Position `json:"pos,omitempty"`
}

// Event is one step of a trace.
type Event struct {
	Step  int       `json:"step"`
	G     string    `json:"g"`
	Op    string    `json:"op"`
	Obj   string    `json:"obj,omitempty"`
	Child string    `json:"child,omitempty"`
	With  string    `json:"with,omitempty"`
	Pos   *Position `json:"pos,omitempty"`
	After []int     `json:"after,omitempty"`
}

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
