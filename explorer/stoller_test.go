package explorer_test

import (
	"strings"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/timeline"
)

// TestStollerComposition runs the example of Stoller §6 (paper 003): thread i takes its own
// lock o'i, then o0, reads o and writes oi, and releases both. The paper's IF-SSS takes
// t1,1 and t2,1 once (they are independent) and then, t1,2 and t2,2 being dependent in s3,
// explores both orders of the o0 critical sections: two orders. SSS on the composed system
// C(S) would explore one, because by eq. (4) the composed transitions w1 and w2 are
// independent; heddle cannot use eq. (4) (see docs/stoller.md). The test checks that the
// search sees exactly the paper's two orders of the critical sections. Each is completed
// twice, once per order of the goroutines' final wg.Done, a dependency the paper's example
// (which has no join) does not have.
func TestStollerComposition(t *testing.T) {
	var order []string
	body := func() {
		order = order[:0]
		var o0 rt.Mutex
		var own [2]rt.Mutex
		o := 7
		var oi [2]int
		var wg rt.WaitGroup
		wg.Add(2)
		for i := range 2 {
			rt.Go(func() {
				defer wg.Done()
				own[i].Lock()
				o0.Lock()
				oi[i] = o
				order = append(order, []string{"θ1", "θ2"}[i])
				o0.Unlock()
				own[i].Unlock()
			})
		}
		wg.Wait()
	}
	orders := map[string]int{}
	aborted := 0
	rep := explorer.Explore(body, explorer.Options{Strategy: "stoller", Progress: func(s *timeline.Stats) {
		if s.Aborted > aborted {
			aborted = s.Aborted
			return
		}
		orders[strings.Join(order, " ")]++
	}})
	if !rep.Stats.Complete {
		t.Fatal("stoller did not complete")
	}
	t.Logf("stoller: %d runs (%d aborted), orders of the o0 sections %v", rep.Stats.Runs, rep.Stats.Aborted, orders)
	if len(orders) != 2 || orders["θ1 θ2"] == 0 || orders["θ2 θ1"] == 0 {
		t.Errorf("orders of the o0 critical sections %v, want θ1 θ2 and θ2 θ1 (Stoller §6)", orders)
	}
	if complete := rep.Stats.Runs - rep.Stats.Aborted; complete != 4 {
		t.Errorf("%d complete runs, want 2 orders of the sections times 2 orders of wg.Done", complete)
	}
}
