package record

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// NameObjects names the trace's objects the way a person would: by the expression the
// program wrote at each operation (from.mu, s.ch, L3), read from the source at the events'
// positions. Each event and each blocked goroutine of the verdict gets the expression at its
// own position, since one object goes by several names (from.mu in one call, to.mu in the
// next), and each object the first of its names. An object whose operations name it no way
// the source shows keeps only its logical id. Sources that cannot be read are skipped.
func NameObjects(t *Trace) {
	byID := make(map[string]*Object, len(t.Objects))
	for i := range t.Objects {
		byID[t.Objects[i].ID] = &t.Objects[i]
	}
	// The name by which each goroutine last called each object: of several deferred calls on
	// one line (the closing brace), the one on that object under that name made the
	// operation.
	type use struct{ g, obj string }
	last := map[use]string{}
	src := NewNamer()
	for i := range t.Events {
		e := &t.Events[i]
		if e.Obj == "" || e.Pos == nil {
			continue
		}
		op := e.Op
		if e.Waits != "" {
			op = e.Waits
		}
		e.Expr = src.Expr(*e.Pos, op)
		if e.Expr != "" && src.deferredAt(*e.Pos, op) {
			// go func() { defer wg.Done(); … }(): the defer and the return share the line.
			at := *e.Pos
			e.Defer = &at
		}
		if e.Expr == "" {
			if x, at, ok := src.Deferred(*e.Pos, op, last[use{e.G, e.Obj}]); ok {
				e.Expr, e.Defer = x, &at
			}
		}
		if e.Expr == "" {
			continue
		}
		last[use{e.G, e.Obj}] = e.Expr
		if o := byID[e.Obj]; o != nil && o.Name == "" {
			o.Name = e.Expr
		}
	}
	for i := range t.Verdict.Goroutines {
		if g := &t.Verdict.Goroutines[i]; g.Obj != "" && g.Pos != nil {
			g.Expr = src.Expr(*g.Pos, g.Op)
		}
	}
}

// Label is how a report shows object id: its name when it has one, else the id.
func (t *Trace) Label(id string) string {
	if o := t.object(id); o != nil && o.Name != "" {
		return o.Name
	}
	return id
}

// Describe is how a report names object id in a sentence: its name, else its kind and id
// ("mutex G1.2#1"), which does not read as a goroutine.
func (t *Trace) Describe(id string) string {
	o := t.object(id)
	switch {
	case o == nil:
		return id
	case o.Name != "":
		return o.Name
	}
	return o.Kind + " " + id
}

func (t *Trace) object(id string) *Object {
	for i := range t.Objects {
		if t.Objects[i].ID == id {
			return &t.Objects[i]
		}
	}
	return nil
}

// A Namer finds the expressions by which a program names the objects of its operations, in
// the source files that positions name, each file read and indexed once. A long run makes the
// same operations at the same lines many times over: each answer is kept.
type Namer struct {
	fset   *token.FileSet
	files  map[string]map[int][]ast.Node // by line, the nodes that start there; nil if unreadable
	bodies map[string][]*ast.BlockStmt   // the bodies of the functions of each file
	memo   map[exprKey]string
	defers map[deferKey]deferred
}

type exprKey struct {
	pos Pos
	op  string
}

type deferKey struct {
	exprKey
	prefer string
}

type deferred struct {
	expr string
	at   Pos
}

// NewNamer returns a Namer with no file read yet.
func NewNamer() *Namer {
	return &Namer{fset: token.NewFileSet(), files: map[string]map[int][]ast.Node{}, bodies: map[string][]*ast.BlockStmt{}}
}

// Expr returns the expression of the object of operation op (as rt.OpKind.String names it)
// at p, or "" if the source there shows none.
func (s *Namer) Expr(p Pos, op string) string {
	k := exprKey{p, op}
	if e, ok := s.memo[k]; ok {
		return e
	}
	e := ""
	for _, n := range s.lines(p.File)[p.Line] {
		if x := opExpr(n, op); x != nil {
			e = types.ExprString(x)
			break
		}
	}
	if s.memo == nil {
		s.memo = map[exprKey]string{}
	}
	s.memo[k] = e
	return e
}

