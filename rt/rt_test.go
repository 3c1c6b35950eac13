package rt_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

type last struct{}

func (last) Choose(p *rt.Point) int { return len(p.Alts) - 1 }

func TestSmoke(t *testing.T) {
	var mu rt.Mutex
	x := 0
	res := rt.Run(rt.Config{Chooser: last{}}, func() {
		var wg rt.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				mu.Lock()
				x++
				mu.Unlock()
			})
		}
		wg.Wait()
		ch := rt.MakeChan[int](0)
		rt.Go(func() { rt.Send(ch, 42) })
		if v := rt.Recv(ch); v != 42 {
			panic("bad")
		}
	})
	if res.Verdict.Kind != rt.VerdictOK || x != 2 {
		t.Fatalf("verdict %+v x=%d", res.Verdict, x)
	}
	t.Logf("steps=%d decisions=%d", res.Steps, len(res.Decisions))
	res = rt.Run(rt.Config{}, func() {
		ch := rt.MakeChan[int](0)
		rt.Go(func() { rt.Recv(ch) })
		var mu rt.Mutex
		mu.Lock()
		mu.Lock()
	})
	if res.Verdict.Kind != rt.VerdictDeadlock {
		t.Fatalf("verdict %+v", res.Verdict)
	}
	t.Logf("%+v", res.Verdict)
}

// TestExit checks os.Exit in a run (rt.Exit): the run ends there, not the process; a status
// other than 0 is the verdict exit, against the goroutine that called it, at its position, and
// status 0 ends the run as a return would, without reporting the goroutines left behind.
func TestExit(t *testing.T) {
	for _, tc := range []struct {
		code int
		want rt.VerdictKind
		msg  string
	}{
		{3, rt.VerdictExit, "os.Exit(3) called by G1.1 at rt_test.go:"},
		{0, rt.VerdictOK, ""},
	} {
		after := false
		res := rt.Run(rt.Config{}, func() {
			ch := rt.MakeChan[int](0)
			rt.Go(func() {
				rt.Exit(tc.code)
				after = true
			})
			rt.Recv(ch)
		})
		if res.Verdict.Kind != tc.want || !strings.HasPrefix(res.Verdict.Message, tc.msg) || after {
			t.Errorf("Exit(%d): verdict %s (%q), ran on after it: %v; want %s (%q)", tc.code, res.Verdict.Kind, res.Verdict.Message, after, tc.want, tc.msg)
		}
	}
}

// TestNestedRun checks that a run whose body starts a run of its own (a test of heddle's own
// engine, explored by heddle) ends as unsupported instead of panicking.
func TestNestedRun(t *testing.T) {
	res := rt.Run(rt.Config{}, func() {
		rt.Run(rt.Config{}, func() {})
	})
	if res.Verdict.Kind != rt.VerdictUnsupported || !strings.Contains(res.Verdict.Message, "rt.Run, called at rt_test.go:") {
		t.Errorf("verdict %s: %q, want unsupported, naming where rt.Run was called", res.Verdict.Kind, res.Verdict.Message)
	}
}

// TestClosedOutside: a channel that instrumented code made and closed outside any run, as
// package initialisation cancels a context it keeps (pion's deadline.exceededContext), is
// closed in the runs: a receive returns at once. Its twin, left open, blocks the run's only
// goroutine: a deadlock.
func TestClosedOutside(t *testing.T) {
	for _, tc := range []struct {
		close bool
		want  rt.VerdictKind
	}{
		{true, rt.VerdictOK},
		{false, rt.VerdictDeadlock},
	} {
		c := rt.MakeChan[struct{}](0)
		if tc.close {
			rt.Close(c)
		}
		res := rt.Run(rt.Config{}, func() {
			if _, ok := rt.Recv2(c); ok {
				panic("received a value from a closed channel")
			}
		})
		if res.Verdict.Kind != tc.want {
			t.Errorf("closed %v: verdict %s (%s), want %s", tc.close, res.Verdict.Kind, res.Verdict.Message, tc.want)
		}
	}
}

// TestActivity: a run changes the process's activity (the workers' heartbeat), and so does
// heddle's analysis of a run that ended; waiting outside any run does not.
func TestActivity(t *testing.T) {
	a := rt.Activity()
	if b := rt.Activity(); b != a {
		t.Fatalf("activity %d, then %d with no run", a, b)
	}
	rt.Run(rt.Config{}, func() {})
	b := rt.Activity()
	if b == a {
		t.Error("a run left the activity as it was")
	}
	rt.Analysing()
	if rt.Activity() == b {
		t.Error("an analysis left the activity as it was")
	}
}

// TestHeartbeat: a run that keeps making steps makes the heartbeat beat, the worker's sign of
// progress to its controller, however long the run takes.
func TestHeartbeat(t *testing.T) {
	var beats atomic.Int32
	rt.Heartbeat(10*time.Millisecond, func() { beats.Add(1) })
	deadline := time.Now().Add(time.Minute) // a guard: the run ends on the beats
	res := rt.Run(rt.Config{}, func() {
		var mu rt.Mutex
		for beats.Load() < 3 && time.Now().Before(deadline) {
			mu.Lock()
			mu.Unlock()
		}
	})
	if res.Verdict.Kind != rt.VerdictOK || beats.Load() < 3 {
		t.Errorf("%d beats during a run of %d steps (%+v), want 3", beats.Load(), res.Steps, res.Verdict)
	}
}

// TestOnceAcrossRuns: a Once done in a run starts the next run afresh, as in a fresh process,
// so that a replay makes the steps of the run it replays whichever run of its process that
// was; OnceValue's function too, with its steps. A Once done outside any run (package init)
// stays done in every run, as it is in every process.
func TestOnceAcrossRuns(t *testing.T) {
	var mu rt.Mutex
	calls := 0
	value := rt.OnceValue(func() int {
		mu.Lock()
		calls++
		mu.Unlock()
		return 7
	})
	var steps []int
	for range 2 {
		res := rt.Run(rt.Config{}, func() {
			if v := value(); v != 7 {
				panic(v)
			}
		})
		if res.Verdict.Kind != rt.VerdictOK {
			t.Fatalf("verdict %+v", res.Verdict)
		}
		steps = append(steps, res.Steps)
	}
	if calls != 2 || steps[0] != steps[1] {
		t.Errorf("OnceValue's function called %d times in two runs, steps %v; want once in each, the same steps", calls, steps)
	}

	var once rt.Once
	done := 0
	once.Do(func() { done++ }) // outside any run, as in package init
	res := rt.Run(rt.Config{}, func() { once.Do(func() { done++ }) })
	if res.Verdict.Kind != rt.VerdictOK || done != 1 {
		t.Errorf("a Once done outside the run ran its function again in it (%d calls, %+v)", done, res.Verdict)
	}
}
