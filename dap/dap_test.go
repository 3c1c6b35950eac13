package dap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/heddledbg/heddle/debugger"
	"github.com/heddledbg/heddle/record"
)

const buildTimeout = 3 * time.Minute

// launchBank starts a session on testdata/bank's TestTransfer with a breakpoint at line, for
// a client that takes variables' types, as VS Code does.
func launchBank(t testing.TB, line int, extra map[string]any) (*client, string) {
	t.Helper()
	return launchBankAs(t, true, line, extra)
}

// launchBankAs is launchBank for a client that takes variables' types or not.
func launchBankAs(t testing.TB, types bool, line int, extra map[string]any) (*client, string) {
	t.Helper()
	c := newClient(t)
	seq := c.send(&godap.InitializeRequest{Request: godap.Request{Command: "initialize"}, Arguments: godap.InitializeRequestArguments{AdapterID: "heddle", LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path", SupportsVariableType: types}})
	var caps struct {
		SupportsStepBack bool `json:"supportsStepBack"`
	}
	c.decode(c.response(seq, 10*time.Second).Body, &caps)
	if !caps.SupportsStepBack {
		t.Fatalf("initialize: supportsStepBack is false")
	}
	dir, _ := filepath.Abs("testdata/bank")
	args := map[string]any{"mode": "test", "program": dir, "args": []string{"-test.run", "^TestTransfer$"}}
	for k, v := range extra {
		args[k] = v
	}
	seq = c.custom("launch", args)
	c.response(seq, buildTimeout)
	c.event("initialized", 10*time.Second)
	src := filepath.Join(dir, "bank.go")
	// As VS Code does, whether or not any filter is on.
	c.response(c.send(&godap.SetExceptionBreakpointsRequest{Request: godap.Request{Command: "setExceptionBreakpoints"},
		Arguments: godap.SetExceptionBreakpointsArguments{Filters: []string{}}}), 10*time.Second)
	if line > 0 {
		seq = c.send(&godap.SetBreakpointsRequest{Request: godap.Request{Command: "setBreakpoints"}, Arguments: godap.SetBreakpointsArguments{
			Source: godap.Source{Path: src}, Breakpoints: []godap.SourceBreakpoint{{Line: line}}}})
		var b struct {
			Breakpoints []struct {
				Verified bool `json:"verified"`
				Line     int  `json:"line"`
			} `json:"breakpoints"`
		}
		c.decode(c.response(seq, 30*time.Second).Body, &b)
		if len(b.Breakpoints) != 1 || !b.Breakpoints[0].Verified {
			t.Fatalf("breakpoint at bank.go:%d not verified: %+v", line, b)
		}
	}
	seq = c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}})
	c.response(seq, time.Minute)
	return c, src
}

func TestBreakpointThreadsAndStacks(t *testing.T) {
	c, src := launchBank(t, 15, nil)
	st := c.stopped(time.Minute)
	if st.Reason != "breakpoint" {
		t.Fatalf("stopped for %q, want breakpoint", st.Reason)
	}
	fs := c.stack(st.ThreadID)
	if len(fs) == 0 || fs[0].Line != 15 || fs[0].Source.Path != src || !strings.Contains(fs[0].Name, "Transfer") {
		t.Fatalf("top frame = %+v, want Transfer at %s:15", fs, src)
	}
	for _, f := range fs {
		if debugger.HiddenFrame(f.Name, f.Source.Path) {
			t.Errorf("frame %s of heddle's runtime is shown", f.Name)
		}
	}
	ths := c.threads()
	var names []string
	for _, th := range ths {
		names = append(names, th.Name)
		if !strings.HasPrefix(th.Name, "G1") {
			t.Errorf("thread %q is not named by its logical id", th.Name)
		}
	}
	t.Logf("threads: %s", strings.Join(names, " | "))
	if len(ths) < 2 {
		t.Errorf("threads = %v, want the root and its goroutines", names)
	}
	if v := c.evaluate(st.ThreadID, "amount"); v != "10" && v != "20" {
		t.Errorf("amount = %q, want 10 or 20", v)
	}
}

// bugFound is a heddle/bugFound event's body.
type bugFound struct {
	ID  int `json:"id"`
	Bug Bug `json:"bug"`
}

