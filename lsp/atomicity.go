package lsp

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/heddledbg/heddle/internal/directive"
	"go.lsp.dev/protocol"
)

// notAtomic places the diagnostic of a //heddle:atomic function found not atomic on the line
// of its declaration (docs/atomicity.md): an error if an explored run was definitely not
// atomic, a bug that can be replayed; a warning if the checkers' pattern was only broken.
// The goroutines of the bug and the positions its message names are related information.
func (r *result) notAtomic(src *sources) []fileDiagnostic {
	a := r.atomicity
	path := r.resolve(a.Decl.File)
	if path == "" || a.Decl.Line < 1 {
		return nil
	}
	severity, verdict := protocol.DiagnosticSeverityWarning, "possibly not atomic"
	if a.Definite {
		severity, verdict = protocol.DiagnosticSeverityError, "not atomic"
	}
	msg := a.Func + " is " + verdict
	detail := atomicityDetail(a.Func, r.message)
	if detail != "" {
		msg += ": " + detail
	}
	if len(a.Checkers) > 0 {
		msg += fmt.Sprintf("; found by %s in %s (heddle)", joinAnd(a.Checkers), r.test)
	} else {
		msg += fmt.Sprintf("; found in %s (heddle)", r.test)
	}
	// The clauses of the message that name positions say more than the goroutines' states,
	// which only add the lines the message does not name.
	var rel []protocol.DiagnosticRelatedInformation
	type line struct {
		path string
		n    int
	}
	named := map[line]bool{}
	seen := map[callSite]bool{}
	for _, p := range r.namedPositions(detail) {
		if !seen[p] {
			seen[p], named[line{p.path, p.line}] = true, true
			rel = append(rel, related(src, p.path, p.line, p.msg))
		}
	}
	if r.trace != nil {
		for _, g := range r.trace.Verdict.Goroutines {
			if g.Pos == nil || g.Pos.Line < 1 {
				continue
			}
			p := r.resolve(g.Pos.File)
			if p == "" || named[line{p, g.Pos.Line}] {
				continue
			}
			state := g.State
			if state == "blocked" {
				state = "blocked on " + opName(g.Op)
			}
			rel = append(rel, related(src, p, g.Pos.Line, g.ID+" "+state))
		}
	}
	d := protocol.Diagnostic{
		Range:              src.lineRange(path, a.Decl.Line),
		Severity:           severity,
		Code:               r.kind,
		Source:             Source,
		Message:            msg,
		RelatedInformation: rel,
	}
	if r.path != "" {
		d.Data = ReplayArgs{Trace: r.path}
	}
	return []fileDiagnostic{{path: path, diag: d}}
}

// atomicityDetail returns the message of an atomicity bug or warning without what the
// diagnostic already says: the kind, the function's name and position, and that it is not
// atomic. "atomicity: (*Buffer).Append (buffer.go:26) is possibly not atomic: MC-ind: …" is
// "MC-ind: …".
func atomicityDetail(fn, msg string) string {
	f := regexp.QuoteMeta(fn) + `(?:\s*\([^()]*\))?`
	re := regexp.MustCompile(`^(?:atomicity:\s*)?(?:(?:` + f + `\s+is\s+)?(?:(?:definitely|possibly)\s+)?not\s+atomic\b|` + f + `\s*:)\s*[:;,]?\s*`)
	return strings.TrimSpace(re.ReplaceAllString(msg, ""))
}

// namedPosition is a position that a report's message names: "buffer.go:31".
var namedPosition = regexp.MustCompile(`([^\s:;,()]+\.go):(\d+)`)

// clauseEnds are what ends a clause of a report's message. A colon ends one only when a
// space follows it, unlike the colon of "buffer.go:31"; "after" starts the clause of another
// operation: "G1.1 lock of b.mu at buffer.go:28 after G1.1 unlock of b.mu at buffer.go:31".
var clauseEnds = []string{"; ", ", ", ": ", " after "}

// namedPositions returns the positions that msg, a message of the result, names, each with
// the clause of the message that names it: "G1.2 appends at buffer.go:31".
func (r *result) namedPositions(msg string) []callSite {
	var out []callSite
	for _, m := range namedPosition.FindAllStringSubmatchIndex(msg, -1) {
		line, err := strconv.Atoi(msg[m[4]:m[5]])
		path := r.resolve(msg[m[2]:m[3]])
		if err != nil || line < 1 || path == "" {
			continue
		}
		start, end := 0, len(msg)
		for _, sep := range clauseEnds {
			if i := strings.LastIndex(msg[:m[0]], sep); i >= 0 {
				start = max(start, i+len(sep))
			}
			if i := strings.Index(msg[m[1]:], sep); i >= 0 {
				end = min(end, m[1]+i)
			}
		}
		clause := strings.TrimSpace(msg[start:end])
		clause = strings.TrimPrefix(strings.TrimPrefix(clause, "and "), "then ")
		out = append(out, callSite{path, line, clause})
	}
	return out
}

