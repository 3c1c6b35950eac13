package lsp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/heddledbg/heddle/internal/gotest"
	"go.lsp.dev/protocol"
)

// Commands the code lenses and code actions name. The editor extension implements them; the
// server never runs anything itself.
const (
	CommandExplore   = "heddle.explore"
	CommandDebugTest = "heddle.debugTest"
	CommandReplayBug = "heddle.replayBug"
	// CommandCheckAtomicity explores the tests that reach a //heddle:atomic function.
	CommandCheckAtomicity = "heddle.checkAtomicity"
)

// TestArgs is the argument of the heddle.explore and heddle.debugTest commands.
type TestArgs struct {
	// Package is the directory of the test file.
	Package string `json:"package"`
	Test    string `json:"test"`
}

// AtomicityArgs is the argument of the heddle.checkAtomicity command.
type AtomicityArgs struct {
	// Package is the directory of the file that declares the function.
	Package string `json:"package"`
	// Func is the function as Go source names it: "Append", "(*Buffer).Append".
	Func string `json:"func"`
	// Tests are the tests of the package that reach the function. None means that no test
	// of the package was found to reach it: then every test of the package runs.
	Tests []string `json:"tests"`
}

// ReplayArgs is the argument of the heddle.replayBug command.
type ReplayArgs struct {
	// Trace is the absolute path of the trace file of the bug.
	Trace string `json:"trace"`
}

// testLenses returns the code lenses of the tests of a _test.go file: for each test, one
// lens to explore its interleavings and one to debug it.
func testLenses(path string, src []byte) []protocol.CodeLens {
	if !strings.HasSuffix(path, "_test.go") {
		return nil
	}
	fset := token.NewFileSet()
	// A file being edited often does not parse. The partial syntax tree still holds the
	// tests above the error, so the lenses do not flicker while the user types.
	f, _ := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	testing := testingName(f)
	if testing == "" {
		return nil
	}
	dir := filepath.Dir(path)
	var lenses []protocol.CodeLens
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !isTestFunc(fd, testing) {
			continue
		}
		rng := protocol.Range{Start: position(fset, src, fd.Pos()), End: position(fset, src, fd.Name.End())}
		args := []any{TestArgs{Package: dir, Test: fd.Name.Name}}
		lenses = append(lenses,
			protocol.CodeLens{Range: rng, Command: &protocol.Command{Title: "explore interleavings", Command: CommandExplore, Arguments: args}},
			protocol.CodeLens{Range: rng, Command: &protocol.Command{Title: "debug with heddle", Command: CommandDebugTest, Arguments: args}})
	}
	return lenses
}

// testingName returns the name under which f imports package testing: "testing", another
// name, "." for a dot import, or "" if f does not import it.
func testingName(f *ast.File) string {
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err != nil || p != "testing" {
			continue
		}
		switch {
		case imp.Name == nil:
			return "testing"
		case imp.Name.Name == "_":
			continue
		default:
			return imp.Name.Name
		}
	}
	return ""
}

// isTestFunc reports whether fd is a test that go test runs: func TestXxx(t *testing.T), where
// Xxx does not start with a lower-case letter.
func isTestFunc(fd *ast.FuncDecl, testing string) bool {
	if fd.Name == nil || fd.Type == nil {
		return false
	}
	name := fd.Name.Name
	if fd.Recv != nil || fd.Type.TypeParams != nil || !gotest.IsTestName(name) {
		return false
	}
	if fd.Type.Results.NumFields() != 0 || fd.Type.Params.NumFields() != 1 {
		return false
	}
	star, ok := fd.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch t := star.X.(type) {
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		return ok && x.Name == testing && t.Sel.Name == "T"
	case *ast.Ident:
		return testing == "." && t.Name == "T"
	}
	return false
}

// position converts a token position of src to an LSP position, whose character offset
// counts UTF-16 code units rather than bytes.
func position(fset *token.FileSet, src []byte, p token.Pos) protocol.Position {
	pos := fset.Position(p)
	start := pos.Offset - (pos.Column - 1)
	if start < 0 || pos.Offset > len(src) {
		return protocol.Position{Line: uint32(max(pos.Line-1, 0))}
	}
	return protocol.Position{Line: uint32(pos.Line - 1), Character: uint32(utf16Len(string(src[start:pos.Offset])))}
}
