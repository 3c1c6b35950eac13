package dap

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	godap "github.com/google/go-dap"

	"github.com/heddledbg/heddle/rt"
)

// The instrumenter replaces the synchronization types of sync, sync/atomic and time with
// heddle's stand-ins (rt/sync and the other shadow packages alias them), so Delve renders a
// sync.Mutex as rt.Mutex {state: 1, sema: 3}. The translator gives values their user's types
// back: the type names, a summary in their place (sync.Mutex {locked}), and, when one is
// expanded, heddle's state as a readable child (state: "locked by G1.1 at bank.go:13")
// instead of heddle's fields. A summary is read from the stand-in's fields as Delve gives
// them, its children by name and type; the rendering of the value that holds it has the
// stand-in's own rendering replaced by the summary.

// A standIn is one of heddle's runtime types, which stands in for a type of the user's.
type standIn struct {
	user string // the user's type: sync.Mutex
	// wrapped names the field that holds the real value in the types that only wrap one: the
	// user sees that value.
	wrapped string
	// fields are the fields that summary reads, with their types as Delve and reflect name
	// them. A field that is missing or of another type reads as absent, and the summary says
	// "…"; TestStandInShapes checks the list against rt's types.
	fields map[string]string
	// summary is what a value shows in place of its fields: its state as the user thinks of
	// it. lock, when not nil, names who locked the lock numbered obj.
	summary func(f fields, lock func(obj int) string) string
}

// The fields a run under the debugger keeps up to date are Go's sync words (rt/mirror.go),
// which outside any run are the standard type's own.
var (
	lockWords   = map[string]string{"state": "int32", "sema": "uint32"}
	rwLockWords = map[string]string{"state": "int32", "sema": "uint32", "readerCount": "int32"}
	timerFields = map[string]string{"C": "<-chan time.Time"}
)

// standIns are heddle's runtime types, by name in package rt.
var standIns = map[string]standIn{
	"Mutex":     {user: "sync.Mutex", fields: lockWords, summary: mutexSummary},
	"RWMutex":   {user: "sync.RWMutex", fields: rwLockWords, summary: rwMutexSummary},
	"WaitGroup": {user: "sync.WaitGroup", fields: map[string]string{"state": "uint64"}, summary: waitGroupSummary},
	"Once":      {user: "sync.Once", fields: map[string]string{"done": "uint32", "state": "int32"}, summary: onceSummary},
	"Cond":      {user: "sync.Cond", fields: map[string]string{"L": "sync.Locker"}, summary: condSummary},
	"Timer":     {user: "time.Timer", fields: timerFields, summary: timerSummary},
	"Ticker":    {user: "time.Ticker", fields: timerFields, summary: timerSummary},
	"Map":       {user: "sync.Map", wrapped: "m"},
	"Bool":      {user: "sync/atomic.Bool", wrapped: "v"},
	"Int32":     {user: "sync/atomic.Int32", wrapped: "v"},
	"Int64":     {user: "sync/atomic.Int64", wrapped: "v"},
	"Uint32":    {user: "sync/atomic.Uint32", wrapped: "v"},
	"Uint64":    {user: "sync/atomic.Uint64", wrapped: "v"},
	"Uintptr":   {user: "sync/atomic.Uintptr", wrapped: "v"},
	"Value":     {user: "sync/atomic.Value", wrapped: "v"},
	"Pointer":   {user: "sync/atomic.Pointer", wrapped: "v"},
}

// rtPath is the import path of heddle's runtime, as Delve's full type names spell it.
const rtPath = "github.com/heddledbg/heddle/rt"

// standInType returns the stand-in that Delve's type name t is, with a generic type's
// arguments, or reports that it is none.
func standInType(t string) (name, args string, ok bool) {
	rest, ok := strings.CutPrefix(t, rtPath+".")
	if !ok {
		if rest, ok = strings.CutPrefix(t, "rt."); !ok {
			return "", "", false
		}
	}
	name = rest
	if i := strings.IndexByte(rest, '['); i >= 0 {
		name, args = rest[:i], rest[i:]
	}
	_, ok = standIns[name]
	return name, args, ok
}

