package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/heddledbg/heddle/lsp"
)

// TestCodeLens checks the lenses of test files: every func TestXxx(t *testing.T) go test
// would run gets its two lenses, and nothing else does.
func TestCodeLens(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "lens"))
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(t.TempDir(), nil)
	tests := []struct {
		file string
		open bool // sent with didOpen; otherwise the server reads the file
	}{
		{"several_test.go", true},
		{"alias_test.go", true},
		{"dot_test.go", true},
		{"broken_test.go", true},
		{"notest_test.go", true},
		{"helpers.go", true},
		{"several_test.go", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/open=%v", tt.file, tt.open), func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			u := uri.File(path)
			if tt.open {
				text, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				c.open(u, string(text))
				defer c.close(u)
			}
			lenses, err := c.server.CodeLens(c.ctx, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
			if err != nil {
				t.Fatalf("codeLens: %v", err)
			}
			checkGolden(t, filepath.Join("lens", tt.file+".golden"), renderLenses(dir, lenses))
		})
	}
}

// TestCodeLensFollowsEdits checks that the lenses follow the text of didChange, full or ranged,
// rather than the file on disk.
func TestCodeLensFollowsEdits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "edit_test.go")
	u := uri.File(path)
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(dir, nil)
	const header = "package p\n\nimport \"testing\"\n\n"
	steps := []struct {
		name   string
		change func()
		want   []string // "line:start-end TestName" of each test
	}{
		{"open", func() { c.open(u, header+"func TestA(t *testing.T) {}\n\nfunc TestB(t *testing.T) {}\n") },
			[]string{"5:0-10 TestA", "7:0-10 TestB"}},
		{"full change", func() { c.change(u, nil, header+"// 💸💸\n") },
			nil},
		// The insertion point is after the first emoji: 5 UTF-16 code units, 7 bytes.
		{"ranged change", func() {
			at := protocol.Position{Line: 4, Character: 5}
			c.change(u, &protocol.Range{Start: at, End: at}, "\nfunc TestInserted(t *testing.T) {}\n//")
		}, []string{"6:0-17 TestInserted"}},
		{"ranged replacement", func() {
			c.change(u, &protocol.Range{Start: protocol.Position{Line: 5, Character: 9}, End: protocol.Position{Line: 5, Character: 17}}, "Renamed")
		}, []string{"6:0-16 TestRenamed"}},
	}
	for _, st := range steps {
		st.change()
		lenses, err := c.server.CodeLens(c.ctx, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		if err != nil {
			t.Fatalf("%s: codeLens: %v", st.name, err)
		}
		var got []string
		for i, l := range lenses {
			if i%2 == 1 {
				continue // the debug lens of the same test
			}
			var args []lsp.TestArgs
			remarshal(t, l.Command.Arguments, &args)
			got = append(got, fmt.Sprintf("%d:%d-%d %s", l.Range.Start.Line+1, l.Range.Start.Character, l.Range.End.Character, args[0].Test))
		}
		if fmt.Sprint(got) != fmt.Sprint(st.want) {
			t.Errorf("%s: lenses %q, want %q", st.name, got, st.want)
		}
	}
}

func (c *client) open(u protocol.DocumentURI, text string) {
	c.t.Helper()
	err := c.server.DidOpen(c.ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: 1, Text: text}})
	if err != nil {
		c.t.Fatalf("didOpen: %v", err)
	}
}

func (c *client) close(u protocol.DocumentURI) {
	c.t.Helper()
	if err := c.server.DidClose(c.ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		c.t.Fatalf("didClose: %v", err)
	}
}

// change sends a didChange of the whole text (r is nil) or of a range.
func (c *client) change(u protocol.DocumentURI, r *protocol.Range, text string) {
	c.t.Helper()
	// protocol.TextDocumentContentChangeEvent always has a range; a full change must not.
	type event struct {
		Range *protocol.Range `json:"range,omitempty"`
		Text  string          `json:"text"`
	}
	params := map[string]any{
		"textDocument":   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		"contentChanges": []event{{r, text}},
	}
	if err := c.conn.Notify(c.ctx, protocol.MethodTextDocumentDidChange, params); err != nil {
		c.t.Fatalf("didChange: %v", err)
	}
}

// renderLenses prints one lens a line, with dir shown as $DIR.
func renderLenses(dir string, lenses []protocol.CodeLens) string {
	var b strings.Builder
	for _, l := range lenses {
		args, _ := json.Marshal(l.Command.Arguments)
		fmt.Fprintf(&b, "%s %q %s %s\n", rng(l.Range), l.Command.Title, l.Command.Command, strings.ReplaceAll(string(args), dir, "$DIR"))
	}
	return b.String()
}

// remarshal converts a value decoded as JSON into any to a typed value.
func remarshal(t *testing.T, from, to any) {
	t.Helper()
	data, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, to); err != nil {
		t.Fatal(err)
	}
}
