package dap

import (
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"
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
		{`rt.Mutex {st: rt.objState {epoch: 1, id: 2}, locked: true, fb: sync.Mutex {_: sync.noCopy {}, mu: (*"internal/sync.Mutex")(0x11ed6e34c044)}}`,
			`sync.Mutex {locked by G1.1 at bank.go:13}`, "Mutex"},
		{`rt.Mutex {st: (*"rt.objState")(0x11ed6e34c030), locked: true, fb: (*sync.Mutex)(0x11ed6e34c044)}`,
			`sync.Mutex {locked}`, "Mutex"},
		{`*example.com/bank.Account {mu: rt.Mutex {st: (*"rt.objState")(0x11ed6e34c030), locked: false, fb: (*sync.Mutex)(0x11ed6e34c044)}, balance: 100}`,
			`*example.com/bank.Account {mu: sync.Mutex {unlocked}, balance: 100}`, ""},
		{`(*rt.Mutex)(0xc000012345)`, `(*sync.Mutex)(0xc000012345)`, ""},
		{`*github.com/heddledbg/heddle/rt.WaitGroup`, `*sync.WaitGroup`, ""},
		{`rt.WaitGroup {st: rt.objState {epoch: 1, id: 0}, count: 2, fb: sync.WaitGroup {}}`, `sync.WaitGroup {counter 2}`, "WaitGroup"},
		{`rt.RWMutex {st: rt.objState {epoch: 1, id: 3}, writer: *rt.goroutine nil, held: false, readers: 2, fb: sync.RWMutex {}}`,
			`sync.RWMutex {read-locked by 2 goroutines}`, "RWMutex"},
		{`rt.Once {st: rt.objState {epoch: 0, id: 0}, done: false, running: false, fb: sync.Once {}}`, `sync.Once {not done}`, "Once"},
		{`rt.Int32 {v: sync/atomic.Int32 {_: sync/atomic.noCopy {}, v: 5}}`, `sync/atomic.Int32 {_: sync/atomic.noCopy {}, v: 5}`, "Int32"},
		{`rt.Pointer[int] {v: sync/atomic.Pointer[int] {v: unsafe.Pointer(0x0)}}`, `sync/atomic.Pointer[int] {v: unsafe.Pointer(0x0)}`, "Pointer"},
		{`[]rt.Mutex len: 1, cap: 1, [{st: (*"rt.objState")(0x1), locked: false}]`, `[]sync.Mutex len: 1, cap: 1, [{st: (*"rt.objState")(0x1), locked: false}]`, ""},
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
// sync.Mutex values, as the user declared them, with heddle's state as a readable child.
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
		v := locals[acct.name]
		if strings.Contains(v.Value, "rt.") || !strings.Contains(v.Value, "mu: sync.Mutex {locked}") {
			t.Errorf("%s = %s, want its mu shown as a locked sync.Mutex", acct.name, v.Value)
		}
		account := c.variables(v.VariablesReference)[""] // the pointer's target
		mu := c.variables(account.VariablesReference)["mu"]
		if mu.Type != "sync.Mutex" || mu.Value != "sync.Mutex {locked}" {
			t.Errorf("%s.mu: type %q, value %q; want sync.Mutex, sync.Mutex {locked}", acct.name, mu.Type, mu.Value)
		}
		children := c.variables(mu.VariablesReference)
		want := "locked by " + me + " at bank.go:" + acct.line
		if len(children) != 1 || children["state"].Value != want {
			t.Errorf("%s.mu's children = %+v, want only state: %q", acct.name, children, want)
		}
	}
	if got := c.evaluate(st.ThreadID, "from.mu"); got != "sync.Mutex {locked by "+me+" at bank.go:13}" {
		t.Errorf("evaluate from.mu = %s, want sync.Mutex {locked by %s at bank.go:13}", got, me)
	}
}
