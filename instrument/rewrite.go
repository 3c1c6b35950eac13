package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/heddledbg/heddle/rt"
)

// Import paths of heddle's runtime.
const (
	modulePath = rt.ModulePath
	rtPath     = modulePath + "/rt"
	workerPath = modulePath + "/worker"
)

// shadows maps each package that instrumented code must not use directly, all standard but
// goleak, to the rt package that replaces it.
var shadows = map[string]string{
	"sync":        rtPath + "/sync",
	"sync/atomic": rtPath + "/sync/atomic",
	"time":        rtPath + "/time",
	"context":     rtPath + "/context",
	// Hand-written, as it has only two functions: synctest.Test and synctest.Wait.
	"testing/synctest": rtPath + "/testing/synctest",
	// The top-level functions draw from a source that the schedule seeds.
	"math/rand":    rtPath + "/math/rand",
	"math/rand/v2": rtPath + "/math/rand/v2",
	// io.Pipe is std's own code, instrumented (TestShadowAPI generates it).
	"io": rtPath + "/io",
	// The virtual network (docs/network.md).
	"net":               rtPath + "/net",
	"net/http/httptest": rtPath + "/net/http/httptest",
	// crypto/tls's own Conn, its locks taken first as the run's (docs/network.md).
	"crypto/tls": rtPath + "/crypto/tls",
	// std's own code, instrumented (TestShadowAPI generates it).
	"net/rpc":         rtPath + "/net/rpc",
	"net/rpc/jsonrpc": rtPath + "/net/rpc/jsonrpc",
	// Not a standard package: goleak lists every goroutine of the process, heddle's included,
	// and heddle checks for leaks itself. Hand-written, with goleak v1.3.0's API.
	"go.uber.org/goleak": rtPath + "/goleak",
}

// controlledFuncs are the functions, by package, that act on goroutines or on the process
// and so must go through the controlled scheduler, or that read goroutines' stacks, which
// heddle's frames and goroutines must not show in: each becomes the rt function named.
var controlledFuncs = map[string]map[string]string{
	"runtime":       {"Gosched": "Gosched", "Goexit": "Goexit", "NumGoroutine": "NumGoroutine", "Stack": "Stack", "ReadMemStats": "ReadMemStats"},
	"runtime/debug": {"Stack": "DebugStack", "PrintStack": "PrintStack"},
	"os":            {"Exit": "Exit"},
	// testing.AllocsPerRun and runtime.ReadMemStats count heddle's allocations with the
	// program's (rt/allocs.go).
	"testing": {"AllocsPerRun": "AllocsPerRun"},
}

// prefix starts every identifier that instrumentation introduces. User code
// must not declare identifiers with this prefix.
const prefix = "heddle__"

// rtName is the name under which rewritten files import package rt.
const rtName = prefix + "rt"

// importMark stands for the imports that a file needs after rewriting; it is
// replaced once the whole file has been rendered.
const importMark = "\x00imports\x00"

// An edit replaces the source of one syntax node.
type edit struct {
	pos, end token.Pos
	render   func(w *writer)
}

// A rewriter rewrites one type-checked file.
type rewriter struct {
	fset  *token.FileSet
	tf    *token.File
	file  *ast.File
	src   []byte
	pkg   *types.Package
	info  *types.Info
	edits []edit
	// filename names the file in line directives and access positions.
	filename string

	recv2   map[*ast.UnaryExpr]bool    // receives rewritten to rt.Recv2
	called  map[*ast.SelectorExpr]bool // selectors called where they stand, not taken as method values
	ntemp   int
	usesRT  bool
	imports map[string]string // import path → name, for imports the rewrite adds
	err     error             // first error met while rendering
}

// rewriteFile returns the instrumented source of file, whose original text is
// src, and which belongs to the type-checked package pkg. Line directives in
// the result name filename. It reports changed == false if the file needs no
// rewriting.
func rewriteFile(fset *token.FileSet, file *ast.File, src []byte, filename string, pkg *types.Package, info *types.Info) (out []byte, changed bool, err error) {
	r := &rewriter{
		fset:    fset,
		tf:      fset.File(file.Pos()),
		file:    file,
		src:     src,
		pkg:     pkg,
		info:    info,
		imports: make(map[string]string),
		recv2:   make(map[*ast.UnaryExpr]bool),
		called:  make(map[*ast.SelectorExpr]bool),

		filename: filename,
	}
	if r.tf == nil || r.tf.Size() != len(src) {
		return nil, false, fmt.Errorf("%s: source does not match the parsed file", filename)
	}
	for _, d := range file.Decls {
		ast.Inspect(d, r.visit)
	}
	r.importEdits()
	// After importEdits, which takes an edit at a package name for a rewritten os.Exit.
	r.accesses()
	if len(r.edits) == 0 {
		return nil, false, nil
	}
	r.add(file.Name, func(w *writer) { w.text(file.Name.Pos(), file.Name.End()); w.insert(importMark) })
	// Outer nodes before the nodes nested in them.
	sort.Slice(r.edits, func(i, j int) bool {
		a, b := r.edits[i], r.edits[j]
		if a.pos != b.pos {
			return a.pos < b.pos
		}
		return a.end > b.end
	})

	w := &writer{r: r, filename: filename, line: 1, col: 1}
	w.insertf("//line %s:1:1\n", filename)
	w.line, w.col = 1, 1
	w.copy(token.Pos(r.tf.Base()), token.Pos(r.tf.Base()+r.tf.Size()))
	if r.err != nil {
		return nil, false, r.err
	}
	return []byte(strings.Replace(w.buf.String(), importMark, r.importText(), 1)), true, nil
}

