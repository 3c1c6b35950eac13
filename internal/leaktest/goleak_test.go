package leaktest

import (
	"testing"

	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/rt/goleak"
)

const pkg = "github.com/heddledbg/heddle/internal/leaktest."

//go:noinline
func waitForever(ch chan int) { rt.Recv(ch) }

//go:noinline
func outer(ch chan int) { waitForever(ch) }

// TestVerifyNone checks that goleak's checks under heddle are heddle's leak check with
// goleak's options: a goroutine left blocked is a leak unless an option passes over it, with
// and without the steps' stacks (detail mode keeps them, exploration reads the carrier's).
func TestVerifyNone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		program func(t *testing.T)
		want    rt.VerdictKind
	}{
		{"no leak", func(t *testing.T) {
			defer goleak.VerifyNone(t)
			ch := rt.MakeChan[int](0)
			rt.Go(func() { outer(ch) })
			rt.Send(ch, 1)
		}, rt.VerdictOK},
		{"leak", func(t *testing.T) {
			defer goleak.VerifyNone(t)
			rt.Go(func() { outer(rt.MakeChan[int](0)) })
		}, rt.VerdictLeak},
		{"ignore top function", func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(pkg+"waitForever"))
			rt.Go(func() { outer(rt.MakeChan[int](0)) })
		}, rt.VerdictOK},
		{"top function is not any frame", func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreTopFunction(pkg+"outer"))
			rt.Go(func() { outer(rt.MakeChan[int](0)) })
		}, rt.VerdictLeak},
		{"ignore any function", func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreAnyFunction(pkg+"outer"))
			rt.Go(func() { outer(rt.MakeChan[int](0)) })
		}, rt.VerdictOK},
		{"ignore current", func(t *testing.T) {
			rt.Go(func() { outer(rt.MakeChan[int](0)) })
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		}, rt.VerdictOK},
		{"started after current", func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			rt.Go(func() { outer(rt.MakeChan[int](0)) })
		}, rt.VerdictLeak},
	} {
		for _, detail := range []bool{false, true} {
			res := rt.Run(rt.Config{Detail: detail}, func() { tc.program(t) })
			if res.Verdict.Kind != tc.want {
				t.Errorf("%s (detail %v): verdict %s (%s), want %s", tc.name, detail, res.Verdict.Kind, res.Verdict.Message, tc.want)
			}
		}
	}
	if err := goleak.Find(); err != nil {
		t.Errorf("Find: %v", err)
	}
}