// rtType matches a stand-in's name in Delve's renderings and type names, short (rt.Mutex) or
// with its package path, with a generic type's arguments.
var rtType = regexp.MustCompile(`(?:` + regexp.QuoteMeta(strings.TrimSuffix(rtPath, "rt")) + `)?\brt\.(` +
	strings.Join(slices.Sorted(maps.Keys(standIns)), "|") + `)\b(\[[^\]]*\])?`)

// userType returns s with the stand-ins' type names replaced by the user's. Another package's
// rt (example.com/rt.Mutex) is left alone.
func userType(s string) string {
	var b strings.Builder
	rest := s
	for {
		loc := rtType.FindStringSubmatchIndex(rest)
		if loc == nil {
			b.WriteString(rest)
			return b.String()
		}
		start, end := loc[0], loc[1]
		b.WriteString(rest[:start])
		if start > 0 && !strings.HasPrefix(rest[start:], "github.com/") && strings.ContainsRune("/.", rune(rest[start-1])) {
			b.WriteString(rest[start:end])
		} else {
			b.WriteString(standIns[rest[loc[2]:loc[3]]].user)
			if loc[4] >= 0 {
				b.WriteString(rest[loc[4]:loc[5]])
			}
		}
		rest = rest[end:]
	}
}

// fields are a stand-in's fields as Delve gives them, its children by name, with the types
// its summary reads them as.
type fields struct {
	vars  map[string]variable
	types map[string]string
}

func fieldsOf(si standIn, children []variable) fields {
	f := fields{vars: map[string]variable{}, types: si.fields}
	for _, c := range children {
		f.vars[c.str("name")] = c
	}
	return f
}

// field returns the field name, or reports that it is absent or not of the type the summary
// reads.
func (f fields) field(name string) (variable, bool) {
	v, ok := f.vars[name]
	if !ok || f.types[name] == "" || v.str("type") != f.types[name] {
		return nil, false
	}
	return v, true
}

