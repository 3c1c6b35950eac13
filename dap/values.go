package dap

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/heddledbg/heddle/rt"
)

// The instrumenter replaces the synchronization types of sync, sync/atomic and time with
// heddle's (rt/sync and the other shadow packages alias them), so Delve renders a
// sync.Mutex as rt.Mutex {state: 1, sema: 3}. The translator gives
// values their user's types back: the type names, a summary in their place
// (sync.Mutex {locked}), and, when one is expanded, heddle's state as a readable child
// (state: "locked by G1.1 at bank.go:13") instead of heddle's fields.

// userTypes maps heddle's runtime types to the types the user wrote.
var userTypes = map[string]string{
	"Mutex": "sync.Mutex", "RWMutex": "sync.RWMutex", "WaitGroup": "sync.WaitGroup",
	"Once": "sync.Once", "Cond": "sync.Cond", "Map": "sync.Map",
	"Timer": "time.Timer", "Ticker": "time.Ticker",
	"Bool": "sync/atomic.Bool", "Int32": "sync/atomic.Int32", "Int64": "sync/atomic.Int64",
	"Uint32": "sync/atomic.Uint32", "Uint64": "sync/atomic.Uint64", "Uintptr": "sync/atomic.Uintptr",
	"Value": "sync/atomic.Value", "Pointer": "sync/atomic.Pointer",
}

// wrapped names the field that holds the real value in the types that only wrap one: the
// user sees that value.
var wrapped = map[string]string{
	"Map": "m", "Bool": "v", "Int32": "v", "Int64": "v", "Uint32": "v", "Uint64": "v",
	"Uintptr": "v", "Value": "v", "Pointer": "v",
}

// rtType matches a name of one of heddle's runtime types, short (rt.Mutex) or with its
// package path, with a generic type's arguments.
var rtType = regexp.MustCompile(`(?:github\.com/heddledbg/heddle/)?\brt\.(Mutex|RWMutex|WaitGroup|Once|Cond|Map|Timer|Ticker|Bool|Int32|Int64|Uint32|Uint64|Uintptr|Value|Pointer)\b(\[[^\]]*\])?`)

// userType returns s with heddle's runtime type names replaced by the user's.
func userType(s string) string {
	out, _ := rewriteValue(s, nil)
	return out
}

// rewriteValue returns a rendering of Delve's with heddle's runtime values shown as the
// user's types, and the kind of the value (Mutex…) when the whole value is one of them.
func rewriteValue(v string, lock func(obj int) string) (string, string) {
	var b strings.Builder
	kind := ""
	rest := v
	for {
		loc := rtType.FindStringSubmatchIndex(rest)
		if loc == nil {
			b.WriteString(rest)
			return b.String(), kind
		}
		start, end := loc[0], loc[1]
		if start > 0 && !strings.HasPrefix(rest[start:], "github.com/") && strings.ContainsRune("/.", rune(rest[start-1])) {
			// Another package's rt.
			b.WriteString(rest[:end])
			rest = rest[end:]
			continue
		}
		name := rest[loc[2]:loc[3]]
		args := ""
		if loc[4] >= 0 {
			args = rest[loc[4]:loc[5]]
		}
		if start == 0 && b.Len() == 0 {
			kind = name
		}
		b.WriteString(rest[:start])
		rest = rest[end:]
		user := userTypes[name] + args
		brace := -1
		if strings.HasPrefix(rest, " {") {
			brace = matching(rest, 1)
		}
		if brace < 0 {
			// A type name alone: (*rt.Mutex)(0xc000012345), []rt.Mutex len: 2….
			b.WriteString(user)
			continue
		}
		fields := splitFields(rest[2:brace])
		rest = rest[brace+1:]
		if f, ok := wrapped[name]; ok {
			if inner, ok := fields[f]; ok && inner != "" {
				// The inner value is the real type's own rendering.
				b.WriteString(inner)
				continue
			}
		}
		b.WriteString(user + " {" + summary(name, fields, lock) + "}")
	}
}

