package record

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
		{11, "wg.done", "wg"},
		{12, "atomic.rmw", "s.count"},
		{13, "atomic.store", "b.busy"},
		{15, "recv", "ctx.Done()"},
		{4, "rlock", ""}, // no RLock at that line, nor deferred in the function
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

// TestNameDeferred checks that an operation made by a deferred call, which Go reports at the
// line where its function returns, is named by the call and placed at the defer statement; of
// several deferred calls of one operation, the one on the object under the name the goroutine
// last called it by.
func TestNameDeferred(t *testing.T) {
	file, _ := filepath.Abs(filepath.Join("testdata", "names", "deferred.go.txt"))
	at := func(line int) *Pos { return &Pos{File: file, Line: line} }
	tr := &Trace{
		Objects: []Object{{ID: "G1#1", Kind: "mutex"}, {ID: "G1#2", Kind: "mutex"}, {ID: "G1#3", Kind: "waitgroup"}},
		Events: []Event{
			{G: "G1", Op: "lock", Obj: "G1#1", Pos: at(4)},
			{G: "G1", Op: "lock", Obj: "G1#2", Pos: at(6)},
			{G: "G1", Op: "unlock", Obj: "G1#2", Pos: at(9)},
			{G: "G1", Op: "unlock", Obj: "G1#1", Pos: at(9)},
			{G: "G2", Op: "unlock", Obj: "G1#1", Pos: at(9)}, // no earlier name: two candidates
			{G: "G1.1", Op: "wg.done", Obj: "G1#3", Pos: at(15)},
			{G: "G1", Op: "wg.wait", Obj: "G1#3", Pos: at(16)},
			{G: "G1.2", Op: "wg.done", Obj: "G1#3", Pos: at(22)},
			{G: "G1.3", Op: "wg.done", Obj: "G1#3", Pos: at(28)},
		},
	}
	NameObjects(tr)
	for i, want := range []struct {
		expr string
		line int
	}{{"from.mu", 0}, {"to.mu", 0}, {"to.mu", 7}, {"from.mu", 5}, {"", 0}, {"wg", 13}, {"wg", 0}, {"wg", 20}, {"wg", 28}} {
		e := tr.Events[i]
		line := 0
		if e.Defer != nil {
			line = e.Defer.Line
		}
		if e.Expr != want.expr || line != want.line {
			t.Errorf("event %d (%s at line %d): %q deferred at line %d, want %q at line %d", i, e.Op, e.Pos.Line, e.Expr, line, want.expr, want.line)
		}
	}
}

// TestCall checks how operations are said in Go's terms.
func TestCall(t *testing.T) {
	for _, tc := range []struct{ op, waits, x, want string }{
		{"lock", "", "from.mu", "from.mu.Lock()"},
		{"lock", "", "", "Lock"},
		{"wg.done", "", "wg", "wg.Done()"},
		{"recv", "", "s.ch", "<-s.ch"},
		{"send", "", "done", "done <-"},
		{"close", "", "done", "close(done)"},
		{"park", "recv", "done", "<-done blocks"},
		{"park", "recv", "", "blocked in chan receive"},
		{"park", "select", "", "select blocks"},
		{"park", "", "", "blocks"},
		{"exit", "", "", "returns"},
		{"frobnicate", "", "x", "frobnicate x"},
	} {
		if got := Call(tc.op, tc.waits, tc.x); got != tc.want {
			t.Errorf("Call(%q, %q, %q) = %q, want %q", tc.op, tc.waits, tc.x, got, tc.want)
		}
	}
}

// TestBlocked checks how a blocked goroutine is said: as Go's goroutine traces do.
func TestBlocked(t *testing.T) {
	for _, tc := range []struct{ op, x, want string }{
		{"lock", "to.mu", "blocked in to.mu.Lock()"},
		{"recv", "s.done", "blocked in chan receive on s.done"},
		{"send", "", "blocked in chan send"},
		{"select", "", "blocked in select"},
		{"wg.wait", "wg", "blocked in wg.Wait()"},
	} {
		if got := Blocked(tc.op, tc.x); got != tc.want {
			t.Errorf("Blocked(%q, %q) = %q, want %q", tc.op, tc.x, got, tc.want)
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