// joinAnd joins names as a sentence lists them: "A", "A and B", "A, B and C".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// atomicLenses returns the "check atomicity" lenses of a Go file: one over each function
// whose doc comment has //heddle:atomic. Its command runs the tests of the file's package
// that reach the function; read returns the text of another file of the package.
func atomicLenses(path string, src []byte, read func(path string) ([]byte, error)) []protocol.CodeLens {
	if !bytes.Contains(src, []byte(directive.AtomicDirective)) {
		return nil
	}
	fset := token.NewFileSet()
	// As for the test lenses, a file that does not parse while it is typed keeps the
	// lenses of the functions above the error.
	f, _ := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	var atomic []*ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && named(fset, src, fd) && directive.IsAtomic(fd.Doc) {
			atomic = append(atomic, fd)
		}
	}
	if len(atomic) == 0 {
		return nil
	}
	dir := filepath.Dir(path)
	pkg := loadPackage(dir, path, f, read)
	var lenses []protocol.CodeLens
	for _, fd := range atomic {
		args := AtomicityArgs{Package: dir, Func: directive.FuncName(fd), Tests: pkg.testsReaching(fd.Name.Name)}
		lenses = append(lenses, protocol.CodeLens{
			Range:   protocol.Range{Start: position(fset, src, fd.Pos()), End: position(fset, src, fd.Name.End())},
			Command: &protocol.Command{Title: "check atomicity", Command: CommandCheckAtomicity, Arguments: []any{args}},
		})
	}
	return lenses
}

// named reports whether a function declaration has its name in src: the parser gives one
// that lacks it (func(), or func at the end of the file) a name of its own making.
func named(fset *token.FileSet, src []byte, fd *ast.FuncDecl) bool {
	if fd.Name == nil {
		return false
	}
	p := fset.Position(fd.Name.Pos())
	return p.Line > 0 && p.Offset+len(fd.Name.Name) <= len(src) && string(src[p.Offset:p.Offset+len(fd.Name.Name)]) == fd.Name.Name
}

// A goPackage is what the lenses need of the Go files of a directory: the names each
// function's body uses, by the function's name (a method's name stands for the methods of
// that name of every type), and the tests.
type goPackage struct {
	uses  map[string]map[string]bool
	tests []string
}

// loadPackage parses the Go files of dir that belong to the package of f or to its external
// test package; f, already parsed, is the file at path. A file that cannot be read or parsed
// is left out, or its part above the error is kept: the lens then runs fewer tests, never a
// wrong program.
func loadPackage(dir, path string, f *ast.File, read func(string) ([]byte, error)) *goPackage {
	files := map[string]*ast.File{path: f}
	name := strings.TrimSuffix(f.Name.Name, "_test")
	ents, _ := os.ReadDir(dir)
	fset := token.NewFileSet()
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if p == path || !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		src, err := read(p)
		if err != nil {
			continue
		}
		if g, _ := parser.ParseFile(fset, p, src, parser.SkipObjectResolution); g != nil && strings.TrimSuffix(g.Name.Name, "_test") == name {
			files[p] = g
		}
	}
	pkg := &goPackage{uses: map[string]map[string]bool{}}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		g := files[p]
		testing := ""
		if strings.HasSuffix(p, "_test.go") {
			testing = testingName(g)
		}
		for _, d := range g.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name == nil || fd.Body == nil {
				continue
			}
			uses := pkg.uses[fd.Name.Name]
			if uses == nil {
				uses = map[string]bool{}
				pkg.uses[fd.Name.Name] = uses
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					uses[id.Name] = true
				}
				return true
			})
			if testing != "" && isTestFunc(fd, testing) {
				pkg.tests = append(pkg.tests, fd.Name.Name)
			}
		}
	}
	return pkg
}

// testsReaching returns the tests whose bodies name the function or method fn, or name a
// function of the package that reaches it, through any number of calls. A name stands for
// whatever it may denote, so the tests are those that reach fn and maybe a few more; only
// calls through interfaces or function values whose code names fn nowhere in the package
// are missed.
func (p *goPackage) testsReaching(fn string) []string {
	reach := map[string]bool{fn: true}
	for grew := true; grew; {
		grew = false
		for f, uses := range p.uses {
			if reach[f] {
				continue
			}
			for u := range uses {
				if reach[u] {
					reach[f], grew = true, true
					break
				}
			}
		}
	}
	tests := []string{}
	for _, t := range p.tests {
		if t != fn && reach[t] && !slices.Contains(tests, t) {
			tests = append(tests, t)
		}
	}
	return tests
}
