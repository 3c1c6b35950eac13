package explorer_test

import (
	"strings"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// registry is the racefail kernel written against rt: a connection counted under the lock,
// announced on a buffered channel, and only then given its handler without the lock.
func registry(fixed bool) func() {
	return func() {
		var mu rt.Mutex
		var wg rt.WaitGroup
		conns, handler := 0, 0
		events := rt.MakeChan[int](1)
		wg.Add(1)
		rt.Go(func() {
			defer wg.Done()
			mu.Lock()
			if fixed {
				handler = rt.Store(&handler, 1, "reg.go:1:1")
			}
			conns = rt.Store(&conns, *rt.Load(&conns, "reg.go:2:1")+1, "reg.go:2:1")
			mu.Unlock()
			rt.Send(events, 1)
			if !fixed {
				handler = rt.Store(&handler, 1, "reg.go:3:1")
			}
		})
		mu.Lock()
		n := *rt.Load(&conns, "reg.go:4:1")
		h := -1
		if fixed {
			h = *rt.Load(&handler, "reg.go:5:1")
		}
		mu.Unlock()
		if !fixed && n > 0 {
			h = *rt.Load(&handler, "reg.go:6:1")
		}
		if n > 0 && h == 0 {
			panic("a registered connection has no handler")
		}
		wg.Wait()
	}
}

// counter is NoEraser written against rt: B increments without the lock when it read zero;
// nothing checks the result.
func counter() {
	var mu rt.Mutex
	var wg rt.WaitGroup
	x := 0
	for _, b := range []bool{false, true} {
		wg.Add(1)
		rt.Go(func() {
			defer wg.Done()
			mu.Lock()
			y := *rt.Load(&x, "c.go:1:1")
			mu.Unlock()
			if y == 0 && b {
				x += rt.Update(&x, 1, "c.go:2:1")
				return
			}
			mu.Lock()
			x += rt.Update(&x, 1, "c.go:3:1")
			mu.Unlock()
		})
	}
	wg.Wait()
}

// stollerMLD is Stoller's §9 example: τ1 does sem.up(); v = 1 without the lock that τ2 holds
// for v = 2 after sem.down().
func stollerMLD(fixed bool) func() {
	return func() {
		var o rt.Mutex
		var wg rt.WaitGroup
		sem := rt.MakeChan[int](1)
		v := 0
		wg.Add(2)
		rt.Go(func() {
			defer wg.Done()
			rt.Send(sem, 1)
			if fixed {
				o.Lock()
			}
			v = rt.Store(&v, 1, "s.go:1:1")
			if fixed {
				o.Unlock()
			}
		})
		rt.Go(func() {
			defer wg.Done()
			rt.Recv(sem)
			o.Lock()
			v = rt.Store(&v, 2, "s.go:2:1")
			o.Unlock()
		})
		wg.Wait()
	}
}

// TestRaceWindow checks JPF's race window: a lockset warning whose race leads to a panic is
// confirmed, by a run that dpor, which does not see the accesses, never makes; one whose race
// leads nowhere stays a warning; a correct twin has neither.
func TestRaceWindow(t *testing.T) {
	rt.UseAccesses()
	for _, tc := range []struct {
		name      string
		body      func()
		warn      bool
		confirmed bool
	}{
		{"fails", registry(false), true, true},
		{"fixed", registry(true), false, false},
		{"benign", counter, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := explorer.Explore(tc.body, explorer.Options{Strategy: "dpor", MaxRuns: 5000})
			var lockset []*explorer.Warning
			for _, w := range rep.Warnings {
				if w.Kind == "lockset" {
					lockset = append(lockset, w)
				}
			}
			if got := len(lockset) > 0; got != tc.warn {
				t.Fatalf("lockset warnings %d, want some: %v", len(lockset), tc.warn)
			}
			if len(lockset) > 1 {
				t.Errorf("%d lockset warnings, want one per variable and exploration", len(lockset))
			}
			confirmed := len(lockset) > 0 && lockset[0].Confirmed != ""
			if confirmed != tc.confirmed {
				t.Fatalf("confirmed %v (%q), want %v", confirmed, lockset[0].Confirmed, tc.confirmed)
			}
			if !tc.confirmed {
				if len(rep.Bugs) > 0 {
					t.Fatalf("bug %s: %s", rep.Bugs[0].Kind, rep.Bugs[0].Message)
				}
				return
			}
			if !strings.Contains(lockset[0].Confirmed, "this race makes the test fail (panic") {
				t.Errorf("confirmation %q", lockset[0].Confirmed)
			}
			if len(rep.Bugs) != 1 || rep.Bugs[0].Kind != rt.VerdictPanic || rep.Bugs[0].Strategy != "race-window" {
				t.Fatalf("bugs %+v, want the panic, found by the race window", rep.Bugs)
			}
			for i := 0; i < 100; i++ {
				res, err := explorer.Replay(tc.body, record.FromResult(rep.Bugs[0].Result, record.Program{}, "dpor").Schedule(), explorer.Options{})
				if err != nil || res.Verdict.Kind != rt.VerdictPanic {
					t.Fatalf("replay %d: %v %v", i, err, res.Verdict)
				}
			}
		})
	}
}

// TestStollerMLD checks that a stoller search reports a violation of MLD′ (Stoller §9) as a
// warning, and that other strategies and the correct twin do not.
func TestStollerMLD(t *testing.T) {
	rt.UseAccesses()
	for _, tc := range []struct {
		strategy explorer.Strategy
		fixed    bool
		want     bool
	}{
		{"stoller", false, true},
		{"stoller", true, false},
		{"dpor", false, false},
	} {
		rep := explorer.Explore(stollerMLD(tc.fixed), explorer.Options{Strategy: tc.strategy, MaxRuns: 1000})
		var mld []*explorer.Warning
		for _, w := range rep.Warnings {
			if w.Kind == "mld" {
				mld = append(mld, w)
			}
		}
		if got := len(mld) > 0; got != tc.want {
			t.Errorf("%s, fixed %v: MLD′ warnings %d, want some: %v", tc.strategy, tc.fixed, len(mld), tc.want)
		}
		if tc.want && (len(mld) != 1 || !strings.Contains(mld[0].Message, "s.go:1 by G1.1 holding no lock") || !strings.Contains(mld[0].Message, "not sound")) {
			t.Errorf("MLD′ warnings %+v", mld)
		}
	}
}
