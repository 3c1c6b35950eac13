package heddle_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
)

const (
	module   = "github.com/heddledbg/heddle"
	archPath = "docs/architecture.md"
)

// TestArchitecture checks docs/architecture.md's package table against go list: every package
// of the module has a row, and each row's "depends on" column names exactly the module's
// packages and the other modules that its packages import (test files aside). go test -update
// rewrites the column from go list; a new package still needs a row, with its job, by hand.
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
	for i, l := range lines {
		row := tableRow(l)
		if row == nil || len(row) != 3 || row[0] == "package" || strings.HasPrefix(row[0], "-") {
			continue
		}
		pkgs := names(row[0])
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
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Standard,Module", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	type pkg struct {
		ImportPath string
		Imports    []string
		Standard   bool
		Module     *struct{ Path string }
	}
	var all []pkg
	byPath := map[string]*pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		all = append(all, p)
	}
	for i := range all {
		byPath[all[i].ImportPath] = &all[i]
	}
	name := func(p *pkg) string {
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
	deps := map[string][]string{}
	for i := range all {
		p := &all[i]
		if p.Module == nil || p.Module.Path != module {
			continue
		}
		var d []string
		for _, imp := range p.Imports {
			q := byPath[imp]
			if q == nil || q.Standard {
				continue
			}
			if n := name(q); n != "" && !slices.Contains(d, n) {
				d = append(d, n)
			}
		}
		slices.Sort(d)
		deps[name(p)] = d
	}
	return deps, nil
}

// TestDependencyRules checks the layering that the package table describes: the runtime
// linked into every program under test stays standard-library only, formats know nothing of
// their producers, the language server does not depend on the web server, and the debugger
// core knows no debug adapter protocol.
func TestDependencyRules(t *testing.T) {
	deps, err := listDeps()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		pkg       string
		forbidden []string // nil: anything outside the standard library
	}{
		{"rt", nil},
		{"locktree", nil},
		{"timeline", []string{"explorer", "server", "dap", "instrument", "cmd/heddle"}},
		{"lsp", []string{"server", "dap", "explorer"}},
		{"explorer", []string{"dap", "server", "lsp", "google/go-dap", "go-delve/delve"}},
		// The debugger core drives Delve through debugger.Target: only dap speaks DAP.
		{"debugger", []string{"dap", "google/go-dap", "go-delve/delve"}},
	} {
		d, ok := deps[r.pkg]
		if !ok {
			t.Errorf("no package %s", r.pkg)
			continue
		}
		for _, x := range d {
			if r.forbidden == nil || slices.Contains(r.forbidden, x) {
				t.Errorf("%s imports %s", r.pkg, x)
			}
		}
	}
}
