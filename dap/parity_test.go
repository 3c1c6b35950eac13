package dap

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"
	"github.com/gorilla/websocket"
)

// launch starts a session on a test of testdata/bank, applies setup before
// configurationDone, and returns the client.
func launch(t testing.TB, test string, extra map[string]any, setup func(c *client, src string)) *client {
	t.Helper()
	c := newClient(t)
	initialize(c)
	dir, _ := filepath.Abs("testdata/bank")
	args := map[string]any{"mode": "test", "program": dir, "args": []string{"-test.run", "^" + test + "$"}}
	for k, v := range extra {
		args[k] = v
	}
	c.response(c.custom("launch", args), buildTimeout)
	c.event("initialized", 10*time.Second)
	if setup != nil {
		setup(c, filepath.Join(dir, "bank.go"))
	}
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	return c
}

func setBreakpoints(c *client, src string, bps ...godap.SourceBreakpoint) {
	c.t.Helper()
	c.response(c.send(&godap.SetBreakpointsRequest{Request: godap.Request{Command: "setBreakpoints"}, Arguments: godap.SetBreakpointsArguments{
		Source: godap.Source{Path: src}, Breakpoints: bps}}), 30*time.Second)
}

// The standard requests behave as under dlv dap: heddle passes them to Delve.
func TestDelveParity(t *testing.T) {
	t.Run("conditional breakpoint", func(t *testing.T) {
		c := launch(t, "TestTransfer", nil, func(c *client, src string) {
			setBreakpoints(c, src, godap.SourceBreakpoint{Line: 17, Condition: "amount == 20"})
		})
		st := c.stopped(time.Minute)
		if v := c.evaluate(st.ThreadID, "amount"); v != "20" {
			t.Errorf("stopped with amount = %s, want 20", v)
		}
	})
	t.Run("hit count", func(t *testing.T) {
		c := launch(t, "TestTransfer", nil, func(c *client, src string) {
			setBreakpoints(c, src, godap.SourceBreakpoint{Line: 17, HitCondition: "2"})
		})
		st := c.stopped(time.Minute)
		first := c.evaluate(st.ThreadID, "from.balance")
		// The second transfer finds its source account already credited or debited once.
		if first != "120" && first != "90" {
			t.Errorf("second hit: from.balance = %s, want the second transfer's (120 or 90)", first)
		}
	})
	t.Run("logpoint", func(t *testing.T) {
		c := launch(t, "TestTransfer", nil, func(c *client, src string) {
			setBreakpoints(c, src, godap.SourceBreakpoint{Line: 17, LogMessage: "moving {amount}"})
		})
		var logged []string
		for len(logged) < 2 {
			m := c.event("output", time.Minute)
			var b struct {
				Output string `json:"output"`
			}
			c.decode(m.Body, &b)
			if strings.Contains(b.Output, "moving") {
				logged = append(logged, strings.TrimSpace(b.Output))
			}
		}
		c.event("terminated", time.Minute)
		t.Logf("logged %q", logged)
	})
	t.Run("function breakpoint", func(t *testing.T) {
		c := launch(t, "TestTransfer", nil, func(c *client, src string) {
			c.response(c.send(&godap.SetFunctionBreakpointsRequest{Request: godap.Request{Command: "setFunctionBreakpoints"},
				Arguments: godap.SetFunctionBreakpointsArguments{Breakpoints: []godap.FunctionBreakpoint{{Name: "example.com/bank.Transfer"}}}}), 30*time.Second)
		})
		st := c.stopped(time.Minute)
		if f := c.stack(st.ThreadID)[0]; !strings.HasSuffix(f.Name, "Transfer") {
			t.Errorf("stopped in %s, want Transfer", f.Name)
		}
	})
	t.Run("set variable", func(t *testing.T) {
		c := launch(t, "TestTransfer", nil, func(c *client, src string) {
			setBreakpoints(c, src, godap.SourceBreakpoint{Line: 17})
		})
		st := c.stopped(time.Minute)
		fs := c.stack(st.ThreadID)
		var scopes struct {
			Scopes []struct {
				Name               string `json:"name"`
				VariablesReference int    `json:"variablesReference"`
			} `json:"scopes"`
		}
		c.decode(c.response(c.send(&godap.ScopesRequest{Request: godap.Request{Command: "scopes"}, Arguments: godap.ScopesArguments{FrameId: fs[0].ID}}), 30*time.Second).Body, &scopes)
		c.response(c.send(&godap.SetVariableRequest{Request: godap.Request{Command: "setVariable"}, Arguments: godap.SetVariableArguments{
			VariablesReference: scopes.Scopes[0].VariablesReference, Name: "amount", Value: "99"}}), 30*time.Second)
		if v := c.evaluate(st.ThreadID, "amount"); v != "99" {
			t.Errorf("amount = %s after setVariable, want 99", v)
		}
	})
	t.Run("panic", func(t *testing.T) {
		c := launch(t, "TestOverdraw", nil, nil)
		st := c.stopped(time.Minute)
		if st.Reason != "exception" || st.Description != "panic" || !strings.Contains(st.Text, "insufficient funds") {
			t.Fatalf("stopped with %+v, want the panic", st)
		}
		if f := c.stack(st.ThreadID)[0]; !strings.HasSuffix(f.Source.Path, "bank.go") || f.Line != 37 {
			t.Errorf("the panic stops at %s:%d, want bank.go:37", f.Source.Path, f.Line)
		}
	})
}

