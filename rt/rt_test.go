package rt_test

import (
	"testing"

	"github.com/heddledbg/heddle/rt"
)

type last struct{}

func (last) Choose(p *rt.Point) int { return len(p.Alts) - 1 }

func TestSmoke(t *testing.T) {
	var mu rt.Mutex
	x := 0
	res := rt.Run(rt.Config{Chooser: last{}}, func() {
		var wg rt.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				mu.Lock()
				x++
				mu.Unlock()
			})
		}
		wg.Wait()
		ch := rt.MakeChan[int](0)
		rt.Go(func() { rt.Send(ch, 42) })
		if v := rt.Recv(ch); v != 42 {
			panic("bad")
		}
	})
	if res.Verdict.Kind != rt.VerdictOK || x != 2 {
		t.Fatalf("verdict %+v x=%d", res.Verdict, x)
	}
	t.Logf("steps=%d decisions=%d", res.Steps, len(res.Decisions))
	res = rt.Run(rt.Config{}, func() {
		ch := rt.MakeChan[int](0)
		rt.Go(func() { rt.Recv(ch) })
		var mu rt.Mutex
		mu.Lock()
		mu.Lock()
	})
	if res.Verdict.Kind != rt.VerdictDeadlock {
		t.Fatalf("verdict %+v", res.Verdict)
	}
	t.Logf("%+v", res.Verdict)
}