// importText returns the import declarations added to the package clause
// line, so that no line of the file moves.
func (r *rewriter) importText() string {
	var b strings.Builder
	if r.usesRT {
		fmt.Fprintf(&b, "; import %s %s", rtName, quote(rtPath))
	}
	paths := make([]string, 0, len(r.imports))
	for p := range r.imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "; import %s %s", r.imports[p], quote(p))
	}
	return b.String()
}

func (r *rewriter) add(n ast.Node, render func(w *writer)) {
	r.edits = append(r.edits, edit{pos: n.Pos(), end: n.End(), render: render})
}

// search returns the index of the first edit at or after pos.
func (r *rewriter) search(pos token.Pos) int {
	return sort.Search(len(r.edits), func(i int) bool { return r.edits[i].pos >= pos })
}

func (r *rewriter) temp() string {
	r.ntemp++
	return prefix + strconv.Itoa(r.ntemp-1)
}

func (r *rewriter) rt(name string) string {
	r.usesRT = true
	return rtName + "." + name
}

func (r *rewriter) fail(n ast.Node, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %s", r.fset.Position(n.Pos()), fmt.Sprintf(format, args...))
	}
}

// visit finds the nodes to rewrite. Nodes inside a rewritten node are still
// visited: their edits are applied when the outer renderer copies them.
func (r *rewriter) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.FuncDecl:
		r.atomicFunc(n)
	case *ast.GoStmt:
		r.add(n, func(w *writer) { r.goStmt(w, n) })
	case *ast.SendStmt:
		r.add(n, func(w *writer) { r.send(w, n) })
	case *ast.UnaryExpr:
		if n.Op == token.ARROW && !r.recv2[n] {
			r.add(n, func(w *writer) { r.call(w, "Recv", n.X) })
		}
	case *ast.AssignStmt:
		if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
			r.commaOK(n.Rhs[0])
		}
	case *ast.ValueSpec:
		if len(n.Names) == 2 && len(n.Values) == 1 {
			r.commaOK(n.Values[0])
		}
	case *ast.RangeStmt:
		if r.chanOf(n.X) != nil {
			r.add(n, func(w *writer) { r.rangeChan(w, n) })
		}
	case *ast.CallExpr:
		if se, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
			r.called[se] = true
		}
		r.builtin(n)
		r.testingCall(n)
		r.fileDeadline(n)
		r.httpMethodCall(n)
	case *ast.SelectStmt:
		r.add(n, func(w *writer) { r.selectStmt(w, n) })
		r.visitSelect(n)
		return false
	case *ast.Ident:
		if obj, ok := r.info.Uses[n].(*types.Func); ok && controlledFunc(obj) != "" {
			// Dot-imported runtime.Gosched and friends, or os.Exit.
			r.add(n, func(w *writer) { w.insert(r.rt(controlledFunc(obj))) })
		}
	case *ast.SelectorExpr:
		if r.netGroupCall(n) {
			return false
		}
		r.checkedMethod(n)
		if obj, ok := r.info.Uses[n.Sel].(*types.Func); ok && httpFuncs[obj.Name()] && obj.Pkg() != nil && obj.Pkg().Path() == "net/http" && obj.Type().(*types.Signature).Recv() == nil {
			if id, ok := n.X.(*ast.Ident); ok {
				if _, ok := r.info.Uses[id].(*types.PkgName); ok {
					r.add(n, func(w *writer) { w.insert(r.http() + "." + n.Sel.Name) })
					return false
				}
			}
		}
		if obj, ok := r.info.Uses[n.Sel].(*types.Func); ok && controlledFunc(obj) != "" {
			if id, ok := n.X.(*ast.Ident); ok {
				if _, ok := r.info.Uses[id].(*types.PkgName); ok {
					r.add(n, func(w *writer) { w.insert(r.rt(controlledFunc(obj))) })
					return false
				}
			}
		}
	}
	return true
}

// visitSelect visits the parts of a select statement that its renderer copies
// from the original source, skipping the receive and send operations of the
// communication clauses, which the renderer itself replaces.
func (r *rewriter) visitSelect(s *ast.SelectStmt) {
	for _, c := range s.Body.List {
		cc := c.(*ast.CommClause)
		switch comm := cc.Comm.(type) {
		case *ast.SendStmt:
			ast.Inspect(comm.Chan, r.visit)
			ast.Inspect(comm.Value, r.visit)
		case *ast.ExprStmt:
			ast.Inspect(ast.Unparen(comm.X).(*ast.UnaryExpr).X, r.visit)
		case *ast.AssignStmt:
			for _, l := range comm.Lhs {
				ast.Inspect(l, r.visit)
			}
			ast.Inspect(ast.Unparen(comm.Rhs[0]).(*ast.UnaryExpr).X, r.visit)
		}
		for _, st := range cc.Body {
			ast.Inspect(st, r.visit)
		}
	}
}

// controlledFunc returns the rt function that f becomes, or "".
func controlledFunc(f *types.Func) string {
	if f.Pkg() == nil || f.Type().(*types.Signature).Recv() != nil {
		return ""
	}
	return controlledFuncs[f.Pkg().Path()][f.Name()]
}

// commaOK rewrites the receive in "v, ok = <-ch" and its := and var forms.
func (r *rewriter) commaOK(rhs ast.Expr) {
	u, ok := ast.Unparen(rhs).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return
	}
	r.recv2[u] = true
	r.add(rhs, func(w *writer) { r.call(w, "Recv2", u.X) })
}

