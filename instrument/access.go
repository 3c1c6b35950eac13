package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// Plain memory accesses are reported to rt for the lockset check: a read of shared memory x
// becomes (*rt.Load(&x, pos)), a write x = v becomes x = rt.Store(&x, v, pos) (recorded once v
// is evaluated), x op= v and x++ become x op= rt.Update(&x, v, pos), and the map of m[k] becomes
// rt.MapRead(m, pos) or rt.MapWrite(m, pos). Only memory that another goroutine can reach is
// reported: package variables, variables that a closure captures or whose address is taken,
// and what a pointer, slice or map leads to. Locals that stay in one function's frame, and
// the code of packages that are not instrumented (the standard library among them), are not
// seen: the race detector covers those.

// A wrapping is what an expression becomes: each field, when set, wraps the one inside.
type wrapping struct {
	load    bool     // (*rt.Load(&e, pos))
	mapFunc string   // "MapRead" or "MapWrite": rt.MapX(e, pos)
	store   ast.Expr // rt.Store(&store, e, pos): e is the value assigned to store
	storeAs bool     // rt.StoreAs, for a value of another type than store's
	update  ast.Expr // rt.Update(&update, e, pos) or rt.Shift
	shift   bool
	pos     token.Pos // the access's position, for store and update
}

// accessRewriter finds the accesses of one file.
type accessRewriter struct {
	*rewriter
	shared map[*types.Var]bool // locals that closures capture or whose address is taken
	noRead map[ast.Expr]bool   // expressions evaluated for their address, or not at all
	wraps  map[ast.Expr]*wrapping
	incdec map[*ast.IncDecStmt]bool
	// assigned are the locals written after their declaration: a captured variable that is
	// never written again is only read, and cannot race.
	assigned map[*types.Var]bool
	skip     map[ast.Node]bool // calls of unsafe's functions, whose operands are not evaluated
}

// accesses adds the edits that report the file's accesses.
func (r *rewriter) accesses() {
	a := &accessRewriter{rewriter: r, shared: map[*types.Var]bool{}, noRead: map[ast.Expr]bool{},
		wraps: map[ast.Expr]*wrapping{}, incdec: map[*ast.IncDecStmt]bool{},
		assigned: map[*types.Var]bool{}, skip: map[ast.Node]bool{}}
	captured := map[*types.Var]bool{}
	for _, d := range r.file.Decls {
		ast.Inspect(d, func(n ast.Node) bool { return a.findShared(n, captured) })
	}
	for v := range captured {
		if a.assigned[v] {
			a.shared[v] = true
		}
	}
	for _, d := range r.file.Decls {
		ast.Inspect(d, a.findContexts)
	}
	for _, d := range r.file.Decls {
		ast.Inspect(d, a.findAccesses)
	}
	a.addEdits()
}

func (a *accessRewriter) wrap(e ast.Expr) *wrapping {
	w := a.wraps[e]
	if w == nil {
		w = &wrapping{}
		a.wraps[e] = w
	}
	return w
}

// localVar returns the local variable that id uses, if any.
func (a *accessRewriter) localVar(id *ast.Ident) *types.Var {
	v, ok := a.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pkg() != a.pkg || v.Parent() == a.pkg.Scope() || v.Parent() == nil {
		return nil
	}
	return v
}

// findShared finds the locals that can be reached from another goroutine: those whose
// address is taken, and those a function literal uses but does not declare (captured), which
// count if they are assigned after their declaration.
func (a *accessRewriter) findShared(n ast.Node, captured map[*types.Var]bool) bool {
	assign := func(e ast.Expr) {
		// The variable written: x in x, x.f and x[i] of a struct or array x.
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.SelectorExpr:
				if isPointer(a.typeOf(x.X)) {
					return
				}
				e = x.X
				continue
			case *ast.IndexExpr:
				if _, ok := under(a.typeOf(x.X)).(*types.Array); !ok {
					return
				}
				e = x.X
				continue
			case *ast.Ident:
				if v := a.localVar(x); v != nil {
					a.assigned[v] = true
				}
			}
			return
		}
	}
	switch n := n.(type) {
	case *ast.FuncLit:
		ast.Inspect(n.Body, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok {
				if v := a.localVar(id); v != nil && (v.Pos() < n.Pos() || v.Pos() >= n.End()) {
					captured[v] = true
				}
			}
			return true
		})
	case *ast.AssignStmt:
		for _, l := range n.Lhs {
			assign(l)
		}
	case *ast.IncDecStmt:
		assign(n.X)
	case *ast.RangeStmt:
		if n.Tok == token.ASSIGN {
			if n.Key != nil {
				assign(n.Key)
			}
			if n.Value != nil {
				assign(n.Value)
			}
		}
	case *ast.SelectorExpr:
		// A pointer method of a variable takes its address.
		if sel := a.info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal && !isPointer(a.typeOf(n.X)) {
			if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil && isPointer(sig.Recv().Type()) {
				if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
					if v := a.localVar(id); v != nil {
						a.shared[v] = true
					}
				}
			}
		}
	case *ast.UnaryExpr:
		if n.Op == token.AND {
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
				if v := a.localVar(id); v != nil {
					a.shared[v] = true
				}
			}
		}
	}
	return true
}

