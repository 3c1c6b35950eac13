package record

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/heddledbg/heddle/rt"
)

// WriteFile writes v as indented JSON to path atomically: readers see the old file or the
// whole new one, never a part. A path ending in .gz is written compressed (gzip), as traces
// are (TraceSuffix).
//
// A schedule's, trace's or exploration's package directory is written relative to the file's
// own directory, so that a file handed to someone with another checkout, at the same place
// in the tree, still finds its package; the readers resolve it back.
func WriteFile(path string, v any) error {
	v = withPortableDir(path, v)
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	data = append(data, '\n')
	if strings.HasSuffix(path, ".gz") {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			return fmt.Errorf("compressing %s: %w", path, err)
		}
		data = buf.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// withPortableDir returns v, or a copy of it whose Program.Dir is relative to the directory
// of path.
func withPortableDir(path string, v any) any {
	rel := func(p Program) Program {
		if !filepath.IsAbs(p.Dir) {
			return p
		}
		base, err := filepath.Abs(filepath.Dir(path))
		if err != nil {
			return p
		}
		if r, err := filepath.Rel(base, p.Dir); err == nil {
			p.Dir = filepath.ToSlash(r)
		}
		return p
	}
	switch v := v.(type) {
	case *Schedule:
		c := *v
		c.Program = rel(c.Program)
		return &c
	case *Trace:
		c := *v
		c.Program = rel(c.Program)
		return &c
	case *Exploration:
		c := *v
		c.Program = rel(c.Program)
		return &c
	}
	return v
}

// resolveDir makes a relative Program.Dir of a file read from path absolute again.
func resolveDir(path string, p *Program) {
	if p.Dir == "" || filepath.IsAbs(p.Dir) {
		return
	}
	if base, err := filepath.Abs(filepath.Dir(path)); err == nil {
		p.Dir = filepath.Join(base, filepath.FromSlash(p.Dir))
	}
}

// maxFileSize bounds the files ReadFile reads, so that a stray argument cannot make heddle
// load a huge file into memory.
const maxFileSize = 1 << 30

// A FileError reports a problem with a heddle file. Path is the JSON path of the offending
// value, such as "tree[3].parent", or empty when the problem concerns the file as a whole.
type FileError struct {
	File string
	Path string
	Err  error
}

func (e *FileError) Error() string {
	s := e.Err.Error()
	if e.Path != "" {
		s = e.Path + ": " + s
	}
	if e.File != "" {
		s = e.File + ": " + s
	}
	return s
}

func (e *FileError) Unwrap() error { return e.Err }

// ReadFile reads a schedule, trace or exploration file and returns a *Schedule, *Trace or
// *Exploration, as Parse does.
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
	data, err := readData(name)
	if err != nil {
		return nil, err
	}
	v, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case *Schedule:
		resolveDir(name, &v.Program)
	case *Trace:
		resolveDir(name, &v.Program)
	case *Exploration:
		resolveDir(name, &v.Program)
	}
	return v, err
}

// readData reads a heddle file, which may be compressed with gzip whatever its name: a file
// that begins with gzip's magic number is decompressed, up to maxFileSize bytes.
func readData(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil || !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, &FileError{File: name, Err: err}
	}
	data, err = io.ReadAll(io.LimitReader(zr, maxFileSize+1))
	if err != nil {
		return nil, &FileError{File: name, Err: fmt.Errorf("decompressing: %w", err)}
	}
	if len(data) > maxFileSize {
		return nil, &FileError{File: name, Err: fmt.Errorf("file decompresses to more than the %d bytes allowed", maxFileSize)}
	}
	return data, nil
}

// ReadSchedule reads a schedule file, or the schedule of a trace file.
func ReadSchedule(path string) (*Schedule, error) {
	data, err := readData(path)
	if err != nil {
		return nil, err
	}
	sch, err := parseSchedule(path, data)
	if err != nil {
		return nil, err
	}
	resolveDir(path, &sch.Program)
	return sch, nil
}

// ReadTrace reads a trace file.
func ReadTrace(path string) (*Trace, error) {
	v, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case *Trace:
		return v, nil
	case *Schedule:
		return nil, &FileError{File: path, Path: "heddle", Err: fmt.Errorf(`got %q, want "trace"`, v.Heddle)}
	}
	return nil, &FileError{File: path, Path: "heddle", Err: errors.New(`got "exploration", want "trace"`)}
}

// ParseSchedule decodes a schedule, or the schedule part of a trace, and validates it.
func ParseSchedule(data []byte) (*Schedule, error) {
	return parseSchedule("", data)
}

func parseSchedule(name string, data []byte) (*Schedule, error) {
	v, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case *Schedule:
		return v, nil
	case *Trace:
		return v.Schedule(), nil
	}
	return nil, &FileError{File: name, Path: "heddle", Err: errors.New("an exploration is not a schedule or a trace")}
}

