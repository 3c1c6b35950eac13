package dap

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/heddledbg/heddle/rt"
)

// A node is a variable as Delve gives it, with its children.
type node struct {
	name, typ, value string
	kids             []node
}

// Shorthands for the stand-ins' fields as Delve gives them: signed and unsigned words.
func i32(name string, v int64) node { return node{name, "int32", fmt.Sprint(v), nil} }
func u32(name string, v uint64) node {
	return node{name, "uint32", fmt.Sprintf("%d = %#x", v, v), nil}
}

// variables numbers the nodes' references as Delve would, and returns each node's variable
// and the children of each reference.
func variables(n node, children map[int][]variable) variable {
	v := variable{"name": body(n.name), "type": body(n.typ), "value": body(n.value), "variablesReference": body(0)}
	if len(n.kids) > 0 {
		ref := len(children) + 1
		children[ref] = nil
		for _, k := range n.kids {
			children[ref] = append(children[ref], variables(k, children))
		}
		v["variablesReference"] = body(ref)
	}
	return v
}

const rtMutex = rtPath + ".Mutex"

// TestShow shows Delve's variables, as it sends them for testdata/bank and for the other
// stand-ins, in the user's types.
func TestShow(t *testing.T) {
	holder := func(obj int) string {
		if obj == 2 {
			return "G1.1 at bank.go:13"
		}
		return ""
	}
	unlocked := node{"mu", rtMutex, "rt.Mutex {state: 0, sema: 0}", []node{i32("state", 0), u32("sema", 0)}}
	tests := []struct {
		in         node
		want, kind string
	}{
		{node{"mu", rtMutex, "rt.Mutex {state: 1, sema: 3}", []node{i32("state", 1), u32("sema", 3)}},
			"sync.Mutex {locked by G1.1 at bank.go:13}", "Mutex"},
		{node{"mu", rtMutex, "rt.Mutex {state: 1, sema: 0}", []node{i32("state", 1), u32("sema", 0)}},
			"sync.Mutex {locked}", "Mutex"},
		{node{"mu", rtMutex, "rt.Mutex {state: 9, sema: 0}", []node{i32("state", 9), u32("sema", 0)}},
			"sync.Mutex {locked}", "Mutex"},
		// A stand-in that changed shape shows no state rather than a wrong one.
		{node{"mu", rtMutex, "rt.Mutex {state: 1, sema: 0}", []node{{"state", "int64", "1", nil}, u32("sema", 0)}},
			"sync.Mutex {…}", "Mutex"},
		{node{"mu", rtMutex, "rt.Mutex {locked: 1}", []node{{"locked", "int32", "1", nil}}},
			"sync.Mutex {…}", "Mutex"},
		// A pointer's target, and the fields of the struct there.
		{node{"from", "*example.com/bank.Account", "*example.com/bank.Account {mu: rt.Mutex {state: 0, sema: 0}, balance: 100}", []node{
			{"", "example.com/bank.Account", "example.com/bank.Account {mu: rt.Mutex {state: 0, sema: 0}, balance: 100}", []node{
				unlocked, {"balance", "int", "100", nil}}}}},
			"*example.com/bank.Account {mu: sync.Mutex {unlocked}, balance: 100}", ""},
		{node{"from", "*example.com/bank.Account", "*example.com/bank.Account {mu: rt.Mutex {…}, balance: 100}", nil},
			"*example.com/bank.Account {mu: sync.Mutex {…}, balance: 100}", ""},
		{node{"p", "*" + rtMutex, "(*rt.Mutex)(0xc000012345)", nil}, "(*sync.Mutex)(0xc000012345)", ""},
		{node{"wg", rtPath + ".WaitGroup", "rt.WaitGroup {_: [0]sync/atomic.Uint64 [], state: 8589934592, sema: 0}", []node{
			{"_", "[0]sync/atomic.Uint64", "[0]sync/atomic.Uint64 []", nil},
			{"state", "uint64", "8589934592 = 0x200000000", nil}, u32("sema", 0)}},
			"sync.WaitGroup {counter 2}", "WaitGroup"},
		{node{"rw", rtPath + ".RWMutex", "rt.RWMutex {…}", []node{i32("state", 0), u32("sema", 0), i32("readerCount", 2)}},
			"sync.RWMutex {read-locked by 2 goroutines}", "RWMutex"},
		{node{"rw", rtPath + ".RWMutex", "rt.RWMutex {…}", []node{i32("state", 1), u32("sema", 4), i32("readerCount", -1073741823)}},
			"sync.RWMutex {locked}", "RWMutex"},
		{node{"rw", rtPath + ".RWMutex", "rt.RWMutex {…}", []node{i32("state", 0), u32("sema", 0), i32("readerCount", -1073741823)}},
			"sync.RWMutex {read-locked by 1 goroutine}", "RWMutex"},
		{node{"rw", rtPath + ".RWMutex", "rt.RWMutex {…}", []node{i32("state", 0), u32("sema", 0), i32("readerCount", 0)}},
			"sync.RWMutex {unlocked}", "RWMutex"},
		{node{"o", rtPath + ".Once", "rt.Once {…}", []node{u32("done", 0), i32("state", 0)}}, "sync.Once {not done}", "Once"},
		{node{"o", rtPath + ".Once", "rt.Once {…}", []node{u32("done", 0), i32("state", 1)}}, "sync.Once {running}", "Once"},
		{node{"o", rtPath + ".Once", "rt.Once {…}", []node{u32("done", 1), i32("state", 0)}}, "sync.Once {done}", "Once"},
		{node{"c", rtPath + ".Cond", "rt.Cond {…}", []node{{"L", "sync.Locker", "sync.Locker(*rt.Mutex) 0xc000012345", nil}}},
			"sync.Cond {L: sync.Locker(*sync.Mutex) 0xc000012345}", "Cond"},
		{node{"t", rtPath + ".Timer", "rt.Timer {…}", []node{{"C", "<-chan time.Time", "<-chan time.Time {}", nil}}},
			"time.Timer {C: <-chan time.Time {}}", "Timer"},
		{node{"n", rtPath + ".Int32", "rt.Int32 {v: sync/atomic.Int32 {_: sync/atomic.noCopy {}, v: 5}}", []node{
			{"v", "sync/atomic.Int32", "sync/atomic.Int32 {_: sync/atomic.noCopy {}, v: 5}", []node{{"v", "int32", "5", nil}}}}},
			"sync/atomic.Int32 {_: sync/atomic.noCopy {}, v: 5}", "Int32"},
		{node{"p", rtPath + ".Pointer[int]", "rt.Pointer[int] {v: sync/atomic.Pointer[int] {v: unsafe.Pointer(0x0)}}", []node{
			{"v", "sync/atomic.Pointer[int]", "sync/atomic.Pointer[int] {v: unsafe.Pointer(0x0)}", []node{{"v", "unsafe.Pointer", "unsafe.Pointer(0x0)", nil}}}}},
			"sync/atomic.Pointer[int] {v: unsafe.Pointer(0x0)}", "Pointer"},
		// Delve renders a slice's elements without their type: they keep their fields.
		{node{"ms", "[]" + rtMutex, "[]rt.Mutex len: 1, cap: 1, [{state: 0, sema: 0}]", []node{
			{"[0]", rtMutex, "rt.Mutex {state: 0, sema: 0}", []node{i32("state", 0), u32("sema", 0)}}}},
			"[]sync.Mutex len: 1, cap: 1, [{state: 0, sema: 0}]", ""},
		{node{"x", "example.com/rt.Mutex", "example.com/rt.Mutex {x: 1}", []node{{"x", "int", "1", nil}}},
			"example.com/rt.Mutex {x: 1}", ""},
	}
	for _, tt := range tests {
		children := map[int][]variable{}
		v := variables(tt.in, children)
		w := viewer{children: func(ref int) []variable { return children[ref] }, lock: holder}
		got, kind := w.show(v, tt.in.value)
		if got != tt.want || kind != tt.kind {
			t.Errorf("show(%s)\n = %s, %q\nwant %s, %q", tt.in.value, got, kind, tt.want, tt.kind)
		}
	}
}

