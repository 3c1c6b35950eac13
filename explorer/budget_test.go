package explorer

import (
	"testing"
	"time"
)

// A single search, as Explore from Here makes, reads heddle test's -budget: a total bounds it
// as its time does.
func TestTestBudgetSingle(t *testing.T) {
	for _, tt := range []struct {
		budget string
		runs   int
		d      time.Duration
	}{
		{DefaultBudget, 0, 60 * time.Second},
		{"total=20s", 0, 20 * time.Second},
		{"total=20s,time=1m", 0, 20 * time.Second},
		{"runs=500,total=1m", 500, time.Minute},
		{"10s", 0, 10 * time.Second},
		{"1000", 1000, 0},
	} {
		b, err := ParseTestBudget(tt.budget)
		if err != nil {
			t.Fatalf("%q: %v", tt.budget, err)
		}
		if runs, d := b.Single(); runs != tt.runs || d != tt.d {
			t.Errorf("%q: one search of %d runs and %v, want %d and %v", tt.budget, runs, d, tt.runs, tt.d)
		}
	}
	for _, bad := range []string{"total=lots", "total=0s", "total=1m,later"} {
		if _, err := ParseTestBudget(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
