package suite

import (
	"slices"
	"testing"
)

// TestWithRace: -race, and heddle's own packages without its pointer checks, in front of the
// user's flags so that theirs win where both match.
func TestWithRace(t *testing.T) {
	for _, tc := range []struct {
		build []string
		on    bool
		want  []string
	}{
		{nil, false, nil},
		{[]string{"-tags=x"}, false, []string{"-tags=x"}},
		{nil, true, []string{"-gcflags=github.com/heddledbg/heddle/...=-d=checkptr=0", "-race"}},
		{[]string{"-gcflags=all=-N -l"}, true, []string{"-gcflags=github.com/heddledbg/heddle/...=-d=checkptr=0", "-gcflags=all=-N -l", "-race"}},
	} {
		if got := WithRace(tc.build, tc.on); !slices.Equal(got, tc.want) {
			t.Errorf("WithRace(%q, %v) = %q, want %q", tc.build, tc.on, got, tc.want)
		}
	}
}
