package server

import (
	"github.com/heddledbg/heddle/record"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const fixtures = "../web/test/fixtures"

// start runs a real server on 127.0.0.1:0 with the web view's fixtures.
func start(t *testing.T) *Server {
	t.Helper()
	s, err := New(Options{Session: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Load(filepath.Join(fixtures, "bank.exploration.json")); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *Server) base() string { return "http://" + s.Addr() }

type request struct {
	method, path, token, origin, contentType, body string
	bearer                                         bool
}

func do(t *testing.T, s *Server, r request) (int, string) {
	t.Helper()
	if r.method == "" {
		r.method = "GET"
	}
	u := s.base() + r.path
	if r.token != "" && !r.bearer {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + "token=" + url.QueryEscape(r.token)
	}
	req, err := http.NewRequest(r.method, u, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.bearer {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.origin != "" {
		req.Header.Set("Origin", r.origin)
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestListensOnLoopback(t *testing.T) {
	s := start(t)
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
		t.Errorf("Addr() = %s, want 127.0.0.1:PORT", s.Addr())
	}
	if len(s.Token()) != 64 {
		t.Errorf("token %q is not 32 bytes in hex", s.Token())
	}
	if want := s.base() + "/?token=" + s.Token(); s.URL() != want {
		t.Errorf("URL() = %s, want %s", s.URL(), want)
	}
	other, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.Token() == s.Token() {
		t.Error("two servers have the same token")
	}
}

func TestTokenRequired(t *testing.T) {
	s := start(t)
	for _, path := range []string{"/", "/index.html", "/app.js", "/api/session", "/api/explorations", "/api/exploration/1", "/api/trace?exploration=1&bug=0"} {
		for _, r := range []request{
			{path: path},
			{path: path, token: "wrong"},
			{path: path, token: s.Token()[:63]},
			{path: path, token: "wrong", bearer: true},
		} {
			if code, _ := do(t, s, r); code != http.StatusUnauthorized {
				t.Errorf("GET %s with token %q (bearer %v): status %d, want 401", path, r.token, r.bearer, code)
			}
		}
		for _, bearer := range []bool{false, true} {
			if code, body := do(t, s, request{path: path, token: s.Token(), bearer: bearer}); code != http.StatusOK {
				t.Errorf("GET %s with token (bearer %v): status %d, want 200: %s", path, bearer, code, body)
			}
		}
	}
	if code, _ := do(t, s, request{method: "POST", path: "/api/goto", contentType: "application/json", body: `{"step": 1}`}); code != http.StatusUnauthorized {
		t.Errorf("POST /api/goto without token: status %d, want 401", code)
	}
}

func TestIndexCarriesToken(t *testing.T) {
	s := start(t)
	_, body := do(t, s, request{path: "/", token: s.Token()})
	if !strings.Contains(body, s.Token()) || strings.Contains(body, "{{") {
		t.Errorf("index.html does not have the token filled in:\n%s", body)
	}
}

func TestForeignOrigin(t *testing.T) {
	s := start(t)
	port := s.Addr()[strings.LastIndex(s.Addr(), ":")+1:]
	for _, o := range []string{"http://evil.example", "http://127.0.0.1:1", "https://127.0.0.1:" + port, "http://localhost.evil.example:" + port, "null"} {
		for _, path := range []string{"/api/session", "/api/exploration/1", "/"} {
			if code, _ := do(t, s, request{path: path, token: s.Token(), origin: o}); code != http.StatusForbidden {
				t.Errorf("GET %s from origin %s: status %d, want 403", path, o, code)
			}
		}
		if code, _ := do(t, s, request{method: "POST", path: "/api/goto", token: s.Token(), bearer: true, origin: o, contentType: "application/json", body: `{"step": 1}`}); code != http.StatusForbidden {
			t.Errorf("POST /api/goto from origin %s: status %d, want 403", o, code)
		}
	}
	for _, o := range []string{"http://127.0.0.1:" + port, "http://localhost:" + port, "vscode-webview://1bd3e5f0"} {
		if code, _ := do(t, s, request{path: "/api/session", token: s.Token(), origin: o}); code != http.StatusOK {
			t.Errorf("GET /api/session from origin %s: status %d, want 200", o, code)
		}
	}
}

func dial(t *testing.T, s *Server, token, origin string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	u := "ws://" + s.Addr() + "/ws"
	if token != "" {
		u += "?token=" + token
	}
	// The dialer's connections come from package net's Dialer, as the default dialer's do,
	// named here so that under heddle they are connections of its virtual network: the
	// websocket package itself is not instrumented.
	d := websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 45 * time.Second, NetDialContext: (&net.Dialer{}).DialContext}
	c, resp, err := d.Dial(u, h)
	if c != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, resp, err
}

func TestWebSocketRefused(t *testing.T) {
	s := start(t)
	for _, tc := range []struct {
		token, origin string
		code          int
	}{
		{"", "", http.StatusUnauthorized},
		{"wrong", "", http.StatusUnauthorized},
		{s.Token(), "http://evil.example", http.StatusForbidden},
		{s.Token(), "http://127.0.0.1:1", http.StatusForbidden},
	} {
		_, resp, err := dial(t, s, tc.token, tc.origin)
		if err == nil {
			t.Errorf("dial with token %q origin %q succeeded", tc.token, tc.origin)
			continue
		}
		if resp == nil || resp.StatusCode != tc.code {
			t.Errorf("dial with token %q origin %q: %v, want status %d", tc.token, tc.origin, err, tc.code)
		}
	}
}

type message struct {
	Type    string          `json:"type"`
	ID      int             `json:"id"`
	Parent  int             `json:"parent"`
	Step    int             `json:"step"`
	Stats   *record.Stats   `json:"stats"`
	Program *record.Program `json:"program"`
}

func next(t *testing.T, c *websocket.Conn) message {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, data, err := c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("message %s: %v", data, err)
	}
	return m
}

func TestWebSocketReplayAndBroadcast(t *testing.T) {
	s := start(t)
	early, _, err := dial(t, s, s.Token(), "")
	if err != nil {
		t.Fatal(err)
	}
	if m := next(t, early); m.Type != "hello" {
		t.Fatalf("first message is %q, want hello", m.Type)
	}
	bug := 0
	for _, m := range []any{
		record.Start{Program: record.Program{Package: "example.com/bank", Test: "TestTransfer"}},
		record.Node{ID: 0, Parent: -1, Enabled: []string{"G1", "G1.1"}},
		&record.Node{ID: 1, Parent: 0, G: "G1.1", Op: "lock", Enabled: []string{}, Leaf: &record.Leaf{Verdict: "deadlock", Bug: &bug}},
		record.Bug{ID: 0, Kind: "deadlock"},
		record.Progress{Stats: record.Stats{Runs: 1}},
		record.Done{Stats: record.Stats{Runs: 2, Complete: true}},
		record.Checkpoint{Index: 1, Step: 4, Trace: "x.trace.json"},
	} {
		if err := s.Publish(m); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"start TestTransfer", "node 0", "node 1", "bug", "progress", "done", "checkpoint"}
	for _, w := range want {
		if got := describe(next(t, early)); got != w {
			t.Fatalf("broadcast: got %s, want %s", got, w)
		}
	}

	// A late client gets the state, with only the latest progress.
	late, _, err := dial(t, s, s.Token(), "http://localhost:"+s.Addr()[strings.LastIndex(s.Addr(), ":")+1:])
	if err != nil {
		t.Fatal(err)
	}
	// The start message stays before the nodes it begins.
	for _, w := range []string{"hello", "start TestTransfer", "node 0", "node 1", "bug", "done", "checkpoint"} {
		m := next(t, late)
		if got := describe(m); got != w {
			t.Fatalf("replay: got %s, want %s", got, w)
		}
		if m.Type == "done" && m.Stats.Runs != 2 {
			t.Errorf("replayed done has %d runs, want 2", m.Stats.Runs)
		}
	}
	if err := s.Publish(json.RawMessage(`{"type": "node", "id": 2, "parent": 1, "enabled": []}`)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*websocket.Conn{early, late} {
		if got := describe(next(t, c)); got != "node 2" {
			t.Errorf("after replay: got %s, want node 2", got)
		}
	}
	code, body := do(t, s, request{path: "/api/session", token: s.Token()})
	if code != http.StatusOK || !strings.Contains(body, `"live":true`) || !strings.Contains(body, `"runs":2`) {
		t.Errorf("session after publishing: %d %s", code, body)
	}
}

func describe(m message) string {
	switch m.Type {
	case "node":
		return fmt.Sprintf("node %d", m.ID)
	case "start":
		return "start " + m.Program.Test
	}
	return m.Type
}

func TestPublishRejects(t *testing.T) {
	s := start(t)
	for _, m := range []any{
		record.Node{ID: 3, Parent: 2},
		map[string]any{"type": "hello"},
		map[string]any{"type": "nonsense"},
		map[string]any{"id": 1},
		[]byte(`[1, 2]`),
		// The shapes that the CLI and the debug adapter once published: a node nested under
		// "node", and the worker protocol's stats with Go's field names.
		[]byte(`{"type": "node", "node": {"id": 0, "parent": -1, "enabled": []}}`),
		[]byte(`{"type": "progress", "stats": {"Runs": 3, "Elapsed": 1000000}}`),
		[]byte(`{"type": "progress", "stats": {"runs": 3, "elapsed": 1000000}}`),
		[]byte(`{"type": "bug", "id": 0, "kind": "deadlock", "where": "x.go:3"}`),
		[]byte(`{"type": "start", "test": "TestX"}`),
	} {
		if err := s.Publish(m); err == nil {
			t.Errorf("Publish(%v) succeeded", m)
		}
	}
	if err := s.Publish(record.Node{ID: 0, Parent: -1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(record.Node{ID: 0, Parent: -1}); err == nil {
		t.Error("publishing node 0 twice succeeded")
	}
	s.Close()
	if err := s.Publish(record.Node{ID: 1, Parent: 0}); err == nil {
		t.Error("Publish after Close succeeded")
	}
}

func TestCloseDisconnects(t *testing.T) {
	s := start(t)
	c, _, err := dial(t, s, s.Token(), "")
	if err != nil {
		t.Fatal(err)
	}
	next(t, c)
	s.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c.ReadMessage(); err == nil {
		t.Error("client still connected after Close")
	}
}

func TestAPI(t *testing.T) {
	s := start(t)
	get := func(path string, v any) {
		t.Helper()
		code, body := do(t, s, request{path: path, token: s.Token(), bearer: true})
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, code, body)
		}
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var list []ExplorationSummary
	get("/api/explorations", &list)
	if len(list) != 1 || list[0].ID != "1" || list[0].Nodes != 21 || list[0].Bugs != 2 {
		t.Fatalf("explorations: %+v", list)
	}
	var e record.Exploration
	get("/api/exploration/1", &e)
	if len(e.Tree) != 21 || e.LockTrees == nil || len(e.LockTrees.Warnings) != 1 {
		t.Errorf("exploration: %d nodes, lock trees %v", len(e.Tree), e.LockTrees)
	}
	var bugs []BugSummary
	get("/api/exploration/1/bugs", &bugs)
	if len(bugs) != 2 || !bugs[0].TraceLoaded || len(bugs[0].Goroutines) != 3 || bugs[0].Goroutines[1].Pos.Line != 18 {
		t.Errorf("bugs: %+v", bugs)
	}
	var tr record.Trace
	get("/api/trace?exploration=1&bug=0", &tr)
	if len(tr.Events) != 10 || tr.Verdict.Kind != "deadlock" {
		t.Errorf("trace of bug 0: %d events, verdict %v", len(tr.Events), tr.Verdict)
	}
	var traces []struct{ Name string }
	get("/api/traces", &traces)
	if len(traces) != 2 {
		t.Fatalf("traces: %+v", traces)
	}
	get("/api/trace?path="+url.QueryEscape(traces[0].Name), &tr)
	for _, path := range []string{"/api/exploration/2", "/api/trace?exploration=1&bug=7", "/api/trace?exploration=1&bug=x", "/api/nothing"} {
		if code, _ := do(t, s, request{path: path, token: s.Token()}); code == http.StatusOK {
			t.Errorf("GET %s succeeded", path)
		}
	}
}

func TestNoArbitraryFiles(t *testing.T) {
	s := start(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "x.go")
	lines := make([]string, 30)
	for i := range lines {
		lines[i] = fmt.Sprintf("// line %d", i+1)
	}
	if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.go")
	if err := os.WriteFile(secret, []byte("TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &record.Trace{
		Heddle: "trace", Version: 1,
		Goroutines: []record.Goroutine{{ID: "G1", Created: -1, Exited: 0}},
		Events:     []record.Event{{Step: 0, G: "G1", Op: "exit", Pos: &record.Pos{File: src, Line: 20}}},
	}
	if err := s.AddTrace("x.trace.json", tr); err != nil {
		t.Fatal(err)
	}
	code, body := do(t, s, request{path: "/api/source?line=20&file=" + url.QueryEscape(src), token: s.Token()})
	var snip struct {
		Start int
		Lines []string
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &snip) != nil || snip.Start != 14 || len(snip.Lines) != 13 || snip.Lines[6] != "// line 20" {
		t.Errorf("source of a trace's file: %d %s", code, body)
	}
	for _, path := range []string{
		"/api/source?line=1&file=" + url.QueryEscape(secret),
		"/api/source?line=1&file=" + url.QueryEscape(dir+"/sub/../secret.go"),
		"/api/source?line=1&file=" + url.QueryEscape(dir+"/sub/../x.go"),
		"/api/source?line=1&file=/etc/passwd",
		"/api/source?line=99&file=" + url.QueryEscape(src),
		"/api/trace?path=" + url.QueryEscape(secret),
		"/api/trace?path=../../../../etc/passwd",
		"/api/trace?path=" + url.QueryEscape(fixtures+"/bugs/../bank.exploration.json"),
		"/../../../../etc/passwd",
		"/%2e%2e/%2e%2e/etc/passwd",
		"/..%2fserver.go",
	} {
		code, body := do(t, s, request{path: path, token: s.Token()})
		if code == http.StatusOK || strings.Contains(body, "TOPSECRET") || strings.Contains(body, "root:") {
			t.Errorf("GET %s: status %d, body %.80s", path, code, body)
		}
	}
}

func TestGoto(t *testing.T) {
	s := start(t)
	post := func(ct, body string) (int, string) {
		return do(t, s, request{method: "POST", path: "/api/goto", token: s.Token(), bearer: true, contentType: ct, body: body})
	}
	if code, _ := post("application/json", `{"step": 3}`); code != http.StatusServiceUnavailable {
		t.Errorf("goto without a debugger: status %d, want 503", code)
	}
	var got []int
	s.OnGoto(func(step int) error {
		if step > 100 {
			return errors.New("no such step")
		}
		got = append(got, step)
		return nil
	})
	if code, body := post("application/json", `{"step": 3}`); code != http.StatusOK {
		t.Errorf("goto: %d %s", code, body)
	}
	if code, _ := post("text/plain", `{"step": 4}`); code != http.StatusUnsupportedMediaType {
		t.Errorf("goto as text/plain: status %d, want 415", code)
	}
	for _, body := range []string{`{}`, `{"step": -1}`, `{"step": "x"}`, `nonsense`} {
		if code, _ := post("application/json", body); code != http.StatusBadRequest {
			t.Errorf("goto %s: status %d, want 400", body, code)
		}
	}
	if code, _ := post("application/json", `{"step": 101}`); code != http.StatusConflict {
		t.Errorf("goto a step the debugger refuses: status %d, want 409", code)
	}
	if code, _ := do(t, s, request{path: "/api/goto", token: s.Token()}); code == http.StatusOK {
		t.Error("GET /api/goto succeeded")
	}
	if len(got) != 1 || got[0] != 3 {
		t.Errorf("callback got %v, want [3]", got)
	}
}

func TestAllowOrigin(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func(origin string) int {
		req, _ := http.NewRequest("GET", "http://"+s.Addr()+"/api/session", nil)
		req.Header.Set("Authorization", "Bearer "+s.Token())
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	const proxy = "http://127.0.0.1:35943"
	if code := get(proxy); code != http.StatusForbidden {
		t.Fatalf("an editor's proxy origin before AllowOrigin: %d, want 403", code)
	}
	for _, bad := range []string{"http://example.com", "file:///", "http://127.0.0.1:1/x", "javascript:1"} {
		if err := s.AllowOrigin(bad); err == nil {
			t.Errorf("AllowOrigin(%q) accepted", bad)
		}
	}
	if err := s.AllowOrigin(proxy); err != nil {
		t.Fatal(err)
	}
	if code := get(proxy); code != http.StatusOK {
		t.Errorf("the allowed origin: %d, want 200", code)
	}
	if code := get("http://127.0.0.1:35944"); code != http.StatusForbidden {
		t.Errorf("another origin: %d, want 403", code)
	}
}