// call writes rt.name(args...).
func (r *rewriter) call(w *writer, name string, args ...ast.Expr) {
	w.insert(r.rt(name) + "(")
	for i, a := range args {
		if i > 0 {
			w.insert(", ")
		}
		w.node(a)
	}
	w.insert(")")
}

// builtin rewrites make, close, len and cap on channels.
func (r *rewriter) builtin(call *ast.CallExpr) {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || len(call.Args) == 0 {
		return
	}
	if _, ok := r.info.Uses[id].(*types.Builtin); !ok {
		return
	}
	switch id.Name {
	case "close":
		r.add(call, func(w *writer) { r.call(w, "Close", call.Args[0]) })
	case "len", "cap":
		if r.chanOf(call.Args[0]) != nil {
			name := "Len"
			if id.Name == "cap" {
				name = "Cap"
			}
			r.add(call, func(w *writer) { r.call(w, name, call.Args[0]) })
		}
	case "make":
		if ch := r.chanOf(call.Args[0]); ch != nil {
			r.add(call, func(w *writer) { r.makeChan(w, call, ch) })
		}
	}
}

// harnessCalls are the methods of *testing.T whose calls are rewritten into calls of the
// harness function of the same name, which takes the *testing.T as its first argument: a
// subtest runs on a goroutine of its own that must take its parent's place in the run, a
// parallel test has nothing to run alongside within a run, a cleanup must run inside the run,
// before its goroutines are judged leaked, and so must the cancel of the test's context.
var harnessCalls = map[string]bool{"Run": true, "Parallel": true, "Cleanup": true, "Context": true}