// Deferred returns the expression of the object of operation op made by a deferred call, as
// its function returned at p (the closing brace or a return statement), and the position of
// the defer statement. Go reports a deferred call at the line where it runs; the user wrote it
// at the defer. Of several deferred calls of op in the function, it picks the one whose
// object the program named prefer, and reports none if that leaves more than one.
func (s *Namer) Deferred(p Pos, op, prefer string) (expr string, at Pos, ok bool) {
	k := deferKey{exprKey{p, op}, prefer}
	if d, seen := s.defers[k]; seen {
		return d.expr, d.at, d.expr != ""
	}
	var d deferred
	s.lines(p.File)
	var body *ast.BlockStmt // the innermost function body around p
	for _, b := range s.bodies[p.File] {
		if s.fset.Position(b.Lbrace).Line <= p.Line && p.Line <= s.fset.Position(b.Rbrace).Line &&
			(body == nil || b.Pos() > body.Pos()) {
			body = b
		}
	}
	var found []deferred
	if body != nil {
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false // its defers run when it returns, not when body does
			case *ast.DeferStmt:
				if x := opExpr(n.Call, op); x != nil {
					at := s.fset.Position(n.Pos())
					found = append(found, deferred{types.ExprString(x), Pos{File: p.File, Line: at.Line}})
				}
			}
			return true
		})
	}
	if len(found) > 1 {
		found = slices.DeleteFunc(found, func(f deferred) bool { return f.expr != prefer })
	}
	if len(found) == 1 {
		d = found[0]
	}
	if s.defers == nil {
		s.defers = map[deferKey]deferred{}
	}
	s.defers[k] = d
	return d.expr, d.at, d.expr != ""
}

// deferredAt reports whether a defer statement at p's line defers operation op.
func (s *Namer) deferredAt(p Pos, op string) bool {
	for _, n := range s.lines(p.File)[p.Line] {
		if d, ok := n.(*ast.DeferStmt); ok && opExpr(d.Call, op) != nil {
			return true
		}
	}
	return false
}

// lines returns the nodes of file path by the line they start on, outermost first.
func (s *Namer) lines(path string) map[int][]ast.Node {
	idx, seen := s.files[path]
	if seen {
		return idx
	}
	if f, err := parser.ParseFile(s.fset, path, nil, parser.SkipObjectResolution); err == nil {
		idx = map[int][]ast.Node{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case nil:
				return true
			case *ast.FuncDecl:
				if n.Body != nil {
					s.bodies[path] = append(s.bodies[path], n.Body)
				}
			case *ast.FuncLit:
				s.bodies[path] = append(s.bodies[path], n.Body)
			}
			l := s.fset.Position(n.Pos()).Line
			idx[l] = append(idx[l], n)
			return true
		})
	}
	s.files[path] = idx
	return idx
}

// opMethods are the methods whose receiver is the object of an operation.
var opMethods = map[string][]string{
	"lock":      {"Lock"},
	"lock.wait": {"Lock", "Wait"},
	"unlock":    {"Unlock"},
	"rlock":     {"RLock"},
	"runlock":   {"RUnlock"},
	"trylock":   {"TryLock"},
	"tryrlock":  {"TryRLock"},
	"wg.add":    {"Add", "Go"},
	"wg.done":   {"Done"},
	"wg.wait":   {"Wait"},
	"cond.wait": {"Wait"},
	"signal":    {"Signal"},
	"broadcast": {"Broadcast"},
	"once":      {"Do"},
	"once.done": {"Do"},
	"map":       {"Load", "Store", "LoadOrStore", "LoadAndDelete", "Delete", "Swap", "CompareAndSwap", "CompareAndDelete", "Range", "Clear"},
}

// atomicOps are the methods of sync/atomic's types and the prefixes of its functions, by
// operation.
var atomicOps = map[string][]string{
	"atomic.load":  {"Load"},
	"atomic.store": {"Store"},
	"atomic.rmw":   {"Add", "Swap", "CompareAndSwap", "And", "Or"},
}

// opExpr returns the operand of node n that is the object of operation op, or nil.
func opExpr(n ast.Node, op string) ast.Expr {
	switch n := n.(type) {
	case *ast.SendStmt:
		if op == "send" || op == "park" {
			return n.Chan
		}
	case *ast.UnaryExpr:
		if n.Op == token.ARROW && (op == "recv" || op == "park") {
			return n.X
		}
	case *ast.RangeStmt:
		if op == "recv" || op == "park" {
			return n.X
		}
	case *ast.CallExpr:
		switch fn := ast.Unparen(n.Fun).(type) {
		case *ast.Ident:
			if (fn.Name == "close" && op == "close" || fn.Name == "len" && op == "len") && len(n.Args) == 1 {
				return n.Args[0]
			}
		case *ast.SelectorExpr:
			name := fn.Sel.Name
			if slices.Contains(opMethods[op], name) {
				return fn.X
			}
			for _, m := range atomicOps[op] {
				switch {
				case name == m:
					return fn.X // a method of atomic.Int32 and the like
				case strings.HasPrefix(name, m) && len(n.Args) > 0:
					// atomic.AddInt32(&x, 1)
					if u, ok := ast.Unparen(n.Args[0]).(*ast.UnaryExpr); ok && u.Op == token.AND {
						return u.X
					}
					return n.Args[0]
				}
			}
		}
	}
	return nil
}

