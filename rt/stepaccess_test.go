package rt_test

import (
	"slices"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// TestStepAccesses checks what Config.StepAccesses records: each access with the step it
// follows, its variable numbered by first access, whether it writes, and whether a lock was
// held; and nothing without the flag.
func TestStepAccesses(t *testing.T) {
	rt.UseAccesses()
	var x, y int
	body := func() {
		var mu rt.Mutex
		x = rt.Store(&x, 1, "x")                   // variable 0, before any event
		mu.Lock()                                  // event 0
		y = rt.Store(&y, *rt.Load(&x, "x")+1, "y") // variable 1 written after reading 0
		mu.Unlock()                                // event 1
		_ = *rt.Load(&y, "y")
	}
	res := rt.Run(rt.Config{StepAccesses: true}, body)
	want := []rt.VarAccess{
		{Event: 0, Var: 0, Write: true},
		{Event: 1, Var: 0, Locked: true},
		{Event: 1, Var: 1, Write: true, Locked: true},
		{Event: 2, Var: 1},
	}
	if !slices.Equal(res.Accesses, want) {
		t.Errorf("accesses %+v, want %+v", res.Accesses, want)
	}
	if res := rt.Run(rt.Config{}, body); len(res.Accesses) != 0 {
		t.Errorf("accesses recorded without StepAccesses: %+v", res.Accesses)
	}
}
