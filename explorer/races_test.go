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

// TestRaceFinderTooLarge runs goroutines that each sleep once, all unordered: the analysis of
// a run with many of them says that the run is too large rather than take seconds (its work
// grows with the cube of the goroutines) or gigabytes (its clocks with their square), and
// the analysis of a run with few finds its races.
func TestRaceFinderTooLarge(t *testing.T) {
	for _, tc := range []struct {
		name       string
		goroutines int
		tooLarge   bool
	}{
		{"few", 50, false},
		{"too much work", 1500, true},   // goroutines × objects below maxRaceCells
		{"too many clocks", 3000, true}, // above it
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Run(rt.Config{}, func() {
				var wg rt.WaitGroup
				for range tc.goroutines {
					wg.Add(1)
					rt.Go(func() {
						defer wg.Done()
						rt.Sleep(time.Millisecond)
					})
				}
				wg.Wait()
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %v", res.Verdict)
			}
			cells := len(res.Goroutines) * len(res.Objects)
			if big := cells > maxRaceCells; big != (tc.name == "too many clocks") {
				t.Fatalf("%d goroutines × %d objects: over maxRaceCells = %v", len(res.Goroutines), len(res.Objects), big)
			}
			rf := raceFinder{immediate: true}
			races := 0
			rf.forEachRace(res, func(race) { races++ })
			if rf.tooLarge != tc.tooLarge || !tc.tooLarge && races < tc.goroutines {
				t.Errorf("tooLarge = %v after %d races, want %v", rf.tooLarge, races, tc.tooLarge)
			}
			if rf.tooLarge && rf.total > rf.limit+lateEvery {
				t.Errorf("the analysis went on to %d work past its limit of %d", rf.total, rf.limit)
			}
		})
	}
}
