package record

import (
	"slices"
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

// AddSkips keeps each subtest once, from the first run that reported it, in the order met.
func TestAddSkips(t *testing.T) {
	a := Skip{Test: "TestX/a", Output: "x_test.go:3: first"}
	for _, tc := range []struct {
		name        string
		skips, more []Skip
		want        []Skip
	}{
		{"none", nil, nil, nil},
		{"new", nil, []Skip{a}, []Skip{a}},
		{"again, another log", []Skip{a}, []Skip{{Test: "TestX/a", Output: "x_test.go:3: later"}}, []Skip{a}},
		{"another", []Skip{a}, []Skip{{Test: "TestX/b"}}, []Skip{a, {Test: "TestX/b"}}},
	} {
		if got := AddSkips(tc.skips, tc.more); !slices.Equal(got, tc.want) {
			t.Errorf("%s: AddSkips = %v, want %v", tc.name, got, tc.want)
		}
	}
}
