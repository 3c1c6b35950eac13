package instrument

import (
	"go/ast"
	"go/types"
)

// fileDeadlines are the methods of *os.File that hand a time to the operating system.
var fileDeadlines = map[string]bool{"SetDeadline": true, "SetReadDeadline": true, "SetWriteDeadline": true}

// fileDeadline rewrites f.SetReadDeadline(t), for f an *os.File (or a value it is embedded in),
// into f.SetReadDeadline(rt.RealTime(t)), and so on for fileDeadlines: the program computes
// t from the virtual clock, and the kernel reads it on the real one. Method values are left
// alone.
func (r *rewriter) fileDeadline(call *ast.CallExpr) {
	se, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || len(call.Args) != 1 || !fileDeadlines[se.Sel.Name] {
		return
	}
	sel := r.info.Selections[se]
	if sel == nil || sel.Kind() != types.MethodVal {
		return
	}
	fn, ok := sel.Obj().(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "os" {
		return
	}
	recv := fn.Type().(*types.Signature).Recv()
	if named, ok := deref(recv.Type()).(*types.Named); !ok || named.Obj().Name() != "File" {
		return
	}
	arg := call.Args[0]
	r.add(call, func(w *writer) {
		w.copy(call.Pos(), arg.Pos())
		w.insert(r.rt("RealTime") + "(")
		w.node(arg)
		w.insert(")")
		w.copy(arg.End(), call.End())
	})
}
