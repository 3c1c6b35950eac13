package worker

import (
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/rt/sync"
	"github.com/heddledbg/heddle/wire"
)

// abba deadlocks when each goroutine takes its first lock before the other takes its second.
func abba(*testing.T) {
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	rt.Go(func() { defer wg.Done(); a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
	rt.Go(func() { defer wg.Done(); b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
	wg.Wait()
}

// TestRunExplored explores nested subtests that start goroutines: runs end while the
// subtests wait (deadlocks, and runs the strategy prunes), and each must end them the way the
// testing package expects, or the process crashes.
func TestRunExplored(t *testing.T) {
	for _, strategy := range []explorer.Strategy{explorer.DPOR, explorer.DFS, explorer.Random} {
		rep := explorer.Explore(func() {
			Run(t, "outer", func(t *testing.T) {
				Run(t, "inner", abba)
			})
		}, explorer.Options{Strategy: strategy, MaxRuns: 200})
		if len(rep.Bugs) != 1 || rep.Bugs[0].Kind != rt.VerdictDeadlock {
			t.Errorf("%s: found %d bugs, want the deadlock", strategy, len(rep.Bugs))
		}
		if rep.Stats.Runs < 2 {
			t.Errorf("%s: %d runs", strategy, rep.Stats.Runs)
		}
	}
}

// TestRunFailure checks that a subtest that fails ends the run with a fatal verdict that names
// it and carries its message. The failing test runs in a child process, which fails.
func TestRunFailure(t *testing.T) {
	if os.Getenv("HEDDLE_HARNESS_FAILURE") != "" {
		runTest(t, "TestX", func(t *testing.T) {
			Run(t, "sub", func(t *testing.T) {
				ch := rt.MakeChan[int](0)
				rt.Go(func() { rt.Send(ch, 1) })
				t.Fatalf("failed with %d", rt.Recv(ch))
			})
			t.Error("the parent went on after its subtest failed")
		}, captureStdout(), func(body func()) {
			res := rt.Run(rt.Config{}, body)
			os.Stderr.WriteString("verdict: " + string(res.Verdict.Kind) + ": " + res.Verdict.Message + "\n")
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunFailure$", "-test.v=true")
	cmd.Env = append(os.Environ(), "HEDDLE_HARNESS_FAILURE=1")
	out, _ := cmd.CombinedOutput()
	want := "verdict: fatal: subtest TestX/sub failed: worker_test.go:55: failed with 1\n"
	if !strings.Contains(string(out), want) {
		t.Errorf("child output does not contain %q:\n%s", want, out)
	}
}

// TestParallel checks that t.Parallel is ignored inside a run: the subtests run one after the
// other, each in its parent's place.
func TestParallel(t *testing.T) {
	var order []string
	rt.Run(rt.Config{}, func() {
		runTest(t, "TestX", func(t *testing.T) {
			Parallel(t)
			for _, name := range []string{"a", "b"} {
				Run(t, name, func(t *testing.T) {
					Parallel(t)
					order = append(order, name)
				})
				order = append(order, "after "+name)
			}
		}, &capture{}, func(body func()) { body() })
	})
	if got := strings.Join(order, ", "); got != "a, after a, b, after b" {
		t.Errorf("order %s", got)
	}
}

// TestFailedOnItsOwn checks that the harness reads testing's own failure flag, which tells a
// test's failure from the one the race check adds: if the field is ever renamed, the harness
// falls back to the messages, and this test says so.
func TestFailedOnItsOwn(t *testing.T) {
	var fresh, failing testing.T
	failing.Fail()
	if got := failedOnItsOwn(&fresh); got != notFailed {
		t.Errorf("a test that did not fail: %v, want notFailed", got)
	}
	if got := failedOnItsOwn(&failing); got != failed {
		t.Errorf("a test that failed: %v, want failed", got)
	}
}

// TestBreakFunc checks that the function the debugger sets its breakpoint on is the one the
// debuggee calls.
func TestBreakFunc(t *testing.T) {
	if got := runtime.FuncForPC(reflect.ValueOf(debugBreak).Pointer()).Name(); got != wire.BreakFunc {
		t.Errorf("the debuggee calls %s; worker.BreakFunc names %s", got, wire.BreakFunc)
	}
}

// sendRecv is a test of n sends and receives on a buffered channel, and, if stuck, a last
// receive that no send matches: a deadlock.
func sendRecv(n int, stuck bool) explorer.Harness {
	return explorer.Body(func() {
		ch := rt.MakeChan[int](1)
		for i := range n {
			rt.Send(ch, i)
			rt.Recv(ch)
		}
		if stuck {
			rt.Recv(ch)
		}
	})
}

// TestRunTooLong: a run with a bug whose answer would be over heddle's limit is refused at
// once, saying so, where the worker used to encode hundreds of megabytes for the controller to
// refuse; a shorter one is answered.
func TestRunTooLong(t *testing.T) {
	defer func(n int) { limitSteps = n }(limitSteps)
	limitSteps = 1000
	for _, tc := range []struct {
		sends int
		want  wire.MessageType
	}{{100, wire.MsgResult}, {2000, wire.MsgError}} {
		m := serveRun(sendRecv(tc.sends, true), wire.Request{Cmd: wire.CmdRun, Guide: &wire.Guide{}})
		if m.Type != tc.want || tc.want == wire.MsgError && !strings.Contains(m.Error, "over heddle's limit of 256 MB") {
			t.Errorf("%d sends: %s message (%s), want %s", tc.sends, m.Type, m.Error, tc.want)
		}
	}
}

// TestRunUntold: a long run without a finding is answered without its steps (Result.Untold);
// a long run with a bug, and a short one, carry them.
func TestRunUntold(t *testing.T) {
	defer func(n int) { untoldSteps = n }(untoldSteps)
	untoldSteps = 1000
	for _, tc := range []struct {
		name   string
		sends  int
		bug    bool
		untold bool
	}{{"short", 100, false, false}, {"long", 2000, false, true}, {"long bug", 2000, true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			m := serveRun(sendRecv(tc.sends, tc.bug), wire.Request{Cmd: wire.CmdRun, Guide: &wire.Guide{}})
			if m.Type != wire.MsgResult {
				t.Fatalf("%s message (%s), want a result", m.Type, m.Error)
			}
			r := m.Result
			if r.Untold != tc.untold || r.Steps < tc.sends || (len(r.Events) == 0) != tc.untold || r.Verdict.Kind.Bug() != tc.bug {
				t.Errorf("untold %v, %d steps, %d events, verdict %s; want untold %v, a bug %v", r.Untold, r.Steps, len(r.Events), r.Verdict.Kind, tc.untold, tc.bug)
			}
		})
	}
}

// TestRunStopped: a run that the end of the time budget stops is answered with its verdict
// and length and without its steps, which the exploration, ending with it, does not need; a
// run that ends on its own carries them.
func TestRunStopped(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sends   int
		maxTime time.Duration
		want    rt.VerdictKind
	}{{"ends", 100, time.Hour, rt.VerdictOK}, {"stopped", 1 << 30, 100 * time.Millisecond, rt.VerdictStopped}} {
		t.Run(tc.name, func(t *testing.T) {
			m := serveRun(sendRecv(tc.sends, false), wire.Request{Cmd: wire.CmdRun, Guide: &wire.Guide{}, Options: wire.Options{MaxTime: tc.maxTime}})
			if m.Type != wire.MsgResult || m.Result.Verdict.Kind != tc.want {
				t.Fatalf("%s message (%s), verdict %v: want a result, %s", m.Type, m.Error, m.Result, tc.want)
			}
			stopped := tc.want == rt.VerdictStopped
			if m.Result.Steps == 0 || (len(m.Result.Events) == 0) != stopped {
				t.Errorf("a run of %d steps answered with %d events", m.Result.Steps, len(m.Result.Events))
			}
		})
	}
}