func TestExploreReplayStepBack(t *testing.T) {
	c, src := launchBank(t, 15, nil)
	st := c.stopped(time.Minute)
	if st.Reason != "breakpoint" {
		t.Fatalf("stopped for %q, want breakpoint", st.Reason)
	}
	start := time.Now()
	seq := c.custom("heddle/explore", map[string]any{"strategy": "dpor", "budget": "20s"})
	c.response(seq, 10*time.Second)
	var found bugFound
	for {
		m := c.event("heddle/bugFound", time.Minute)
		c.decode(m.Body, &found)
		if found.Bug.Kind == "deadlock" && found.Bug.Schedule != "" {
			break
		}
		t.Logf("bug found after %v: %s %s", time.Since(start), found.Bug.Kind, found.Bug.Message)
	}
	done := c.event("heddle/exploreDone", time.Minute)
	t.Logf("explore done: %s", done.Body)
	atLock := 0
	for _, g := range found.Bug.Goroutines {
		if g.Op == "lock" && g.Position != nil && g.Position.File == src && g.Position.Line == 15 {
			atLock++
		}
	}
	if atLock != 2 {
		t.Fatalf("deadlock goroutines = %+v, want 2 blocked in Lock at bank.go:15", found.Bug.Goroutines)
	}

	// Replay: every goroutine of the deadlock stands at its blocking Lock.
	seq = c.custom("heddle/replay", map[string]any{"bug": found.Bug.ID})
	c.response(seq, time.Minute)
	st = c.stopped(time.Minute)
	if st.Reason != "exception" || !strings.Contains(st.Description, "deadlock") {
		t.Fatalf("replay stopped with %+v, want a deadlock exception", st)
	}
	var info struct {
		ExceptionID string `json:"exceptionId"`
		Description string `json:"description"`
	}
	c.decode(c.response(c.send(&godap.ExceptionInfoRequest{Request: godap.Request{Command: "exceptionInfo"},
		Arguments: godap.ExceptionInfoArguments{ThreadId: st.ThreadID}}), 10*time.Second).Body, &info)
	if info.ExceptionID != "deadlock" || info.Description == "" {
		t.Errorf("exceptionInfo = %+v, want the deadlock", info)
	}
	blocked := 0
	for _, th := range c.threads() {
		t.Logf("thread %d %s", th.ID, th.Name)
		if th.Name == "G1" || strings.HasPrefix(th.Name, "G1 ") {
			continue
		}
		fs := c.stack(th.ID)
		if len(fs) == 0 {
			t.Fatalf("%s has no frames", th.Name)
		}
		t.Logf("%s at %s:%d (%s)", th.Name, filepath.Base(fs[0].Source.Path), fs[0].Line, fs[0].Name)
		if strings.Contains(th.Name, "G1.") {
			if fs[0].Source.Path != src || fs[0].Line != 15 {
				t.Errorf("%s blocks at %s:%d, want bank.go:15", th.Name, fs[0].Source.Path, fs[0].Line)
			}
			blocked++
		}
	}
	if blocked != 2 {
		t.Fatalf("%d transfer goroutines at their Lock, want 2", blocked)
	}

	// Step back three times from the deadlock: each goes to an earlier line of the stopped
	// goroutine, with its variables as they were.
	thread := st.ThreadID
	prev := c.stack(thread)[0].Line
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		seq = c.send(&godap.StepBackRequest{Request: godap.Request{Command: "stepBack"}, Arguments: godap.StepBackArguments{ThreadId: thread}})
		c.response(seq, time.Minute)
		st = c.stopped(time.Minute)
		fs := c.stack(st.ThreadID)
		t.Logf("step back %d: %s:%d (%s) in %v", i+1, filepath.Base(fs[0].Source.Path), fs[0].Line, fs[0].Name, time.Since(t0))
		if fs[0].Line == prev && i == 0 {
			t.Errorf("step back stayed on line %d", prev)
		}
		prev = fs[0].Line
		thread = st.ThreadID
	}
}

// stepBack steps back on thread and returns where it stopped.
func (c *client) stepBack(thread int) (stopped, frame) {
	c.t.Helper()
	seq := c.send(&godap.StepBackRequest{Request: godap.Request{Command: "stepBack"}, Arguments: godap.StepBackArguments{ThreadId: thread}})
	c.response(seq, time.Minute)
	st := c.stopped(time.Minute)
	return st, c.stack(st.ThreadID)[0]
}

