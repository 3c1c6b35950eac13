package lsp

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/heddledbg/heddle/record"
)

// FuzzResults writes a trace file and, if not empty, an exploration file into a test
// directory, loads them and turns them into diagnostics. Whatever the files hold, nothing
// may panic, a file that cannot be used must be reported, and every diagnostic must be well
// formed. The seeds are the fixtures of testdata/workspace and damaged variants.
func FuzzResults(f *testing.F) {
	fixtures := filepath.Join("testdata", "workspace", "dot-heddle")
	err := filepath.WalkDir(fixtures, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !record.IsTrace(path) {
			return err
		}
		trace, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		exp, _ := os.ReadFile(filepath.Join(filepath.Dir(path), record.PlainExplorationFile))
		// The fixture's exploration names the fixture's trace by its name; the fuzzed trace is
		// always deadlock-1.trace.json.
		exp = bytes.ReplaceAll(exp, []byte(filepath.Base(path)), []byte("deadlock-1.trace.json"))
		f.Add(trace, exp)
		f.Add(trace, []byte(nil))
		f.Add(trace[:len(trace)/2], exp)
		f.Add(trace, exp[:len(exp)/2])
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `{"heddle": "trace"}`, `{"heddle": "trace", "version": 1}`,
		`{"heddle": "trace", "version": 1, "verdict": {"kind": "deadlock", "goroutines": [{"id": "G1", "state": "blocked", "pos": {"file": "", "line": 3}}]}}`,
		`{"heddle": "trace", "version": 1, "verdict": {"kind": "deadlock", "goroutines": [{"id": "G1", "state": "blocked", "pos": {"file": "$WORK/bank/bank.go", "line": -3}}]}}`,
		`{"heddle": "trace", "version": 1, "verdict": {"kind": "panic", "goroutines": [{"id": "G1", "stack": [{"file": "$WORK/bank/bank.go", "line": 1000000}]}]}}`,
		`{"heddle": "trace", "version": 1, "program": {"dir": "$WORK/bank"}, "verdict": {"kind": "fatal", "message": "test failed: bank.go:0: x; bank.go:99999999999999999999: y; ../bank.go:3: z; bank.go:5:"}}`,
		`{"heddle": "trace", "version": 1, "program": {"dir": "relative"}, "verdict": {"kind": "fatal", "message": "test failed: bank.go:3: x"}}`,
	} {
		f.Add([]byte(s), []byte(nil))
	}
	cycle := `{"heddle": "exploration", "version": 1, "program": {}, "stats": {}, "tree": [], "bugs": [{"id": 0, "kind": "lockcycle", "trace": "deadlock-1.trace.json", "message": "G1 holds L (locked at :0) and waits for M (Lock at bank.go:-1); G2 holds M (locked) and waits for L (Lock at /abs/bank.go:7)"}]}`
	f.Add([]byte(`{"heddle": "trace", "version": 1, "verdict": {"kind": "ok"}}`), []byte(cycle))
	order := `{"heddle": "exploration", "version": 1, "program": {}, "stats": {}, "tree": [], "bugs": [{"id": 0, "kind": "lockorder", "trace": "deadlock-1.trace.json"}], "lockTrees": {"trees": [{"g": "G1", "root": {"children": [{"lock": "A", "children": []}]}}], "warnings": [{"locks": ["A", "B"], "first": {"g": "G1", "path": ["A", "B"]}, "second": {"g": "G2", "path": []}}], "suppressed": [], "graph": {"nodes": [], "edges": [], "cycles": []}}}`
	f.Add([]byte(`{"heddle": "trace", "version": 1, "verdict": {"kind": "ok"}}`), []byte(order))

	bankGo, err := os.ReadFile(filepath.Join("testdata", "workspace", "bank", "bank.go"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, trace, exp []byte) {
		root := t.TempDir()
		work := []byte(filepath.ToSlash(root))
		if err := os.MkdirAll(filepath.Join(root, "bank"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "bank", "bank.go"), bankGo, 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, ".heddle", "p", "TestX")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		tracePath := filepath.Join(dir, "deadlock-1.trace.json")
		if err := os.WriteFile(tracePath, bytes.ReplaceAll(trace, []byte("$WORK"), work), 0o644); err != nil {
			t.Fatal(err)
		}
		if len(exp) > 0 {
			if err := os.WriteFile(filepath.Join(dir, record.PlainExplorationFile), bytes.ReplaceAll(exp, []byte("$WORK"), work), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var warnings []string
		results := newLoader().results([]string{filepath.Join(root, ".heddle")}, func(msg string) { warnings = append(warnings, msg) })
		if len(exp) == 0 && len(results) == 0 && len(warnings) == 0 {
			t.Errorf("the trace was neither loaded nor reported")
		}
		for _, w := range warnings {
			if !strings.Contains(w, dir) {
				t.Errorf("warning %q does not name the file", w)
			}
		}
		diags := diagnose(results, newSources(nil), func(string) {})
		for path, ds := range diags {
			if !filepath.IsAbs(path) {
				t.Errorf("diagnostics for the relative path %q", path)
			}
			for _, d := range ds {
				r := d.Range
				if d.Source != Source || d.Message == "" || d.Code == "" || r.Start.Line != r.End.Line || r.End.Character < r.Start.Character {
					t.Errorf("malformed diagnostic %+v", d)
				}
				// Only an atomicity warning, which has no schedule, has no trace to replay.
				if d.Data == nil && d.Code == "atomicity" && d.Severity == protocol.DiagnosticSeverityWarning {
					continue
				}
				if a, ok := d.Data.(ReplayArgs); !ok || a.Trace != tracePath {
					t.Errorf("diagnostic data %v, want the trace %s", d.Data, tracePath)
				}
				for _, rel := range d.RelatedInformation {
					if rel.Location.URI == "" || rel.Message == "" {
						t.Errorf("malformed related information %+v", rel)
					}
				}
			}
		}
	})
}

// FuzzTestLenses checks that any source yields lenses only for well-named tests, on lines
// that exist, with ranges inside them.
func FuzzTestLenses(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "lens", "*.go"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	f.Add("package p\nimport \"testing\"\nfunc Test💸(t *testing.T) {}\n")
	f.Add("package p\r\nimport \"testing\"\r\nfunc TestCRLF(t *testing.T) {}\r\n")
	f.Add("package p; import \"testing\"; func TestOne(t *testing.T) {}; func TestTwo(t *testing.T) {}")
	f.Add("package p\nimport \"testing\"\nfunc TestNoBody(t *testing.T)\n")
	f.Add("import \"testing\"\nfunc TestNoPackage(t *testing.T) {}\n")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, src string) {
		lenses := testLenses("/w/x_test.go", []byte(src))
		if len(lenses)%2 != 0 {
			t.Fatalf("%d lenses, want two a test", len(lenses))
		}
		for _, l := range lenses {
			r := l.Range
			text, ok := lineText(src, int(r.Start.Line)+1)
			if !ok || r.End.Line != r.Start.Line || r.End.Character < r.Start.Character || int(r.End.Character) > utf16Len(text) {
				t.Errorf("lens range %+v outside line %d %q", r, r.Start.Line+1, text)
			}
			args, ok := l.Command.Arguments[0].(TestArgs)
			if !ok || args.Package != "/w" {
				t.Fatalf("lens arguments %v", l.Command.Arguments)
			}
			name := args.Test
			if r, _ := utf8.DecodeRuneInString(strings.TrimPrefix(name, "Test")); !strings.HasPrefix(name, "Test") || unicode.IsLower(r) {
				t.Errorf("lens for %q, which go test does not run", name)
			}
		}
		if testLenses("/w/x.go", []byte(src)) != nil {
			t.Errorf("lenses in a file that is not a test file")
		}
	})
}