// matching returns the index of the brace that closes the one at s[open], or -1. Braces in
// quoted strings do not count.
func matching(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitFields splits a struct's rendering (a: 1, b: {…}, c: "x") into its fields.
func splitFields(s string) map[string]string {
	fields := map[string]string{}
	depth, from := 0, 0
	add := func(f string) {
		if k, v, ok := strings.Cut(strings.TrimSpace(f), ": "); ok {
			fields[k] = v
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
		case ',':
			if depth == 0 {
				add(s[from:i])
				from = i + 1
			}
		}
	}
	add(s[from:])
	return fields
}

// word reads an integer field of a rendering, or reports that it is absent. A variable of
// its own may add the hexadecimal form (3 = 0x3).
func word(f map[string]string, name string) (int64, bool) {
	v, _, _ := strings.Cut(f[name], " ")
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// summary is what a value of heddle's type name shows in place of its fields: its state as
// the user thinks of it. The fields are Go's sync words, which a run under the debugger keeps
// up to date (rt/mirror.go), and which outside any run are the standard type's own. lock, when
// not nil, names who locked the lock numbered obj.
func summary(name string, f map[string]string, lock func(obj int) string) string {
	// held reads a lock's state word (Go's mutexLocked bit) and semaphore word (the lock's
	// number, while a run holds it).
	held := func() (string, bool) {
		state, ok := word(f, "state")
		if !ok {
			return "", false
		}
		if state&1 == 0 {
			return "", true
		}
		by := ""
		if sema, ok := word(f, "sema"); ok && lock != nil {
			if id := rt.ObjOfLock(uint32(sema)); id != rt.NoObj {
				if who := lock(int(id)); who != "" {
					by = " by " + who
				}
			}
		}
		return "locked" + by, true
	}
	switch name {
	case "Mutex":
		if s, ok := held(); ok {
			if s == "" {
				return "unlocked"
			}
			return s
		}
	case "RWMutex":
		s, ok := held()
		if !ok {
			break
		}
		if s != "" {
			return s
		}
		// Go counts the readers less 1<<30 while a writer waits for them to leave.
		if n, ok := word(f, "readerCount"); ok {
			if n < 0 {
				n += 1 << 30
			}
			if n > 0 {
				return fmt.Sprintf("read-locked by %d goroutine%s", n, plural(int(n)))
			}
		}
		return "unlocked"
	case "WaitGroup":
		v, _, _ := strings.Cut(f["state"], " ")
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			return fmt.Sprintf("counter %d", n>>32)
		}
	case "Once":
		done, ok := word(f, "done")
		state, _ := word(f, "state")
		switch {
		case !ok:
		case done != 0:
			return "done"
		case state&1 != 0:
			return "running"
		default:
			return "not done"
		}
	case "Cond":
		s := "L: " + f["L"]
		if n := sliceLen(f["waiters"]); n >= 0 {
			s += fmt.Sprintf(", %d waiting", n)
		}
		return s
	case "Timer", "Ticker":
		if c, ok := f["C"]; ok {
			return "C: " + c
		}
	}
	return "…"
}

// sliceLen reads the length from a slice's rendering ([]*rt.goroutine len: 2, cap: 2, […]),
// or -1.
func sliceLen(s string) int {
	_, after, ok := strings.Cut(s, "len: ")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(after, ",", 2)[0]))
	if err != nil {
		return -1
	}
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
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

// rewrite shows the variable in the user's types, and remembers its reference if it is one
// of heddle's values.
func (s *Session) rewrite(v variable, valueKey string) {
	value, kind := rewriteValue(v.str(valueKey), s.lockHolder)
	if _, ok := v[valueKey]; ok {
		v[valueKey] = body(value)
	}
	if t := v.str("type"); t != "" {
		if kind == "" {
			_, kind = rewriteValue(t+" {}", nil)
		}
		v["type"] = body(userType(t))
	}
	s.values.remember(v.ref(), kind)
}

// userValues rewrites a response of Delve's to a request for values (variables, evaluate,
// setVariable) in the user's types. The children of one of heddle's values are replaced by
// the user's view: heddle's state as a readable child, or the children of the value it wraps.
func (s *Session) userValues(d *delve, req, resp *message) {
	if !resp.Success || len(resp.Body) == 0 {
		return
	}
	switch req.Command {
	case "evaluate":
		var b variable
		if json.Unmarshal(resp.Body, &b) == nil {
			s.rewrite(b, "result")
			resp.Body = body(b)
		}
	case "setVariable":
		var b variable
		if json.Unmarshal(resp.Body, &b) == nil {
			s.rewrite(b, "value")
			resp.Body = body(b)
		}
	case "variables":
		var a struct {
			Ref int `json:"variablesReference"`
		}
		json.Unmarshal(req.Arguments, &a)
		var b struct {
			Variables []variable `json:"variables"`
		}
		if json.Unmarshal(resp.Body, &b) != nil {
			return
		}
		if kind := s.values.kind(a.Ref); kind != "" {
			b.Variables = s.children(d, kind, b.Variables)
		}
		for _, v := range b.Variables {
			s.rewrite(v, "value")
		}
		resp.Body = body(b)
	}
}

// children returns the user's view of the children of a value of heddle's type kind, whose
// fields Delve gave as vars.
func (s *Session) children(d *delve, kind string, vars []variable) []variable {
	field := map[string]variable{}
	for _, v := range vars {
		field[v.str("name")] = v
	}
	if f, ok := wrapped[kind]; ok {
		// The wrapped value's own children.
		inner, ok := field[f]
		if !ok || inner.ref() == 0 {
			return vars
		}
		ch, err := d.send("variables", body(map[string]int{"variablesReference": inner.ref()}))
		if err != nil {
			return vars
		}
		resp, ok := <-ch
		var b struct {
			Variables []variable `json:"variables"`
		}
		if !ok || !resp.Success || json.Unmarshal(resp.Body, &b) != nil {
			return vars
		}
		return b.Variables
	}
	values := map[string]string{}
	for k, v := range field {
		values[k] = v.str("value")
	}
	state := variable{"name": body("state"), "value": body(summary(kind, values, s.lockHolder)), "variablesReference": body(0)}
	switch kind {
	case "Cond":
		// L is the user's own field.
		if l, ok := field["L"]; ok {
			return []variable{l, state}
		}
	case "Timer", "Ticker":
		if c, ok := field["C"]; ok {
			return []variable{c}
		}
		return vars
	}
	return []variable{state}
}
