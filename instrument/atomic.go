package instrument

import (
	"go/ast"
	"strconv"
	"strings"
)

// atomicDirective in the doc comment of a function or method declaration says that every
// execution of the function should be atomic (docs/atomicity.md).
const atomicDirective = "//heddle:atomic"

// atomicFunc brackets the body of a function declared //heddle:atomic with rt.AtomicEnter
// and a deferred rt.AtomicExit, inserted after the opening brace on its line, so that no
// line moves and every way out of the function (each return, a panic, runtime.Goexit) ends
// the execution.
func (r *rewriter) atomicFunc(fd *ast.FuncDecl) {
	if !isAtomic(fd.Doc) {
		return
	}
	if fd.Body == nil {
		r.fail(fd, "%s on %s, a function without a body", atomicDirective, fd.Name.Name)
		return
	}
	decl := r.fset.PositionFor(fd.Pos(), false)
	name := quote(funcName(fd))
	site := quote(r.filename + ":" + strconv.Itoa(decl.Line))
	lbrace := fd.Body.Lbrace
	r.edits = append(r.edits, edit{pos: lbrace, end: lbrace + 1, render: func(w *writer) {
		w.text(lbrace, lbrace+1)
		w.insertf(" %s(%s, %s); defer %s();", r.rt("AtomicEnter"), name, site, r.rt("AtomicExit"))
	}})
}

// isAtomic reports whether doc holds the //heddle:atomic directive on a line of its own.
func isAtomic(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if strings.TrimRight(c.Text, " \t") == atomicDirective {
			return true
		}
	}
	return false
}

// funcName names fd as Go source does: "Append", "(*Buffer).Append", "Buffer.Len", without
// the receiver's type parameters.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := false
	if p, ok := t.(*ast.StarExpr); ok {
		star, t = true, p.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	case *ast.ParenExpr:
		t = x.X
	}
	recv := "?"
	if id, ok := t.(*ast.Ident); ok {
		recv = id.Name
	}
	if star {
		return "(*" + recv + ")." + fd.Name.Name
	}
	return recv + "." + fd.Name.Name
}
