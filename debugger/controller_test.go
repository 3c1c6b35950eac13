package debugger

import (
	"testing"

	"github.com/heddledbg/heddle/worker"
)

// TestPick checks the controller's default schedule: the recorded decisions first, then the
// goroutine being stepped while it can run, then the current goroutine.
func TestPick(t *testing.T) {
	// G1 stands at a select with default after starting G1.2, which ran to its first
	// scheduling point and is the current goroutine there, as in pond's Submit.
	point := &worker.DebugPoint{Current: 1, Alts: []worker.DebugAlt{{Name: "G1", Op: "select"}, {Name: "G1.2", Op: "len"}}}
	blocked := &worker.DebugPoint{Current: -1, Alts: []worker.DebugAlt{{Name: "G1.2"}, {Name: "G1.3"}}}
	for _, tc := range []struct {
		name     string
		p        *worker.DebugPoint
		follow   []string
		stepping string
		want     string
	}{
		{"current when nothing is stepped", point, nil, "", "G1.2"},
		{"the stepped goroutine", point, nil, "G1", "G1"},
		{"the recorded decision first", point, []string{"G1.2"}, "G1", "G1.2"},
		{"the stepped goroutine cannot run", blocked, nil, "G1", "G1.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &controller{plan: planned{follow: tc.follow, stepping: tc.stepping}}
			if got := tc.p.Alts[c.pick(tc.p)].Name; got != tc.want {
				t.Errorf("picked %s, want %s", got, tc.want)
			}
		})
	}
}
