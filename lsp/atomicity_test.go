package lsp_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/heddledbg/heddle/lsp"
)

// TestAtomicityLens checks the "check atomicity" lenses: one over each function whose doc
// comment has //heddle:atomic, in any Go file, naming the tests of the package that reach
// it; test files keep their test lenses beside them.
func TestAtomicityLens(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "atomic"))
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(t.TempDir(), nil)
	for _, file := range []string{"buffer.go", "buffer_test.go", "external_test.go", "other_test.go"} {
		t.Run(file, func(t *testing.T) {
			lenses, err := c.server.CodeLens(c.ctx, &protocol.CodeLensParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(dir, file))}})
			if err != nil {
				t.Fatalf("codeLens: %v", err)
			}
			checkGolden(t, filepath.Join("atomic", file+".golden"), renderLenses(dir, lenses))
		})
	}
}

// TestAtomicityLensFollowsEdits checks that the tests of a lens come from the editor's text
// of the package's files, not only from the files on disk.
func TestAtomicityLensFollowsEdits(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\n//heddle:atomic\nfunc Inc() {}\n"
	test := "package p\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n"
	for name, text := range map[string]string{"p.go": src, "p_test.go": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(dir, nil)
	tests := func() []string {
		t.Helper()
		lenses, err := c.server.CodeLens(c.ctx, &protocol.CodeLensParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(dir, "p.go"))}})
		if err != nil || len(lenses) != 1 || lenses[0].Command.Command != lsp.CommandCheckAtomicity {
			t.Fatalf("codeLens: %v, %v; want one %s lens", lenses, err, lsp.CommandCheckAtomicity)
		}
		var args []lsp.AtomicityArgs
		remarshal(t, lenses[0].Command.Arguments, &args)
		return args[0].Tests
	}
	if got := tests(); len(got) != 0 {
		t.Errorf("before the edit: tests %q, want none", got)
	}
	u := uri.File(filepath.Join(dir, "p_test.go"))
	c.open(u, test)
	c.change(u, nil, test+"\nfunc TestInc(t *testing.T) { Inc() }\n")
	if got := tests(); !slices.Equal(got, []string{"TestInc"}) {
		t.Errorf("after the edit: tests %q, want [TestInc]", got)
	}
	c.close(u)
	if got := tests(); len(got) != 0 {
		t.Errorf("after closing the edited file: tests %q, want none", got)
	}
}

// TestAtomicityCodeAction checks that a function definitely not atomic, a bug, can be
// replayed, and that one possibly not atomic, a warning without a schedule, cannot.
func TestAtomicityCodeAction(t *testing.T) {
	ws := copyWorkspace(t)
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(ws, nil)
	c.refresh()
	path := filepath.Join(ws, "buffer", "buffer.go")
	ds := c.diagnostics()[path]
	tests := []struct {
		fn       string
		severity protocol.DiagnosticSeverity
		trace    string // the trace the action replays, "" for no action
	}{
		{"(*Buffer).Append", protocol.DiagnosticSeverityError, filepath.Join(ws, lsp.DefaultResultDir, "example.com", "buffer", "TestAppend", "atomicity-1.trace.json")},
		{"(*Buffer).Len", protocol.DiagnosticSeverityWarning, ""},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			i := slices.IndexFunc(ds, func(d protocol.Diagnostic) bool { return strings.HasPrefix(d.Message, tt.fn+" is ") })
			if i < 0 {
				t.Fatalf("no diagnostic of %s in buffer.go:\n%s", tt.fn, render(ws, map[string][]protocol.Diagnostic{path: ds}))
			}
			d := ds[i]
			if d.Severity != tt.severity || d.Code != "atomicity" {
				t.Errorf("severity %v, code %v; want %v, atomicity", d.Severity, d.Code, tt.severity)
			}
			for _, data := range []bool{true, false} {
				if !data {
					d.Data = nil // a client that drops data
				}
				actions, err := c.server.CodeAction(c.ctx, &protocol.CodeActionParams{
					TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
					Range:        d.Range,
					Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}},
				})
				if err != nil {
					t.Fatalf("codeAction: %v", err)
				}
				var got []string
				for _, a := range actions {
					var args []lsp.ReplayArgs
					remarshal(t, a.Command.Arguments, &args)
					got = append(got, fmt.Sprintf("%s %s", a.Command.Command, args[0].Trace))
				}
				var want []string
				if tt.trace != "" {
					want = []string{lsp.CommandReplayBug + " " + tt.trace}
				}
				if !slices.Equal(got, want) {
					t.Errorf("data %v: actions %q, want %q", data, got, want)
				}
			}
		})
	}
}

// atomicityKernels are the kernels of the corpus with //heddle:atomic functions: the
// StringBuffer append of Bogor's Fig. 1, whose TestBug finds it definitely not atomic
// (Fig. 1(b), a deadlock inside it) or possibly (Fig. 1(a), the checkers' pattern broken),
// and whose TestFixed finds nothing.
var atomicityKernels = []struct {
	kernel   string
	definite bool
}{
	{"sbdeadlock", true},   // a deadlock inside Append
	{"sbappend", true},     // a failure no serial order gives
	{"splitcounter", true}, // a cycle of Velodrome's graph
	{"atomicflag", false},
}

