package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNameObjects checks the expression found for each kind of operation at its line.
func TestNameObjects(t *testing.T) {
	file, _ := filepath.Abs(filepath.Join("testdata", "names", "names.go.txt"))
	for _, tc := range []struct {
		line int
		op   string
		want string
	}{
		{4, "lock", "from.mu"},
		{5, "unlock", "to.mu"},
		{6, "send", "s.ch"},
		{7, "recv", "s.results"},
		{8, "close", "s.done"},
		{9, "recv", "s.jobs"},
		{11, "wg.add", "wg"},
		{12, "atomic.rmw", "s.count"},
		{13, "atomic.store", "b.busy"},
		{15, "recv", "ctx.Done()"},
		{4, "unlock", ""}, // no Unlock at that line
	} {
		tr := &Trace{
			Objects: []Object{{ID: "G1#1", Kind: "mutex"}},
			Events:  []Event{{G: "G1", Op: tc.op, Obj: "G1#1", Pos: &Pos{File: file, Line: tc.line}}},
		}
		NameObjects(tr)
		if got := tr.Events[0].Expr; got != tc.want {
			t.Errorf("%s at line %d: %q, want %q", tc.op, tc.line, got, tc.want)
		}
		if got := tr.Objects[0].Name; got != tc.want {
			t.Errorf("%s at line %d: object named %q, want %q", tc.op, tc.line, got, tc.want)
		}
		want := tc.want
		if want == "" {
			want = "mutex G1#1"
		}
		if got := tr.Describe("G1#1"); got != want {
			t.Errorf("Describe: %q, want %q", got, want)
		}
	}
}

// TestPortableDir checks that a trace file stores its package directory relative to itself,
// so that the tree it sits in can move (another checkout) and replay still finds the package.
func TestPortableDir(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "repo", "pkg")
	file := filepath.Join(root, "repo", ".heddle", "example.com", "pkg", "TestX", "deadlock-1.trace.json")
	tr := &Trace{Heddle: "trace", Version: Version, Program: Program{Package: "example.com/pkg", Test: "TestX", Dir: pkg}, Verdict: Verdict{Kind: "ok"}}
	if err := WriteFile(file, tr); err != nil {
		t.Fatal(err)
	}
	if tr.Program.Dir != pkg {
		t.Errorf("WriteFile changed its argument's dir to %q", tr.Program.Dir)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"dir": "../../../../pkg"`) {
		t.Errorf("the file does not store the directory relative to itself:\n%s", data)
	}
	moved := filepath.Join(root, "elsewhere")
	if err := os.Rename(filepath.Join(root, "repo"), moved); err != nil {
		t.Fatal(err)
	}
	movedFile := filepath.Join(moved, ".heddle", "example.com", "pkg", "TestX", "deadlock-1.trace.json")
	got, err := ReadTrace(movedFile)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(moved, "pkg"); got.Program.Dir != want {
		t.Errorf("ReadTrace: dir %q, want %q", got.Program.Dir, want)
	}
	s, err := ReadSchedule(movedFile)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(moved, "pkg"); s.Program.Dir != want {
		t.Errorf("ReadSchedule: dir %q, want %q", s.Program.Dir, want)
	}
}

// TestHolders checks which acquisitions of a mutex are still held at the end of a run.
func TestHolders(t *testing.T) {
	ev := func(g, op, obj string) Event { return Event{G: g, Op: op, Obj: obj} }
	for _, tc := range []struct {
		name   string
		events []Event
		want   []string // the holders' goroutines
	}{
		{"free", nil, nil},
		{"held", []Event{ev("G1", "lock", "m")}, []string{"G1"}},
		{"released", []Event{ev("G1", "lock", "m"), ev("G1", "unlock", "m")}, nil},
		{"released by another goroutine", []Event{ev("G1", "lock", "m"), ev("G2", "unlock", "m")}, nil},
		{"relocked", []Event{ev("G1", "lock", "m"), ev("G1", "unlock", "m"), ev("G2", "lock", "m")}, []string{"G2"}},
		{"other mutex", []Event{ev("G1", "lock", "n")}, nil},
		{"readers", []Event{ev("G1", "rlock", "m"), ev("G2", "rlock", "m"), ev("G1", "runlock", "m")}, []string{"G2"}},
	} {
		var got []string
		for _, h := range (&Trace{Events: tc.events}).Holders("m") {
			got = append(got, h.G)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: held by %v, want %v", tc.name, got, tc.want)
		}
	}
}
