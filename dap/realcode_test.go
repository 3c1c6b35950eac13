package dap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/heddledbg/heddle/internal/spawn"
)

// moduleCopy downloads module (path@version) with the go command and copies it out of the
// module cache, which is read-only, into a temporary directory. A test of real code cannot
// run without it: when the module cannot be downloaded (no network, no proxy) the test is
// skipped, and says so loudly, since a skip hides whatever it was to show.
func moduleCopy(t testing.TB, module string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	var m struct{ Dir, Error string }
	if err == nil {
		err = json.Unmarshal(out, &m)
	}
	if err != nil || m.Dir == "" {
		t.Skipf("SKIPPED, NOTHING WAS TESTED: cannot download %s (%v %s): this test needs the module proxy", module, err, m.Error)
	}
	dst := t.TempDir()
	err = filepath.WalkDir(m.Dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(m.Dir, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s out of the module cache: %v", module, err)
	}
	return dst
}

// place is where a goroutine stopped, as file:line.
type place struct {
	File string
	Line int
}

func (p place) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// where returns where thread stands, by its top frame.
func (c *client) where(thread int) place {
	c.t.Helper()
	fs := c.stack(thread)
	if len(fs) == 0 {
		c.t.Fatalf("thread %d has no frames", thread)
	}
	return place{filepath.Base(fs[0].Source.Path), fs[0].Line}
}

// launchTest starts a session of adapter client c on test of the package in dir, with
// breakpoints at lines of file, and returns the first stop.
func (c *client) launchTest(heddle bool, dir, test, file string, lines ...int) stopped {
	c.t.Helper()
	initialize(c)
	args := map[string]any{"mode": "test", "program": dir, "args": []string{"-test.run", "^" + test + "$"}}
	if !heddle {
		// Delve builds and runs its test binary where go test would: in the package's
		// directory; the binary goes to a temporary one.
		args["cwd"], args["dlvCwd"], args["output"] = dir, dir, filepath.Join(c.t.TempDir(), "debug.test")
	}
	if m := c.responseAny(c.custom("launch", args), buildTimeout); !m.Success {
		c.t.Fatalf("launch failed: %s; the adapter said: %s", responseError(m), c.pending())
	}
	c.event("initialized", 30*time.Second)
	var bps []godap.SourceBreakpoint
	for _, l := range lines {
		bps = append(bps, godap.SourceBreakpoint{Line: l})
	}
	m := c.response(c.send(&godap.SetBreakpointsRequest{Request: godap.Request{Command: "setBreakpoints"}, Arguments: godap.SetBreakpointsArguments{
		Source: godap.Source{Path: filepath.Join(dir, file)}, Breakpoints: bps}}), 30*time.Second)
	var set godap.SetBreakpointsResponseBody
	c.decode(m.Body, &set)
	for i, bp := range set.Breakpoints {
		if !bp.Verified {
			c.t.Errorf("breakpoint at %s:%d not set: %s", file, lines[i], bp.Message)
		}
	}
	if c.t.Failed() {
		c.t.FailNow()
	}
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	return c.stopped(2 * time.Minute)
}

// newDelveClient starts a plain Delve DAP server, as dlv dap does (the test binary serves
// it, see ServeDelve), and returns a client connected to it.
func newDelveClient(t *testing.T) *client {
	t.Helper()
	dir := t.TempDir()
	cmd, conn, err := startDelve(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	c := &client{t: t, conn: conn, r: bufio.NewReader(conn), done: done, cancel: func() {
		// Delve ends its debuggee when its client disconnects, and then itself; whatever is
		// left is killed.
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		b, _ := json.Marshal(&message{Seq: 1 << 30, Type: "request", Command: "disconnect", Arguments: body(map[string]any{"terminateDebuggee": true})})
		if godap.WriteBaseMessage(conn, b) == nil {
			r := bufio.NewReader(conn)
			for {
				content, err := godap.ReadBaseMessage(r)
				if err != nil || bytes.Contains(content, []byte(`"command":"disconnect"`)) {
					break
				}
			}
		}
		spawn.Kill(cmd)
		done <- nil
	}}
	t.Cleanup(c.close)
	return c
}

// motion is a step of a scripted sequence.
type motion string

// move makes motion m on thread and returns the stop it ends with and where the stopping
// thread stands; ended is set when the program ran to its end instead.
func (c *client) move(m motion, thread int) (st stopped, at place, ended bool) {
	c.t.Helper()
	var req godap.RequestMessage
	switch m {
	case "next":
		req = &godap.NextRequest{Request: godap.Request{Command: "next"}, Arguments: godap.NextArguments{ThreadId: thread}}
	case "stepIn":
		req = &godap.StepInRequest{Request: godap.Request{Command: "stepIn"}, Arguments: godap.StepInArguments{ThreadId: thread}}
	case "stepOut":
		req = &godap.StepOutRequest{Request: godap.Request{Command: "stepOut"}, Arguments: godap.StepOutArguments{ThreadId: thread}}
	case "continue":
		req = &godap.ContinueRequest{Request: godap.Request{Command: "continue"}, Arguments: godap.ContinueArguments{ThreadId: thread}}
	case "stepBack":
		req = &godap.StepBackRequest{Request: godap.Request{Command: "stepBack"}, Arguments: godap.StepBackArguments{ThreadId: thread}}
	case "reverseContinue":
		req = &godap.ReverseContinueRequest{Request: godap.Request{Command: "reverseContinue"}, Arguments: godap.ReverseContinueArguments{ThreadId: thread}}
	default:
		c.t.Fatalf("no motion %q", m)
	}
	c.response(c.send(req), time.Minute)
	msg := c.next("stopped or the end", 2*time.Minute, func(m *message) bool {
		return m.Event == "stopped" && !bytes.Contains(m.Body, []byte(`"preserveFocusHint":true`)) || m.Event == "terminated" || m.Event == "exited"
	})
	if msg.Event != "stopped" {
		return st, place{}, true
	}
	c.decode(msg.Body, &st)
	if st.Reason == "end" {
		ended = true
	}
	return st, c.where(st.ThreadID), ended
}

// TestNextOverLibraryCall is issue 24's user on pond: from a breakpoint at the second
// Submit of TestResultPoolSubmitContextCanceled, next steps over the calls into the library,
// whose scheduling points are heddle's business, and the backward moves retrace the same
// lines. Delve puts a breakpoint at line 309 in the test and in task2's closure, which begins
// on that line: under heddle's fair scheduler the test goroutine's second select with default
// (notifySubmitWaiter, in Submit) yields to the worker, which enters the closure, as a worker
// of go test may; Delve stops there, and a continue resumes the interrupted step, which ends
// on the test's goroutine. Going back, the worker's hit comes before the test's.
func TestNextOverLibraryCall(t *testing.T) {
	dir := moduleCopy(t, "github.com/alitto/pond/v2@v2.7.1")
	c := newClient(t)
	st := c.launchTest(true, dir, "TestResultPoolSubmitContextCanceled", "result_test.go", 309)
	test := st.ThreadID
	if at := c.where(test); at != (place{"result_test.go", 309}) {
		t.Fatalf("the breakpoint stopped at %s, want result_test.go:309", at)
	}
	for _, step := range []struct {
		m      motion
		on     int
		reason string
		want   place
	}{
		{"next", test, "step", place{"result_test.go", 315}},
		{"next", 0, "breakpoint", place{"result_test.go", 309}},
		{"continue", test, "step", place{"result_test.go", 319}},
		// Back to line 315 as the step over Submit left it: the worker's hit is before.
		{"stepBack", test, "step", place{"result_test.go", 315}},
		{"reverseContinue", 0, "breakpoint", place{"result_test.go", 309}},
		{"reverseContinue", test, "breakpoint", place{"result_test.go", 309}},
	} {
		st, at, ended := c.move(step.m, test)
		other := step.on == 0 && st.ThreadID != test
		if ended || !other && st.ThreadID != step.on || st.Reason != step.reason || at != step.want {
			t.Fatalf("%s stopped (%s) on thread %d at %s, want (%s) on thread %d at %s", step.m, st.Reason, st.ThreadID, at, step.reason, step.on, step.want)
		}
		t.Logf("%s: %s on %s", step.m, at, c.threadName(st.ThreadID))
	}
}

// script is a debugging session scripted for the differential test: breakpoints at lines of
// file, then motions of the goroutine that stopped first.
type script struct {
	module, pkg, test, file string
	lines                   []int
	moves                   []motion
	// differ lists, by index in the stepping goroutine's stops, the stops where heddle and
	// Delve are known to differ, and why.
	differ map[int]string
}

// trip is what a scripted session saw: the stepping goroutine's stops, the first and then one
// per motion, and the other goroutines' breakpoint hits that interrupted a step.
type trip struct {
	stops  []place
	others []string
}

// play runs s through a session of adapter c (heddle's or Delve's). A step interrupted by
// another goroutine's breakpoint is resumed with a continue, as Delve tells its user to: the
// step then ends on the stepping goroutine. It ends early when the program does.
func (s script) play(c *client, heddle bool, dir string) trip {
	st := c.launchTest(heddle, filepath.Join(dir, s.pkg), s.test, s.file, s.lines...)
	thread := st.ThreadID
	tr := trip{stops: []place{c.where(thread)}}
	for _, m := range s.moves {
		st, at, ended := c.move(m, thread)
		for i := 0; !ended && st.ThreadID != thread; i++ {
			if st.Reason != "breakpoint" || i == 10 {
				c.t.Fatalf("%s on thread %d stopped (%s) on thread %d at %s", m, thread, st.Reason, st.ThreadID, at)
			}
			tr.others = append(tr.others, fmt.Sprintf("after %d stops: thread %d at %s", len(tr.stops), st.ThreadID, at))
			st, at, ended = c.move("continue", thread)
		}
		if ended {
			break
		}
		tr.stops = append(tr.stops, at)
	}
	return tr
}

// TestDifferentialDelve runs the same breakpoints and steps through dlv dap and heddle dap on
// real modules' tests and compares where the goroutine that steps stops. Its path does not
// depend on the interleaving in these tests; the other goroutines' breakpoint hits do, and
// are logged, not compared.
func TestDifferentialDelve(t *testing.T) {
	for _, s := range []script{
		{module: "github.com/alitto/pond/v2@v2.7.1", test: "TestResultPoolSubmitContextCanceled", file: "result_test.go",
			lines: []int{309}, moves: []motion{"next", "next", "stepIn", "next", "stepOut", "next"}},
		{module: "golang.org/x/sync@v0.25.0", pkg: "errgroup", test: "TestTryGo", file: "errgroup_test.go",
			lines: []int{198}, moves: []motion{"next", "stepIn", "next", "next", "next", "stepOut", "next"}},
		// Into context.Background, which heddle forwards to the standard one, and out; into
		// errgroup.WithContext, over the call of context.WithCancelCause, which heddle
		// implements itself, and out.
		{module: "golang.org/x/sync@v0.25.0", pkg: "errgroup", test: "TestWithContext", file: "errgroup_test.go",
			lines: []int{150}, moves: []motion{"stepIn", "stepOut", "stepIn", "next", "next", "stepOut", "next"}},
		// A rate limiter: from the wait that the test's goroutine cancels, into the test's
		// helper, into its fake clock and out, into Limiter.wait, over its lines: the
		// non-blocking select on the context (its one case's line only), advancing the fake
		// clock (which wakes the goroutine that cancels), the select that blocks until it
		// does (its cases' lines, the select's, again as the compiler sets the cases up and
		// chooses, then the test for the case that fires, and its body); out to the helper
		// and out to the test.
		{module: "golang.org/x/time@v0.16.0", pkg: "rate", test: "TestWaitCancel", file: "rate_test.go",
			lines: []int{565}, moves: []motion{"stepIn", "next", "next", "stepIn", "stepOut", "next", "stepIn",
				"next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next",
				"next", "next", "next", "next", "next", "next", "stepOut", "next", "stepOut", "next"}},
		// A cache: into GetOldest of an expirable LRU, whose ticker goroutine deletes expired
		// entries under the same mutex, over its lines and out, then over the test's checks
		// and its Sleep. The script ends after the Sleep: what the check there sees depends on
		// the wall clock under Delve, which runs while the debuggee is stopped.
		{module: "github.com/hashicorp/golang-lru/v2@v2.0.7", pkg: "expirable", test: "TestLRUWithPurge", file: "expirable_lru_test.go",
			lines: []int{221}, moves: []motion{"stepIn", "next", "next", "next", "next", "stepOut", "next", "next", "next", "next", "next", "next"}},
	} {
		t.Run(s.test, func(t *testing.T) {
			dir := moduleCopy(t, s.module)
			delve := s.play(newDelveClient(t), false, dir)
			heddle := s.play(newClient(t), true, dir)
			t.Logf("delve:  %v, other goroutines' hits %q", delve.stops, delve.others)
			t.Logf("heddle: %v, other goroutines' hits %q", heddle.stops, heddle.others)
			if len(delve.stops) != len(heddle.stops) {
				t.Fatalf("delve stopped %d times, heddle %d", len(delve.stops), len(heddle.stops))
			}
			for i := range delve.stops {
				why, known := s.differ[i]
				switch {
				case delve.stops[i] != heddle.stops[i] && !known:
					t.Errorf("stop %d: delve at %s, heddle at %s", i, delve.stops[i], heddle.stops[i])
				case delve.stops[i] == heddle.stops[i] && known:
					t.Errorf("stop %d: both at %s, where they were known to differ (%s)", i, delve.stops[i], why)
				case known:
					t.Logf("stop %d: delve at %s, heddle at %s: %s", i, delve.stops[i], heddle.stops[i], why)
				}
			}
		})
	}
}

// cliBugs reads the bugs of a heddle test report saved in testdata: each BUG line's kind
// and the message below it, its words joined by single spaces.
func cliBugs(t *testing.T, name string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	bugs := map[string]bool{}
	var bug []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "BUG: "):
			bug = []string{strings.TrimPrefix(line, "BUG: ")}
		case strings.HasPrefix(line, "found by "):
			bugs[strings.Join(bug, " ")] = true
			bug = nil
		case bug != nil:
			bug = append(bug, line)
		}
	}
	if len(bugs) == 0 {
		t.Fatalf("testdata/%s reports no bug", name)
	}
	return bugs
}

