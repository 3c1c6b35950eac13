package dap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

func initialize(c *client) {
	c.t.Helper()
	seq := c.send(&godap.InitializeRequest{Request: godap.Request{Command: "initialize"}, Arguments: godap.InitializeRequestArguments{AdapterID: "heddle", LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path"}})
	c.response(seq, 10*time.Second)
}

func TestBadRequests(t *testing.T) {
	c := newClient(t)
	initialize(c)
	dir, _ := filepath.Abs("testdata/broken")
	tests := []struct {
		name    string
		command string
		args    any
		want    string
	}{
		{"step back before launch", "stepBack", map[string]any{"threadId": 1}, "not stopped"},
		{"continue before launch", "continue", map[string]any{"threadId": 1}, "no program"},
		{"explore before launch", "heddle/explore", nil, "no program"},
		{"goto before launch", "heddle/gotoCheckpoint", map[string]any{"index": 3}, "no program"},
		{"unknown heddle request", "heddle/frobnicate", nil, "unknown request"},
		{"bad custom arguments", "heddle/gotoCheckpoint", "seven", "malformed arguments"},
		{"unknown mode", "launch", map[string]any{"mode": "core"}, "unknown mode"},
		{"no program", "launch", map[string]any{"mode": "test"}, "needs \"program\""},
		{"bad strategy", "launch", map[string]any{"mode": "test", "program": dir, "strategy": "bfs"}, "unknown strategy"},
		{"bad budget", "launch", map[string]any{"mode": "test", "program": dir, "budget": "lots"}, "budget"},
		{"bad total budget", "launch", map[string]any{"mode": "test", "program": dir, "budget": "total=lots,time=60s"}, `-budget: total "lots" is not a positive duration`},
		{"corrupt schedule", "launch", map[string]any{"mode": "replay", "schedule": writeFile(t, "{\"heddle\": \"schedule\", \"version\": 1, \"decisions\": [")}, "f.json: line 1"},
		{"uncompilable package", "launch", map[string]any{"mode": "test", "program": dir}, "broken_test.go:6"},
		{"attach", "attach", map[string]any{}, "does not attach"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			m := c.responseAny(c.custom(tt.command, tt.args), buildTimeout)
			if m.Success || !strings.Contains(responseError(m), tt.want) {
				t.Errorf("%s: success=%v %q, want an error containing %q", tt.command, m.Success, responseError(m), tt.want)
			}
		})
	}
}

// Arguments that do not decode as a request's are answered with an error response that
// names the request, for every request heddle reads; so are missing required arguments.
func TestMalformedArguments(t *testing.T) {
	c := newClient(t)
	initialize(c)
	tests := []struct {
		command string
		args    any
		want    string
	}{
		{"heddle/checkpoints", "seven", "malformed arguments"},
		{"heddle/gotoCheckpoint", "seven", "malformed arguments"},
		{"heddle/gotoCheckpoint", map[string]any{"index": "three"}, "malformed arguments"},
		{"heddle/gotoCheckpoint", map[string]any{}, `missing "index"`},
		{"heddle/runnable", []int{1}, "malformed arguments"},
		{"heddle/scheduleNext", map[string]any{"goroutine": 5}, "malformed arguments"},
		{"heddle/scheduleNext", map[string]any{}, `missing "goroutine"`},
		{"heddle/saveSchedule", map[string]any{"path": []string{"a"}}, "malformed arguments"},
		{"heddle/saveSchedule", map[string]any{}, `missing "path"`},
		{"heddle/explore", map[string]any{"strategy": 1}, "malformed arguments"},
		{"heddle/explore", map[string]any{"budget": true}, "malformed arguments"},
		{"heddle/cancel", map[string]any{"id": "x"}, "malformed arguments"},
		{"heddle/replay", map[string]any{"bug": "1"}, "malformed arguments"},
		{"heddle/replay", map[string]any{"schedule": 2}, "malformed arguments"},
		{"heddle/replay", map[string]any{}, `needs "bug" or "schedule"`},
		{"heddle/lockTrees", 3, "malformed arguments"},
		{"heddle/webview", map[string]any{"allowOrigin": 7}, "malformed arguments"},
		{"launch", "seven", "malformed arguments"},
		{"launch", map[string]any{"program": ".", "buildFlags": 3}, "buildFlags must be a string or a list"},
		{"setBreakpoints", map[string]any{"source": 3}, "malformed arguments"},
		{"setFunctionBreakpoints", map[string]any{"breakpoints": "f"}, "malformed arguments"},
		{"continue", map[string]any{"threadId": "one"}, "malformed arguments"},
		{"next", map[string]any{"threadId": []int{}}, "malformed arguments"},
		{"stepBack", "back", "malformed arguments"},
		{"stackTrace", map[string]any{"levels": "all"}, "malformed arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			c.t = t
			m := c.responseAny(c.custom(tt.command, tt.args), 10*time.Second)
			msg := responseError(m)
			if m.Success || !strings.HasPrefix(msg, tt.command+": ") || !strings.Contains(msg, tt.want) {
				t.Errorf("%s %v: success=%v %q, want an error of %s containing %q", tt.command, tt.args, m.Success, msg, tt.command, tt.want)
			}
		})
	}
	// The session goes on.
	initialize(c)
}

func writeFile(t *testing.T, content string) string {
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A message whose content is not JSON gets an error response, and the session goes on.
func TestMalformedMessages(t *testing.T) {
	c := newClient(t)
	go func() {
		for _, raw := range []string{`{"seq": 7, "type": "request", "command": `, `{"seq": 8, "type": "request"}`, `{"seq": 9, "type": "reply"}`} {
			godap.WriteBaseMessage(c.conn, []byte(raw))
		}
	}()
	for _, seq := range []int{8, 9} {
		if m := c.responseAny(seq, 10*time.Second); m.Success || !strings.Contains(responseError(m), "malformed") {
			t.Errorf("request %d: %+v, want a malformed-request error", seq, m)
		}
	}
	if m := c.event("output", 10*time.Second); !strings.Contains(string(m.Body), "malformed") {
		t.Errorf("unparseable message: output %s, want a note that it was ignored", m.Body)
	}
	initialize(c)
}

// Broken framing ends the session with an error rather than a hang.
func TestBrokenFraming(t *testing.T) {
	c := newClient(t)
	c.conn.Write([]byte("Content-Length: nine\r\n\r\n{}"))
	select {
	case err := <-c.done:
		if err == nil {
			t.Errorf("the session ended without an error")
		}
		c.done <- err
	case <-time.After(10 * time.Second):
		t.Fatalf("the session did not end on broken framing")
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"seq":1,"type":"request","command":"initialize","arguments":{}}`, `{"seq":2,"type":"event","event":"stopped","body":{"threadId":1}}`,
		`{"seq":3,"type":"response","request_seq":1,"success":true,"command":"x"}`, `{}`, `[]`, `{"type":"request"}`, `{"seq":"1"}`, "\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decode(data)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to a message that decodes the same way.
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("re-encoding %q: %v", data, err)
		}
		m2, err := decode(b)
		if err != nil || m2.Type != m.Type || m2.Command != m.Command || m2.Event != m.Event || m2.Seq != m.Seq {
			t.Fatalf("%q re-encoded as %s, which decodes to %+v, %v", data, b, m2, err)
		}
	})
}

// A debuggee killed while the user looks at it ends the session's run cleanly.
func TestDebuggeeKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the debuggee in /proc")
	}
	c, _ := launchBank(t, 15, nil)
	st := c.stopped(time.Minute)
	pids := debuggees(t)
	if len(pids) == 0 {
		t.Fatalf("no debuggee process found")
	}
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
	seq := c.send(&godap.ContinueRequest{Request: godap.Request{Command: "continue"}, Arguments: godap.ContinueArguments{ThreadId: st.ThreadID}})
	r := c.responseAny(seq, time.Minute)
	t.Logf("continue after the kill: success=%v %s", r.Success, responseError(r))
	c.event("terminated", time.Minute)
	// Requests after the end are answered, not left hanging.
	m := c.responseAny(c.custom("heddle/checkpoints", nil), 10*time.Second)
	t.Logf("checkpoints after the end: success=%v %s", m.Success, responseError(m))
}

// debuggees returns the pids of bank.test processes run by this test process's debuggers.
func debuggees(t *testing.T) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if strings.Contains(string(cmd), "bank.test") && !strings.Contains(string(stat), ") Z ") && strings.Contains(string(cmd), "TestHeddleWorker") && descends(pid, os.Getpid()) {
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

// descends reports whether process pid is a descendant of process anc: other test processes
// on the machine may debug the bank too.
func descends(pid, anc int) bool {
	for pid > 1 {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return false
		}
		// The parent is the second field after the command, which is in parentheses.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(f[1])
		if pid == anc {
			return true
		}
	}
	return false
}

// No process outlives its session: not Delve, not a debuggee.
func TestNoProcessesLeft(t *testing.T) {
	c, _ := launchBank(t, 15, nil)
	c.stopped(time.Minute)
	// Taken while they are descendants: one left behind is adopted by init.
	pids := debuggees(t)
	if len(pids) == 0 {
		t.Fatal("no debuggee process found")
	}
	c.close()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var left []int
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("debuggee processes left after the session ended: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
