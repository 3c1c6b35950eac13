package instrument

import (
	"go/ast"
	"strconv"

	"github.com/heddledbg/heddle/internal/directive"
)

// atomicFunc brackets the body of a function declared //heddle:atomic with rt.AtomicEnter
// and a deferred rt.AtomicExit, inserted after the opening brace on its line, so that no
// line moves and every way out of the function (each return, a panic, runtime.Goexit) ends
// the execution.
func (r *rewriter) atomicFunc(fd *ast.FuncDecl) {
	if !directive.IsAtomic(fd.Doc) {
		return
	}
	if fd.Body == nil {
		r.fail(fd, "%s on %s, a function without a body", directive.AtomicDirective, fd.Name.Name)
		return
	}
	decl := r.fset.PositionFor(fd.Pos(), false)
	name := quote(directive.FuncName(fd))
	site := quote(r.filename + ":" + strconv.Itoa(decl.Line))
	lbrace := fd.Body.Lbrace
	r.edits = append(r.edits, edit{pos: lbrace, end: lbrace + 1, render: func(w *writer) {
		w.text(lbrace, lbrace+1)
		w.insertf(" %s(%s, %s); defer %s();", r.rt("AtomicEnter"), name, site, r.rt("AtomicExit"))
	}})
}