// checkedMethods are the methods of *testing.T and testing.TB whose receiver is rewritten into
// worker.Checked(t), in calls and method values: a log or a failure after the test completed
// fails as go test fails it (worker/late.go).
var checkedMethods = map[string]bool{"Log": true, "Logf": true, "Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true}

// testingCall rewrites t.Run(name, f) into worker.Run(t, name, f), t.Parallel() into
// worker.Parallel(t), t.Cleanup(f) into worker.Cleanup(t, f) and t.Context() into
// worker.Context(t), for t a *testing.T or a value that embeds one, and for Cleanup and
// Context a testing.TB too. Method values and method
// expressions are left alone.
func (r *rewriter) testingCall(call *ast.CallExpr) {
	se, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	sel := r.info.Selections[se]
	if sel == nil || sel.Kind() != types.MethodVal || !harnessCalls[se.Sel.Name] {
		return
	}
	// The path to the *testing.T through embedded fields. Testing's own fields beyond it are not
	// followed: Cleanup is promoted from its unexported common.
	var fields []string
	t := sel.Recv()
	for _, i := range sel.Index()[:len(sel.Index())-1] {
		if isTestingT(deref(t)) {
			break
		}
		st, ok := deref(t).Underlying().(*types.Struct)
		if !ok {
			return
		}
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != r.pkg {
			return
		}
		fields = append(fields, f.Name())
		t = f.Type()
	}
	if !isTestingT(deref(t)) && !((se.Sel.Name == "Cleanup" || se.Sel.Name == "Context") && isTestingTB(t)) {
		return
	}
	_, isPtr := t.Underlying().(*types.Pointer)
	isPtr = isPtr || types.IsInterface(t)
	r.add(call, func(w *writer) {
		w.insert(r.worker() + ".")
		w.at(se.Sel.Pos())
		w.insert(se.Sel.Name + "(")
		if !isPtr {
			w.insert("&")
		}
		if len(fields) > 0 || !isPtr {
			w.insert("(")
			w.node(se.X)
			w.insert(")")
			for _, f := range fields {
				w.insert("." + f)
			}
		} else {
			w.node(se.X)
		}
		if len(call.Args) == 0 {
			w.insert(")")
			return
		}
		w.insert(",")
		w.copy(call.Lparen+1, call.End())
	})
}

// checkedMethod rewrites t.Logf, called or as a method value, into worker.Checked(t).Logf,
// and so on for checkedMethods, for t a *testing.T or a testing.TB. For t of another interface
// whose method has testing's signature (an assertion library's TestingT), it rewrites t into
// worker.Late(t, "Log"), which checks the call when t holds a testing.TB and leaves the call
// itself as it is: the library's t.Helper marks the frame that calls.
func (r *rewriter) checkedMethod(se *ast.SelectorExpr) {
	sel := r.info.Selections[se]
	if sel == nil || sel.Kind() != types.MethodVal || !checkedMethods[se.Sel.Name] {
		return
	}
	t := sel.Recv()
	if _, isPtr := t.Underlying().(*types.Pointer); isPtr && isTestingT(deref(t)) || isTestingTB(t) {
		r.add(se, func(w *writer) {
			w.insert(r.worker() + ".Checked(")
			w.node(se.X)
			w.insert(").")
			w.at(se.Sel.Pos())
			w.insert(se.Sel.Name)
		})
		return
	}
	if types.IsInterface(t) && testingSignature(se.Sel.Name, sel.Type().(*types.Signature)) {
		what := "Log"
		if se.Sel.Name == "Fail" || se.Sel.Name == "FailNow" {
			what = "Fail"
		}
		// A method value taken while the test runs may be called after it returned: the value
		// is bound to a receiver that checks when called.
		late := ".Late("
		if !r.called[se] {
			late = ".LateValue("
		}
		r.add(se, func(w *writer) {
			w.insert(r.worker() + late)
			w.node(se.X)
			w.insert(`, "` + what + `").`)
			w.at(se.Sel.Pos())
			w.insert(se.Sel.Name)
		})
	}
}

// testingSignature reports whether sig is the signature of testing.TB's method name, as an
// assertion library's interface declares it (testify's TestingT.Errorf): a logger's Error(msg
// string, fields ...Field) is not one.
func testingSignature(name string, sig *types.Signature) bool {
	if sig.Results().Len() != 0 {
		return false
	}
	ps := sig.Params()
	anySlice := func(t types.Type) bool {
		s, ok := t.(*types.Slice)
		if !ok {
			return false
		}
		i, ok := s.Elem().Underlying().(*types.Interface)
		return ok && i.Empty()
	}
	isString := func(t types.Type) bool { return types.Identical(t, types.Typ[types.String]) }
	switch name {
	case "Fail", "FailNow":
		return ps.Len() == 0
	case "Log", "Error", "Fatal":
		return sig.Variadic() && ps.Len() == 1 && anySlice(ps.At(0).Type())
	case "Logf", "Errorf", "Fatalf":
		return sig.Variadic() && ps.Len() == 2 && isString(ps.At(0).Type()) && anySlice(ps.At(1).Type())
	}
	return false
}

// httpFuncs are net/http's functions that serve connections, and httpMethods the methods of
// its types that rt/net/http replaces, by type, with the names of the functions that replace
// them: net/http serves each connection on a goroutine it starts itself, which heddle could
// not schedule, where rt/net/http serves them on controlled goroutines; its Client applies
// its Timeout on the real clock, where rt/net/http applies it on the virtual one; and its
// Transport runs each connection on goroutines of its own, where rt/net/http's stand-in keeps
// them on the calling one (docs/network.md).
var (
	httpFuncs   = map[string]bool{"Serve": true, "ListenAndServe": true, "ServeTLS": true, "ListenAndServeTLS": true}
	httpMethods = map[string]map[string]string{
		"Server": {"Serve": "ServerServe", "ListenAndServe": "ServerListenAndServe", "ServeTLS": "ServerServeTLS",
			"ListenAndServeTLS": "ServerListenAndServeTLS", "Close": "ServerClose", "Shutdown": "ServerShutdown"},
		"Client": {"Do": "ClientDo", "Get": "ClientGet", "Head": "ClientHead", "Post": "ClientPost", "PostForm": "ClientPostForm",
			"CloseIdleConnections": "ClientCloseIdleConnections"},
		"Transport": {"RoundTrip": "TransportRoundTrip", "CloseIdleConnections": "TransportCloseIdleConnections"},
		// A RoundTripper that wraps another calls it through the interface (resty's digest
		// authentication): an *http.Transport behind it is carried by its stand-in as well.
		"RoundTripper": {"RoundTrip": "RoundTripperRoundTrip"},
	}
)

// httpMethodCall rewrites srv.Serve(l) into rt/net/http's ServerServe(srv, l), and so on for
// httpMethods, for srv an http.Server or a pointer to one, and alike for an http.Client and
// the other types of httpMethods. Method values are left alone, and so are the methods
// promoted from an embedded one.
func (r *rewriter) httpMethodCall(call *ast.CallExpr) {
	name, recv, addr := r.httpMethod(call)
	if name == "" {
		return
	}
	r.add(call, func(w *writer) {
		w.insert(r.http() + "." + name + "(")
		if addr {
			w.insert("&")
		}
		w.insert("(")
		w.node(recv)
		w.insert(")")
		if len(call.Args) == 0 {
			w.insert(")")
			return
		}
		w.insert(", ")
		w.copy(call.Lparen+1, call.End())
	})
}

// httpMethod returns, for a call of one of httpMethods, the rt/net/http function that replaces
// it, the receiver, and whether the function takes the receiver's address: a struct held by
// value, not a pointer or an interface.
func (r *rewriter) httpMethod(call *ast.CallExpr) (name string, recv ast.Expr, addr bool) {
	se, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return "", nil, false
	}
	sel := r.info.Selections[se]
	if sel == nil || sel.Kind() != types.MethodVal || len(sel.Index()) != 1 {
		return "", nil, false
	}
	n, ok := deref(sel.Recv()).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "net/http" {
		return "", nil, false
	}
	if name = httpMethods[n.Obj().Name()][se.Sel.Name]; name == "" {
		return "", nil, false
	}
	_, isStruct := sel.Recv().Underlying().(*types.Struct)
	return name, se.X, isStruct
}

// http returns the name under which the rewritten file imports rt/net/http.
func (r *rewriter) http() string {
	name := prefix + "http"
	r.imports[rtPath+"/net/http"] = name
	return name
}

// deref returns the type t points to, or t.
func deref(t types.Type) types.Type {
	if ptr, ok := t.Underlying().(*types.Pointer); ok {
		return ptr.Elem()
	}
	return t
}

// worker returns the name under which the rewritten file imports package worker, the test harness.
func (r *rewriter) worker() string {
	name := prefix + "worker"
	r.imports[workerPath] = name
	return name
}