// TestUserType names the stand-ins' types as the user's, in Delve's full and short type names.
func TestUserType(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"*github.com/heddledbg/heddle/rt.WaitGroup", "*sync.WaitGroup"},
		{"[]github.com/heddledbg/heddle/rt.Pointer[int]", "[]sync/atomic.Pointer[int]"},
		{"map[string]rt.Mutex", "map[string]sync.Mutex"},
		{"struct { mu rt.RWMutex; t *rt.Timer }", "struct { mu sync.RWMutex; t *time.Timer }"},
		{"example.com/rt.Mutex", "example.com/rt.Mutex"},
		{"rt.Goroutine", "rt.Goroutine"},
	} {
		if got := userType(tt.in); got != tt.want {
			t.Errorf("userType(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// clientVariable is a variable as the client sees it.
type clientVariable struct {
	Name               string `json:"name"`
	Value              string `json:"value"`
	Type               string `json:"type"`
	VariablesReference int    `json:"variablesReference"`
}

func (c *client) variables(ref int) map[string]clientVariable {
	c.t.Helper()
	var b struct {
		Variables []clientVariable `json:"variables"`
	}
	c.decode(c.response(c.send(&godap.VariablesRequest{Request: godap.Request{Command: "variables"},
		Arguments: godap.VariablesArguments{VariablesReference: ref}}), 30*time.Second).Body, &b)
	vars := map[string]clientVariable{}
	for _, v := range b.Variables {
		vars[v.Name] = v
	}
	return vars
}

// TestVariablesUserTypes looks at the accounts' mutexes in Transfer, both locked: they are
// sync.Mutex values, as the user declared them, that say who holds them, in the account's
// value, as values of their own, and in a readable child.
func TestVariablesUserTypes(t *testing.T) {
	c, _ := launchBank(t, 17, nil)
	st := c.stopped(time.Minute)
	me := c.threadName(st.ThreadID)
	fs := c.stack(st.ThreadID)
	var scopes struct {
		Scopes []struct {
			VariablesReference int `json:"variablesReference"`
		} `json:"scopes"`
	}
	c.decode(c.response(c.send(&godap.ScopesRequest{Request: godap.Request{Command: "scopes"}, Arguments: godap.ScopesArguments{FrameId: fs[0].ID}}), 30*time.Second).Body, &scopes)
	locals := c.variables(scopes.Scopes[0].VariablesReference)
	for _, acct := range []struct {
		name, line string
	}{{"from", "13"}, {"to", "15"}} {
		want := "locked by " + me + " at bank.go:" + acct.line
		v := locals[acct.name]
		if strings.Contains(v.Value, "rt.") || !strings.Contains(v.Value, "mu: sync.Mutex {"+want+"}") {
			t.Errorf("%s = %s, want its mu shown as a sync.Mutex %s", acct.name, v.Value, want)
		}
		account := c.variables(v.VariablesReference)[""] // the pointer's target
		mu := c.variables(account.VariablesReference)["mu"]
		if mu.Type != "sync.Mutex" || mu.Value != "sync.Mutex {"+want+"}" {
			t.Errorf("%s.mu: type %q, value %q; want sync.Mutex, sync.Mutex {%s}", acct.name, mu.Type, mu.Value, want)
		}
		children := c.variables(mu.VariablesReference)
		if len(children) != 1 || children["state"].Value != want {
			t.Errorf("%s.mu's children = %+v, want only state: %q", acct.name, children, want)
		}
	}
	if got := c.evaluate(st.ThreadID, "from.mu"); got != "sync.Mutex {locked by "+me+" at bank.go:13}" {
		t.Errorf("evaluate from.mu = %s, want sync.Mutex {locked by %s at bank.go:13}", got, me)
	}
	// The test's goroutine waits for the transfers, neither of which has returned while this
	// one holds both locks in the middle of its transfer: its WaitGroup counts at least it.
	wg := ""
	for _, th := range c.threads() {
		for _, f := range c.stack(th.ID) {
			if strings.HasSuffix(f.Name, "TestTransfer") {
				var b struct {
					Result string `json:"result"`
				}
				c.decode(c.response(c.send(&godap.EvaluateRequest{Request: godap.Request{Command: "evaluate"},
					Arguments: godap.EvaluateArguments{Expression: "wg", FrameId: f.ID, Context: "watch"}}), 30*time.Second).Body, &b)
				wg = b.Result
			}
		}
	}
	if wg != "sync.WaitGroup {counter 1}" && wg != "sync.WaitGroup {counter 2}" {
		t.Errorf("TestTransfer's wg = %q, want sync.WaitGroup {counter 1} or {counter 2}", wg)
	}
}

// TestVariablesUntypedClient looks at a locked mutex of TestVariablesUserTypes as a client
// that does not take variables' types (Microsoft's test client, say): the adapter has Delve
// give them all the same, to know a stand-in by its type, and leaves them out of its answers.
func TestVariablesUntypedClient(t *testing.T) {
	c, _ := launchBankAs(t, false, 17, nil)
	st := c.stopped(time.Minute)
	me := c.threadName(st.ThreadID)
	fs := c.stack(st.ThreadID)
	var b map[string]any
	c.decode(c.response(c.send(&godap.EvaluateRequest{Request: godap.Request{Command: "evaluate"},
		Arguments: godap.EvaluateArguments{Expression: "from.mu", FrameId: fs[0].ID, Context: "watch"}}), 30*time.Second).Body, &b)
	if want := "sync.Mutex {locked by " + me + " at bank.go:13}"; b["result"] != want {
		t.Errorf("evaluate from.mu = %v, want %s", b["result"], want)
	}
	if typ, ok := b["type"]; ok {
		t.Errorf("evaluate from.mu has the type %v, which the client did not ask for", typ)
	}
}

// TestStandInShapes checks that heddle's stand-ins have the fields that the debugger reads
// from Delve's children of their values, by name and type: a stand-in that changes shape fails
// here, not in a debugging session that shows sync.Mutex {…}.
func TestStandInShapes(t *testing.T) {
	types := map[string]reflect.Type{
		"Mutex": reflect.TypeFor[rt.Mutex](), "RWMutex": reflect.TypeFor[rt.RWMutex](),
		"WaitGroup": reflect.TypeFor[rt.WaitGroup](), "Once": reflect.TypeFor[rt.Once](),
		"Cond": reflect.TypeFor[rt.Cond](), "Map": reflect.TypeFor[rt.Map](),
		"Timer": reflect.TypeFor[rt.Timer](), "Ticker": reflect.TypeFor[rt.Ticker](),
		"Bool": reflect.TypeFor[rt.Bool](), "Int32": reflect.TypeFor[rt.Int32](),
		"Int64": reflect.TypeFor[rt.Int64](), "Uint32": reflect.TypeFor[rt.Uint32](),
		"Uint64": reflect.TypeFor[rt.Uint64](), "Uintptr": reflect.TypeFor[rt.Uintptr](),
		"Value": reflect.TypeFor[rt.Value](), "Pointer": reflect.TypeFor[rt.Pointer[int]](),
	}
	for name, si := range standIns {
		typ, ok := types[name]
		if !ok {
			t.Errorf("stand-in %s: the test does not know its type", name)
			continue
		}
		if got := strings.TrimSuffix(typ.String(), "[int]"); got != "rt."+name {
			t.Errorf("stand-in %s is %s in package rt", name, got)
		}
		want := maps.Clone(si.fields)
		if si.wrapped != "" {
			want = map[string]string{si.wrapped: ""}
		}
		if len(want) == 0 {
			t.Errorf("stand-in %s: the debugger reads no field of it", name)
		}
		for field, ftype := range want {
			f, ok := typ.FieldByName(field)
			switch {
			case !ok:
				t.Errorf("%v has no field %s, which the debugger reads", typ, field)
			case ftype != "" && f.Type.String() != ftype:
				t.Errorf("%v.%s is a %v, the debugger reads a %s", typ, field, f.Type, ftype)
			case len(f.Index) != 1:
				t.Errorf("%v.%s is not at the first level, where Delve gives a value's fields", typ, field)
			}
		}
	}
	for name := range types {
		if _, ok := standIns[name]; !ok {
			t.Errorf("rt.%s is no stand-in the debugger knows", name)
		}
	}
}