func TestStepBackLines(t *testing.T) {
	c, _ := launchBank(t, 17, nil)
	st := c.stopped(time.Minute)
	fs := c.stack(st.ThreadID)
	if fs[0].Line != 17 {
		t.Fatalf("stopped at line %d, want 17", fs[0].Line)
	}
	from := c.evaluate(st.ThreadID, "from.balance")
	for _, want := range []int{16, 15, 14, 13} {
		var f frame
		st, f = c.stepBack(st.ThreadID)
		if f.Line != want || !strings.HasSuffix(f.Source.Path, "bank.go") {
			t.Fatalf("step back reached %s:%d, want bank.go:%d", f.Source.Path, f.Line, want)
		}
	}
	if got := c.evaluate(st.ThreadID, "from.balance"); got != from {
		t.Errorf("from.balance after stepping back = %s, want %s (nothing was transferred yet)", got, from)
	}
}

func (c *client) cont(thread int) stopped {
	c.t.Helper()
	seq := c.send(&godap.ContinueRequest{Request: godap.Request{Command: "continue"}, Arguments: godap.ContinueArguments{ThreadId: thread}})
	c.response(seq, time.Minute)
	return c.stopped(time.Minute)
}

func TestReverseContinue(t *testing.T) {
	c, _ := launchBank(t, 13, nil)
	first := c.stopped(time.Minute)
	amount1 := c.evaluate(first.ThreadID, "amount")
	second := c.cont(first.ThreadID)
	if f := c.stack(second.ThreadID)[0]; f.Line != 13 || second.ThreadID == first.ThreadID {
		t.Fatalf("second stop: thread %d at line %d, want the other goroutine at line 13", second.ThreadID, f.Line)
	}
	seq := c.send(&godap.ReverseContinueRequest{Request: godap.Request{Command: "reverseContinue"}, Arguments: godap.ReverseContinueArguments{ThreadId: second.ThreadID}})
	c.response(seq, time.Minute)
	back := c.stopped(time.Minute)
	f := c.stack(back.ThreadID)[0]
	if back.ThreadID != first.ThreadID || f.Line != 13 || back.Reason != "breakpoint" {
		t.Fatalf("reverse continue stopped on thread %d at line %d (%s), want thread %d at line 13", back.ThreadID, f.Line, back.Reason, first.ThreadID)
	}
	if got := c.evaluate(back.ThreadID, "amount"); got != amount1 {
		t.Errorf("amount = %s after reverse continue, want %s", got, amount1)
	}
	// Before the first hit there is none: reverse continue goes to the start.
	seq = c.send(&godap.ReverseContinueRequest{Request: godap.Request{Command: "reverseContinue"}, Arguments: godap.ReverseContinueArguments{ThreadId: back.ThreadID}})
	c.response(seq, time.Minute)
	start := c.stopped(time.Minute)
	if f := c.stack(start.ThreadID)[0]; start.ThreadID != 1 || !strings.Contains(f.Name, "TestTransfer") {
		t.Errorf("reverse continue to the start stopped in %s on thread %d, want TestTransfer on G1", f.Name, start.ThreadID)
	}
}

// TestReverseContinueNewBreakpoint adds a breakpoint after two continues: the hits they met
// no longer tell the latest earlier one, which is on the new line.
func TestReverseContinueNewBreakpoint(t *testing.T) {
	c, src := launchBank(t, 17, nil)
	first := c.stopped(time.Minute)
	second := c.cont(first.ThreadID)
	if second.ThreadID == first.ThreadID {
		t.Fatalf("both stops on thread %d, want the two goroutines", first.ThreadID)
	}
	setBreakpoints(c, src, godap.SourceBreakpoint{Line: 15}, godap.SourceBreakpoint{Line: 17})
	seq := c.send(&godap.ReverseContinueRequest{Request: godap.Request{Command: "reverseContinue"}, Arguments: godap.ReverseContinueArguments{ThreadId: second.ThreadID}})
	c.response(seq, time.Minute)
	back := c.stopped(time.Minute)
	if f := c.stack(back.ThreadID)[0]; back.ThreadID != second.ThreadID || f.Line != 15 {
		t.Errorf("reverse continue stopped on thread %d at line %d, want thread %d at the new breakpoint, line 15", back.ThreadID, f.Line, second.ThreadID)
	}
}