// findContexts marks the expressions that are not read as values where they stand.
func (a *accessRewriter) findContexts(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.FuncDecl:
		a.selfReturns(n.Type, n.Body)
	case *ast.FuncLit:
		a.selfReturns(n.Type, n.Body)
	case *ast.AssignStmt:
		for _, l := range n.Lhs {
			a.noRead[ast.Unparen(l)] = true
		}
	case *ast.IncDecStmt:
		a.noRead[ast.Unparen(n.X)] = true
	case *ast.RangeStmt:
		if n.Key != nil {
			a.noRead[ast.Unparen(n.Key)] = true
		}
		if n.Value != nil {
			a.noRead[ast.Unparen(n.Value)] = true
		}
	case *ast.UnaryExpr:
		if n.Op == token.AND {
			a.noRead[ast.Unparen(n.X)] = true
		}
	case *ast.SelectorExpr:
		a.noRead[n.Sel] = true
		if sel := a.info.Selections[n]; sel != nil {
			switch sel.Kind() {
			case types.MethodVal:
				// The receiver: a pointer method takes its address, and a value method's copy
				// is left to the method.
				a.noRead[ast.Unparen(n.X)] = true
			case types.FieldVal:
				if !isPointer(a.typeOf(n.X)) {
					// x.f of a struct x is one access, to the field.
					a.noRead[ast.Unparen(n.X)] = true
				}
			}
		}
	case *ast.IndexExpr:
		if _, ok := under(a.typeOf(n.X)).(*types.Array); ok {
			a.noRead[ast.Unparen(n.X)] = true
		}
	case *ast.SliceExpr:
		if _, ok := under(a.typeOf(n.X)).(*types.Array); ok {
			a.noRead[ast.Unparen(n.X)] = true
		}
	case *ast.CallExpr:
		if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
			if b, ok := a.info.Uses[id].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") && len(n.Args) == 1 {
				// len of an array is a constant.
				if t := under(a.typeOf(n.Args[0])); isArrayOrPtrArray(t) {
					a.noRead[ast.Unparen(n.Args[0])] = true
				}
			}
		}
		if se, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
			if id, ok := se.X.(*ast.Ident); ok {
				if pn, ok := a.info.Uses[id].(*types.PkgName); ok && pn.Imported().Path() == "unsafe" {
					a.skip[n] = true
					return false
				}
			}
		}
	case *ast.CompositeLit:
		for _, el := range n.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				a.noRead[kv.Key] = true
			}
		}
	case *ast.SelectStmt:
		// The select renderer replaces the communications; their operands are read.
		for _, c := range n.Body.List {
			if as, ok := c.(*ast.CommClause).Comm.(*ast.AssignStmt); ok {
				for _, l := range as.Lhs {
					a.noRead[ast.Unparen(l)] = true
				}
			}
		}
	}
	return true
}

// selfReturns marks the operands of a "return x" whose x is the named result it assigns. The
// compiler drops that assignment of a variable to itself, but not x = *rt.Load(&x, pos): the
// rewritten return would write x, and the race detector would report the write against a
// goroutine that reads x meanwhile (concurrent-map's snapshot, whose goroutines read the
// result slice it returns).
func (a *accessRewriter) selfReturns(ft *ast.FuncType, body *ast.BlockStmt) {
	if body == nil || ft.Results == nil {
		return
	}
	var results []types.Object
	for _, f := range ft.Results.List {
		for _, name := range f.Names {
			results = append(results, a.info.Defs[name])
		}
	}
	if len(results) == 0 {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its returns assign its own results
		case *ast.ReturnStmt:
			if len(n.Results) != len(results) {
				return true
			}
			for i, e := range n.Results {
				if id, ok := ast.Unparen(e).(*ast.Ident); ok && results[i] != nil && a.info.Uses[id] == results[i] {
					a.noRead[ast.Unparen(e)] = true
				}
			}
		}
		return true
	})
}

func (a *accessRewriter) typeOf(e ast.Expr) types.Type {
	if t := a.info.TypeOf(e); t != nil {
		return t
	}
	return types.Typ[types.Invalid]
}

func under(t types.Type) types.Type { return t.Underlying() }

