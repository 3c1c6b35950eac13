package rt_test

import (
	"strings"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// TestAllocsPerRun: a test that fails after measuring allocations under heddle has failed on a
// count that holds heddle's own: the run is unsupported, not the program's bug. The same
// failure without a measurement stays the program's.
func TestAllocsPerRun(t *testing.T) {
	for _, tc := range []struct {
		measure bool
		want    rt.VerdictKind
	}{
		{true, rt.VerdictUnsupported},
		{false, rt.VerdictFatal},
	} {
		res := rt.Run(rt.Config{}, func() {
			if tc.measure {
				ch := rt.MakeChan[int](1)
				rt.AllocsPerRun(10, func() { rt.Send(ch, 1); rt.Recv(ch) })
			}
			rt.Fail(rt.VerdictFatal, "allocs: want 0", false)
		})
		if res.Verdict.Kind != tc.want {
			t.Errorf("measured %v: verdict %s (%s), want %s", tc.measure, res.Verdict.Kind, res.Verdict.Message, tc.want)
		}
		if tc.measure && !strings.Contains(res.Verdict.Message, "AllocsPerRun at allocs_test.go:24") {
			t.Errorf("the verdict does not say where the test measured: %s", res.Verdict.Message)
		}
	}
}
