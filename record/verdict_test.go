package record

import (
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// TestVerdictPos: where a goroutine of a verdict is said to wait, when its PC cannot be
// resolved in this process (a process group's member resolves it): the program's call site
// that the member sends, as a step's position is, and the innermost frame only without one.
func TestVerdictPos(t *testing.T) {
	stack := []rt.Frame{{Func: "io.ReadAll", File: "/go/src/io/io.go", Line: 722}, {Func: "main.serve", File: "/p/main.go", Line: 50}}
	for _, tc := range []struct {
		name string
		g    rt.GoroutineState
		want string
	}{
		{"site", rt.GoroutineState{State: "running", Stack: stack, Site: &stack[1]}, "main.go:50"},
		{"no site", rt.GoroutineState{State: "running", Stack: stack}, "io.go:722"},
		{"neither", rt.GoroutineState{State: "running"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictDeadlock, Goroutines: []rt.GoroutineState{tc.g}}}
			v := verdict(res)
			got := ""
			if p := v.Goroutines[0].Pos; p != nil {
				got = p.Short()
			}
			if got != tc.want {
				t.Errorf("position %q, want %q", got, tc.want)
			}
		})
	}
}
