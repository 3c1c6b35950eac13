package lsp_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/heddledbg/heddle/lsp"
)

// TestDiagnostics checks the diagnostics of the result files of testdata/workspace: every
// kind of bug, a stale trace that the exploration no longer lists, a bug without a
// position, a corrupt trace and an exploration of a newer version.
func TestDiagnostics(t *testing.T) {
	ws := copyWorkspace(t)
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(ws, nil)
	c.refresh()
	checkGolden(t, "workspace.golden", render(ws, c.diagnostics()))
	checkGolden(t, "workspace.log.golden", renderLogs(ws, c.logMessages()))
}

// TestResultDirs checks the resultDirs initialization option, relative and absolute.
func TestResultDirs(t *testing.T) {
	ws := copyWorkspace(t)
	if err := os.Rename(filepath.Join(ws, lsp.DefaultResultDir), filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	bank := filepath.Join(ws, "bank", "bank.go")
	tests := []struct {
		name string
		opts any
		want bool // diagnostics in bank.go
	}{
		{"default", nil, false},
		{"relative", map[string]any{"resultDirs": []string{"out"}}, true},
		{"absolute", map[string]any{"resultDirs": []string{filepath.Join(ws, "out")}}, true},
		{"other", map[string]any{"resultDirs": []string{"elsewhere", lsp.DefaultResultDir}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, lsp.Options{Poll: -1})
			c.initialize(ws, tt.opts)
			c.refresh()
			if got := len(c.diagnostics()[bank]) > 0; got != tt.want {
				t.Errorf("diagnostics in bank.go: %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCodeAction checks the quick fix that replays the bug of a heddle diagnostic.
func TestCodeAction(t *testing.T) {
	ws := copyWorkspace(t)
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(ws, nil)
	c.refresh()
	bank := filepath.Join(ws, "bank", "bank.go")
	ds := c.diagnostics()[bank]
	i := slices.IndexFunc(ds, func(d protocol.Diagnostic) bool { return d.Code == "leak" })
	if i < 0 {
		t.Fatalf("no leak diagnostic in bank.go: %v", ds)
	}
	leak := ds[i]
	trace := filepath.Join(ws, lsp.DefaultResultDir, "example.com", "bank", "TestNotify", "leak-1.trace.json")
	withoutData := leak
	withoutData.Data = nil
	forged := leak
	forged.Data = map[string]any{"trace": "/etc/passwd"}
	forged.Message = "something else"
	other := leak
	other.Source = "gopls"

	tests := []struct {
		name  string
		diags []protocol.Diagnostic
		only  []protocol.CodeActionKind
		want  []string // trace of each action
	}{
		{"published", []protocol.Diagnostic{leak}, nil, []string{trace}},
		{"same bug twice", []protocol.Diagnostic{leak, leak}, nil, []string{trace}},
		{"client drops data", []protocol.Diagnostic{withoutData}, nil, []string{trace}},
		{"unknown trace", []protocol.Diagnostic{forged}, nil, nil},
		{"other source", []protocol.Diagnostic{other}, nil, nil},
		{"only quickfix", []protocol.Diagnostic{leak}, []protocol.CodeActionKind{protocol.QuickFix}, []string{trace}},
		{"only refactor", []protocol.Diagnostic{leak}, []protocol.CodeActionKind{protocol.Refactor}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			actions, err := c.server.CodeAction(c.ctx, &protocol.CodeActionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(bank)},
				Range:        leak.Range,
				Context:      protocol.CodeActionContext{Diagnostics: tt.diags, Only: tt.only},
			})
			if err != nil {
				t.Fatalf("codeAction: %v", err)
			}
			var got []string
			for _, a := range actions {
				if a.Title != "Replay with heddle" || a.Kind != protocol.QuickFix || a.Command == nil ||
					a.Command.Command != lsp.CommandReplayBug || len(a.Diagnostics) != 1 {
					t.Errorf("action %+v: want a quickfix %q running %s for one diagnostic", a, "Replay with heddle", lsp.CommandReplayBug)
					continue
				}
				var args []lsp.ReplayArgs
				remarshal(t, a.Command.Arguments, &args)
				if len(args) != 1 {
					t.Fatalf("arguments %v, want one", a.Command.Arguments)
				}
				got = append(got, args[0].Trace)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("actions replay %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWatch checks that the diagnostics follow the result files, whatever tells the server
// they changed: its poll, workspace/didChangeWatchedFiles or heddle/refresh. A file that
// has no bugs any more gets an empty list.
func TestWatch(t *testing.T) {
	tests := []struct {
		name string
		poll time.Duration
		tell func(c *client)
	}{
		{"poll", 20 * time.Millisecond, func(*client) {}},
		{"didChangeWatchedFiles", -1, func(c *client) {
			err := c.server.DidChangeWatchedFiles(c.ctx, &protocol.DidChangeWatchedFilesParams{
				Changes: []*protocol.FileEvent{{URI: uri.File(filepath.Join(c.t.TempDir(), "x.trace.json")), Type: protocol.FileChangeTypeDeleted}}})
			if err != nil {
				c.t.Fatal(err)
			}
		}},
		{"heddle/refresh", -1, func(c *client) {
			if err := c.conn.Notify(c.ctx, lsp.MethodRefresh, nil); err != nil {
				c.t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := copyWorkspace(t)
			c := start(t, lsp.Options{Poll: tt.poll})
			c.initialize(ws, nil)
			c.refresh()
			results := filepath.Join(ws, lsp.DefaultResultDir, "example.com", "bank")
			bankTest := filepath.Join(ws, "bank", "bank_test.go")
			bank := filepath.Join(ws, "bank", "bank.go")
			if n := len(c.diagnostics()[bankTest]); n == 0 {
				t.Fatal("no diagnostics in bank_test.go to start with")
			}

			// A new bug appears, in a compressed trace as heddle writes them now; the fixtures'
			// traces are plain, as earlier versions wrote them.
			leak, err := os.ReadFile(filepath.Join(results, "TestNotify", "leak-1.trace.json"))
			if err != nil {
				t.Fatal(err)
			}
			newLeak := strings.Replace(string(leak), `"line": 25`, `"line": 19`, 1)
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write([]byte(newLeak))
			zw.Close()
			if err := os.WriteFile(filepath.Join(results, "TestNotify", "leak-2.trace.json.gz"), gz.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			tt.tell(c)
			c.waitFor("the diagnostic of a new trace", func() bool {
				return slices.ContainsFunc(c.diags[bank], func(d protocol.Diagnostic) bool {
					return d.Code == "leak" && d.Range.Start.Line == 18
				})
			})

			// The bugs of bank_test.go are fixed.
			for _, test := range []string{"TestTransfer", "TestBalance"} {
				if err := os.RemoveAll(filepath.Join(results, test)); err != nil {
					t.Fatal(err)
				}
			}
			tt.tell(c)
			c.waitFor("bank_test.go to be cleared", func() bool {
				ds, ok := c.diags[bankTest]
				return ok && len(ds) == 0
			})
		})
	}
}

// TestCorruptTrace checks that a corrupt trace file is reported to the client's log and
// skipped, and that the server goes on serving.
func TestCorruptTrace(t *testing.T) {
	ws := copyWorkspace(t)
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(ws, nil)
	c.refresh()
	before := c.diagnostics()
	tests := []struct {
		name, file, content, want string
	}{
		{"truncated", "deadlock-9.trace.json", `{"heddle": "trace", "version": 1, "goroutines": [`, "unexpected end of JSON input"},
		{"wrong kind", "panic-9.trace.json", `{"heddle": "schedule", "version": 1, "decisions": []}`, `want "trace"`},
		{"newer", "panic-10.trace.json", `{"heddle": "trace", "version": 7}`, "newer than this heddle understands"},
		{"unknown field", "panic-11.trace.json", `{"heddle": "trace", "version": 1, "verdict": {"kind": "panic", "where": 3}}`, `unknown field "where"`},
		{"wrong type", "panic-12.trace.json", `{"heddle": "trace", "version": 1, "verdict": {"kind": "panic", "goroutines": [{"pos": {"line": "17"}}]}}`, "line 1"},
		{"binary", "panic-13.trace.json", "\x00\xff\xfe garbage", "invalid character"},
		{"empty", "panic-14.trace.json", "", "unexpected end of JSON input"},
	}
	dir := filepath.Join(ws, lsp.DefaultResultDir, "example.com", "bank", "TestCorrupted")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(path)
			c.refresh()
			logged := slices.ContainsFunc(c.logMessages(), func(l protocol.LogMessageParams) bool {
				return l.Type == protocol.MessageTypeWarning && strings.Contains(l.Message, path) && strings.Contains(l.Message, tt.want)
			})
			if !logged {
				t.Errorf("no warning naming %s and saying %q; log:\n%s", path, tt.want, renderLogs(ws, c.logMessages()))
			}
			if got := c.diagnostics(); render(ws, got) != render(ws, before) {
				t.Errorf("diagnostics changed:\n%s", render(ws, got))
			}
			// The server still answers.
			if _, err := c.server.CodeLens(c.ctx, &protocol.CodeLensParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(ws, "bank", "bank_test.go"))}}); err != nil {
				t.Errorf("codeLens after a corrupt trace: %v", err)
			}
		})
	}
}