// word reads the integer field name as its bits. Delve writes an unsigned integer with its
// hexadecimal form (3 = 0x3).
func (f fields) word(name string) (uint64, bool) {
	v, ok := f.field(name)
	if !ok {
		return 0, false
	}
	s, _, _ := strings.Cut(v.str("value"), " ")
	if strings.HasPrefix(f.types[name], "uint") {
		n, err := strconv.ParseUint(s, 10, 64)
		return n, err == nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return uint64(n), err == nil
}

// value returns Delve's rendering of the field name.
func (f fields) value(name string) (string, bool) {
	v, ok := f.field(name)
	if !ok {
		return "", false
	}
	return v.str("value"), true
}

// held reads a lock's state word (Go's mutexLocked bit) and semaphore word (the lock's
// number, while a run holds it): "" if it is free, locked [by who] if not.
func held(f fields, lock func(obj int) string) (string, bool) {
	state, ok := f.word("state")
	if !ok {
		return "", false
	}
	if state&1 == 0 {
		return "", true
	}
	by := ""
	if sema, ok := f.word("sema"); ok && lock != nil {
		if id := rt.ObjOfLock(uint32(sema)); id != rt.NoObj {
			if who := lock(int(id)); who != "" {
				by = " by " + who
			}
		}
	}
	return "locked" + by, true
}

func mutexSummary(f fields, lock func(obj int) string) string {
	s, ok := held(f, lock)
	switch {
	case !ok:
		return "…"
	case s == "":
		return "unlocked"
	}
	return s
}

func rwMutexSummary(f fields, lock func(obj int) string) string {
	s, ok := held(f, lock)
	switch {
	case !ok:
		return "…"
	case s != "":
		return s
	}
	// Go counts the readers less 1<<30 while a writer waits for them to leave.
	if w, ok := f.word("readerCount"); ok {
		n := int64(int32(w))
		if n < 0 {
			n += 1 << 30
		}
		if n > 0 {
			return fmt.Sprintf("read-locked by %d goroutine%s", n, plural(int(n)))
		}
	}
	return "unlocked"
}

func waitGroupSummary(f fields, _ func(int) string) string {
	if w, ok := f.word("state"); ok {
		return fmt.Sprintf("counter %d", w>>32)
	}
	return "…"
}

func onceSummary(f fields, _ func(int) string) string {
	done, ok := f.word("done")
	state, _ := f.word("state")
	switch {
	case !ok:
		return "…"
	case done != 0:
		return "done"
	case state&1 != 0:
		return "running"
	}
	return "not done"
}

func condSummary(f fields, _ func(int) string) string {
	if l, ok := f.value("L"); ok {
		return "L: " + l
	}
	return "…"
}

func timerSummary(f fields, _ func(int) string) string {
	// Timer and Ticker have the same fields.
	if c, ok := f.value("C"); ok {
		return "C: " + c
	}
	return "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// A viewer shows Delve's variables in the user's types.
type viewer struct {
	// children returns the children of Delve's variable ref, nil if it has none or Delve does
	// not answer.
	children func(ref int) []variable
	// lock, when not nil, names who locked the lock numbered obj.
	lock func(obj int) string
}

// maxDepth is how deep the viewer looks under a value for stand-ins that its rendering shows:
// Delve renders a pointer's target and the fields of nested structs a few levels deep.
const maxDepth = 4

// show returns the user's rendering of v, which Delve rendered as value, and the name of the
// stand-in that v is, if it is one.
func (w viewer) show(v variable, value string) (string, string) {
	if name, args, ok := standInType(v.str("type")); ok {
		if s, ok := w.standIn(name, args, v.ref()); ok {
			return s, name
		}
		return userType(value), name
	}
	if !rtType.MatchString(value) {
		return value, ""
	}
	shown := map[string]string{}
	w.nested(v.ref(), value, maxDepth, shown)
	if len(shown) == 0 {
		return userType(value), ""
	}
	// The longest first, so that a stand-in's rendering is replaced whole, not a part of it
	// that is another's.
	pairs := make([]string, 0, 2*len(shown))
	for _, k := range slices.SortedFunc(maps.Keys(shown), func(a, b string) int {
		return cmp.Or(len(b)-len(a), strings.Compare(a, b))
	}) {
		pairs = append(pairs, k, shown[k])
	}
	return userType(strings.NewReplacer(pairs...).Replace(value)), ""
}

// nested adds to shown, for each stand-in under Delve's variable ref whose rendering appears
// in top, that rendering and the user's.
func (w viewer) nested(ref int, top string, depth int, shown map[string]string) {
	if ref <= 0 || depth == 0 {
		return
	}
	for _, c := range w.children(ref) {
		value := c.str("value")
		if !rtType.MatchString(value) {
			continue
		}
		name, args, ok := standInType(c.str("type"))
		if !ok {
			w.nested(c.ref(), top, depth-1, shown)
			continue
		}
		if _, done := shown[value]; done || !strings.Contains(top, value) {
			continue
		}
		if s, ok := w.standIn(name, args, c.ref()); ok {
			shown[value] = s
		}
	}
}

// standIn returns the user's rendering of a value of stand-in name[args], whose fields are
// the children of Delve's variable ref, or reports that it has none to read.
func (w viewer) standIn(name, args string, ref int) (string, bool) {
	if ref <= 0 {
		return "", false
	}
	si := standIns[name]
	f := fieldsOf(si, w.children(ref))
	if si.wrapped != "" {
		// The inner value is the real type's own rendering.
		inner, ok := f.vars[si.wrapped]
		if !ok || inner.str("value") == "" {
			return "", false
		}
		return inner.str("value"), true
	}
	// A summary may show a field's rendering (a Cond's L), which Delve wrote in heddle's types.
	return userType(si.user + args + " {" + si.summary(f, w.lock) + "}"), true
}

// userChildren returns the user's view of the children of a value of stand-in name, whose
// fields Delve gave as vars: heddle's state as a readable child, or the children of the value
// it wraps.
func (w viewer) userChildren(name string, vars []variable) []variable {
	si := standIns[name]
	f := fieldsOf(si, vars)
	if si.wrapped != "" {
		inner, ok := f.vars[si.wrapped]
		if !ok || inner.ref() == 0 {
			return vars
		}
		if ch := w.children(inner.ref()); ch != nil {
			return ch
		}
		return vars
	}
	state := variable{"name": body("state"), "value": body(si.summary(f, w.lock)), "variablesReference": body(0)}
	switch name {
	case "Cond":
		// L is the user's own field.
		if l, ok := f.vars["L"]; ok {
			return []variable{l, state}
		}
	case "Timer", "Ticker":
		if c, ok := f.vars["C"]; ok {
			return []variable{c}
		}
		return vars
	}
	return []variable{state}
}

// values remembers, for the stop the client looks at, which of Delve's variable references
// are values of heddle's runtime types, so that expanding one shows the user's view.
type values struct {
	mu    sync.Mutex
	kinds map[int]string
}

// reset forgets the references: Delve numbers them afresh at every stop.
func (v *values) reset() {
	v.mu.Lock()
	v.kinds = nil
	v.mu.Unlock()
}

func (v *values) remember(ref int, kind string) {
	if ref <= 0 || kind == "" {
		return
	}
	v.mu.Lock()
	if v.kinds == nil {
		v.kinds = map[int]string{}
	}
	v.kinds[ref] = kind
	v.mu.Unlock()
}

func (v *values) kind(ref int) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.kinds[ref]
}

// lockHolder names the goroutine that locked lock obj and where: G1.1 at bank.go:13.
func (s *Session) lockHolder(obj int) string {
	cp := s.dbg.Locked(obj)
	if cp == nil {
		return ""
	}
	if cp.Position == nil {
		return cp.Goroutine
	}
	return fmt.Sprintf("%s at %s:%d", cp.Goroutine, filepath.Base(cp.Position.File), cp.Position.Line)
}

// variable is one of Delve's variables, with the fields heddle rewrites; the others pass
// through.
type variable map[string]json.RawMessage

func (v variable) str(k string) string {
	var s string
	json.Unmarshal(v[k], &s)
	return s
}

func (v variable) ref() int {
	var n int
	json.Unmarshal(v["variablesReference"], &n)
	return n
}

// clientTypes reports whether the client takes the types of variables.
func (s *Session) clientTypes() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initArgs != nil && s.initArgs.SupportsVariableType
}

