package explorer

import (
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// TestFigure3 checks the Go form of Stoller's Fig. 3 (docs/stoller.md) entry by entry, in
// both orders of the pair.
func TestFigure3(t *testing.T) {
	for _, tc := range []struct {
		a, b        rt.OpKind
		independent bool
	}{
		{rt.OpLock, rt.OpLock, false},          // the owner is free whenever both are steps
		{rt.OpLock, rt.OpUnlock, false},        // Go: Unlock by any goroutine frees the mutex
		{rt.OpUnlock, rt.OpUnlock, false},      // Go: the second is fatal, by either goroutine
		{rt.OpCondWait, rt.OpCondWait, true},   // joining the wait set commutes
		{rt.OpCondWait, rt.OpSignal, false},    // Go: a Signal before the Wait is lost
		{rt.OpCondWait, rt.OpBroadcast, false}, // the same
		{rt.OpSignal, rt.OpSignal, true},
		{rt.OpSignal, rt.OpBroadcast, true},
		{rt.OpBroadcast, rt.OpBroadcast, true},
		{rt.OpTryLock, rt.OpLock, false}, // not in Fig. 3: rt.Dependent
		{rt.OpAtomicLoad, rt.OpAtomicLoad, true},
		{rt.OpAtomicLoad, rt.OpAtomicStore, false},
		{rt.OpSend, rt.OpRecv, false},
	} {
		for _, p := range [][2]rt.OpKind{{tc.a, tc.b}, {tc.b, tc.a}} {
			if got := figure3(p[0], p[1]); got != tc.independent {
				t.Errorf("figure3(%s, %s) = %v, want %v", p[0], p[1], got, tc.independent)
			}
		}
	}
}

// TestEq4 checks eq. (4) on footprints of steps: critical sections of one mutex that share no
// written variable are independent, those that do are dependent, and a step that keeps the
// lock stays dependent with one that takes it.
func TestEq4(t *testing.T) {
	const m, x, y = rt.ObjID(0), int32(0), int32(1)
	section := func(g rt.GID, v int32, write bool) *footprint {
		f := &footprint{g: g, nobjs: 1, nvars: 2}
		f.add(&rt.Event{G: g, Op: rt.OpLock, Obj: m, With: rt.NoG, Child: rt.NoG}, 0)
		f.accs = append(f.accs, rt.VarAccess{Event: 1, Var: v, Write: write, Locked: true})
		f.add(&rt.Event{G: g, Op: rt.OpUnlock, Obj: m, With: rt.NoG, Child: rt.NoG}, 1)
		f.finish()
		return f
	}
	hold := &footprint{g: 2, nobjs: 1, nvars: 2}
	hold.add(&rt.Event{G: 2, Op: rt.OpLock, Obj: m, With: rt.NoG, Child: rt.NoG}, 0)
	hold.accs = append(hold.accs, rt.VarAccess{Event: 1, Var: y, Write: true, Locked: true})
	hold.finish()
	for _, tc := range []struct {
		name      string
		t, s      *footprint
		dependent bool
	}{
		{"read x, read x", section(1, x, false), section(2, x, false), false},
		{"write x, write y", section(1, x, true), section(2, y, true), false},
		{"write x, read x", section(1, x, true), section(2, x, false), true},
		{"read x, write x", section(1, x, false), section(2, x, true), true},
		{"read x, hold m writing y", section(1, x, false), hold, false},
		{"hold m writing y, read y", hold, section(1, y, false), true},
	} {
		if got := tc.t.dependent(tc.s); got != tc.dependent {
			t.Errorf("%s: dependent = %v, want %v", tc.name, got, tc.dependent)
		}
	}
}
