package timeline

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
	src := NewNamer()
	for i := range t.Events {
		e := &t.Events[i]
		if e.Obj == "" || e.Pos == nil {
			continue
		}
		e.Expr = src.Expr(*e.Pos, e.Op)
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
	fset  *token.FileSet
	files map[string]map[int][]ast.Node // by line, the nodes that start there; nil if unreadable
	memo  map[exprKey]string
}

type exprKey struct {
	pos Pos
	op  string
}

// NewNamer returns a Namer with no file read yet.
func NewNamer() *Namer {
	return &Namer{fset: token.NewFileSet(), files: map[string]map[int][]ast.Node{}}
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

// lines returns the nodes of file path by the line they start on, outermost first.
func (s *Namer) lines(path string) map[int][]ast.Node {
	idx, seen := s.files[path]
	if seen {
		return idx
	}
	if f, err := parser.ParseFile(s.fset, path, nil, parser.SkipObjectResolution); err == nil {
		idx = map[int][]ast.Node{}
		ast.Inspect(f, func(n ast.Node) bool {
			if n != nil {
				l := s.fset.Position(n.Pos()).Line
				idx[l] = append(idx[l], n)
			}
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
	"wg.add":    {"Add", "Done", "Go"},
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
