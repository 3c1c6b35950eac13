package heddle_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
)

const (
	module   = "github.com/heddledbg/heddle"
	archPath = "docs/architecture.md"
	// maxArchLines bounds docs/architecture.md: a tour a newcomer reads in ten minutes.
	maxArchLines = 200
)

// TestArchitecture checks docs/architecture.md's package table against go list: every package
// of the module has a row, every name in the package column is a package of the module or a
// directory of the repository, and each row's "depends on" column names exactly the module's
// packages and the other modules that its packages import (test files aside). go test -update
// rewrites the column from go list; a new package still needs a row, with its job, by hand.
// The page stays under maxArchLines lines.
func TestArchitecture(t *testing.T) {
	deps, err := listDeps()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(archPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	covered := map[string]bool{}
	var listed []string // every name in the package column
	for i, l := range lines {
		row := tableRow(l)
		if row == nil || len(row) != 3 || row[0] == "package" || strings.HasPrefix(row[0], "-") {
			continue
		}
		pkgs := names(row[0])
		listed = append(listed, pkgs...)
		var want []string
		goRow := false
		for _, p := range pkgs {
			d, ok := deps[p]
			if !ok {
				continue
			}
			goRow, covered[p] = true, true
			for _, x := range d {
				if !slices.Contains(pkgs, x) && !slices.Contains(want, x) {
					want = append(want, x)
				}
			}
		}
		if !goRow {
			continue // the VS Code extension, the web app's sources
		}
		slices.Sort(want)
		col := "standard library only"
		if len(want) > 0 {
			col = "`" + strings.Join(want, "`, `") + "`"
		}
		if golden.Updating() {
			lines[i] = fmt.Sprintf("| %s | %s | %s |", row[0], row[1], col)
			continue
		}
		if got := names(row[2]); !slices.Equal(got, want) {
			t.Errorf("%s: the row of %s says it depends on %v; go list says %v (go test -update rewrites the column)", archPath, row[0], got, want)
		}
	}
	for p := range deps {
		if !covered[p] {
			t.Errorf("%s: package %s has no row in the package table", archPath, p)
		}
	}
	for _, n := range listed {
		if _, ok := deps[n]; ok || strings.Contains(n, ".") {
			continue // a package, or a module's path (testdata/kernels's)
		}
		if fi, err := os.Stat(n); err != nil || !fi.IsDir() {
			t.Errorf("%s: the package table names %s, which is neither a package of the module nor a directory", archPath, n)
		}
	}
	if n := len(lines); n >= maxArchLines {
		t.Errorf("%s has %d lines; keep it under %d (runtime behaviour belongs in docs/runtime.md and the other docs)", archPath, n, maxArchLines)
	}
	if golden.Updating() {
		if err := os.WriteFile(archPath, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tableRow returns the cells of a Markdown table row, or nil.
func tableRow(l string) []string {
	if !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") {
		return nil
	}
	cells := strings.Split(strings.Trim(l, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// names returns the code spans of a cell, sorted; "heddle" (root) is the module's root.
func names(cell string) []string {
	var out []string
	parts := strings.Split(cell, "`")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	slices.Sort(out)
	return out
}

// listDeps maps each package of the module, by its path in the module ("heddle" for the
// root), to what it imports outside the standard library: the module's packages by their
// paths, and other modules by their paths without "github.com/".
func listDeps() (map[string][]string, error) {
	g, err := listGraph()
	if err != nil {
		return nil, err
	}
	deps := map[string][]string{}
	for _, p := range g.own {
		var d []string
		for _, imp := range p.Imports {
			q := g.byPath[imp]
			if q == nil || q.Standard {
				continue
			}
			if n := g.name(q); n != "" && !slices.Contains(d, n) {
				d = append(d, n)
			}
		}
		slices.Sort(d)
		deps[g.name(p)] = d
	}
	return deps, nil
}

// listLinked maps each package of the module, named as by listDeps, to everything it links:
// the packages it imports, directly or not, named as by listDeps, standard packages by their
// import paths. std holds the names of the standard packages.
func listLinked() (linked map[string][]string, std map[string]bool, err error) {
	g, err := listGraph()
	if err != nil {
		return nil, nil, err
	}
	linked, std = map[string][]string{}, map[string]bool{}
	for _, p := range g.own {
		seen := map[string]bool{}
		var walk func(q *listedPkg)
		walk = func(q *listedPkg) {
			for _, imp := range q.Imports {
				r := g.byPath[imp]
				if r == nil || seen[imp] {
					continue
				}
				seen[imp] = true
				n := g.name(r)
				if r.Standard {
					n, std[imp] = imp, true
				}
				if n != "" && !slices.Contains(linked[g.name(p)], n) {
					linked[g.name(p)] = append(linked[g.name(p)], n)
				}
				walk(r)
			}
		}
		walk(p)
	}
	return linked, std, nil
}

type listedPkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
	Module     *struct{ Path string }
}

// graph is the import graph of the module's packages, as go list -deps reports it.
type graph struct {
	own    []*listedPkg // the module's packages
	byPath map[string]*listedPkg
}

func listGraph() (*graph, error) {
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Standard,Module", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	g := &graph{byPath: map[string]*listedPkg{}}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(listedPkg)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		g.byPath[p.ImportPath] = p
		if p.Module != nil && p.Module.Path == module {
			g.own = append(g.own, p)
		}
	}
	return g, nil
}

// name is a package's name in the package table: its path in the module, "heddle" for the
// root, or its module's path without "github.com/" for another module; "" for the standard
// library.
func (g *graph) name(p *listedPkg) string {
	switch {
	case p.Module != nil && p.Module.Path == module:
		if p.ImportPath == module {
			return "heddle"
		}
		return strings.TrimPrefix(p.ImportPath, module+"/")
	case p.Module != nil:
		return strings.TrimPrefix(p.Module.Path, "github.com/")
	}
	return ""
}

// TestDependencyRules checks the layering that the package table describes: the runtime
// linked into every program under test stays standard-library only and free of the
// controller's process driver, formats and protocols know nothing of their producers, the
// search knows nothing of processes or of DAP, the language server does not depend on the web
// server, the debugger core knows no debug adapter protocol, and the orchestration of heddle
// test knows nothing of the command line. A rule holds for everything a
// package links, not only for its own imports.
func TestDependencyRules(t *testing.T) {
	linked, std, err := listLinked()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		pkg       string   // a package, or "p/..." for p and the packages under it
		forbidden []string // nil: anything outside the standard library
	}{
		{"rt", nil},
		{"rt/...", []string{"explorer"}},
		{"locktree", nil},
		{"record", []string{"explorer", "server", "dap", "instrument", "cmd/heddle"}},
		{"lsp", []string{"server", "dap", "explorer"}},
		{"explorer", []string{"os/exec", "dap", "server", "lsp", "google/go-dap", "go-delve/delve"}},
		{"dap", []string{"worker"}},
		{"wire", []string{"explorer", "os/exec"}},
		{"worker", []string{"driver", "os/exec"}},
		// The debugger core drives Delve through debugger.Target: only dap speaks DAP.
		{"debugger", []string{"dap", "google/go-dap", "go-delve/delve"}},
		// Linked into programs under test that check linearizability: the checker, no more.
		{"lin", []string{"explorer", "worker", "wire", "os/exec"}},
		// Each system's way of starting processes, in one place, on the standard library.
		{"internal/spawn", nil},
		// The orchestration under the CLI, callable by tests without exec: it knows nothing of
		// the command line above it, nor of the editors' protocols and the debugger beside it.
		{"suite", []string{"cmd/heddle", "dap", "lsp", "debugger", "google/go-dap", "go-delve/delve"}},
	} {
		base, tree := strings.CutSuffix(r.pkg, "/...")
		matched := false
		for p, d := range linked {
			if p != base && !(tree && strings.HasPrefix(p, base+"/")) {
				continue
			}
			matched = true
			for _, x := range d {
				if r.forbidden == nil && !std[x] || slices.Contains(r.forbidden, x) {
					t.Errorf("%s links %s", p, x)
				}
			}
		}
		if !matched {
			t.Errorf("no package %s", r.pkg)
		}
	}
}

// maxFuncLines bounds a function of the CLI and of the orchestration under it, from its func
// keyword to its closing brace: each is a named step with one job.
const maxFuncLines = 60

// TestFunctionLength checks that no function of cmd/ or suite/, tests aside, is longer than
// maxFuncLines lines: the command line stays thin, and the orchestration readable.
func TestFunctionLength(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range []string{"cmd", "suite"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() && d.Name() == "testdata" {
				return cmp.Or(err, filepath.SkipDir)
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok {
					continue
				}
				from, to := fset.Position(fn.Pos()), fset.Position(fn.End())
				if n := to.Line - from.Line + 1; n > maxFuncLines {
					t.Errorf("%s:%d: %s has %d lines; split it into steps of at most %d", path, from.Line, fn.Name.Name, n, maxFuncLines)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