// viewer returns the viewer of the values of d's debuggee.
func (s *Session) viewer(d *delve) viewer {
	return viewer{children: d.variables, lock: s.lockHolder}
}

// rewrite shows the variable in the user's types, and remembers its reference if it is one
// of heddle's values.
func (s *Session) rewrite(w viewer, v variable, valueKey string) {
	value, kind := w.show(v, v.str(valueKey))
	if _, ok := v[valueKey]; ok {
		v[valueKey] = body(value)
	}
	if t := v.str("type"); t != "" {
		v["type"] = body(userType(t))
	}
	if !s.clientTypes() {
		delete(v, "type")
	}
	s.values.remember(v.ref(), kind)
}

// userValues rewrites a response of Delve's to a request for values (variables, evaluate,
// setVariable) in the user's types. The children of one of heddle's values are replaced by
// the user's view.
func (s *Session) userValues(d *delve, req, resp *message) {
	if !resp.Success || len(resp.Body) == 0 {
		return
	}
	w := s.viewer(d)
	switch req.Command {
	case "evaluate":
		var b variable
		if json.Unmarshal(resp.Body, &b) == nil {
			s.rewrite(w, b, "result")
			resp.Body = body(b)
		}
	case "setVariable":
		var b variable
		if json.Unmarshal(resp.Body, &b) == nil {
			s.rewrite(w, b, "value")
			resp.Body = body(b)
		}
	case "variables":
		var a godap.VariablesArguments
		json.Unmarshal(req.Arguments, &a)
		var b struct {
			Variables []variable `json:"variables"`
		}
		if json.Unmarshal(resp.Body, &b) != nil {
			return
		}
		if kind := s.values.kind(a.VariablesReference); kind != "" {
			b.Variables = w.userChildren(kind, b.Variables)
		}
		for _, v := range b.Variables {
			s.rewrite(w, v, "value")
		}
		resp.Body = body(b)
	}
}

// variables returns the children of Delve's variable ref, or nil if Delve gives none.
func (d *delve) variables(ref int) []variable {
	ch, err := d.send("variables", body(godap.VariablesArguments{VariablesReference: ref}))
	if err != nil {
		return nil
	}
	resp, ok := <-ch
	var b struct {
		Variables []variable `json:"variables"`
	}
	if !ok || !resp.Success || json.Unmarshal(resp.Body, &b) != nil {
		return nil
	}
	return b.Variables
}