func isPointer(t types.Type) bool {
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

func isArrayOrPtrArray(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem().Underlying()
	}
	_, ok := t.(*types.Array)
	return ok
}

// tracked reports whether e, an addressable expression, denotes memory another goroutine
// can reach.
func (a *accessRewriter) tracked(e ast.Expr) bool {
	e = ast.Unparen(e)
	tv, ok := a.info.Types[e]
	if !ok || !tv.Addressable() {
		return false
	}
	switch e := e.(type) {
	case *ast.Ident:
		v, ok := a.info.Uses[e].(*types.Var)
		if !ok || v.IsField() || e.Name == "_" {
			return false
		}
		if v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
			return true // a package variable
		}
		return a.shared[v]
	case *ast.SelectorExpr:
		sel := a.info.Selections[e]
		if sel == nil {
			// A qualified identifier: another package's variable.
			v, ok := a.info.Uses[e.Sel].(*types.Var)
			return ok && !v.IsField()
		}
		if sel.Kind() != types.FieldVal {
			return false
		}
		return sel.Indirect() || isPointer(a.typeOf(e.X)) || a.tracked(e.X)
	case *ast.IndexExpr:
		switch under(a.typeOf(e.X)).(type) {
		case *types.Slice, *types.Pointer:
			return true
		case *types.Array:
			return a.tracked(e.X)
		}
		return false
	case *ast.StarExpr:
		return true
	}
	return false
}

// isMap reports whether e is a value of map type.
func (a *accessRewriter) isMap(e ast.Expr) bool {
	_, ok := under(a.typeOf(e)).(*types.Map)
	return ok
}

// repeatable reports whether e, the left side of an assignment, may be written a second time
// inside the right side (&e): an expression with no call, receive or function literal.
func (a *accessRewriter) repeatable(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if tv := a.info.Types[n.Fun]; !tv.IsType() {
				ok = false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.FuncLit:
			ok = false
		}
		return ok
	})
	return ok
}

// mapOperand reports whether the map operand m of an index expression can be wrapped: a
// variable, a field or an element, not a call whose own edit would overlap.
func mapOperand(m ast.Expr) bool {
	switch ast.Unparen(m).(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
		return true
	}
	return false
}

// findAccesses records the wrapping of each access.
func (a *accessRewriter) findAccesses(n ast.Node) bool {
	if a.skip[n] {
		return false
	}
	switch n := n.(type) {
	case *ast.SelectStmt:
		// Writes in communication clauses are left out: the renderer rewrites them.
		for _, c := range n.Body.List {
			cc := c.(*ast.CommClause)
			if as, ok := cc.Comm.(*ast.AssignStmt); ok {
				for _, l := range as.Lhs {
					ast.Inspect(l, a.findAccesses)
				}
				ast.Inspect(as.Rhs[0], a.findAccesses)
			} else if cc.Comm != nil {
				ast.Inspect(cc.Comm, a.findAccesses)
			}
			for _, st := range cc.Body {
				ast.Inspect(st, a.findAccesses)
			}
		}
		return false
	case *ast.AssignStmt:
		a.assign(n)
	case *ast.IncDecStmt:
		x := ast.Unparen(n.X)
		if ix, ok := x.(*ast.IndexExpr); ok && a.isMap(ix.X) {
			if mapOperand(ix.X) {
				a.wrap(ast.Unparen(ix.X)).mapFunc = "MapWrite"
			}
		} else if a.tracked(x) && a.repeatable(x) {
			a.incdec[n] = true
		}
	case *ast.CallExpr:
		if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) == 2 {
			if b, ok := a.info.Uses[id].(*types.Builtin); ok && b.Name() == "delete" && mapOperand(n.Args[0]) {
				a.wrap(ast.Unparen(n.Args[0])).mapFunc = "MapWrite"
			}
		}
	case *ast.IndexExpr:
		if a.isMap(n.X) && !a.noRead[n] && mapOperand(n.X) {
			w := a.wrap(ast.Unparen(n.X))
			if w.mapFunc == "" {
				w.mapFunc = "MapRead"
			}
		}
	case *ast.RangeStmt:
		if a.isMap(n.X) && mapOperand(n.X) {
			a.wrap(ast.Unparen(n.X)).mapFunc = "MapRead"
		}
	}
	if e, ok := n.(ast.Expr); ok && !a.noRead[e] {
		if _, paren := e.(*ast.ParenExpr); !paren && a.tracked(e) {
			a.wrap(e).load = true
		}
	}
	return true
}

