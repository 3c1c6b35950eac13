package rt_test

import (
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// annotated is what the instrumenter makes of a //heddle:atomic function: it recurses n times
// and panics at the bottom if asked to.
func annotated(mu *rt.Mutex, n int, fail bool) {
	rt.AtomicEnter("annotated", "a.go:1")
	defer rt.AtomicExit()
	mu.Lock()
	mu.Unlock()
	switch {
	case n > 0:
		annotated(mu, n-1, fail)
	case fail:
		panic("bottom")
	}
}

// TestRegions checks that the outermost execution is the region, on the return path and on a
// panic, and what ends a run inside one.
func TestRegions(t *testing.T) {
	var mu rt.Mutex
	res := rt.Run(rt.Config{}, func() { annotated(&mu, 2, false); mu.Lock(); mu.Unlock() })
	if len(res.Regions) != 1 || res.Regions[0].Exit < 0 || res.Regions[0].Func != "annotated" {
		t.Fatalf("regions %+v, want one, exited", res.Regions)
	}
	if r := res.Regions[0]; r.Enter != 0 || r.Exit != 6 {
		t.Errorf("region [%d, %d) of %d events, want the 6 lock operations of 3 calls", r.Enter, r.Exit, len(res.Events))
	}
	res = rt.Run(rt.Config{}, func() {
		defer func() { recover(); annotated(&mu, 0, false) }()
		annotated(&mu, 1, true)
	})
	if res.Verdict.Kind != rt.VerdictOK || len(res.Regions) != 2 || res.Regions[0].Exit < 0 {
		t.Fatalf("after a recovered panic: %s, regions %+v", res.Verdict.Kind, res.Regions)
	}

	cases := []struct {
		name string
		body func()
		want rt.VerdictKind
	}{
		{"wait", func() {
			ch := rt.MakeChan[int](0)
			rt.Go(func() { rt.Send(ch, 1) })
			rt.AtomicEnter("recv", "r.go:1")
			defer rt.AtomicExit()
			rt.Recv(ch)
		}, rt.VerdictAtomicity},
		{"sleep", func() {
			rt.AtomicEnter("nap", "n.go:1")
			defer rt.AtomicExit()
			rt.Sleep(1)
		}, rt.VerdictAtomicity},
		{"deadlock", func() {
			var a rt.Mutex
			a.Lock()
			rt.AtomicEnter("relock", "l.go:1")
			defer rt.AtomicExit()
			a.Lock()
		}, rt.VerdictAtomicity},
		{"deadlock outside", func() {
			var a rt.Mutex
			a.Lock()
			a.Lock()
		}, rt.VerdictDeadlock},
		{"wait outside", func() {
			ch := rt.MakeChan[int](0)
			rt.Go(func() { rt.Send(ch, 1) })
			rt.Recv(ch)
		}, rt.VerdictOK},
	}
	for _, c := range cases {
		res := rt.Run(rt.Config{}, c.body)
		if res.Verdict.Kind != c.want {
			t.Errorf("%s: verdict %s (%s), want %s", c.name, res.Verdict.Kind, res.Verdict.Message, c.want)
		}
		if c.want == rt.VerdictAtomicity && (res.Verdict.Atomicity == nil || res.Verdict.Atomicity.Decl == "") {
			t.Errorf("%s: verdict names no function: %+v", c.name, res.Verdict)
		}
	}
}
