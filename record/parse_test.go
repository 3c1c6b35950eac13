package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

func TestReadFixtures(t *testing.T) {
	for name, want := range map[string]string{
		"bank.exploration.json":      "*record.Exploration",
		"bugs/deadlock-0.trace.json": "*record.Trace",
		"bugs/panic-1.trace.json":    "*record.Trace",
	} {
		v, err := ReadFile(filepath.Join("..", "web", "test", "fixtures", name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := typeName(v); got != want {
			t.Errorf("%s read as %s, want %s", name, got, want)
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *Exploration:
		return "*record.Exploration"
	case *Trace:
		return "*record.Trace"
	case *Schedule:
		return "*record.Schedule"
	}
	return "?"
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		data, path, msg string
	}{
		{`{"heddle": "trace", "version": 1,`, "", "line 1, column 34"},
		{"{\n \"heddle\": \"exploration\",\n \"version\": 1,\n \"tree\": [{\"id\": \"one\"}]}", "tree.id", "line 4"},
		{`{"version": 1}`, "heddle", `missing: not a heddle file`},
		{`{"heddle": "picture", "version": 1}`, "heddle", `unknown kind "picture"`},
		{`{"heddle": "trace"}`, "version", "missing"},
		{`{"heddle": "trace", "version": 99}`, "version", "newer"},
		{`{"heddle": "schedule", "version": 2, "program": {"package": "a", "test": "group", "group": "a,b"}, "decisions": []}`, "program.group", "needs version 3"},
		{`{"heddle": "schedule", "version": 3, "program": {"package": "a", "test": "group", "group": "a"}, "decisions": []}`, "program.group", "two or more"},
		{`{"heddle": "schedule", "version": 3, "program": {"package": "a", "test": "group", "group": "a,,b"}, "decisions": []}`, "program.group", "two or more"},
		{`{"heddle": "schedule", "version": 3, "program": {"package": "a", "test": "TestA", "group": "a,b"}, "decisions": []}`, "program.test", "one test per member"},
		{`{"heddle": "trace", "version": 1, "decisions": [], "goroutines": [], "objects": [], "events": [], "verdict": {"kind": "linearizability", "history": [{"g": "G1", "call": 0, "return": 1, "callStep": 0, "returnStep": 0, "input": "get()"}]}}`, "verdict.history", "needs version 2"},
		{`{"heddle": "trace", "version": 2, "decisions": [], "goroutines": [], "objects": [], "events": [], "verdict": {"kind": "linearizability", "history": [{"g": "G1", "call": 1, "return": 1, "callStep": 0, "returnStep": 0, "input": "get()"}]}}`, "verdict.history[0].return", "not after the call"},
		{`{"heddle": "schedule", "version": 1, "decisions": [{"kind": "guess", "pick": "1"}]}`, "decisions[0].kind", "unknown decision kind"},
		{`{"heddle": "schedule", "version": 1, "decisions": [{"kind": "select"}]}`, "decisions[0].pick", "missing"},
		{`{"heddle": "exploration", "version": 1, "tree": [{"id": 0, "parent": -1}, {"id": 1, "parent": 5}]}`, "tree[1].parent", "parent 5"},
		{`{"heddle": "exploration", "version": 1, "tree": [{"id": 0, "parent": -1, "pruned": [{"g": "G1", "reason": "bored"}]}]}`, "tree[0].pruned[0].reason", "unknown reason"},
		{`{"heddle": "exploration", "version": 1, "tree": [{"id": 0, "parent": -1, "leaf": {"verdict": "deadlock", "bug": 3}}]}`, "tree[0].leaf.bug", "bug 3"},
		{`{"heddle": "exploration", "version": 1, "tree": [], "lockTrees": {"warnings": [{"locks": ["L1"]}]}}`, "lockTrees.warnings[0].locks", "want 2"},
		{`{"heddle": "exploration", "version": 1, "shard": {"index": 3, "of": 3}, "tree": []}`, "shard.index", "want 0 to 2"},
		{`{"heddle": "exploration", "version": 1, "shard": {"index": 0, "of": 1}, "tree": []}`, "shard.of", "want 2 or more"},
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

// Stats are written with the duration as people read it and the derived rate, and read back
// strictly.
func TestStatsJSON(t *testing.T) {
	s := Stats{Runs: 30, Decisions: 7, PrunedDepth: 2, Elapsed: 1500 * time.Millisecond, Complete: true}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"runs":30,"decisions":7,"prunedSleep":0,"prunedPersistent":0,"prunedDelayed":0,"prunedDepth":2,"bugs":0,"complete":true,"elapsed":"1.5s","schedulesPerSecond":20}`
	if string(data) != want {
		t.Fatalf("Marshal:\n got %s\nwant %s", data, want)
	}
	var back Stats
	if err := json.Unmarshal(data, &back); err != nil || back != s {
		t.Fatalf("round trip: %+v, %v; want %+v", back, err, s)
	}
	for _, bad := range []string{`{"Runs": 3, "Elapsed": 1000}`, `{"runs": 3, "speed": 1}`, `{"elapsed": 1000}`, `{"elapsed": "soon"}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("Unmarshal(%s) succeeded", bad)
		}
	}
}

// TestEarlierTime: a file of a version before 4 that names no model of time was recorded under
// synctest time, the default then; from version 4 on, no model is the quantum.
func TestEarlierTime(t *testing.T) {
	for _, tc := range []struct {
		version int
		time    string
		want    rt.TimeModel
	}{
		{3, "", rt.TimeSynctest},
		{3, `"time": "adversarial", `, rt.TimeAdversarial},
		{4, "", rt.TimeQuantum},
		{4, `"time": "synctest", `, rt.TimeSynctest},
	} {
		data := fmt.Sprintf(`{"heddle": "schedule", "version": %d, %s"program": {"package": "a", "test": "TestA"}, "decisions": []}`, tc.version, tc.time)
		v, err := Parse("s.json", []byte(data))
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if got := v.(*Schedule).Time; got != tc.want {
			t.Errorf("%s: time %s, want %s", data, got, tc.want)
		}
	}
}