// assign records the writes of an assignment.
func (a *accessRewriter) assign(s *ast.AssignStmt) {
	if s.Tok == token.DEFINE {
		return
	}
	for i, l := range s.Lhs {
		l = ast.Unparen(l)
		if ix, ok := l.(*ast.IndexExpr); ok && a.isMap(ix.X) {
			if mapOperand(ix.X) {
				a.wrap(ast.Unparen(ix.X)).mapFunc = "MapWrite"
			}
			continue
		}
		if !a.tracked(l) || !a.repeatable(l) {
			continue
		}
		switch {
		case s.Tok == token.ASSIGN && len(s.Lhs) == len(s.Rhs):
			w := a.wrap(s.Rhs[i])
			w.store, w.pos = l, l.Pos()
			if tv := a.info.Types[s.Rhs[i]]; !(tv.Value != nil || tv.IsNil() || isUntyped(tv.Type) || types.Identical(tv.Type, a.typeOf(l))) {
				w.storeAs = true
			}
		case s.Tok != token.ASSIGN && len(s.Rhs) == 1:
			w := a.wrap(s.Rhs[0])
			w.update, w.pos = l, l.Pos()
			w.shift = s.Tok == token.SHL_ASSIGN || s.Tok == token.SHR_ASSIGN
		}
	}
}

// site returns the position argument of an access at pos.
func (a *accessRewriter) site(pos token.Pos) string {
	p := a.fset.PositionFor(pos, false)
	return quote(fmt.Sprintf("%s:%d:%d", a.filename, p.Line, p.Column))
}

// addEdits turns the wrappings into edits, composed with the edits already made on the same
// expressions (a receive, a call).
func (a *accessRewriter) addEdits() {
	for e, wr := range a.wraps {
		a.edit(e, func(w *writer, inner func(w *writer)) { a.render(w, e, wr, inner) })
	}
	for s := range a.incdec {
		op := " += "
		if s.Tok == token.DEC {
			op = " -= " // x-- as x -= Update(&x, 1): -1 does not fit an unsigned x
		}
		a.add(s, func(w *writer) {
			w.node(s.X)
			w.insert(op + a.rt("Update") + "(&(")
			w.node(ast.Unparen(s.X))
			w.insert("), 1, " + a.site(s.X.Pos()) + ")")
		})
	}
}

// edit composes render with the edit already made on exactly e's source, if any, or with a
// copy of e's source.
func (a *accessRewriter) edit(e ast.Expr, render func(w *writer, inner func(w *writer))) {
	for i := range a.edits {
		if old := &a.edits[i]; old.pos == e.Pos() && old.end == e.End() {
			prev := old.render
			old.render = func(w *writer) { render(w, prev) }
			return
		}
	}
	a.add(e, func(w *writer) { render(w, func(w *writer) { copyChildren(w, e) }) })
}

// render writes e wrapped as wr says; inner writes e itself.
func (a *accessRewriter) render(w *writer, e ast.Expr, wr *wrapping, inner func(w *writer)) {
	var open, close []string
	if wr.store != nil {
		open = append(open, "__store__")
		close = append(close, ", "+a.site(wr.pos)+")")
	}
	if wr.update != nil {
		open = append(open, "__update__")
		close = append(close, ", "+a.site(wr.pos)+")")
	}
	if wr.mapFunc != "" {
		open = append(open, a.rt(wr.mapFunc)+"(")
		close = append(close, ", "+a.site(e.Pos())+")")
	}
	if wr.load {
		open = append(open, "(*"+a.rt("Load")+"(&")
		close = append(close, ", "+a.site(e.Pos())+"))")
	}
	for _, o := range open {
		switch o {
		case "__store__":
			name := "Store"
			if wr.storeAs {
				name = "StoreAs"
			}
			w.insert(a.rt(name) + "(&(")
			w.node(wr.store)
			w.insert("), ")
		case "__update__":
			name := "Update"
			if wr.shift {
				name = "Shift"
			}
			w.insert(a.rt(name) + "(&(")
			w.node(wr.update)
			w.insert("), ")
		default:
			w.insert(o)
		}
	}
	inner(w)
	for i := len(close) - 1; i >= 0; i-- {
		w.insert(close[i])
	}
}

// copyChildren copies e's source, applying the edits nested in it but not one on e itself.
func copyChildren(w *writer, e ast.Expr) {
	var kids []ast.Node
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
	case *ast.SelectorExpr:
		kids = []ast.Node{e.X}
	case *ast.IndexExpr:
		kids = []ast.Node{e.X, e.Index}
	case *ast.StarExpr:
		kids = []ast.Node{e.X}
	case *ast.ParenExpr:
		kids = []ast.Node{e.X}
	default:
		ast.Inspect(e, func(n ast.Node) bool {
			if n == e {
				return true
			}
			if n != nil {
				kids = append(kids, n)
			}
			return false
		})
	}
	from := e.Pos()
	for _, k := range kids {
		w.text(from, k.Pos())
		w.node(k)
		from = k.End()
	}
	w.text(from, e.End())
}