func TestCheckpoints(t *testing.T) {
	c := launch(t, "TestTransfer", map[string]any{"stopOnEntry": true}, nil)
	st := c.stopped(time.Minute)
	if f := c.stack(st.ThreadID)[0]; st.Reason != "entry" || st.ThreadID != 1 || !strings.Contains(f.Name, "TestTransfer") {
		t.Fatalf("stop on entry: %+v in %s, want G1 at the start of TestTransfer", st, f.Name)
	}
	// With no breakpoints, the default schedule runs to the end, where the session stays.
	c.response(c.send(&godap.ContinueRequest{Request: godap.Request{Command: "continue"}, Arguments: godap.ContinueArguments{ThreadId: st.ThreadID}}), time.Minute)
	if st := c.stopped(time.Minute); st.Reason != "end" {
		t.Errorf("continuing to the end stopped with %+v, want the end of the run", st)
	}
}

func TestGotoCheckpointAndWebView(t *testing.T) {
	c := launch(t, "TestTransfer", nil, func(c *client, src string) {
		setBreakpoints(c, src, godap.SourceBreakpoint{Line: 18})
	})
	st := c.stopped(time.Minute)
	var cps struct {
		Current     int          `json:"current"`
		Checkpoints []Checkpoint `json:"checkpoints"`
	}
	c.decode(c.response(c.custom("heddle/checkpoints", nil), 10*time.Second).Body, &cps)
	if len(cps.Checkpoints) < 4 || cps.Current != len(cps.Checkpoints)-1 {
		t.Fatalf("checkpoints: current %d of %d, want the last of several", cps.Current, len(cps.Checkpoints))
	}
	all := len(cps.Checkpoints)
	// Go to each checkpoint with an operation: the goroutine resumed there stands at it.
	for _, cp := range cps.Checkpoints {
		if cp.New || cp.Position == nil {
			continue
		}
		c.response(c.custom("heddle/gotoCheckpoint", map[string]any{"index": cp.Index}), time.Minute)
		st = c.stopped(time.Minute)
		f := c.stack(st.ThreadID)[0]
		if st.Reason != "goto" || c.threadName(st.ThreadID) != cp.Goroutine || f.Line != cp.Position.Line || f.Source.Path != cp.Position.File {
			t.Errorf("checkpoint %d: stopped (%s) on %s at %s:%d, want %s at %s", cp.Index, st.Reason, c.threadName(st.ThreadID), f.Source.Path, f.Line, cp.Goroutine, cp.Position)
		}
		// Going back keeps the timeline: the later checkpoints are still listed.
		c.decode(c.response(c.custom("heddle/checkpoints", nil), 10*time.Second).Body, &cps)
		if len(cps.Checkpoints) != all || cps.Current != cp.Index {
			t.Errorf("after going to checkpoint %d: current %d of %d, want %d of %d", cp.Index, cps.Current, len(cps.Checkpoints), cp.Index, all)
		}
	}
	m := c.response(c.custom("heddle/webview", nil), 10*time.Second)
	var w struct {
		URL string `json:"url"`
	}
	c.decode(m.Body, &w)
	if !strings.HasPrefix(w.URL, "http://127.0.0.1:") {
		t.Fatalf("web view at %q, want a loopback URL", w.URL)
	}
	resp, err := http.Get(w.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "<html") {
		t.Errorf("GET %s: %d, want the page", w.URL, resp.StatusCode)
	}
}

