package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/record"
)

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
	// Traces are compressed, as heddle test writes them, or plain, as earlier versions did.
	fixtures := filepath.Join("..", "web", "test", "fixtures", "bugs")
	for _, name := range []string{"deadlock-0.trace.json", "panic-1.trace.json"} {
		v, err := record.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := record.WriteFile(filepath.Join(dir, name+".gz"), v); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(fixtures, "panic-1.trace.json"))
	write("panic-1.trace.json", string(data))
	both := write("both.exploration.json", `{"heddle": "exploration", "version": 1, "tree": [],
		"bugs": [{"id": 0, "kind": "deadlock", "trace": "deadlock-0.trace.json.gz"}, {"id": 1, "kind": "panic", "trace": "panic-1.trace.json"}]}`)
	if err := s.Load(both); err != nil {
		t.Fatalf("exploration with a compressed and a plain trace: %v", err)
	}
	for _, name := range []string{"deadlock-0.trace.json.gz", "panic-1.trace.json"} {
		if tr := s.traces[filepath.Join(dir, name)]; tr == nil || tr.t.Verdict.Kind == "" {
			t.Errorf("%s not loaded: %+v", name, tr)
		}
	}
	if err := s.Load(filepath.Join(dir, "panic-1.trace.json.gz")); err != nil {
		t.Errorf("loading a compressed trace: %v", err)
	}
	// An exploration is compressed too, as heddle test writes it (record.ExplorationFile).
	v, err := record.ReadFile(both)
	if err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "TestX", record.ExplorationFile)
	v.(*record.Exploration).Bugs[0].Trace = "../deadlock-0.trace.json.gz"
	if err := record.WriteFile(gz, v); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(gz); err != nil {
		t.Fatalf("loading a compressed exploration: %v", err)
	}
	if x := s.explorations[len(s.explorations)-1]; x.name != gz || len(x.e.Bugs) != 2 || x.traces[0] != filepath.Join(dir, "deadlock-0.trace.json.gz") {
		t.Errorf("compressed exploration loaded as %s with bugs %+v, traces %v", x.name, x.e.Bugs, x.traces)
	}
	if err := s.Load(filepath.Join(dir, "nothing.json")); err == nil {
		t.Error("loading a missing file succeeded")
	}
	if err := s.Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("loading a directory: %v", err)
	}
}
