package rt_test

import (
	"slices"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// pick chooses alternative n of the seed decision, and the first of every other.
type pick int

func (n pick) Choose(p *rt.Point) int {
	if p.Kind == rt.DecideChoose {
		return int(n)
	}
	return 0
}

// TestRandSeededBySchedule checks that the top-level math/rand functions of a run are a
// function of the schedule: the seed is the run's first choice, recorded as a decision, the
// same choice draws the same values in two goroutines, and other choices draw other values.
func TestRandSeededBySchedule(t *testing.T) {
	draw := func(seed int) ([]int64, *rt.Result) {
		var vals []int64
		res := rt.Run(rt.Config{Chooser: pick(seed)}, func() {
			done := rt.MakeChan[int](0)
			rt.Go(func() {
				vals = append(vals, rt.RandV1().Int63(), int64(rt.RandV2().IntN(1000)))
				rt.Send(done, 1)
			})
			vals = append(vals, int64(rt.RandN(uint8(200))), rt.RandV1().Int63n(10))
			rt.Recv(done)
			vals = append(vals, rt.RandV2().Int64())
		})
		if res.Verdict.Kind != rt.VerdictOK {
			t.Fatalf("seed %d: verdict %s: %s", seed, res.Verdict.Kind, res.Verdict.Message)
		}
		return vals, res
	}
	var seen [][]int64
	for seed := range 4 {
		a, res := draw(seed)
		b, _ := draw(seed)
		if !slices.Equal(a, b) {
			t.Errorf("seed %d: two runs of one schedule drew %v and %v", seed, a, b)
		}
		var chosen []int32
		for _, d := range res.Decisions {
			if d.Kind == rt.DecideChoose {
				chosen = append(chosen, d.Pick)
			}
		}
		if len(chosen) != 1 || chosen[0] != int32(seed) {
			t.Errorf("seed %d: choose decisions %v, want the one seed", seed, chosen)
		}
		for _, s := range seen {
			if slices.Equal(s, a) {
				t.Errorf("seed %d drew the same values as another seed: %v", seed, a)
			}
		}
		seen = append(seen, a)
	}
	// Outside a run, the standard global source.
	if v := rt.RandV1().Intn(10); v < 0 || v >= 10 {
		t.Errorf("Intn(10) outside a run = %d", v)
	}
}
