package explorer

import (
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// TestRaceFinderDeadline checks that the race analysis of a run stops at the search's
// deadline and says so: finding the races of a run of hundreds of thousands of steps took
// longer than the run (go.uber.org/atomic's TestStress: 35 s after a 3 s budget).
func TestRaceFinderDeadline(t *testing.T) {
	res := rt.Run(rt.Config{}, func() {
		var mu rt.Mutex
		var wg rt.WaitGroup
		for range 2 {
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				for range 600 {
					mu.Lock()
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	})
	if len(res.Events) <= 1<<10 {
		t.Fatalf("the run has %d events, want more than %d", len(res.Events), 1<<10)
	}
	for _, tc := range []struct {
		name     string
		deadline time.Time
		late     bool
	}{
		{"no deadline", time.Time{}, false},
		{"deadline ahead", time.Now().Add(time.Hour), false},
		{"deadline passed", time.Now().Add(-time.Second), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rf := raceFinder{deadline: tc.deadline}
			races := 0
			rf.forEachRace(res, func(race) { races++ })
			if rf.late != tc.late || (races == 0) != tc.late {
				t.Errorf("late = %v after %d races, want late = %v", rf.late, races, tc.late)
			}
		})
	}
}