// The web view follows the debugger, and moves it: a stop publishes the checkpoint on the web
// view's stream, and a step chosen in the page (POST /api/goto) moves the debugger there.
func TestWebViewFollowsDebugger(t *testing.T) {
	c := launch(t, "TestTransfer", nil, func(c *client, src string) {
		setBreakpoints(c, src, godap.SourceBreakpoint{Line: 18})
	})
	c.stopped(time.Minute)
	var cps struct {
		Current     int          `json:"current"`
		Checkpoints []Checkpoint `json:"checkpoints"`
	}
	c.decode(c.response(c.custom("heddle/checkpoints", nil), 10*time.Second).Body, &cps)
	ws, u := c.webViewStream()
	defer ws.Close()
	token := u.Query().Get("token")
	checkpoint := func(want int) {
		t.Helper()
		ws.SetReadDeadline(time.Now().Add(time.Minute))
		for {
			var m struct {
				Type  string `json:"type"`
				Index int    `json:"index"`
				Step  int    `json:"step"`
			}
			if err := ws.ReadJSON(&m); err != nil {
				t.Fatalf("waiting for checkpoint %d on the web view's stream: %v; pending %s", want, err, c.pending())
			}
			if m.Type == "checkpoint" && m.Index == want {
				return
			}
		}
	}
	checkpoint(cps.Current)

	// The page asks for an earlier step: the debugger goes to the checkpoint right before it
	// (a goroutine that starts and then stands before its first operation has two checkpoints
	// at one step).
	target := cps.Checkpoints[len(cps.Checkpoints)/2]
	for _, cp := range cps.Checkpoints {
		if cp.Step == target.Step {
			target = cp
		}
	}
	req, _ := http.NewRequest("POST", "http://"+u.Host+"/api/goto", strings.NewReader(fmt.Sprintf(`{"step": %d}`, target.Step)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /api/goto: %s", resp.Status)
	}
	st := c.stopped(time.Minute)
	if st.Reason != "goto" || c.threadName(st.ThreadID) != target.Goroutine {
		t.Fatalf("after the page's goto: stopped %+v on %s, want %s at checkpoint %d", st, c.threadName(st.ThreadID), target.Goroutine, target.Index)
	}
	checkpoint(target.Index)
}

// Open Web View right after starting to debug: heddle/webview is answered while the launch
// still builds the program, not after it, and the page it opened follows the first stop.
func TestWebViewDuringLaunch(t *testing.T) {
	c := newClient(t)
	initialize(c)
	dir, _ := filepath.Abs("testdata/bank")
	launch := c.custom("launch", map[string]any{"mode": "test", "program": dir, "args": []string{"-test.run", "^TestTransfer$"}})
	// Written on the side: the pipe does not buffer, and a session that read nothing during
	// the build would hold the write up.
	c.seq++
	webview := c.seq
	b, _ := json.Marshal(&message{Seq: webview, Type: "request", Command: "heddle/webview"})
	wrote := make(chan error, 1)
	go func() { wrote <- godap.WriteBaseMessage(c.conn, b) }()
	var w struct {
		URL string `json:"url"`
	}
	c.decode(c.response(webview, buildTimeout).Body, &w)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	// Responses come in the order the session gives them: a launch answered first waits in
	// the queue.
	if slices.ContainsFunc(c.queue, func(m *message) bool { return m.Type == "response" && m.RequestSeq == launch }) {
		t.Fatalf("heddle/webview was answered after the launch's build, not beside it")
	}
	u, err := url.Parse(w.URL)
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+u.Host+"/ws?token="+u.Query().Get("token"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	c.response(launch, buildTimeout)
	c.event("initialized", 10*time.Second)
	setBreakpoints(c, filepath.Join(dir, "bank.go"), godap.SourceBreakpoint{Line: 18})
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	c.stopped(time.Minute)
	// The session goes on writing (the other goroutines' states): read it all, as a client
	// does, for the pipe does not buffer. The test's end closes the pipe.
	c.conn.SetReadDeadline(time.Time{})
	go func() {
		for {
			if _, err := godap.ReadBaseMessage(c.r); err != nil {
				return
			}
		}
	}()
	ws.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		var m struct {
			Type  string `json:"type"`
			Trace string `json:"trace"`
		}
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatalf("waiting for the stop on the web view's stream: %v", err)
		}
		if m.Type == "checkpoint" && m.Trace != "" {
			return
		}
	}
}

