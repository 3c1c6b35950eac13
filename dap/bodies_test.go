package dap

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/debugger"
	"github.com/heddledbg/heddle/internal/golden"
	"github.com/heddledbg/heddle/record"
)

// TestBodies checks the JSON of heddle's own bodies, translated from the debugger's results,
// against testdata/bodies.golden: the extension and the web view read them as they are.
func TestBodies(t *testing.T) {
	pos := &record.Pos{File: "/src/bank.go", Line: 13}
	bug := &debugger.Bug{ID: 1, Kind: "deadlock", Message: "all goroutines are asleep",
		Goroutines: []debugger.BugGoroutine{{ID: "G1.1", State: "blocked", Op: "Lock mu", Position: pos}, {ID: "G1.2", State: "blocked"}},
		Schedule:   "/tmp/bug.json", Replay: "heddle replay /tmp/bug.json"}
	cps := []debugger.Checkpoint{
		{Index: 0, Goroutine: "G1", DecisionIndex: -1},
		{Index: 1, Goroutine: "G1.1", Op: "Lock", Position: pos, Decision: true, DecisionIndex: 0, Step: 3, New: true, Func: "Transfer", Obj: "G1#2"},
	}
	runnable := []debugger.Runnable{{ID: "G1.1", Op: "Lock", Position: pos, Current: true}, {ID: "G1.2", Op: "Unlock"}}
	bodies := []struct {
		name string
		body any
	}{
		{"heddle/bugFound", BugFound{Bug: bugBody(bug), ID: 2}},
		{"heddle/bugFound, a bare bug", BugFound{Bug: bugBody(&debugger.Bug{ID: 1, Kind: "leak"}), ID: 2}},
		{"heddle/progress", Progress(debugger.Progress{ID: 2, Runs: 40, SchedulesPerSecond: 12.5, Bugs: 1, ElapsedMs: 3200})},
		{"heddle/exploreDone", ExploreDone(debugger.ExploreDone{ID: 2, Runs: 40, Bugs: 1, Complete: true,
			Warnings: []*record.Warning{{Kind: "lockset", Message: "x is read without a lock", Hits: 2}}})},
		{"heddle/exploreDone, failed", ExploreDone(debugger.ExploreDone{ID: 3, Cancelled: true, Error: "no worker"})},
		{"heddle/checkpoint", CheckpointEvent{Goroutine: "G1.1", Index: 4}},
		{"heddle/checkpoints", checkpointsBody(1, cps)},
		{"heddle/checkpoints, none", checkpointsBody(-1, []debugger.Checkpoint{})},
		{"heddle/runnable", runnableBody(runnable, true)},
		{"heddle/runnable, none", runnableBody([]debugger.Runnable{}, false)},
		{"heddle/explore", Explored{ID: 2, Prefix: 5}},
		{"heddle/saveSchedule", SavedSchedule{Path: "/tmp/s.json"}},
		{"heddle/webview", WebView{URL: "http://127.0.0.1:8080/"}},
	}
	var b strings.Builder
	for _, tt := range bodies {
		data, err := json.Marshal(tt.body)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		b.WriteString("// " + tt.name + "\n" + string(data) + "\n")
	}
	golden.Check(t, filepath.Join("testdata", "bodies.golden"), b.String())
}
