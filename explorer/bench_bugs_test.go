package explorer_test

import (
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// leakSmall leaks one of two senders on every run: each run ends in a bug, so the cost of
// filing bugs under their signatures shows in the run rate.
func leakSmall() {
	ch := rt.MakeChan[int](0)
	for i := 0; i < 2; i++ {
		rt.Go(func() { rt.Send(ch, i) })
	}
	rt.Recv(ch)
}

// BenchmarkBuggySchedules measures schedules per second in process when every run is buggy:
// b.N runs of leakSmall under random scheduling, on one core.
func BenchmarkBuggySchedules(b *testing.B) {
	rep := randomRuns(b, leakSmall)
	if rep.Stats.BuggyRuns != rep.Stats.Runs {
		b.Fatalf("%d buggy runs of %d", rep.Stats.BuggyRuns, rep.Stats.Runs)
	}
}