// At the second transfer's critical section both goroutines have nested the two accounts'
// locks in opposite orders: the lock trees show one inversion.
func TestLockTrees(t *testing.T) {
	c := launch(t, "TestTransfer", nil, func(c *client, src string) {
		setBreakpoints(c, src, godap.SourceBreakpoint{Line: 18})
	})
	st := c.stopped(time.Minute)
	var rep struct {
		Trees    []struct{ G string } `json:"trees"`
		Warnings []struct {
			Locks [2]string `json:"locks"`
		} `json:"warnings"`
	}
	c.decode(c.response(c.custom("heddle/lockTrees", nil), time.Minute).Body, &rep)
	if len(rep.Trees) != 1 || len(rep.Warnings) != 0 {
		t.Fatalf("at the first transfer: %d trees, %d warnings, want 1 and 0", len(rep.Trees), len(rep.Warnings))
	}
	c.cont(st.ThreadID)
	c.decode(c.response(c.custom("heddle/lockTrees", nil), time.Minute).Body, &rep)
	if len(rep.Trees) != 2 || len(rep.Warnings) != 1 {
		t.Fatalf("at the second transfer: %d trees, %d warnings, want 2 and 1", len(rep.Trees), len(rep.Warnings))
	}
}

// mode debug runs a main package under control, with its arguments and output.
func TestDebugMain(t *testing.T) {
	c := newClient(t)
	initialize(c)
	dir, _ := filepath.Abs("testdata/pipeline")
	c.response(c.custom("launch", map[string]any{"mode": "debug", "program": dir}), buildTimeout)
	c.event("initialized", 10*time.Second)
	src := filepath.Join(dir, "main.go")
	setBreakpoints(c, src, godap.SourceBreakpoint{Line: 31, Condition: "v == 4"})
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	st := c.stopped(time.Minute)
	if f := c.stack(st.ThreadID)[0]; f.Line != 31 || st.ThreadID != 1 {
		t.Fatalf("stopped on thread %d at line %d, want G1 at main.go:31", st.ThreadID, f.Line)
	}
	if v := c.evaluate(st.ThreadID, "sum"); v != "2" {
		t.Errorf("sum = %s at the second value, want 2", v)
	}
	// Step out of nothing: main is the root. Step into the next line instead, then finish.
	c.response(c.send(&godap.NextRequest{Request: godap.Request{Command: "next"}, Arguments: godap.NextArguments{ThreadId: st.ThreadID}}), time.Minute)
	st = c.stopped(time.Minute)
	if v := c.evaluate(st.ThreadID, "sum"); v != "6" {
		t.Errorf("sum = %s after next, want 6", v)
	}
	c.response(c.send(&godap.ContinueRequest{Request: godap.Request{Command: "continue"}, Arguments: godap.ContinueArguments{ThreadId: st.ThreadID}}), time.Minute)
	c.printed("sum 12")
}