// makeChan writes rt.MakeChan[E](size), converted to the type named in the
// make call unless that is a plain bidirectional channel type literal.
func (r *rewriter) makeChan(w *writer, call *ast.CallExpr, ch *types.Chan) {
	typ := ast.Unparen(call.Args[0])
	lit, isLit := typ.(*ast.ChanType)
	plain := isLit && lit.Dir == ast.SEND|ast.RECV
	if !plain {
		w.insert("(")
		w.node(call.Args[0])
		w.insert(")(")
	}
	w.insert(r.rt("MakeChan") + "[")
	if isLit {
		w.node(lit.Value)
	} else {
		w.insert(r.typeExpr(call, ch.Elem()))
	}
	w.insert("](")
	if len(call.Args) < 2 {
		w.insert("0")
	} else {
		size := call.Args[1]
		tv := r.info.Types[size]
		if b, ok := tv.Type.(*types.Basic); ok && (b.Kind() == types.Int || b.Info()&types.IsUntyped != 0) {
			w.node(size)
		} else {
			w.insert("int(")
			w.node(size)
			w.insert(")")
		}
	}
	w.insert(")")
	if !plain {
		w.insert(")")
	}
}

// send writes rt.Send(ch, v).
func (r *rewriter) send(w *writer, s *ast.SendStmt) {
	w.insert(r.rt("Send") + r.typeArgs(s, s.Chan, s.Value) + "(")
	w.node(s.Chan)
	w.insert(", ")
	w.node(s.Value)
	w.insert(")")
}

// typeArgs returns the explicit instantiation needed to send value on ch:
// type inference alone fails when value has a type that is assignable to the
// element type without being identical to it.
func (r *rewriter) typeArgs(at ast.Node, ch, value ast.Expr) string {
	c := r.chanOf(ch)
	tv := r.info.Types[value]
	if c == nil || tv.Type == nil || tv.IsNil() || isUntyped(tv.Type) || types.Identical(tv.Type, c.Elem()) {
		return ""
	}
	return "[" + r.typeExpr(at, c.Elem()) + "]"
}

// chanOf returns the channel type of e, or of the core type of e's type
// parameter, or nil if e is not a channel.
func (r *rewriter) chanOf(e ast.Expr) *types.Chan {
	tv, ok := r.info.Types[e]
	if !ok || tv.Type == nil {
		return nil
	}
	return coreChan(tv.Type)
}

func coreChan(t types.Type) *types.Chan {
	switch u := t.Underlying().(type) {
	case *types.Chan:
		return u
	case *types.Interface:
		if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
			return ifaceChan(tp.Constraint().Underlying().(*types.Interface))
		}
	}
	return nil
}

// ifaceChan returns the channel type in the type set of a constraint.
func ifaceChan(iface *types.Interface) *types.Chan {
	for i := 0; i < iface.NumEmbeddeds(); i++ {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := 0; j < e.Len(); j++ {
				if c, ok := e.Term(j).Type().Underlying().(*types.Chan); ok {
					return c
				}
			}
		default:
			switch u := e.Underlying().(type) {
			case *types.Chan:
				return u
			case *types.Interface:
				if c := ifaceChan(u); c != nil {
					return c
				}
			}
		}
	}
	return nil
}

func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// typeExpr returns source text denoting t in the rewritten file, adding an
// import for every package it mentions.
func (r *rewriter) typeExpr(at ast.Node, t types.Type) string {
	var bad *types.TypeName
	s := types.TypeString(t, func(p *types.Package) string {
		if p == r.pkg {
			return ""
		}
		name, ok := r.imports[p.Path()]
		if !ok {
			name = fmt.Sprintf("%sp%d", prefix, len(r.imports))
			r.imports[p.Path()] = name
		}
		return name
	})
	// A type declared unexported in another package cannot be named.
	var check func(t types.Type)
	check = func(t types.Type) {
		if n, ok := types.Unalias(t).(interface{ Obj() *types.TypeName }); ok {
			if o := n.Obj(); o.Pkg() != nil && o.Pkg() != r.pkg && !o.Exported() {
				bad = o
			}
		}
	}
	check(t)
	if bad != nil {
		r.fail(at, "cannot instrument: the operation needs type %s named here, but it is unexported", bad.Name())
	}
	return s
}

// rangeChan rewrites "for k := range ch { body }" into a loop that receives
// with rt.Recv2 and breaks when the channel is closed. The body keeps its own
// braces, so that it stays a nested scope.
func (r *rewriter) rangeChan(w *writer, s *ast.RangeStmt) {
	ch, ok := r.temp(), r.temp()
	w.insert("for " + ch + " := ")
	w.node(s.X)
	w.insert("; ; { ")
	key := s.Key
	if id, isID := key.(*ast.Ident); isID && id.Name == "_" {
		key = nil
	}
	switch {
	case key == nil:
		w.insertf("if _, %s := %s(%s); !%s { break }; ", ok, r.rt("Recv2"), ch, ok)
	case s.Tok == token.DEFINE:
		w.node(key)
		w.insertf(", %s := %s(%s); if !%s { break }; ", ok, r.rt("Recv2"), ch, ok)
	default:
		v := r.temp()
		w.insertf("%s, %s := %s(%s); if !%s { break }; ", v, ok, r.rt("Recv2"), ch, ok)
		w.node(key)
		w.insert(" = " + v + "; ")
	}
	w.node(s.Body)
	w.insert(" }")
}