// Holders returns the events by which goroutines acquired the mutex obj and still held it when
// the run ended: one lock, or the read locks of readers. A deadlock report names them: in a
// lock-order deadlock every goroutine waits on a mutex that another one took under a name of
// its own (to.mu held as from.mu).
func (t *Trace) Holders(obj string) []Event {
	var held []Event
	release := func(op, g string) {
		i := slices.IndexFunc(held, func(e Event) bool { return e.Op == op && (op == "lock" || e.G == g) })
		if i < 0 && op == "rlock" {
			i = slices.IndexFunc(held, func(e Event) bool { return e.Op == op })
		}
		if i >= 0 {
			held = slices.Delete(held, i, i+1)
		}
	}
	for _, e := range t.Events {
		if e.Obj != obj {
			continue
		}
		switch e.Op {
		case "lock", "rlock":
			held = append(held, e)
		case "unlock":
			release("lock", e.G)
		case "runlock":
			release("rlock", e.G)
		}
	}
	return held
}

// goOps says each operation as Go does: the code that makes it, with %s for the expression of
// its object, and the name it has without one (the words of Go's goroutine traces where Go
// has no syntax for it: chan receive, select).
var goOps = map[string]struct{ code, name string }{
	"go":            {"go", "go"},
	"exit":          {"returns", "returns"},
	"panic":         {"panics", "panics"},
	"lock":          {"%s.Lock()", "Lock"},
	"unlock":        {"%s.Unlock()", "Unlock"},
	"rlock":         {"%s.RLock()", "RLock"},
	"runlock":       {"%s.RUnlock()", "RUnlock"},
	"trylock":       {"%s.TryLock()", "TryLock"},
	"tryrlock":      {"%s.TryRLock()", "TryRLock"},
	"lock.wait":     {"%s.Lock() waits for readers", "Lock waits for readers"},
	"wg.add":        {"%s.Add()", "Add"},
	"wg.done":       {"%s.Done()", "Done"},
	"wg.wait":       {"%s.Wait()", "Wait"},
	"cond.wait":     {"%s.Wait()", "Wait"},
	"signal":        {"%s.Signal()", "Signal"},
	"broadcast":     {"%s.Broadcast()", "Broadcast"},
	"once":          {"%s.Do()", "Do"},
	"once.done":     {"%s.Do() returns", "Do returns"},
	"map":           {"%s (sync.Map)", "sync.Map"},
	"atomic.load":   {"atomic load of %s", "atomic load"},
	"atomic.store":  {"atomic store to %s", "atomic store"},
	"atomic.rmw":    {"atomic update of %s", "atomic update"},
	"send":          {"%s <-", "chan send"},
	"recv":          {"<-%s", "chan receive"},
	"close":         {"close(%s)", "close"},
	"len":           {"len(%s)", "len"},
	"select":        {"select", "select"},
	"sleep":         {"time.Sleep", "time.Sleep"},
	"timer":         {"sets a timer", "sets a timer"},
	"clock":         {"time advances", "time advances"},
	"choose":        {"heddle.Choose", "heddle.Choose"},
	"yield":         {"runtime.Gosched", "runtime.Gosched"},
	"synctest.test": {"synctest.Test", "synctest.Test"},
	"synctest.wait": {"synctest.Wait", "synctest.Wait"},
	"lin.call":      {"call", "call"},
	"lin.return":    {"return", "return"},
}

// Call says an operation as a Go programmer would: the code that makes it on the object the
// program named x (from.mu.Lock(), wg.Done(), <-ch, close(ch)), or its name when x is ""
// (Lock, chan receive). A park is the operation it waits in (waits, as Event.Waits) that
// blocks: "<-ch blocks", "blocked in select".
func Call(op, waits, x string) string {
	if op == "park" {
		switch {
		case waits == "":
			return "blocks"
		case x != "" || waits == "select":
			return Call(waits, "", x) + " blocks"
		}
		return "blocked in " + Call(waits, "", "")
	}
	g, ok := goOps[op]
	switch {
	case !ok:
		return strings.TrimSpace(op + " " + x)
	case x == "" || !strings.Contains(g.code, "%s"):
		return g.name
	}
	return strings.Replace(g.code, "%s", x, 1)
}

// Blocked says where a goroutine waits, as Go's goroutine traces do: blocked in
// from.mu.Lock(), blocked in chan receive on s.done, blocked in select. x is the expression
// or name of the object of operation op, or "" when none is known.
func Blocked(op, x string) string {
	if x != "" && (op == "send" || op == "recv") {
		return "blocked in " + Call(op, "", "") + " on " + x
	}
	return "blocked in " + Call(op, "", x)
}
