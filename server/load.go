package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Version is the newest file format version the server understands.
const Version = 1

// maxFileSize bounds the files the server reads, so that a stray argument
// cannot make it load a huge file into memory.
const maxFileSize = 1 << 30

// A FileError reports a problem with a Heddle file. Path is the JSON path of
// the offending value, such as "tree[3].parent", or empty when the problem
// concerns the file as a whole.
type FileError struct {
	File string
	Path string
	Err  error
}

func (e *FileError) Error() string {
	if e.Path == "" {
		return e.File + ": " + e.Err.Error()
	}
	return e.File + ": " + e.Path + ": " + e.Err.Error()
}

func (e *FileError) Unwrap() error { return e.Err }

// ReadFile reads a schedule, trace or exploration file and returns a
// *Schedule, *Trace or *Exploration. Errors are *FileError values naming the
// file and, where possible, the JSON path of the problem.
func ReadFile(name string) (any, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &FileError{File: name, Err: errors.New("not a regular file")}
	}
	if fi.Size() > maxFileSize {
		return nil, &FileError{File: name, Err: fmt.Errorf("file is %d bytes, more than the %d allowed", fi.Size(), maxFileSize)}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Parse(name, data)
}

// Parse decodes and checks the contents of a Heddle file. The name is used
// only in errors.
func Parse(name string, data []byte) (any, error) {
	var head struct {
		Heddle  *string `json:"heddle"`
		Version *int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, decodeError(name, data, err)
	}
	if head.Heddle == nil {
		return nil, &FileError{File: name, Path: "heddle", Err: errors.New(`missing kind; want "schedule", "trace" or "exploration"`)}
	}
	if head.Version == nil {
		return nil, &FileError{File: name, Path: "version", Err: errors.New("missing version")}
	}
	if v := *head.Version; v > Version {
		return nil, &FileError{File: name, Path: "version", Err: fmt.Errorf("version %d is newer than this heddle understands (%d)", v, Version)}
	} else if v < 1 {
		return nil, &FileError{File: name, Path: "version", Err: fmt.Errorf("invalid version %d", v)}
	}
	var (
		v     any
		check func() (string, error)
	)
	switch *head.Heddle {
	case "schedule":
		s := new(Schedule)
		v, check = s, func() (string, error) { return checkDecisions(s.Decisions, false) }
	case "trace":
		t := new(Trace)
		v, check = t, func() (string, error) { return checkTrace(t) }
	case "exploration":
		e := new(Exploration)
		v, check = e, e.check
	default:
		return nil, &FileError{File: name, Path: "heddle", Err: fmt.Errorf(`unknown kind %q; want "schedule", "trace" or "exploration"`, *head.Heddle)}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return nil, decodeError(name, data, err)
	}
	if path, err := check(); err != nil {
		return nil, &FileError{File: name, Path: path, Err: err}
	}
	return v, nil
}

// decodeError turns an encoding/json error into a FileError with a JSON path
// and a line and column, which is what a person editing the file needs.
func decodeError(name string, data []byte, err error) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return &FileError{File: name, Err: fmt.Errorf("line %d, column %d: %s", line, col, syn.Error())}
	case errors.As(err, &typ):
		line, col := lineCol(data, typ.Offset)
		return &FileError{File: name, Path: typ.Field, Err: fmt.Errorf("line %d, column %d: JSON %s where %s is wanted", line, col, typ.Value, typ.Type)}
	}
	return &FileError{File: name, Err: err}
}

func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

var decisionKinds = map[string]bool{"goroutine": true, "select": true, "wake": true, "choose": true}

func checkDecisions(ds []Decision, withStep bool) (string, error) {
	last := -1
	for i, d := range ds {
		p := fmt.Sprintf("decisions[%d]", i)
		if !decisionKinds[d.Kind] {
			return p + ".kind", fmt.Errorf("unknown decision kind %q", d.Kind)
		}
		if d.Pick == "" {
			return p + ".pick", errors.New("missing pick")
		}
		if withStep {
			if d.Step < last {
				return p + ".step", fmt.Errorf("step %d comes before the previous decision's step %d", d.Step, last)
			}
			last = d.Step
		}
	}
	return "", nil
}