// TestStepBackInLoop steps back from a breakpoint hit in a loop's fourth iteration, with no
// scheduling point in the loop: the line before is in the same iteration, not the first.
func TestStepBackInLoop(t *testing.T) {
	c := launch(t, "TestLoop", nil, func(c *client, src string) {
		setBreakpoints(c, filepath.Join(filepath.Dir(src), "bank_test.go"), godap.SourceBreakpoint{Line: 77, Condition: "i == 3"})
	})
	st := c.stopped(time.Minute)
	if got := c.evaluate(st.ThreadID, "i"); got != "3" {
		t.Fatalf("stopped with i = %s, want 3", got)
	}
	// The loop's line is where i++ runs, and where Go's debug information has no i.
	for _, want := range []struct {
		line int
		sum  string
	}{{76, "3"}, {77, "1"}, {76, "1"}, {77, "0"}} {
		var f frame
		st, f = c.stepBack(st.ThreadID)
		if got := c.evaluate(st.ThreadID, "sum"); f.Line != want.line || got != want.sum {
			t.Fatalf("step back reached line %d with sum = %s, want line %d with sum = %s", f.Line, got, want.line, want.sum)
		}
	}
	if got := c.evaluate(st.ThreadID, "i"); got != "1" {
		t.Errorf("i = %s after the step backs, want 1", got)
	}
}

// TestRunnableSpawned stops between a go statement and the next scheduling point: the new
// goroutine may run next, and heddle/runnable lists it.
func TestRunnableSpawned(t *testing.T) {
	c := launch(t, "TestTransfer", nil, func(c *client, src string) {
		setBreakpoints(c, filepath.Join(filepath.Dir(src), "bank_test.go"), godap.SourceBreakpoint{Line: 13})
	})
	c.stopped(time.Minute)
	var r struct {
		Goroutines []Runnable `json:"goroutines"`
	}
	c.decode(c.response(c.custom("heddle/runnable", nil), 10*time.Second).Body, &r)
	var got []string
	for _, g := range r.Goroutines {
		got = append(got, g.ID+" "+g.Op)
		if g.ID == "G1.1" && strings.HasPrefix(g.Op, "start ") && g.Position != nil && strings.HasSuffix(g.Position.File, "bank_test.go") && g.Position.Line == 12 {
			return
		}
	}
	t.Errorf("runnable at the second go statement: %q, want G1.1 about to start its function at bank_test.go:12", got)
}