// TestExploreFromHereFindsCLIBug explores pond's TestResultPoolSubmitContextCanceled from
// the breakpoint at its second Submit, with the strategy and budget that the launch
// configuration leaves to heddle, and wants one of the failed assertions that heddle test
// reports for that test (testdata/pond-cli.txt), of the same kind and with the same message.
func TestExploreFromHereFindsCLIBug(t *testing.T) {
	cli := cliBugs(t, "pond-cli.txt")
	dir := moduleCopy(t, "github.com/alitto/pond/v2@v2.7.1")
	c := newClient(t)
	st := c.launchTest(true, dir, "TestResultPoolSubmitContextCanceled", "result_test.go", 309)
	if at := c.where(st.ThreadID); at != (place{"result_test.go", 309}) {
		t.Fatalf("the breakpoint stopped at %s, want result_test.go:309", at)
	}
	var r struct{ ID, Prefix int }
	c.decode(c.response(c.custom("heddle/explore", nil), 10*time.Second).Body, &r)
	start := time.Now()
	for {
		m := c.next("a bug or the end of the search", 2*time.Minute, func(m *message) bool {
			return c.ofExploration(m, "heddle/bugFound", r.ID) || c.ofExploration(m, "heddle/exploreDone", r.ID)
		})
		if m.Event == "heddle/exploreDone" {
			t.Fatalf("the search from result_test.go:309 (%d decisions) ended without any of heddle test's bugs: %s", r.Prefix, m.Body)
		}
		var found bugFound
		c.decode(m.Body, &found)
		got := strings.Join(strings.Fields(found.Bug.Kind+" "+found.Bug.Message), " ")
		t.Logf("after %v: %s", time.Since(start), got)
		if cli[got] {
			break
		}
	}
	c.response(c.custom("heddle/cancel", map[string]any{"id": r.ID}), 10*time.Second)
}
