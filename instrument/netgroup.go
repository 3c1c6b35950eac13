package instrument

import (
	"go/ast"
	"go/types"
)

// The one place where instrumented code's sockets meet process groups (docs/processes.md):
// net.Listen and net.Dial become the functions of package rt/member of the same name, which
// give the sockets of a group member to the group's controller and are rt/net's, the network
// inside one process, outside a group. rt/net shadows the rest of package net; a dial that no
// listener of a member answers reaches the group through rt/net's Outside hook.

const memberPath = rtPath + "/member"

// groupFuncs are the functions of package net that rt/member replaces.
var groupFuncs = map[string]bool{"Listen": true, "Dial": true}

// netGroupCall reports whether sel, a selector expression, names net.Listen or net.Dial
// through the net package's name, and if so rewrites it.
func (r *rewriter) netGroupCall(sel *ast.SelectorExpr) bool {
	f, ok := r.info.Uses[sel.Sel].(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != "net" || !groupFuncs[f.Name()] || !isPkgFunc(f) {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	if _, ok := r.info.Uses[id].(*types.PkgName); !ok {
		return false
	}
	name := prefix + "member"
	r.imports[memberPath] = name
	r.add(sel, func(w *writer) { w.insert(name + "." + f.Name()) })
	return true
}
