package timeline

import (
	"testing"
	"time"
)

// TestStatsAdd checks that the shares of one search add up: counts summed, the longest time,
// complete only if every share is.
func TestStatsAdd(t *testing.T) {
	s := Stats{Runs: 2, Steps: 100, Cut: 1, Elapsed: time.Second, Complete: true}
	s.Add(&Stats{Runs: 3, Steps: 50, BuggyRuns: 1, Elapsed: 2 * time.Second, Complete: true})
	want := Stats{Runs: 5, Steps: 150, Cut: 1, BuggyRuns: 1, Elapsed: 2 * time.Second, Complete: true}
	if s != want {
		t.Errorf("got %+v, want %+v", s, want)
	}
	if got := s.StepsPerSecond(); got != 75 {
		t.Errorf("steps per second %v, want 75", got)
	}
	s.Add(&Stats{Complete: false})
	if s.Complete {
		t.Error("complete after adding an incomplete share")
	}
}
