package server

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFixtures(t *testing.T) {
	for name, want := range map[string]string{
		"bank.exploration.json":      "*server.Exploration",
		"bugs/deadlock-0.trace.json": "*server.Trace",
		"bugs/panic-1.trace.json":    "*server.Trace",
	} {
		v, err := ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := strings.TrimPrefix(typeName(v), ""); got != want {
			t.Errorf("%s read as %s, want %s", name, got, want)
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *Exploration:
		return "*server.Exploration"
	case *Trace:
		return "*server.Trace"
	case *Schedule:
		return "*server.Schedule"
	}
	return "?"
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		data, path, msg string
	}{
		{`{"heddle": "trace", "version": 1,`, "", "line 1, column 34"},
		{"{\n \"heddle\": \"exploration\",\n \"version\": 1,\n \"tree\": [{\"id\": \"one\"}]}", "tree.id", "line 4"},
		{`{"version": 1}`, "heddle", "missing kind"},
		{`{"heddle": "picture", "version": 1}`, "heddle", `unknown kind "picture"`},
		{`{"heddle": "trace"}`, "version", "missing version"},
		{`{"heddle": "trace", "version": 2}`, "version", "newer"},
		{`{"heddle": "schedule", "version": 1, "decisions": [{"kind": "guess", "pick": "1"}]}`, "decisions[0].kind", "unknown decision kind"},
		{`{"heddle": "schedule", "version": 1, "decisions": [{"kind": "select"}]}`, "decisions[0].pick", "missing pick"},
		{`{"heddle": "exploration", "version": 1, "tree": [{"id": 0, "parent": -1}, {"id": 1, "parent": 5}]}`, "tree[1].parent", "parent 5"},
		{`{"heddle": "exploration", "version": 1, "tree": [{"id": 0, "parent": -1, "pruned": [{"g": "G1", "reason": "bored"}]}]}`, "tree[0].pruned[0].reason", "unknown reason"},
		{`{"heddle": "exploration", "version": 1, "tree": [{"id": 0, "parent": -1, "leaf": {"verdict": "deadlock", "bug": 3}}]}`, "tree[0].leaf.bug", "bug 3"},
		{`{"heddle": "exploration", "version": 1, "tree": [], "lockTrees": {"warnings": [{"locks": ["L1"]}]}}`, "lockTrees.warnings[0].locks", "want 2"},
		{`{"heddle": "trace", "version": 1, "goroutines": [{"id": "G1"}], "events": [{"step": 0, "g": "G2", "op": "go"}]}`, "events[0].g", `"G2"`},
		{`{"heddle": "trace", "version": 1, "goroutines": [{"id": "G1"}], "events": [{"step": 0, "g": "G1", "op": "lock"}, {"step": 0, "g": "G1", "op": "unlock"}]}`, "events[1].step", "does not follow"},
		{`{"heddle": "trace", "version": 1, "goroutines": [{"id": "G1"}], "events": [{"step": 0, "g": "G1", "op": "lock", "after": [4]}]}`, "events[0].after[0]", "step 4"},
	} {
		_, err := Parse("bad.json", []byte(tc.data))
		var fe *FileError
		if !errors.As(err, &fe) {
			t.Errorf("Parse(%s): error %v, want a *FileError", tc.data, err)
			continue
		}
		if fe.File != "bad.json" || fe.Path != tc.path || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Parse(%s):\n got %q (path %q)\nwant path %q and %q", tc.data, err, fe.Path, tc.path, tc.msg)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sched := write("s.schedule.json", `{"heddle": "schedule", "version": 1, "seed": 0,
		"decisions": [{"kind": "goroutine", "pick": "G1.2", "of": ["G1", "G1.2"], "at": "bank.go:17"}],
		"verdict": {"kind": "deadlock", "message": "all goroutines are blocked"}}`)
	if err := s.Load(sched); err != nil {
		t.Fatal(err)
	}
	if s.traces[sched] == nil || len(s.traces[sched].t.Decisions) != 1 {
		t.Errorf("schedule not served as a trace: %+v", s.traces[sched])
	}
	// A missing bug trace is skipped; a malformed one is an error naming it.
	ok := write("ok.exploration.json", `{"heddle": "exploration", "version": 1, "tree": [],
		"bugs": [{"id": 0, "kind": "deadlock", "trace": "missing.trace.json"}]}`)
	if err := s.Load(ok); err != nil {
		t.Errorf("exploration with a missing trace: %v", err)
	}
	write("bad.trace.json", `{"heddle": "trace", "version": 1, "events": 3}`)
	bad := write("bad.exploration.json", `{"heddle": "exploration", "version": 1, "tree": [],
		"bugs": [{"id": 0, "kind": "deadlock", "trace": "bad.trace.json"}]}`)
	if err := s.Load(bad); err == nil || !strings.Contains(err.Error(), "bad.trace.json") {
		t.Errorf("exploration with a malformed trace: %v", err)
	}
	if err := s.Load(filepath.Join(dir, "nothing.json")); err == nil {
		t.Error("loading a missing file succeeded")
	}
	if err := s.Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("loading a directory: %v", err)
	}
}
