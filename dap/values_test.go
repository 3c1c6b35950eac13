package dap

import (
	"reflect"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/heddledbg/heddle/rt"
)

// Renderings of Delve's, as it sends them for testdata/bank and for the other shadowed types.
func TestRewriteValue(t *testing.T) {
	holder := func(obj int) string {
		if obj == 2 {
			return "G1.1 at bank.go:13"
		}
		return ""
	}
	tests := []struct {
		in, want, kind string
	}{
		{`rt.Mutex {state: 1, sema: 3}`, `sync.Mutex {locked by G1.1 at bank.go:13}`, "Mutex"},
		{`rt.Mutex {state: 1, sema: 0}`, `sync.Mutex {locked}`, "Mutex"},
		{`rt.Mutex {state: 9, sema: 0}`, `sync.Mutex {locked}`, "Mutex"},
		{`*example.com/bank.Account {mu: rt.Mutex {state: 0, sema: 0}, balance: 100}`,
			`*example.com/bank.Account {mu: sync.Mutex {unlocked}, balance: 100}`, ""},
		{`*example.com/bank.Account {mu: rt.Mutex {…}, balance: 100}`,
			`*example.com/bank.Account {mu: sync.Mutex {…}, balance: 100}`, ""},
		{`(*rt.Mutex)(0xc000012345)`, `(*sync.Mutex)(0xc000012345)`, ""},
		{`*github.com/heddledbg/heddle/rt.WaitGroup`, `*sync.WaitGroup`, ""},
		{`rt.WaitGroup {_: [0]sync/atomic.Uint64 [], state: 8589934592, sema: 0}`, `sync.WaitGroup {counter 2}`, "WaitGroup"},
		{`rt.RWMutex {state: 0, sema: 0, writerSem: 0, readerSem: 0, readerCount: 2, readerWait: 0}`,
			`sync.RWMutex {read-locked by 2 goroutines}`, "RWMutex"},
		{`rt.RWMutex {state: 1, sema: 4, writerSem: 0, readerSem: 0, readerCount: -1073741823, readerWait: 1}`,
			`sync.RWMutex {locked}`, "RWMutex"},
		{`rt.RWMutex {state: 0, sema: 0, writerSem: 0, readerSem: 0, readerCount: 0, readerWait: 0}`,
			`sync.RWMutex {unlocked}`, "RWMutex"},
		{`rt.Once {done: 0, state: 0, sema: 0}`, `sync.Once {not done}`, "Once"},
		{`rt.Once {done: 0, state: 1, sema: 0}`, `sync.Once {running}`, "Once"},
		{`rt.Once {done: 1, state: 0, sema: 0}`, `sync.Once {done}`, "Once"},
		{`rt.Int32 {v: sync/atomic.Int32 {_: sync/atomic.noCopy {}, v: 5}}`, `sync/atomic.Int32 {_: sync/atomic.noCopy {}, v: 5}`, "Int32"},
		{`rt.Pointer[int] {v: sync/atomic.Pointer[int] {v: unsafe.Pointer(0x0)}}`, `sync/atomic.Pointer[int] {v: unsafe.Pointer(0x0)}`, "Pointer"},
		{`[]rt.Mutex len: 1, cap: 1, [{state: 0, sema: 0}]`, `[]sync.Mutex len: 1, cap: 1, [{state: 0, sema: 0}]`, ""},
		{`example.com/rt.Mutex {x: 1}`, `example.com/rt.Mutex {x: 1}`, ""},
	}
	for _, tt := range tests {
		got, kind := rewriteValue(tt.in, holder)
		if got != tt.want || kind != tt.kind {
			t.Errorf("rewriteValue(%s)\n = %s, %q\nwant %s, %q", tt.in, got, kind, tt.want, tt.kind)
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

// TestStandInShapes checks that heddle's stand-ins have the words that summary reads from
// Delve's renderings of them, by name and kind: a stand-in that changes shape fails here, not
// in a debugging session that shows sync.Mutex {…}.
func TestStandInShapes(t *testing.T) {
	for _, tc := range []struct {
		typ   reflect.Type
		words map[string]reflect.Kind
	}{
		{reflect.TypeFor[rt.Mutex](), map[string]reflect.Kind{"state": reflect.Int32, "sema": reflect.Uint32}},
		{reflect.TypeFor[rt.RWMutex](), map[string]reflect.Kind{"state": reflect.Int32, "sema": reflect.Uint32, "readerCount": reflect.Int32}},
		{reflect.TypeFor[rt.WaitGroup](), map[string]reflect.Kind{"state": reflect.Uint64}},
		{reflect.TypeFor[rt.Once](), map[string]reflect.Kind{"done": reflect.Uint32, "state": reflect.Int32}},
	} {
		for name, kind := range tc.words {
			f, ok := tc.typ.FieldByName(name)
			switch {
			case !ok:
				t.Errorf("%v has no field %s, which the debugger reads", tc.typ, name)
			case f.Type.Kind() != kind:
				t.Errorf("%v.%s is a %v, the debugger reads a %v", tc.typ, name, f.Type.Kind(), kind)
			case len(f.Index) != 1:
				t.Errorf("%v.%s is not at the first level, where Delve renders a nested value's fields", tc.typ, name)
			}
		}
	}
}