// printed waits for the program to print want, and fails if it ends first.
func (c *client) printed(want string) {
	c.t.Helper()
	for {
		m := c.next("output or the end", time.Minute, func(m *message) bool { return m.Event == "output" || m.Event == "terminated" })
		if m.Event == "terminated" {
			c.t.Fatalf("the program ended without printing %q", want)
		}
		if strings.Contains(string(m.Body), want) {
			return
		}
	}
}

// stepOut from inside Transfer returns to the goroutine's closure in the test.
func TestStepOut(t *testing.T) {
	c := launch(t, "TestTransfer", nil, func(c *client, src string) {
		setBreakpoints(c, src, godap.SourceBreakpoint{Line: 17})
	})
	st := c.stopped(time.Minute)
	c.response(c.send(&godap.StepOutRequest{Request: godap.Request{Command: "stepOut"}, Arguments: godap.StepOutArguments{ThreadId: st.ThreadID}}), time.Minute)
	st = c.stopped(time.Minute)
	if f := c.stack(st.ThreadID)[0]; !strings.HasSuffix(f.Source.Path, "bank_test.go") || !strings.Contains(f.Name, "TestTransfer.func") {
		t.Errorf("step out stopped in %s at %s:%d, want the goroutine's closure in bank_test.go", f.Name, f.Source.Path, f.Line)
	}
}

// A search can be cancelled, and says so.
func TestExploreCancel(t *testing.T) {
	c := launch(t, "TestBusy", map[string]any{"stopOnEntry": true}, nil)
	c.stopped(time.Minute)
	var r struct {
		ID int `json:"id"`
	}
	c.decode(c.response(c.custom("heddle/explore", map[string]any{"strategy": "dfs", "budget": "5m"}), 10*time.Second).Body, &r)
	c.event("heddle/progress", time.Minute)
	t0 := time.Now()
	c.response(c.custom("heddle/cancel", map[string]any{"id": r.ID}), 10*time.Second)
	m := c.event("heddle/exploreDone", 30*time.Second)
	var done struct {
		Cancelled bool `json:"cancelled"`
		Complete  bool `json:"complete"`
	}
	c.decode(m.Body, &done)
	if !done.Cancelled || done.Complete {
		t.Errorf("exploreDone after cancel = %s, want cancelled", m.Body)
	}
	t.Logf("cancelled in %v", time.Since(t0))
}

// The launch attributes that vscode-go and Delve share reach the program.
func TestLaunchAttributes(t *testing.T) {
	c := newClient(t)
	initialize(c)
	dir, _ := filepath.Abs("testdata/pipeline")
	cwd := t.TempDir()
	c.response(c.custom("launch", map[string]any{"mode": "debug", "program": dir, "args": []string{"a", "b"},
		"env": map[string]string{"GREETING": "hi"}, "cwd": cwd, "buildFlags": "-tags=shout"}), buildTimeout)
	c.event("initialized", 10*time.Second)
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	c.printed("args [a b] greeting hi dir " + filepath.Base(cwd) + " mode shout")
}

