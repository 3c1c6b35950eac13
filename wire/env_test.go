package wire

import (
	"slices"
	"testing"
)

func TestTestArgs(t *testing.T) {
	base := []string{"-test.run=^TestHeddleWorker$", "-test.count=1", "-test.timeout=0"}
	for _, c := range []struct {
		verbose bool
		user    []string
		want    []string
	}{
		{false, nil, base},
		{true, nil, append(slices.Clip(base), "-test.v=true")},
		// The user's flags follow, except those that would select other tests.
		{false, []string{"-test.run=TestX", "-test.short", "-run", "TestY", "--run=Z", "-test.run", "W", "-v"},
			append(slices.Clip(base), "-test.short", "-v")},
		{false, []string{"-test.skip=TestX/a", "-skip", "b", "-test.count=1"},
			append(slices.Clip(base), "-test.count=1")},
	} {
		if got := TestArgs(c.verbose, c.user...); !slices.Equal(got, c.want) {
			t.Errorf("TestArgs(%v, %q) = %q, want %q", c.verbose, c.user, got, c.want)
		}
	}
}