func checkTrace(t *Trace) (string, error) {
	if path, err := checkDecisions(t.Decisions, true); err != nil {
		return path, err
	}
	gs := map[string]bool{"clock": true}
	for i, g := range t.Goroutines {
		if g.ID == "" {
			return fmt.Sprintf("goroutines[%d].id", i), errors.New("missing id")
		}
		if gs[g.ID] {
			return fmt.Sprintf("goroutines[%d].id", i), fmt.Errorf("goroutine %s listed twice", g.ID)
		}
		gs[g.ID] = true
	}
	steps := make(map[int]bool, len(t.Events))
	prev := -1
	for i, e := range t.Events {
		p := fmt.Sprintf("events[%d]", i)
		if e.Step <= prev {
			return p + ".step", fmt.Errorf("step %d does not follow step %d", e.Step, prev)
		}
		prev = e.Step
		if !gs[e.G] {
			return p + ".g", fmt.Errorf("goroutine %q is not in goroutines", e.G)
		}
		if e.Op == "" {
			return p + ".op", errors.New("missing op")
		}
		for j, a := range e.After {
			if !steps[a] {
				return fmt.Sprintf("%s.after[%d]", p, j), fmt.Errorf("step %d is not an earlier step", a)
			}
		}
		steps[e.Step] = true
	}
	return "", nil
}

var pruneReasons = map[string]bool{"sleep": true, "persistent": true, "delayed": true, "bound": true}

func (e *Exploration) check() (string, error) {
	bugs := make(map[int]bool, len(e.Bugs))
	for i, b := range e.Bugs {
		if bugs[b.ID] {
			return fmt.Sprintf("bugs[%d].id", i), fmt.Errorf("bug %d listed twice", b.ID)
		}
		bugs[b.ID] = true
		if b.Kind == "" {
			return fmt.Sprintf("bugs[%d].kind", i), errors.New("missing kind")
		}
	}
	ids := make(map[int]bool, len(e.Tree))
	for i := range e.Tree {
		if path, err := checkNode(&e.Tree[i], ids, bugs); err != nil {
			return fmt.Sprintf("tree[%d]%s", i, path), err
		}
	}
	if lt := e.LockTrees; lt != nil {
		for i, w := range lt.Warnings {
			if w.Locks[0] == "" || w.Locks[1] == "" {
				return fmt.Sprintf("lockTrees.warnings[%d].locks", i), errors.New("names fewer locks than the 2 of an inversion, want 2")
			}
		}
		for i, c := range lt.Graph.Cycles {
			if len(c) < 2 {
				return fmt.Sprintf("lockTrees.graph.cycles[%d]", i), errors.New("a cycle needs at least 2 locks")
			}
		}
	}
	return "", nil
}

// checkNode checks a tree node against the nodes seen so far and records it.
// Parents must come before their children so that a tree can be drawn as it
// streams in.
func checkNode(n *Node, ids, bugs map[int]bool) (string, error) {
	if ids[n.ID] {
		return ".id", fmt.Errorf("node %d listed twice", n.ID)
	}
	if n.Parent != -1 && !ids[n.Parent] {
		return ".parent", fmt.Errorf("parent %d is not an earlier node", n.Parent)
	}
	for j, p := range n.Pruned {
		if !pruneReasons[p.Reason] {
			return fmt.Sprintf(".pruned[%d].reason", j), fmt.Errorf("unknown reason %q; want sleep, persistent, delayed or bound", p.Reason)
		}
	}
	if l := n.Leaf; l != nil {
		if strings.TrimSpace(l.Verdict) == "" {
			return ".leaf.verdict", errors.New("missing verdict")
		}
		if l.Bug != nil && bugs != nil && !bugs[*l.Bug] {
			return ".leaf.bug", fmt.Errorf("bug %d is not in bugs", *l.Bug)
		}
	}
	ids[n.ID] = true
	return "", nil
}
