package dap

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/heddledbg/heddle/record"
)

// TestReplayLeavesSubtestOut debugs the trace of a deadlock that heddle test found after a
// subtest it could not explore (cmd/heddle/testdata/subtests/bug: the subtest fails on an
// allocation count, which under heddle holds heddle's own). The exploration skipped that
// subtest in every run, and the trace says so (leftOut): the debugging session skips it too,
// and stops at the deadlock instead of at the subtest's failure.
func TestReplayLeavesSubtestOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heddle and explores a test module")
	}
	dir, _ := filepath.Abs("../cmd/heddle/testdata/subtests")
	out := t.TempDir()
	heddle := filepath.Join(t.TempDir(), "heddle")
	if b, err := exec.Command("go", "build", "-o", heddle, "../cmd/heddle").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	cmd := exec.Command(heddle, "test", "-out", out, "./bug")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); !strings.Contains(string(b), "BUG: deadlock") {
		t.Fatalf("heddle test: %v, want the deadlock\n%s", err, b)
	}
	path := filepath.Join(record.TestDir(out, "example.com/subtests/bug", "TestSubtests"), "deadlock-1.trace.json.gz")
	v, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr := v.(*record.Trace); len(tr.LeftOut) != 1 || tr.LeftOut[0] != "TestSubtests/allocs" {
		t.Fatalf("the trace leaves out %q, want TestSubtests/allocs", tr.LeftOut)
	}
	c := newClient(t)
	seq := c.send(&godap.InitializeRequest{Request: godap.Request{Command: "initialize"}, Arguments: godap.InitializeRequestArguments{AdapterID: "heddle", LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path"}})
	c.response(seq, 10*time.Second)
	seq = c.custom("launch", map[string]any{"mode": "replay", "schedule": path})
	c.response(seq, buildTimeout)
	c.event("initialized", 10*time.Second)
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	if st := c.stopped(time.Minute); st.Reason != "exception" || !strings.Contains(st.Description, "deadlock") {
		t.Fatalf("debugging the trace stopped with %+v, want the deadlock", st)
	}
}

// TestExploreLeavesLateSubtestOut explores, from a breakpoint, a test one of whose subtests
// heddle cannot explore and whose exploration finds that only after its first run
// (cmd/heddle/testdata/subtests/late: the subtest dials out when it looks before a goroutine
// it started has run). The search starts again without the subtest: the web view is told to
// start its tree anew, and the exploration completes with no bug, where it used to end on the
// subtest as one heddle cannot explore.
func TestExploreLeavesLateSubtestOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and debugs a test module")
	}
	dir, _ := filepath.Abs("../cmd/heddle/testdata/subtests/late")
	src := filepath.Join(dir, "late_test.go")
	c := newClient(t)
	seq := c.send(&godap.InitializeRequest{Request: godap.Request{Command: "initialize"}, Arguments: godap.InitializeRequestArguments{AdapterID: "heddle", LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path"}})
	c.response(seq, 10*time.Second)
	c.response(c.custom("launch", map[string]any{"mode": "test", "program": dir, "args": []string{"-test.run", "^TestSubtests$"}}), buildTimeout)
	c.event("initialized", 10*time.Second)
	setBreakpoints(c, src, godap.SourceBreakpoint{Line: 34}) // t.Run("count", …)
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	if st := c.stopped(time.Minute); st.Reason != "breakpoint" {
		t.Fatalf("stopped for %q, want the breakpoint at late_test.go:34", st.Reason)
	}
	ws, _ := c.webViewStream()
	defer ws.Close()
	c.response(c.custom("heddle/explore", map[string]any{"budget": "60s"}), 10*time.Second)
	var done ExploreDone
	c.decode(c.event("heddle/exploreDone", 2*time.Minute).Body, &done)
	if done.Error != "" || done.Bugs != 0 || !done.Complete {
		t.Fatalf("the exploration ended with %+v, want it complete without a bug", done)
	}
	// The stream's messages up to the exploration's end: a start among them.
	starts := 0
	ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var m struct {
			Type string `json:"type"`
		}
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatalf("the web view's stream ended (%v) with %d start messages, want one for the search's new start", err, starts)
		}
		if m.Type == "start" {
			starts++
		}
		if m.Type == "done" {
			break
		}
	}
	if starts != 1 {
		t.Errorf("%d start messages on the web view's stream, want one for the search's new start", starts)
	}
}