// TestAtomicityKernels explores the atomicity kernels with the real heddle CLI and feeds
// their result files to the server: TestBug's function gets an error on its declaration
// (definitely not atomic), which the quick fix replays, or a warning (possibly), TestFixed
// gets nothing, and every annotated function gets a lens that runs the tests reaching it.
func TestAtomicityKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heddle and explores kernels of the corpus")
	}
	root, err := filepath.Abs(kernelsDir)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, k := range atomicityKernels {
		pkgs = append(pkgs, "./"+k.kernel)
	}
	out := t.TempDir()
	bin, err := heddleBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"test", "-out", out, "-run", "^(TestBug|TestFixed)$"}, pkgs...)...)
	cmd.Dir = root
	report, err := cmd.CombinedOutput()
	// Exit status 1 means bugs were found, which is what TestBug is for.
	if ee := (*exec.ExitError)(nil); err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("heddle test: %v\n%s", err, report)
	}
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(t.TempDir(), map[string]any{"resultDirs": []string{out}})
	c.refresh()
	diags := c.diagnostics()
	for _, k := range atomicityKernels {
		t.Run(k.kernel, func(t *testing.T) {
			dir := filepath.Join(root, k.kernel)
			checkAtomicityKernel(t, c, dir, k.definite, diags, report)
		})
	}
}

// checkAtomicityKernel checks the diagnostics and lenses of the annotated functions of the
// kernel in dir.
func checkAtomicityKernel(t *testing.T, c *client, dir string, definite bool, diags map[string][]protocol.Diagnostic, report []byte) {
	decls := atomicDecls(t, dir)
	if len(decls) == 0 {
		t.Fatalf("%s: no //heddle:atomic function", dir)
	}
	verdict, severity := "possibly not atomic", protocol.DiagnosticSeverityWarning
	if definite {
		verdict, severity = "not atomic", protocol.DiagnosticSeverityError
	}
	found := 0
	for path := range files(decls) {
		for _, d := range diags[path] {
			if d.Code != "atomicity" {
				continue
			}
			if strings.Contains(d.Message, " in TestFixed ") {
				t.Errorf("TestFixed: %s", d.Message)
			}
			fn, ok := decls[declLine{path, int(d.Range.Start.Line) + 1}]
			if !ok || !strings.HasPrefix(d.Message, fn+" is ") {
				t.Errorf("%s:%d: %s: not on the declaration of the function it names (%v)", filepath.Base(path), d.Range.Start.Line+1, d.Message, decls)
				continue
			}
			if !strings.HasPrefix(d.Message, fn+" is "+verdict) || !strings.Contains(d.Message, " in TestBug ") {
				continue
			}
			found++
			if d.Severity != severity {
				t.Errorf("%s: severity %v, want %v", d.Message, d.Severity, severity)
			}
			// Only a bug, definitely not atomic, has a schedule to replay.
			if a, ok := d.Data.(map[string]any); (ok && a["trace"] != nil) != definite {
				t.Errorf("%s: data %v; want a trace to replay: %v", d.Message, d.Data, definite)
			}
		}
	}
	if found == 0 {
		t.Errorf("no diagnostic of a function %s in TestBug; the diagnostics are:\n%s\nheddle test printed:\n%s",
			verdict, render(dir, diags), report)
	}

	checked := map[declLine]bool{}
	for _, path := range slices.Sorted(maps.Keys(files(decls))) {
		lenses, err := c.server.CodeLens(c.ctx, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lenses {
			if l.Command.Command != lsp.CommandCheckAtomicity {
				continue
			}
			var args []lsp.AtomicityArgs
			remarshal(t, l.Command.Arguments, &args)
			at := declLine{path, int(l.Range.Start.Line) + 1}
			if decls[at] != args[0].Func || args[0].Package != dir || len(args[0].Tests) == 0 {
				t.Errorf("%s:%d: lens %+v; want one checking %s in %s by the tests that reach it", filepath.Base(path), at.line, args[0], decls[at], dir)
			}
			checked[at] = true
		}
	}
	for at, fn := range decls {
		if !checked[at] {
			t.Errorf("no check atomicity lens over %s at %s:%d", fn, filepath.Base(at.path), at.line)
		}
	}
}

// declLine is the line of a function's declaration.
type declLine struct {
	path string
	line int
}

// files returns the files of the declarations.
func files(decls map[declLine]string) map[string]bool {
	set := map[string]bool{}
	for d := range decls {
		set[d.path] = true
	}
	return set
}

// atomicDecls returns the //heddle:atomic functions of the Go files of dir by the line of
// their declaration, named as Go source names them.
func atomicDecls(t *testing.T, dir string) map[declLine]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	decls := map[declLine]string{}
	for _, path := range paths {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Doc == nil || !slices.ContainsFunc(fd.Doc.List, func(c *ast.Comment) bool { return c.Text == "//heddle:atomic" }) {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil {
				recv := types.ExprString(fd.Recv.List[0].Type)
				if strings.HasPrefix(recv, "*") {
					recv = "(" + recv + ")"
				}
				name = recv + "." + name
			}
			decls[declLine{path, fset.Position(fd.Pos()).Line}] = name
		}
	}
	return decls
}
