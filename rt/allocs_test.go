package rt_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// TestAllocsPerRun: a test that fails after measuring allocations under heddle has failed on a
// count that holds heddle's own: the run is unsupported, not the program's bug. The same
// failure without a measurement stays the program's.
func TestAllocsPerRun(t *testing.T) {
	ch := rt.MakeChan[int](1)
	f := func() { rt.Send(ch, 1); rt.Recv(ch) }
	for _, tc := range []struct {
		name    string
		measure func() // nil: none
		want    rt.VerdictKind
		where   string
	}{
		{"AllocsPerRun", func() { rt.AllocsPerRun(10, f) }, rt.VerdictUnsupported, "testing.AllocsPerRun at allocs_test.go:23"},
		// A count of its own, as ttlcache's allocsPerSingleRun makes.
		{"ReadMemStats", func() {
			var m runtime.MemStats
			rt.ReadMemStats(&m)
			f()
			rt.ReadMemStats(&m)
		}, rt.VerdictUnsupported, "runtime.ReadMemStats at allocs_test.go:27"},
		{"none", nil, rt.VerdictFatal, ""},
	} {
		res := rt.Run(rt.Config{}, func() {
			if tc.measure != nil {
				tc.measure()
			}
			rt.Fail(rt.VerdictFatal, "allocs: want 0", false)
		})
		if res.Verdict.Kind != tc.want {
			t.Errorf("%s: verdict %s (%s), want %s", tc.name, res.Verdict.Kind, res.Verdict.Message, tc.want)
		}
		if !strings.Contains(res.Verdict.Message, tc.where) {
			t.Errorf("%s: the verdict does not say where the test measured (%s): %s", tc.name, tc.where, res.Verdict.Message)
		}
	}
}

// TestDiffers: after heddle gave the program something other than Go would, a failure of the
// program's checks is unsupported, naming the difference, where the program met it, and the
// failure; a run whose checks pass, or that ends in a bug of another kind, keeps its verdict.
func TestDiffers(t *testing.T) {
	differ := func() { rt.Differs("negotiated HTTP/2", "which heddle carries as HTTP/1.1") }
	for _, tc := range []struct {
		name string
		body func()
		want rt.VerdictKind
		msg  string
	}{
		{"failed", func() { differ(); rt.Fail(rt.VerdictFatal, "want HTTP/2", false) }, rt.VerdictUnsupported,
			"the test failed after it negotiated HTTP/2 at allocs_test.go:52, which heddle carries as HTTP/1.1 (the failure: want HTTP/2)"},
		{"panicked", func() { differ(); panic("no HTTP/2") }, rt.VerdictUnsupported, "(the failure: no HTTP/2)"},
		{"passed", differ, rt.VerdictOK, ""},
		{"deadlocked", func() { differ(); rt.Recv(rt.MakeChan[int](0)) }, rt.VerdictDeadlock, ""},
		{"failed without it", func() { rt.Fail(rt.VerdictFatal, "want HTTP/2", false) }, rt.VerdictFatal, "want HTTP/2"},
	} {
		res := rt.Run(rt.Config{}, tc.body)
		if res.Verdict.Kind != tc.want || !strings.Contains(res.Verdict.Message, tc.msg) {
			t.Errorf("%s: verdict %s (%s), want %s (%s)", tc.name, res.Verdict.Kind, res.Verdict.Message, tc.want, tc.msg)
		}
	}
}