// Parse decodes and checks a heddle file of any kind and any version from 1 to Version, and
// returns a *Schedule, *Trace or *Exploration. It is strict: an unknown field, a newer
// version or a value that breaks the format's rules is an error. Errors are *FileError values
// naming the file (name is used only in errors) and, where possible, the JSON path and the
// line and column of the problem.
func Parse(name string, data []byte) (any, error) {
	var head struct {
		Heddle  *string `json:"heddle"`
		Version *int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, decodeError(name, data, err)
	}
	if head.Heddle == nil {
		return nil, &FileError{File: name, Path: "heddle", Err: errors.New(`missing: not a heddle file; want "schedule", "trace" or "exploration"`)}
	}
	if head.Version == nil {
		return nil, &FileError{File: name, Path: "version", Err: errors.New("missing")}
	}
	if v := *head.Version; v > Version {
		return nil, &FileError{File: name, Path: "version", Err: fmt.Errorf("%d is newer than this heddle understands (%d); upgrade heddle", v, Version)}
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
		v, check = t, t.Check
	case "exploration":
		e := new(Exploration)
		v, check = e, e.Check
	default:
		return nil, &FileError{File: name, Path: "heddle", Err: fmt.Errorf(`unknown kind %q; want "schedule", "trace" or "exploration"`, *head.Heddle)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, decodeError(name, data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &FileError{File: name, Err: errors.New("trailing data after the JSON object")}
	}
	if path, err := check(); err != nil {
		return nil, &FileError{File: name, Path: path, Err: err}
	}
	if path, err := checkGroup(v, *head.Version); err != nil {
		return nil, &FileError{File: name, Path: path, Err: err}
	}
	if *head.Version < 4 {
		switch f := v.(type) {
		case *Schedule:
			f.Time = earlierTime(f.Time)
		case *Trace:
			f.Time = earlierTime(f.Time)
		}
	}
	return v, nil
}

// earlierTime is the model of time of a file of a version before 4, which omitted the zero
// model: then rt.TimeSynctest.
func earlierTime(m rt.TimeModel) rt.TimeModel {
	if m == rt.TimeQuantum {
		return rt.TimeSynctest
	}
	return m
}

// decodeError turns an encoding/json error into a FileError with a JSON path and a line and
// column, which is what a person editing the file needs.
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
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// checkDecisions checks a schedule's decisions; withStep also checks that their steps do
// not go back, as a trace's must not.
func checkDecisions(ds []Decision, withStep bool) (string, error) {
	last := -1
	for i, d := range ds {
		p := fmt.Sprintf("decisions[%d]", i)
		k, ok := rt.ParseDecisionKind(d.Kind)
		if !ok {
			return p + ".kind", fmt.Errorf("unknown decision kind %q (want goroutine, select, wake or choose)", d.Kind)
		}
		if d.Pick == "" {
			return p + ".pick", errors.New("missing")
		}
		if k == rt.DecideSelect || k == rt.DecideChoose {
			if _, err := strconv.Atoi(d.Pick); err != nil {
				return p + ".pick", fmt.Errorf("%q is not a number", d.Pick)
			}
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

// Check checks the rules of the trace format that JSON decoding does not, and returns the
// JSON path of the first value that breaks one.
func (t *Trace) Check() (string, error) {
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
	if len(t.Verdict.History) > 0 && t.Version < 2 {
		return "verdict.history", fmt.Errorf("a history needs version 2, the file says %d", t.Version)
	}
	return checkHistory(t.Verdict.History)
}

// checkHistory checks that a history's calls and returns are positions of one order: each
// position used once, every call before its return.
func checkHistory(ops []Operation) (string, error) {
	seen := map[int]bool{}
	for i, op := range ops {
		p := fmt.Sprintf("verdict.history[%d]", i)
		if op.G == "" {
			return p + ".g", errors.New("missing")
		}
		if op.Call < 0 || seen[op.Call] {
			return p + ".call", fmt.Errorf("position %d is negative or used twice", op.Call)
		}
		seen[op.Call] = true
		if op.Return == -1 {
			continue
		}
		if op.Return <= op.Call || seen[op.Return] {
			return p + ".return", fmt.Errorf("position %d is not after the call (%d) or used twice", op.Return, op.Call)
		}
		seen[op.Return] = true
	}
	return "", nil
}

// Check checks the rules of the exploration format that JSON decoding does not, and returns
// the JSON path of the first value that breaks one.
func (e *Exploration) Check() (string, error) {
	if s := e.Shard; s != nil {
		if s.Of < 2 {
			return "shard.of", fmt.Errorf("%d shards, want 2 or more", s.Of)
		}
		if s.Index < 0 || s.Index >= s.Of {
			return "shard.index", fmt.Errorf("shard %d of %d, want 0 to %d", s.Index, s.Of, s.Of-1)
		}
	}
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
		if path, err := e.Tree[i].Check(ids, bugs); err != nil {
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

// Check checks a tree node against the nodes before it, whose ids are in ids, and adds its
// own id. Bugs, if not nil, holds the ids of the exploration's bugs. The path it returns
// (".parent", ".leaf.bug") is relative to the node.
func (n *Node) Check(ids, bugs map[int]bool) (string, error) {
	if ids[n.ID] {
		return ".id", fmt.Errorf("node %d listed twice", n.ID)
	}
	if n.Parent != -1 && !ids[n.Parent] {
		return ".parent", fmt.Errorf("parent %d is not an earlier node", n.Parent)
	}
	for j, p := range n.Pruned {
		if !pruneReasons[p.Reason] {
			return fmt.Sprintf(".pruned[%d].reason", j), fmt.Errorf("unknown reason %q; want sleep, persistent, delayed, bound or depth", p.Reason)
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

// checkGroup checks a process group's program: since version 3, at least two members.
func checkGroup(v any, version int) (string, error) {
	var p *Program
	switch v := v.(type) {
	case *Schedule:
		p = &v.Program
	case *Trace:
		p = &v.Program
	case *Exploration:
		p = &v.Program
	}
	switch {
	case p == nil || p.Group == "":
		return "", nil
	case version < 3:
		return "program.group", fmt.Errorf("a process group needs version 3, the file says %d", version)
	case len(p.Members()) < 2 || slices.Contains(p.Members(), ""):
		return "program.group", fmt.Errorf("%q: want two or more import paths separated by commas", p.Group)
	case p.Test != "group" && len(strings.Split(p.Test, ",")) != len(p.Members()):
		return "program.test", fmt.Errorf("%q: want \"group\" or one test per member of the group, separated by commas", p.Test)
	}
	return "", nil
}