// goStmt rewrites a go statement into a call of rt.Go. The function value,
// receiver and arguments are evaluated at the statement, as Go requires.
func (r *rewriter) goStmt(w *writer, s *ast.GoStmt) {
	call := s.Call
	isBuiltin := r.info.Types[call.Fun].IsBuiltin()
	var sig *types.Signature
	if !isBuiltin {
		sig, _ = r.info.Types[call.Fun].Type.Underlying().(*types.Signature)
	}

	// go f() where f is already a func(): pass the function value itself.
	if !isBuiltin && len(call.Args) == 0 && sig != nil && sig.Params().Len() == 0 && sig.Results().Len() == 0 {
		w.at(s.Pos())
		w.insert(r.rt("Go") + "(")
		w.node(call.Fun)
		w.insert(")")
		return
	}

	type value struct {
		temp string   // temporary holding the value, or ""
		expr ast.Expr // the expression used in place if temp is ""
	}
	// Each temporary is assigned by its own statement, in source order.
	var temps []string
	var inits []func()
	hoist := func(e ast.Expr, conv string) string {
		t := r.temp()
		temps = append(temps, t)
		inits = append(inits, func() {
			if conv != "" {
				w.insert(conv + "(")
				w.node(e)
				w.insert(")")
			} else {
				w.node(e)
			}
		})
		return t
	}

	fun := value{expr: call.Fun}
	// go srv.Serve(l) on an http.Server: the receiver is evaluated now, and the goroutine
	// calls rt/net/http's ServerServe(srv, l).
	httpName, httpRecv, httpAddr := r.httpMethod(call)
	if httpName != "" {
		conv := ""
		if httpAddr {
			conv = "&"
		}
		fun.temp = hoist(httpRecv, conv)
	} else if !isBuiltin && !r.static(call.Fun) {
		fun.temp = hoist(call.Fun, "")
	}
	var args []value
	if len(call.Args) == 1 && !isBuiltin {
		if tuple, ok := r.info.Types[call.Args[0]].Type.(*types.Tuple); ok {
			// go f(g()) with g returning several values.
			var names []string
			for range tuple.Len() {
				t := r.temp()
				names = append(names, t)
				args = append(args, value{temp: t})
			}
			temps = append(temps, strings.Join(names, ", "))
			arg := call.Args[0]
			inits = append(inits, func() { w.node(arg) })
		}
	}
	if args == nil {
		for i, a := range call.Args {
			tv := r.info.Types[a]
			if tv.Value != nil || tv.IsNil() || tv.IsType() {
				args = append(args, value{expr: a})
				continue
			}
			conv := ""
			if isUntyped(tv.Type) && !isBuiltin && sig != nil {
				conv = r.typeExpr(a, paramType(sig, i, call.Ellipsis.IsValid()))
			}
			args = append(args, value{temp: hoist(a, conv)})
		}
	}

	if len(temps) > 0 {
		w.insert("{ ")
		for i, init := range inits {
			w.insert(temps[i] + " := ")
			init()
			w.insert("; ")
		}
	}
	w.at(s.Pos())
	w.insert(r.rt("Go") + "(func() { ")
	if httpName != "" {
		w.insert(r.http() + "." + httpName + "(" + fun.temp)
		if len(args) > 0 {
			w.insert(", ")
		}
	} else if fun.temp != "" {
		w.insert(fun.temp)
		w.insert("(")
	} else if r.isBuiltin(call.Fun, "close") {
		w.insert(r.rt("Close") + "(")
	} else {
		w.node(fun.expr)
		w.insert("(")
	}
	for i, a := range args {
		if i > 0 {
			w.insert(", ")
		}
		if a.temp != "" {
			w.insert(a.temp)
		} else {
			w.node(a.expr)
		}
	}
	if call.Ellipsis.IsValid() {
		w.insert("...")
	}
	w.insert(") })")
	if len(temps) > 0 {
		w.insert(" }")
	}
}

// isBuiltin reports whether fun denotes the builtin function name.
func (r *rewriter) isBuiltin(fun ast.Expr, name string) bool {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	if !ok || id.Name != name {
		return false
	}
	_, ok = r.info.Uses[id].(*types.Builtin)
	return ok
}

// paramType returns the type of the i'th parameter of sig as seen by an
// argument.
func paramType(sig *types.Signature, i int, ellipsis bool) types.Type {
	n := sig.Params().Len()
	if sig.Variadic() && i >= n-1 {
		t := sig.Params().At(n - 1).Type()
		if ellipsis {
			return t
		}
		return t.(*types.Slice).Elem()
	}
	return sig.Params().At(i).Type()
}

// static reports whether evaluating fun has no effect and always yields the
// same function: a function literal or a package-level function, possibly
// instantiated. Such a callee need not be evaluated ahead of the goroutine.
func (r *rewriter) static(fun ast.Expr) bool {
	switch f := ast.Unparen(fun).(type) {
	case *ast.FuncLit:
		return true
	case *ast.Ident:
		return isPkgFunc(r.info.Uses[f])
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			if _, ok := r.info.Uses[id].(*types.PkgName); ok {
				return isPkgFunc(r.info.Uses[f.Sel])
			}
		}
	case *ast.IndexExpr:
		return r.static(f.X)
	case *ast.IndexListExpr:
		return r.static(f.X)
	}
	return false
}

func isPkgFunc(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	return ok && f.Type().(*types.Signature).Recv() == nil
}

// A commCase is one communication clause of a select statement.
type commCase struct {
	clause *ast.CommClause
	ch     ast.Expr // channel operand
	value  ast.Expr // value sent, for a send case
	lhs    []ast.Expr
	define bool
	chTemp string // temporary holding the channel, or ""
	vTemp  string // temporary holding the sent value, or ""
}