// FuzzAtomicityLenses checks that any source yields "check atomicity" lenses only over
// functions it declares, with ranges inside their lines.
func FuzzAtomicityLenses(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "atomic", "*.go"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	f.Add("package p\n//heddle:atomic\nfunc (*) F() {}\n")
	f.Add("package p\n//heddle:atomic\nfunc (r *R[K, V]) F()\n")
	f.Add("package p\r\n//heddle:atomic\r\nfunc 💸() {}\r\n")
	f.Add("//heddle:atomic\nfunc NoPackage() {}\n")
	f.Fuzz(func(t *testing.T, src string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "x.go")
		read := func(p string) ([]byte, error) { return nil, fs.ErrNotExist }
		for _, l := range atomicLenses(path, []byte(src), read) {
			r := l.Range
			text, ok := lineText(src, int(r.Start.Line)+1)
			if !ok || r.End.Line != r.Start.Line || r.End.Character < r.Start.Character || int(r.End.Character) > utf16Len(text) {
				t.Errorf("lens range %+v outside line %d %q", r, r.Start.Line+1, text)
			}
			args, ok := l.Command.Arguments[0].(AtomicityArgs)
			if !ok || args.Package != dir || args.Func == "" || args.Tests == nil || l.Command.Command != CommandCheckAtomicity {
				t.Fatalf("lens %+v", l.Command)
			}
		}
	})
}

// FuzzOffsets checks the conversions between LSP positions and byte offsets on any text.
func FuzzOffsets(f *testing.F) {
	f.Add("package p\n\n// 💸💸\n", uint32(2), uint32(5))
	f.Add("a\r\nb", uint32(0), uint32(9))
	f.Add("", uint32(3), uint32(0))
	f.Add("\xff\xfe\n\t x \t", uint32(1), uint32(2))
	f.Fuzz(func(t *testing.T, src string, line, char uint32) {
		off := offsetOf(src, protocol.Position{Line: line, Character: char})
		if off < 0 || off > len(src) {
			t.Fatalf("offset %d outside [0, %d]", off, len(src))
		}
		r := lineRange(src, true, int(line%1000))
		if r.End.Character < r.Start.Character {
			t.Errorf("line range %+v ends before it starts", r)
		}
	})
}
