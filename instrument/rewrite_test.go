package instrument

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
	"golang.org/x/tools/go/packages"
)

// checker type-checks single-file packages that import only the packages in
// checkerImports and heddle's runtime. All of them, and their dependencies,
// come from one load, so that rt and the file see the same standard packages.
type checker struct {
	once sync.Once
	pkgs map[string]*types.Package
	err  error
}

var checkerImports = []string{"context", "errors", "fmt", "math/rand", "math/rand/v2", "os", "runtime", "strings", "sync", "sync/atomic", "testing", "time",
	rtPath, workerPath, shadows["context"], shadows["sync"], shadows["sync/atomic"], shadows["time"], shadows["math/rand"], shadows["math/rand/v2"]}

var check = new(checker)

func (c *checker) Import(path string) (*types.Package, error) {
	c.once.Do(func() {
		var roots []*packages.Package
		roots, c.err = packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedTypes}, checkerImports...)
		c.pkgs = make(map[string]*types.Package)
		packages.Visit(roots, nil, func(p *packages.Package) {
			if len(p.Errors) > 0 && c.err == nil {
				c.err = p.Errors[0]
			}
			c.pkgs[p.PkgPath] = p.Types
		})
	})
	if c.err != nil {
		return nil, c.err
	}
	if p := c.pkgs[path]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("test checker: import %q is not among checkerImports", path)
}

// load parses and type-checks src as the only file of a package.
func (c *checker) load(filename string, src []byte) (*token.FileSet, *ast.File, *types.Package, *types.Info, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	info := &types.Info{
		Types:      make(map[ast.Expr]types.TypeAndValue),
		Defs:       make(map[*ast.Ident]types.Object),
		Uses:       make(map[*ast.Ident]types.Object),
		Implicits:  make(map[ast.Node]types.Object),
		Selections: make(map[*ast.SelectorExpr]*types.Selection),
	}
	conf := types.Config{Importer: c}
	pkg, err := conf.Check(f.Name.Name, fset, []*ast.File{f}, info)
	return fset, f, pkg, info, err
}

// rewriteSource rewrites a single-file package.
func rewriteSource(filename string, src []byte) ([]byte, bool, error) {
	fset, f, pkg, info, err := check.load(filename, src)
	if err != nil {
		return nil, false, err
	}
	return rewriteFile(fset, f, src, filename, pkg, info)
}

// TestRewrite rewrites each testdata/rewrite/*.go file, compares the result
// with the .golden file beside it (rewritten by -update), and type-checks the
// result against heddle's runtime. A file that needs no rewriting has no
// golden file.
func TestRewrite(t *testing.T) {
	files, err := filepath.Glob("testdata/rewrite/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(strings.TrimSuffix(name, ".go"), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			out, changed, err := rewriteSource(name, src)
			if err != nil {
				t.Fatal(err)
			}
			goldenPath := strings.TrimSuffix(file, ".go") + ".golden"
			if golden.Updating() {
				if changed {
					err = os.WriteFile(goldenPath, out, 0o666)
				} else if err = os.Remove(goldenPath); os.IsNotExist(err) {
					err = nil
				}
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if !changed {
				if err == nil {
					t.Fatalf("file left unchanged, but %s exists", goldenPath)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("rewrite differs from %s (run with -update to accept):\n%s", goldenPath, out)
			}
			if _, _, _, _, err := check.load(name, out); err != nil {
				t.Errorf("rewritten file does not type-check: %v\n%s", err, out)
			}
			checkLines(t, src, out)
		})
	}
}

// checkLines checks that every identifier of the original file appears in
// the rewritten one at the same line and column, as the compiler sees it
// through the line directives.
func checkLines(t *testing.T, src, out []byte) {
	t.Helper()
	orig := identPositions(t, src, false)
	got := identPositions(t, out, true)
	for key, n := range orig {
		if got[key] < n {
			t.Errorf("identifier %s: found %d times in the rewritten file at that position, want %d", key, got[key], n)
		}
	}
}

var rewrittenBuiltins = map[string]bool{"make": true, "close": true, "len": true, "cap": true, "_": true}

// identPositions counts identifiers by name and position, the position
// adjusted by line directives if adjusted is set.
func identPositions(t *testing.T, src []byte, adjusted bool) map[string]int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]int)
	ast.Inspect(f, func(n ast.Node) bool {
		// Identifiers that the rewrite replaces.
		if _, ok := n.(*ast.ImportSpec); ok {
			return false
		}
		if sel, ok := n.(*ast.SelectorExpr); ok && (controlled(sel.Sel.Name) || httpFuncs[sel.Sel.Name] || httpMethod(sel.Sel.Name)) {
			return false
		}
		if id, ok := n.(*ast.Ident); ok && !strings.HasPrefix(id.Name, prefix) && !rewrittenBuiltins[id.Name] {
			p := fset.PositionFor(id.Pos(), adjusted)
			m[id.Name+"@"+strings.TrimPrefix(p.String(), p.Filename)]++
		}
		return true
	})
	return m
}

// httpMethod reports whether name is a method of net/http's that the rewrite replaces.
func httpMethod(name string) bool {
	for _, ms := range httpMethods {
		if ms[name] != "" {
			return true
		}
	}
	return false
}

func controlled(name string) bool {
	for _, fs := range controlledFuncs {
		if fs[name] != "" {
			return true
		}
	}
	return groupFuncs[name] // net.Listen, net.Dial (netgroup.go)
}
