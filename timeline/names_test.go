package timeline

import (
	"path/filepath"
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