// stepIn, scopes, variables and pause pass through to Delve.
func TestStepInVariablesPause(t *testing.T) {
	c := launch(t, "TestTransfer", nil, func(c *client, src string) {
		setBreakpoints(c, src, godap.SourceBreakpoint{Line: 17})
	})
	st := c.stopped(time.Minute)
	c.response(c.send(&godap.StepInRequest{Request: godap.Request{Command: "stepIn"}, Arguments: godap.StepInArguments{ThreadId: st.ThreadID}}), time.Minute)
	st = c.stopped(time.Minute)
	fs := c.stack(st.ThreadID)
	if fs[0].Line != 18 {
		t.Fatalf("step in from line 17 stopped at line %d, want 18", fs[0].Line)
	}
	var scopes struct {
		Scopes []struct {
			VariablesReference int `json:"variablesReference"`
		} `json:"scopes"`
	}
	c.decode(c.response(c.send(&godap.ScopesRequest{Request: godap.Request{Command: "scopes"}, Arguments: godap.ScopesArguments{FrameId: fs[0].ID}}), 30*time.Second).Body, &scopes)
	var vars struct {
		Variables []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"variables"`
	}
	c.decode(c.response(c.send(&godap.VariablesRequest{Request: godap.Request{Command: "variables"}, Arguments: godap.VariablesArguments{VariablesReference: scopes.Scopes[0].VariablesReference}}), 30*time.Second).Body, &vars)
	got := map[string]string{}
	for _, v := range vars.Variables {
		got[v.Name] = v.Value
	}
	if got["amount"] != "10" && got["amount"] != "20" {
		t.Errorf("variables = %v, want amount", got)
	}

	p := launch(t, "TestForever", nil, nil)
	p.printed("spinning")
	p.response(p.send(&godap.PauseRequest{Request: godap.Request{Command: "pause"}, Arguments: godap.PauseArguments{ThreadId: 1}}), 30*time.Second)
	st = p.stopped(time.Minute)
	fs = p.stack(st.ThreadID)
	// The test prints before spinning returns: a pause may land in spinning, the user's code
	// too, on a machine that runs the debuggee late.
	if st.Reason != "pause" || len(fs) == 0 || !strings.Contains(fs[0].Name, "TestForever") &&
		!(strings.Contains(fs[0].Name, "spinning") && len(fs) > 1 && strings.Contains(fs[1].Name, "TestForever")) {
		t.Errorf("pause stopped (%s) in %+v, want TestForever on top, or spinning called by it", st.Reason, fs)
	}
}

// The session stays usable while a search runs, and a hand-made decision is undone by a step
// back.
func TestUsableDuringExploreAndUndo(t *testing.T) {
	c := launch(t, "TestTransfer", nil, func(c *client, src string) {
		setBreakpoints(c, src, godap.SourceBreakpoint{Line: 15})
	})
	st := c.stopped(time.Minute)
	c.response(c.custom("heddle/explore", map[string]any{"strategy": "dfs", "budget": "10s"}), 10*time.Second)
	if ths := c.threads(); len(ths) < 2 {
		t.Errorf("threads during the search: %v", ths)
	}
	if v := c.evaluate(st.ThreadID, "amount"); v != "10" && v != "20" {
		t.Errorf("evaluate during the search: %q", v)
	}
	c.event("heddle/exploreDone", time.Minute)

	// Go to the latest checkpoint a decision led to, and make that decision differently.
	st = c.cont(st.ThreadID)
	var cps struct {
		Checkpoints []Checkpoint `json:"checkpoints"`
	}
	c.decode(c.response(c.custom("heddle/checkpoints", nil), 10*time.Second).Body, &cps)
	k, me := -1, ""
	for _, cp := range cps.Checkpoints {
		if cp.Decision {
			k, me = cp.Index, cp.Goroutine
		}
	}
	if k < 0 {
		t.Fatalf("no decision so far: %+v", cps.Checkpoints)
	}
	c.response(c.custom("heddle/gotoCheckpoint", map[string]any{"index": k}), time.Minute)
	st = c.stopped(time.Minute)
	var r struct {
		Goroutines []Runnable `json:"goroutines"`
		Redo       bool       `json:"redo"`
	}
	c.decode(c.response(c.custom("heddle/runnable", nil), 10*time.Second).Body, &r)
	other := ""
	for _, g := range r.Goroutines {
		if g.ID != me && !g.Current {
			other = g.ID
		}
	}
	if !r.Redo || other == "" {
		t.Fatalf("runnable at a decision: %+v, want a redo with another goroutine", r)
	}
	c.response(c.custom("heddle/scheduleNext", map[string]any{"goroutine": other}), time.Minute)
	st = c.stopped(time.Minute)
	if got := c.threadName(st.ThreadID); got != other {
		t.Fatalf("after scheduleNext %s, stopped on %s", other, got)
	}
	// Step back undoes it: the previous position is before the decision.
	st, f := c.stepBack(st.ThreadID)
	t.Logf("step back after scheduleNext: %s at %s:%d", c.threadName(st.ThreadID), filepath.Base(f.Source.Path), f.Line)
	var cur struct {
		Current int `json:"current"`
	}
	c.decode(c.response(c.custom("heddle/checkpoints", nil), 10*time.Second).Body, &cur)
	if cur.Current >= k {
		t.Errorf("after the step back the current checkpoint is %d, want before the decision's %d", cur.Current, k)
	}
}

// The web view opened after an exploration shows its schedule tree and its bug, and after
// the bug's replay the run replayed.
func TestWebViewAfterExploreAndReplay(t *testing.T) {
	c, _, found := exploreDeadlock(t)

	ws, u := c.webViewStream()
	defer ws.Close()
	token := u.Query().Get("token")
	type streamed struct {
		Type  string `json:"type"`
		Kind  string `json:"kind"`
		Trace string `json:"trace"`
	}
	// next reads the stream until a message satisfies match, counting the messages by type.
	seen := map[string]int{}
	next := func(what string, match func(streamed) bool) streamed {
		t.Helper()
		ws.SetReadDeadline(time.Now().Add(time.Minute))
		for {
			var m streamed
			if err := ws.ReadJSON(&m); err != nil {
				t.Fatalf("waiting for %s on the web view's stream (seen %v): %v; the session said: %s", what, seen, err, c.pending())
			}
			seen[m.Type]++
			if match(m) {
				return m
			}
		}
	}
	// The stream replays what was published before the page connected: the tree and the
	// bugs, then the stop.
	var bugs []string
	before := next("the stop's checkpoint", func(m streamed) bool {
		if m.Type == "bug" {
			bugs = append(bugs, m.Kind)
		}
		return m.Type == "checkpoint"
	})
	if seen["node"] == 0 || !slices.Contains(bugs, "deadlock") {
		t.Fatalf("the web view opened after the exploration has %d nodes of its tree and the bugs %q, want the tree and the deadlock", seen["node"], bugs)
	}

	c.response(c.custom("heddle/replay", map[string]any{"bug": found.Bug.ID}), time.Minute)
	c.stopped(time.Minute)
	c.threads() // reads the stop's other events, which the session writes before it publishes
	after := next("the replay's checkpoint", func(m streamed) bool { return m.Type == "checkpoint" })
	t.Logf("the web view showed trace %s at the breakpoint, %s after the replay", before.Trace, after.Trace)
	req, _ := http.NewRequest("GET", "http://"+u.Host+"/api/trace?path="+url.QueryEscape(after.Trace), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tr struct {
		Verdict struct {
			Kind string `json:"kind"`
		} `json:"verdict"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || tr.Verdict.Kind != "deadlock" {
		t.Errorf("the web view's trace %q after the replay: verdict %q (%v), want the deadlock", after.Trace, tr.Verdict.Kind, err)
	}
}

// webViewStream opens the session's web view and subscribes to its live stream with the
// page's token. It returns the stream and the page's address, which carries the token.
func (c *client) webViewStream() (*websocket.Conn, *url.URL) {
	c.t.Helper()
	var w struct {
		URL string `json:"url"`
	}
	c.decode(c.response(c.custom("heddle/webview", nil), 30*time.Second).Body, &w)
	u, err := url.Parse(w.URL)
	if err != nil {
		c.t.Fatal(err)
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+u.Host+"/ws?token="+u.Query().Get("token"), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return ws, u
}