// selectStmt rewrites a select statement into a call of rt.Select and a
// switch on the chosen case:
//
//	switch t0 := ch0; { default: switch t1, t2 := ch1, v1; { default:
//	switch i, recv, ok := rt.Select(hasDefault, rt.RecvCase(t0), rt.SendCase(t1, t2)); i {
//	case 0: x := rt.Recvd(t0, recv)
//		...
//	}}}
//
// The outer switches hold the channel and value operands, evaluated once in source order on
// entry, each case's in a switch header of its own, each operand parenthesized, since a
// composite literal would otherwise end the header. The outermost carries the label of the
// select, if any, for labeled breaks. The innermost switch captures unlabeled breaks, which
// in a select case leave the select. Without a default clause, the last case becomes the
// default of the innermost switch, so that a select that is a terminating statement stays
// one; with one, the default clause is case -1, rt.Select's answer for it, and the last case
// is still the switch's default.
//
// The code is placed on the lines where the compiler places a select's, so that a debugger
// steps through the rewritten select as through the original: each case's operands on the
// case's line, a statement of their own, the call that chooses on the select's line, then
// the default's test, each case's test, and an empty case's jump out, on their lines. A
// select of one case, or of one case and a default, which the compiler turns into a plain
// channel operation or a non-blocking one, has all its code on the case's line.
func (r *rewriter) selectStmt(w *writer, s *ast.SelectStmt) {
	var cases []*commCase
	var dflt *ast.CommClause
	for _, c := range s.Body.List {
		cc := c.(*ast.CommClause)
		k := &commCase{clause: cc}
		switch comm := cc.Comm.(type) {
		case nil:
			dflt = cc
			continue
		case *ast.SendStmt:
			k.ch, k.value = comm.Chan, comm.Value
		case *ast.ExprStmt:
			k.ch = ast.Unparen(comm.X).(*ast.UnaryExpr).X
		case *ast.AssignStmt:
			k.ch = ast.Unparen(comm.Rhs[0]).(*ast.UnaryExpr).X
			k.lhs, k.define = comm.Lhs, comm.Tok == token.DEFINE
		}
		cases = append(cases, k)
	}
	hasDefault := dflt != nil
	if len(cases) == 0 && !hasDefault {
		// select {} blocks forever, and is a terminating statement.
		w.insert("for { " + r.rt("Select") + "(false) }")
		return
	}

	// mach is where the code that chooses goes; at(k) where case k's operands go.
	mach := s.Pos()
	single := len(cases) <= 1
	switch {
	case single && len(cases) == 1:
		mach = cases[0].clause.Comm.Pos()
	case single:
		mach = dflt.Pos()
	}
	at := func(k *commCase) token.Pos {
		if single {
			return mach
		}
		return k.clause.Pos()
	}

	// Operands that must be evaluated up front, in source order: all of them, unless in a
	// select of one case its operands may be evaluated again with the same result.
	needTemps := !single
	for _, k := range cases {
		if !r.simple(k.ch) || k.value != nil && !r.simple(k.value) {
			needTemps = true
		}
	}
	nest := 0
	if needTemps {
		for _, k := range cases {
			var temps []string
			var inits []func()
			if tv := r.info.Types[k.ch]; tv.Value == nil && !tv.IsNil() {
				k.chTemp = r.temp()
				temps = append(temps, k.chTemp)
				ch := k.ch
				inits = append(inits, func() { w.insert("("); w.node(ch); w.insert(")") })
			}
			if k.value != nil {
				if tv := r.info.Types[k.value]; tv.Value == nil && !tv.IsNil() {
					k.vTemp = r.temp()
					temps = append(temps, k.vTemp)
					v := k.value
					conv := ""
					if isUntyped(tv.Type) {
						if c := r.chanOf(k.ch); c != nil {
							conv = r.typeExpr(v, c.Elem())
						}
					}
					inits = append(inits, func() {
						w.insert(conv + "(")
						w.node(v)
						w.insert(")")
					})
				}
			}
			if len(temps) == 0 {
				continue
			}
			w.at(at(k))
			w.insert("switch " + strings.Join(temps, ", ") + " := ")
			for i, init := range inits {
				if i > 0 {
					w.insert(", ")
				}
				init()
			}
			w.onLine(at(k))
			w.insert("; { default: ")
			nest++
		}
	}

	index, recv, ok := r.temp(), "_", "_"
	for _, k := range cases {
		if k.value == nil && len(k.lhs) > 0 {
			if recv == "_" {
				recv = r.temp()
			}
			if len(k.lhs) == 2 && ok == "_" {
				ok = r.temp()
			}
		}
	}

	// desc writes case k's descriptor.
	desc := func(k *commCase) {
		if k.value != nil {
			w.insert(r.rt("SendCase") + r.typeArgs(k.clause, k.ch, k.value) + "(")
			r.operand(w, k.chTemp, k.ch)
			w.insert(", ")
			r.operand(w, k.vTemp, k.value)
		} else {
			w.insert(r.rt("RecvCase") + "(")
			r.operand(w, k.chTemp, k.ch)
		}
		w.insert(")")
	}
	// label[i] is case i's value in the switch on the chosen case: its place in the order in
	// which the compiler tests for the cases once one is chosen, sends in source order, then
	// receives in reverse source order, since the switch tests in the order of the values.
	label := make([]int, len(cases))
	tag := index
	if single {
		w.at(mach)
		w.insertf("switch %s, %s, %s := %s(%t", index, recv, ok, r.rt("Select"), hasDefault)
		for _, k := range cases {
			w.insert(", ")
			desc(k)
			w.onLine(mach)
		}
		w.insert("); ")
	} else {
		sends, recvs, permuted := 0, 0, false
		for i, k := range cases {
			if k.value != nil {
				label[i] = sends
				sends++
			}
		}
		for i, k := range cases {
			if k.value == nil {
				recvs++
				label[i] = len(cases) - recvs
			}
			permuted = permuted || label[i] != i
		}
		// As the compiler's select: a statement on the select's line, each case's descriptor
		// on its line, the call that chooses on the select's line.
		w.at(mach)
		w.insertf("switch %s, %s, %s := -1, interface{}(nil), false; { default: ", index, recv, ok)
		nest++
		descs := make([]string, len(cases))
		for i, k := range cases {
			descs[i] = r.temp()
			w.at(k.clause.Pos())
			w.insertf("switch %s := ", descs[i])
			desc(k)
			w.onLine(k.clause.Pos())
			w.insert("; { default: ")
			nest++
		}
		w.at(mach)
		w.insertf("switch %s, %s, %s = %s(%t", index, recv, ok, r.rt("Select"), hasDefault)
		for _, d := range descs {
			w.insert(", " + d)
		}
		w.insert("); ")
		if permuted {
			ls := []string{"-1"}
			for _, l := range label {
				ls = append(ls, strconv.Itoa(l))
			}
			tag = fmt.Sprintf("[...]int{%s}[%s+1]", strings.Join(ls, ", "), index)
		}
	}
	w.insert(tag + " ")

	// The body: the original text, with each clause header replaced.
	w.text(s.Body.Lbrace, s.Body.Lbrace+1)
	from := s.Body.Lbrace + 1
	i := 0
	for _, c := range s.Body.List {
		cc := c.(*ast.CommClause)
		w.copy(from, cc.Pos())
		switch {
		case cc.Comm == nil && single:
			w.at(mach)
			w.insert("default:")
		case cc.Comm == nil && len(cases) > 0:
			w.at(cc.Pos())
			w.insert("case -1:")
		case cc.Comm == nil:
			w.copy(cc.Pos(), cc.Colon+1)
		default:
			k := cases[i]
			w.at(at(k))
			switch {
			case single && (i < len(cases)-1 || hasDefault):
				w.insertf("case %d:", i)
			case single || label[i] == len(cases)-1:
				w.insert("default:")
			default:
				w.insertf("case %d:", label[i])
			}
			if len(k.lhs) > 0 {
				w.insert(" ")
				for j, l := range k.lhs {
					if j > 0 {
						w.insert(", ")
					}
					w.node(l)
				}
				if k.define {
					w.insert(" := ")
				} else {
					w.insert(" = ")
				}
				w.insert(r.rt("Recvd") + "(")
				r.operand(w, k.chTemp, k.ch)
				w.insert(", " + recv + ")")
				if len(k.lhs) == 2 {
					w.insert(", " + ok)
				}
				w.insert(";")
			}
			i++
		}
		if len(cc.Body) == 0 {
			// The switch's own jump out of an empty case has no line; the compiler's select
			// jumps out on the case's.
			w.insert(" break;")
		}
		from = cc.Colon + 1
	}
	w.copy(from, s.Body.Rbrace+1)
	w.insert(strings.Repeat("}", nest))
}