func TestScheduleNextToDeadlock(t *testing.T) {
	c, _ := launchBank(t, 14, nil)
	st := c.stopped(time.Minute)
	seq := c.custom("heddle/runnable", nil)
	var r struct {
		Goroutines []Runnable `json:"goroutines"`
	}
	c.decode(c.response(seq, 10*time.Second).Body, &r)
	var other string
	for _, g := range r.Goroutines {
		if g.ID != "G1" && g.ID != c.threadName(st.ThreadID) {
			other = g.ID
		}
	}
	if other == "" {
		t.Fatalf("runnable = %+v, want the other transfer goroutine", r.Goroutines)
	}
	seq = c.custom("heddle/scheduleNext", map[string]any{"goroutine": other})
	// A client that does not know heddle's request asks for frames of the stop it saw last:
	// the answer comes either from the stopped program or, once it runs, as an error not
	// shown to the user.
	crossing := c.custom("stackTrace", map[string]any{"threadId": st.ThreadID, "startFrame": 1, "levels": 19})
	if r := c.response(seq, time.Minute); r.Command != "heddle/scheduleNext" {
		t.Errorf("scheduleNext answered as %q", r.Command)
	}
	if r := c.responseAny(crossing, time.Minute); !r.Success && strings.Contains(string(r.Body), `"showUser":true`) {
		t.Errorf("a stackTrace crossing scheduleNext failed with an error shown to the user: %s", r.Body)
	}
	// The client learns that the program runs before it stops again.
	c.event("continued", time.Minute)
	for _, m := range c.queue {
		if m.Type == "event" && m.Event == "stopped" && !strings.Contains(string(m.Body), `"preserveFocusHint":true`) {
			t.Errorf("a stop came before the continued event of scheduleNext: %s", m.Body)
		}
	}
	next := c.stopped(time.Minute)
	if name := c.threadName(next.ThreadID); name != other {
		t.Fatalf("after scheduleNext %s, stopped on %s", other, name)
	}
	// The other transfer now takes its first lock: each holds one, and the run deadlocks.
	end := c.cont(next.ThreadID)
	if end.Reason == "breakpoint" {
		// The other transfer at line 14, holding its first lock.
		if name := c.threadName(end.ThreadID); name != other {
			t.Fatalf("stopped at the breakpoint on %s, want %s", name, other)
		}
		end = c.cont(end.ThreadID)
	}
	if end.Reason != "exception" || !strings.Contains(end.Description, "deadlock") {
		t.Fatalf("continuing after the hand-made schedule stopped with %+v, want a deadlock", end)
	}
	path := filepath.Join(t.TempDir(), "hand.schedule.json")
	seq = c.custom("heddle/saveSchedule", map[string]any{"path": path})
	c.response(seq, 10*time.Second)

	// The saved schedule replays the deadlock in a new session.
	c2 := newClient(t)
	seq = c2.send(&godap.InitializeRequest{Request: godap.Request{Command: "initialize"}, Arguments: godap.InitializeRequestArguments{AdapterID: "heddle", LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path"}})
	c2.response(seq, 10*time.Second)
	seq = c2.custom("launch", map[string]any{"mode": "replay", "schedule": path})
	c2.response(seq, buildTimeout)
	c2.event("initialized", 10*time.Second)
	c2.response(c2.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	if st := c2.stopped(time.Minute); st.Reason != "exception" || !strings.Contains(st.Description, "deadlock") {
		t.Fatalf("replaying the saved schedule stopped with %+v, want the deadlock", st)
	}
}

func (c *client) threadName(id int) string {
	c.t.Helper()
	for _, th := range c.threads() {
		if th.ID == id {
			name, _, _ := strings.Cut(th.Name, " ")
			return name
		}
	}
	return ""
}

// exploreDeadlock stops testdata/bank's TestTransfer at a breakpoint and explores from there
// until the transfer deadlock is found and the exploration is done.
func exploreDeadlock(t *testing.T) (*client, string, bugFound) {
	t.Helper()
	c, src := launchBank(t, 15, nil)
	c.stopped(time.Minute)
	c.response(c.custom("heddle/explore", map[string]any{"strategy": "dpor", "budget": "20s"}), 10*time.Second)
	var found bugFound
	for found.Bug.Kind != "deadlock" || found.Bug.Schedule == "" {
		c.decode(c.event("heddle/bugFound", time.Minute).Body, &found)
	}
	c.event("heddle/exploreDone", time.Minute)
	return c, src, found
}

// replayDeadlock explores testdata/bank's TestTransfer for its deadlock and replays it,
// returning the stop at the deadlock.
func replayDeadlock(t *testing.T) (*client, string, stopped) {
	t.Helper()
	c, src, found := exploreDeadlock(t)
	c.response(c.custom("heddle/replay", map[string]any{"bug": found.Bug.ID}), time.Minute)
	st := c.stopped(time.Minute)
	if st.Reason != "exception" || !strings.Contains(st.Description, "deadlock") {
		t.Fatalf("replay stopped with %+v, want a deadlock exception", st)
	}
	return c, src, st
}

// TestReverseContinueFromStepBack reverse-continues from a place that stepping back reached,
// in the middle of a stretch between two checkpoints whose later part hits the breakpoint:
// that later hit is not before the place, the other goroutine's is.
func TestReverseContinueFromStepBack(t *testing.T) {
	c, src, st := replayDeadlock(t)
	thread := st.ThreadID
	var f frame
	for i := 0; i < 2; i++ {
		st, f = c.stepBack(thread)
		thread = st.ThreadID
	}
	me := c.threadName(thread)
	if f.Line != 13 {
		t.Fatalf("two step backs from the deadlock reached %s at line %d, want line 13", me, f.Line)
	}
	setBreakpoints(c, src, godap.SourceBreakpoint{Line: 14})
	seq := c.send(&godap.ReverseContinueRequest{Request: godap.Request{Command: "reverseContinue"}, Arguments: godap.ReverseContinueArguments{ThreadId: thread}})
	c.response(seq, time.Minute)
	back := c.stopped(time.Minute)
	f = c.stack(back.ThreadID)[0]
	if other := c.threadName(back.ThreadID); other == me || f.Line != 14 || back.Reason != "breakpoint" {
		t.Fatalf("reverse continue from %s at line 13 stopped on %s at line %d (%s), want the other goroutine's earlier hit at line 14", me, other, f.Line, back.Reason)
	}
}

// stepOver steps over a line on thread and returns the stop, failing if the session ends.
func (c *client) stepOver(thread int) stopped {
	c.t.Helper()
	c.response(c.send(&godap.NextRequest{Request: godap.Request{Command: "next"}, Arguments: godap.NextArguments{ThreadId: thread}}), time.Minute)
	m := c.next("stopped or terminated", time.Minute, func(m *message) bool {
		return m.Event == "stopped" && !strings.Contains(string(m.Body), `"preserveFocusHint":true`) || m.Event == "terminated"
	})
	if m.Event == "terminated" {
		c.t.Fatalf("the session ended instead of stopping; before: %s", c.pending())
	}
	var st stopped
	c.decode(m.Body, &st)
	return st
}

// TestStepPastEnd steps and continues past the end of the run: the session stays, stopped
// on the run's last line, and the user can step back from there.
func TestStepPastEnd(t *testing.T) {
	c := launch(t, "TestTransfer", nil, func(c *client, src string) {
		setBreakpoints(c, filepath.Join(filepath.Dir(src), "bank_test.go"), godap.SourceBreakpoint{Line: 14})
	})
	st := c.stopped(time.Minute)
	for i := 0; st.Reason != "end"; i++ {
		if i == 3 {
			t.Fatalf("three steps from wg.Wait did not reach the end of the run: stopped with %+v", st)
		}
		st = c.stepOver(st.ThreadID)
	}
	if f := c.stack(st.ThreadID)[0]; f.Line != 15 || !strings.Contains(st.Description, "ok") {
		t.Errorf("the end of the run is at line %d, described %q; want TestTransfer's closing brace, line 15, and the verdict ok", f.Line, st.Description)
	}
	// Past the end, a step or continue stays at the end.
	if again := c.stepOver(st.ThreadID); again.Reason != "end" {
		t.Errorf("a step at the end of the run stopped with %+v, want the end again", again)
	}
	c.response(c.send(&godap.ContinueRequest{Request: godap.Request{Command: "continue"}, Arguments: godap.ContinueArguments{ThreadId: st.ThreadID}}), time.Minute)
	if again := c.stopped(time.Minute); again.Reason != "end" {
		t.Errorf("a continue at the end of the run stopped with %+v, want the end again", again)
	}
	if _, f := c.stepBack(st.ThreadID); f.Line != 14 {
		t.Errorf("step back from the end reached line %d, want wg.Wait, line 14", f.Line)
	}
}

// TestDeadlockThreads replays the transfer deadlock after a stop at a breakpoint: the
// threads' names fit an editor's call stack, the stop's label is short with the message
// beside it, and the other goroutine of the deadlock is shown blocked, not still "paused on
// breakpoint".
func TestDeadlockThreads(t *testing.T) {
	c, _, st := replayDeadlock(t)
	if st.Description != "deadlock" || !strings.Contains(st.Text, "deadlock") || len(st.Text) <= len(st.Description) {
		t.Errorf("the deadlock stop is described %q, text %q; want the label deadlock and the whole message", st.Description, st.Text)
	}
	threads := c.threads() // answered after the stop's events
	states := map[int]stopped{}
	for _, m := range c.queue { // the latest state of each thread wins
		var s stopped
		if m.Event == "stopped" && json.Unmarshal(m.Body, &s) == nil && s.PreserveFocusHint {
			states[s.ThreadID] = s
		}
	}
	name := regexp.MustCompile(`^G1(\.\d+)* [\w.]+\.go:\d+ \S+$`)
	inLock := 0
	for _, th := range threads {
		if !name.MatchString(th.Name) || len(th.Name) > 32 {
			t.Errorf("thread %d is named %q, want its id, place and function, as G1.2 bank.go:15 Transfer", th.ID, th.Name)
		}
		if !strings.HasSuffix(th.Name, " bank.go:15 Transfer") {
			continue
		}
		inLock++
		if th.ID == st.ThreadID {
			continue
		}
		if s, ok := states[th.ID]; !ok || s.Reason != "blocked" || s.Description != "blocked" || s.Text != "blocked in to.mu.Lock() at bank.go:15" {
			t.Errorf("%s: its state at the deadlock is %+v, want blocked in to.mu.Lock() at bank.go:15", th.Name, s)
		}
	}
	if inLock != 2 {
		t.Errorf("%d threads named at their Lock at bank.go:15, want 2", inLock)
	}
}

// TestDeadlockReport replays the transfer deadlock: its exception says what heddle test says
// of it, one line per goroutine with what it blocks on and who holds it, and the wait-for
// cycle, the same text as the report of the trace the search saved.
func TestDeadlockReport(t *testing.T) {
	c, _, found := exploreDeadlock(t)
	c.response(c.custom("heddle/replay", map[string]any{"bug": found.Bug.ID}), time.Minute)
	st := c.stopped(time.Minute)
	if st.Reason != "exception" || st.Description != "deadlock" {
		t.Fatalf("the replay stopped with %+v, want the deadlock", st)
	}
	var info struct {
		ExceptionID string `json:"exceptionId"`
		Description string `json:"description"`
	}
	c.decode(c.response(c.send(&godap.ExceptionInfoRequest{Request: godap.Request{Command: "exceptionInfo"},
		Arguments: godap.ExceptionInfoArguments{ThreadId: st.ThreadID}}), time.Minute).Body, &info)
	t.Logf("exceptionInfo:\n%s", info.Description)
	tr, err := record.ReadTrace(found.Bug.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if want := tr.Verdict.Message + "\n" + tr.VerdictReport("  "); info.ExceptionID != "deadlock" || info.Description != want {
		t.Errorf("exceptionInfo: %s %q, want deadlock %q", info.ExceptionID, info.Description, want)
	}
	for _, re := range []string{
		`(?m)^  G1\.\d +blocked in to\.mu\.Lock\(\) at bank\.go:15, held by G1\.\d as from\.mu since bank\.go:13$`,
		`(?m)^  wait-for cycle: G1\.(\d) → G1\.\d → G1\.\d$`,
	} {
		if n := len(regexp.MustCompile(re).FindAllString(info.Description, -1)); n == 0 {
			t.Errorf("exceptionInfo does not say %s", re)
		}
	}
}

// TestFailedTestReport replays a lost deposit: the failed test's exception carries its log,
// which the debuggee does not capture (its output goes to the console), from the run's trace.
func TestFailedTestReport(t *testing.T) {
	c := launch(t, "TestDeposit", map[string]any{"stopOnEntry": true}, nil)
	c.stopped(time.Minute)
	c.response(c.custom("heddle/explore", map[string]any{"strategy": "dfs", "budget": "10s"}), 10*time.Second)
	var found bugFound
	for found.Bug.Schedule == "" {
		c.decode(c.event("heddle/bugFound", time.Minute).Body, &found)
	}
	c.event("heddle/exploreDone", time.Minute)
	const want = "balance = 50, want 100"
	if !strings.Contains(found.Bug.Message, want) {
		t.Errorf("the search found %s %q, want the test's message %q", found.Bug.Kind, found.Bug.Message, want)
	}
	c.response(c.custom("heddle/replay", map[string]any{"bug": found.Bug.ID}), time.Minute)
	st := c.stopped(time.Minute)
	var info struct {
		Description string `json:"description"`
	}
	c.decode(c.response(c.send(&godap.ExceptionInfoRequest{Request: godap.Request{Command: "exceptionInfo"},
		Arguments: godap.ExceptionInfoArguments{ThreadId: st.ThreadID}}), time.Minute).Body, &info)
	if st.Reason != "exception" || !strings.Contains(info.Description, want) {
		t.Errorf("the replay stopped with %+v, exceptionInfo %q; want the failed test's message %q", st, info.Description, want)
	}
}

// cliReport reads what heddle test printed of a bug, saved in testdata: its message, then each
// goroutine's line and the wait-for cycle, indented by four spaces as the CLI prints them. It
// returns the same text as a debugger's exception would say it, indented by two.
func cliReport(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		if !strings.HasPrefix(l, "    ") {
			t.Fatalf("testdata/%s: %q is not indented as heddle test's report", name, l)
		}
		l = strings.TrimPrefix(l, "    ")
		if len(lines) > 0 {
			l = "  " + l
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestKernelBugReport replays bugs of the kernel corpus found from the start of their TestBug:
// the AB-BA deadlock of abbalock and the receive that ctxrecvleak leaks. Each exception says,
// in the same words, what heddle test -run '^TestBug$' prints of the bug (testdata/*-cli.txt):
// the message, then for each goroutine what it blocks on and who holds it since where, and
// the wait-for cycle.
func TestKernelBugReport(t *testing.T) {
	for _, k := range []struct{ kernel, kind string }{{"abbalock", "deadlock"}, {"ctxrecvleak", "leak"}} {
		t.Run(k.kernel, func(t *testing.T) {
			want := cliReport(t, k.kernel+"-cli.txt")
			dir, err := filepath.Abs(filepath.Join("../testdata/kernels", k.kernel))
			if err != nil {
				t.Fatal(err)
			}
			c := newClient(t)
			c.entryOfTestBug(dir)
			var r struct{ ID int }
			c.decode(c.response(c.custom("heddle/explore", map[string]any{"budget": "20s"}), 10*time.Second).Body, &r)
			var found bugFound
			for found.Bug.Kind != k.kind || found.Bug.Schedule == "" {
				c.decode(c.next("the "+k.kind, time.Minute, func(m *message) bool { return c.ofExploration(m, "heddle/bugFound", r.ID) }).Body, &found)
			}
			c.response(c.custom("heddle/cancel", map[string]any{"id": r.ID}), 10*time.Second)
			c.response(c.custom("heddle/replay", map[string]any{"bug": found.Bug.ID}), time.Minute)
			st := c.stopped(time.Minute)
			if st.Reason != "exception" || st.Description != k.kind {
				t.Fatalf("the replay stopped with %+v, want the %s", st, k.kind)
			}
			var info struct {
				ExceptionID string `json:"exceptionId"`
				Description string `json:"description"`
			}
			c.decode(c.response(c.send(&godap.ExceptionInfoRequest{Request: godap.Request{Command: "exceptionInfo"},
				Arguments: godap.ExceptionInfoArguments{ThreadId: st.ThreadID}}), time.Minute).Body, &info)
			if info.ExceptionID != k.kind || info.Description != want {
				t.Errorf("exceptionInfo: %s\n%s\nwant %s, as heddle test says it:\n%s", info.ExceptionID, info.Description, k.kind, want)
			}
		})
	}
}

// TestExploreWarnings explores the kernel atomicflag from the start of its TestBug, which
// cannot fail: the end of the search reports the atomicity warning that heddle test reports
// for it, in the same words (the kernel's heddle.golden, which cmd/heddle's TestKernels checks).
func TestExploreWarnings(t *testing.T) {
	golden, err := os.ReadFile("../testdata/kernels/atomicflag/heddle.golden")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(golden), "\n") {
		if m, ok := strings.CutPrefix(l, "warning: "); ok {
			want = append(want, m)
		}
	}
	if len(want) == 0 {
		t.Fatal("atomicflag's heddle.golden has no warning")
	}
	dir, err := filepath.Abs("../testdata/kernels/atomicflag")
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t)
	c.entryOfTestBug(dir)
	var r struct{ ID int }
	c.decode(c.response(c.custom("heddle/explore", map[string]any{"budget": "20s"}), 10*time.Second).Body, &r)
	var done ExploreDone
	c.decode(c.next("the end of the search", 2*time.Minute, func(m *message) bool { return c.ofExploration(m, "heddle/exploreDone", r.ID) }).Body, &done)
	var got []string
	for _, w := range done.Warnings {
		got = append(got, w.Message)
	}
	if done.Bugs != 0 || !slices.Equal(got, want) {
		t.Errorf("the search ended with %d bugs and warnings %q, want none and heddle test's %q", done.Bugs, got, want)
	}
}

// entryOfTestBug launches TestBug of the kernel in dir and waits for its stop on entry.
func (c *client) entryOfTestBug(dir string) {
	c.t.Helper()
	initialize(c)
	c.response(c.custom("launch", map[string]any{"mode": "test", "program": dir, "args": []string{"-test.run", "^TestBug$"}, "stopOnEntry": true}), buildTimeout)
	c.event("initialized", 30*time.Second)
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	c.stopped(time.Minute)
}

// TestLaunchSubtest launches a test with a -test.run that names one of its subtests, as VS
// Code's Go extension does for a subtest's code lens: heddle debugs the test, runs that
// subtest alone, as go test would, and stops at its breakpoint, not at its sibling's.
func TestLaunchSubtest(t *testing.T) {
	c := newClient(t)
	initialize(c)
	dir, _ := filepath.Abs("testdata/subtests")
	c.response(c.custom("launch", map[string]any{"mode": "test", "program": dir, "args": []string{"-test.run", "^TestTwo$/^second$"}}), buildTimeout)
	c.event("initialized", 30*time.Second)
	setBreakpoints(c, filepath.Join(dir, "subtests_test.go"), godap.SourceBreakpoint{Line: 7}, godap.SourceBreakpoint{Line: 10})
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	st := c.stopped(time.Minute)
	if f := c.stack(st.ThreadID)[0]; f.Line != 10 {
		t.Fatalf("stopped at subtests_test.go:%d, want 10, in the subtest that -test.run selects", f.Line)
	}
}

// TestNoFIFOsLeft: Delve makes a FIFO for each of its debuggee's outputs, and leaves them when
// it is killed, as a step back kills the incarnations it replaces. They go in the session's
// directory, which the session removes, never in the user's TMPDIR.
func TestNoFIFOsLeft(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	c, _ := launchBank(t, 17, nil)
	st := c.stopped(time.Minute)
	for range 2 {
		st, _ = c.stepBack(st.ThreadID)
	}
	c.close()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type()&os.ModeNamedPipe != 0 {
			t.Errorf("the session left the named pipe %s in TMPDIR", e.Name())
		}
	}
}
