package rt_test

import (
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// TestHistory checks that calls and returns are recorded in run order, with the steps, and
// that NotLinearizable ends the run with the history.
func TestHistory(t *testing.T) {
	res := rt.Run(rt.Config{}, func() {
		var mu rt.Mutex
		var wg rt.WaitGroup
		wg.Add(1)
		i, _ := rt.HistoryCall("outer")
		rt.Go(func() {
			defer wg.Done()
			j, _ := rt.HistoryCall("inner")
			mu.Lock()
			mu.Unlock()
			rt.HistoryReturn(j, 1)
		})
		wg.Wait()
		rt.HistoryReturn(i, 2)
		h, _ := rt.History()
		if len(h) != 2 || h[0].Call != 0 || h[1].Call != 1 || h[1].Return != 2 || h[0].Return != 3 || h[0].Out != 2 || h[1].CallStep < h[0].CallStep {
			t.Errorf("history %+v: want outer called at 0 and returning at 3, around inner at 1..2", h)
		}
		rt.NotLinearizable("not linearizable", []rt.Operation{{G: h[0].G, Call: 0, Return: 3, Input: "outer"}})
		t.Error("NotLinearizable returned")
	})
	if res.Verdict.Kind != rt.VerdictLinearizability || len(res.Verdict.History) != 1 {
		t.Fatalf("verdict %s, history %+v; want linearizability with one operation", res.Verdict.Kind, res.Verdict.History)
	}
	if _, ok := rt.History(); ok {
		t.Error("History outside a run says it is in one")
	}
}

// TestCheckHistoryWaits checks that a check that waits for a goroutine of its own for longer
// than the watchdog's limit for waits outside heddle does not end the run as unsupported, as
// the same wait outside CheckHistory does (which would leave the process unable to run more
// schedules, and so is not tried here).
func TestCheckHistoryWaits(t *testing.T) {
	wait := func() {
		done := make(chan struct{})
		go func() {
			time.Sleep(1200 * time.Millisecond)
			close(done)
		}()
		<-done
	}
	if res := rt.Run(rt.Config{}, func() { rt.CheckHistory(wait) }); res.Verdict.Kind != rt.VerdictOK {
		t.Errorf("waiting in CheckHistory: verdict %s: %s; want ok", res.Verdict.Kind, res.Verdict.Message)
	}
}
