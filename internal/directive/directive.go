// Package directive reads heddle's directives in Go source: the instrumenter, which checks a function
// marked atomic, and the language server, which offers to, decide alike.
package directive

import (
	"go/ast"
	"strings"
)

// AtomicDirective in the doc comment of a function or method declaration says that every
// execution of the function should be atomic (docs/atomicity.md). Like Go's own directives it
// may be followed, after a space, by text of the user's.
const AtomicDirective = "//heddle:atomic"

// IsAtomic reports whether doc holds the AtomicDirective. The instrumenter, which checks the
// function, and the language server, which offers to, decide it the same way.
func IsAtomic(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if rest, ok := strings.CutPrefix(c.Text, AtomicDirective); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return true
		}
	}
	return false
}

// FuncName names a function declaration as Go source does in a method expression:
// "Append", "(*Buffer).Append", "Buffer.Len", without the receiver's type parameters. It is
// the name an atomicity verdict gives (Atomicity.Func).
func FuncName(fd *ast.FuncDecl) string {
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
	id, ok := t.(*ast.Ident)
	if !ok {
		return fd.Name.Name
	}
	if star {
		return "(*" + id.Name + ")." + fd.Name.Name
	}
	return id.Name + "." + fd.Name.Name
}
