package instrument

import (
	"bytes"
	"fmt"
	"go/build/constraint"
	"go/version"
	"os"
	"strings"

	"golang.org/x/tools/go/packages"
)

// The instrumented build raises the go line of the main module, and of the modules it copies
// out of the module cache, to the runtime's (runtimeGo): a module may not require one of a
// later go version, and rewritten code calls generic functions. Raised, a go 1.21 module would
// change language: its loop variables would be per-iteration (Go 1.22), and the race of a
// goroutine capturing one would vanish. So each file of such a module keeps its module's
// language by a build constraint, as the go command allows: a file's //go:build goX.Y sets its
// language version, back to go1.21 and no further (go/types and the compiler take
// max(goX.Y, go1.21)); the loop variables changed in 1.22, and no earlier version changed the
// meaning of a program that compiles.

// minFileLang is the oldest language version a file's build constraint can select.
const minFileLang = "go1.21"

// A fileLang is a Go file's module and the module's go version.
type fileLang struct {
	module, goVersion string
}

// noteLang records the language of p's files.
func (b *builder) noteLang(p *packages.Package) {
	m := p.Module
	if m == nil {
		return
	}
	v := m.GoVersion
	if m.Replace != nil {
		v = m.Replace.GoVersion
	}
	if b.langs == nil {
		b.langs = make(map[string]fileLang)
	}
	for _, f := range p.GoFiles {
		b.langs[f] = fileLang{module: m.Path, goVersion: v}
	}
}

// keepLanguage gives each file of a module whose go line the build raises its module's
// language, in the overlay: the rewritten files, and the others as they are.
func (b *builder) keepLanguage() error {
	if b.mainModule == modulePath {
		return nil // heddle's own module is built as it is
	}
	pending := make(map[string]int) // overlay file → index in b.pending
	for i, f := range b.pending {
		pending[f.path] = i
	}
	for name, l := range b.langs {
		if l.module != b.mainModule && b.cached[l.module] == "" {
			continue
		}
		v := "go1.16" // the go command's default for a go.mod without a go line
		if l.goVersion != "" {
			v = version.Lang("go" + l.goVersion)
		}
		if version.Compare(v, "go"+runtimeGo) >= 0 {
			continue
		}
		if version.Compare(v, minFileLang) < 0 {
			v = minFileLang
		}
		if dst, ok := b.overlay[name]; ok {
			i := pending[dst]
			src, err := withLang(b.pending[i].content, name, v)
			if err != nil {
				return err
			}
			b.pending[i].content = src
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("instrument: %w", err)
		}
		if src, err = withLang(src, name, v); err != nil {
			return err
		}
		b.addFile(name, src)
	}
	return nil
}

// withLang returns the source src of the file name with its language version set to lang by
// its build constraint: an existing //go:build line becomes "(its expression) && lang" in its
// place; without one, the constraint (with the expression of any // +build lines) goes on top,
// and a //line directive keeps the lines of the file where they were. The // +build lines
// become empty comments, since the go command rejects those that differ from //go:build.
func withLang(src []byte, name, lang string) ([]byte, error) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	var goBuild, plus constraint.Expr
	for i, line := range lines {
		text := strings.TrimSpace(string(line))
		if text != "" && !strings.HasPrefix(text, "//") {
			break // the header, where constraints are, ends at the first line of code
		}
		if !constraint.IsGoBuild(text) && !constraint.IsPlusBuild(text) {
			continue
		}
		x, err := constraint.Parse(text)
		if err != nil {
			return nil, fmt.Errorf("instrument: %s:%d: %w", name, i+1, err)
		}
		switch {
		case constraint.IsGoBuild(text):
			goBuild = x
			lines[i] = []byte("//go:build " + and(x, lang).String() + "\n")
		case plus == nil:
			plus = x
			lines[i] = []byte("//\n")
		default:
			plus = &constraint.AndExpr{X: plus, Y: x}
			lines[i] = []byte("//\n")
		}
	}
	out := bytes.Join(lines, nil)
	if goBuild != nil {
		return out, nil
	}
	var x constraint.Expr = &constraint.TagExpr{Tag: lang}
	if plus != nil {
		x = and(plus, lang)
	}
	return fmt.Appendf(nil, "//go:build %s\n\n//line %s:1:1\n%s", x, name, out), nil
}

func and(x constraint.Expr, lang string) constraint.Expr {
	return &constraint.AndExpr{X: x, Y: &constraint.TagExpr{Tag: lang}}
}