// operand writes the temporary holding an operand, or the operand itself.
func (r *rewriter) operand(w *writer, temp string, e ast.Expr) {
	if temp != "" {
		w.insert(temp)
	} else {
		w.node(e)
	}
}

// simple reports whether e may be evaluated again, out of order, with the
// same result: a constant, nil, or a variable. Select operands that are all
// simple need no temporaries.
func (r *rewriter) simple(e ast.Expr) bool {
	tv := r.info.Types[e]
	if tv.Value != nil || tv.IsNil() {
		return true
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	_, isVar := r.info.Uses[id].(*types.Var)
	return isVar
}

// importEdits swaps the imports of shadowed packages, and blanks an
// import of runtime, os, net or net/http whose every use has been rewritten.
func (r *rewriter) importEdits() {
	for _, spec := range r.file.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		quoted := spec.Path.Value
		shadow, shadowed := shadows[path]
		if shadowed {
			quoted = quote(shadow)
		}
		swap := func() {
			if shadowed {
				r.add(spec.Path, func(w *writer) { w.insert(quoted) })
			}
		}
		// net is shadowed, and its Listen and Dial may have been rewritten to rt/member's;
		// net/http's Serve and ListenAndServe are rewritten to rt/net/http's (a package whose
		// only use of net/http is an http.ListenAndServe in an init's goroutine).
		if controlledFuncs[path] == nil && path != "net" && path != "net/http" || spec.Name != nil && (spec.Name.Name == "_" || spec.Name.Name == ".") {
			swap()
			continue
		}
		pkgName := r.pkgNameOf(spec)
		if pkgName == nil {
			swap()
			continue
		}
		uses, rewritten := 0, 0
		for id, obj := range r.info.Uses {
			if obj != pkgName {
				continue
			}
			uses++
			if slices.ContainsFunc(r.edits, func(e edit) bool { return e.pos == id.Pos() && e.end > id.End() }) {
				rewritten++
			}
		}
		switch {
		case uses == 0 || uses != rewritten:
			swap()
		case spec.Name != nil:
			r.add(spec.Name, func(w *writer) { w.insert("_") })
			swap()
		default:
			r.add(spec.Path, func(w *writer) { w.insert("_ " + quoted) })
		}
	}
}

func (r *rewriter) pkgNameOf(spec *ast.ImportSpec) *types.PkgName {
	var obj types.Object
	if spec.Name != nil {
		obj = r.info.Defs[spec.Name]
	} else {
		obj = r.info.Implicits[spec]
	}
	p, _ := obj.(*types.PkgName)
	return p
}
