package dap

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// reportLatency reports the median and 95th percentile of ds.
func reportLatency(b *testing.B, ds []time.Duration) { reportLatencyOf(b, "", ds) }

// reportLatencyOf reports the median and 95th percentile of ds, with their units prefixed by
// what.
func reportLatencyOf(b *testing.B, what string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	p := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.5), what+"p50-ms")
	b.ReportMetric(p(0.95), what+"p95-ms")
	b.ReportMetric(0, "ns/op")
}

// busyStop stops TestBusy at the breakpoint bp on total++ and returns the stop and the number
// of checkpoints so far.
func busyStop(b *testing.B, bp godap.SourceBreakpoint) (*client, stopped, int) {
	bp.Line = 51
	c := launch(b, "TestBusy", nil, func(c *client, src string) {
		setBreakpoints(c, src[:len(src)-len("bank.go")]+"bank_test.go", bp)
	})
	st := c.stopped(time.Minute)
	return c, st, c.checkpoints()
}

// checkpoints returns the number of checkpoints the execution has so far.
func (c *client) checkpoints() int {
	var cps struct {
		Checkpoints []Checkpoint `json:"checkpoints"`
	}
	c.decode(c.response(c.custom("heddle/checkpoints", nil), 10*time.Second).Body, &cps)
	return len(cps.Checkpoints)
}

// BenchmarkStepBack measures a step back after a step forward, at a stop several hundred
// checkpoints into TestBusy: the position is known, so one incarnation replays to it.
func BenchmarkStepBack(b *testing.B) {
	c, st, n := busyStop(b, godap.SourceBreakpoint{HitCondition: "300"})
	backAndForth(b, c, st, n)
}

// BenchmarkStepBackRealCode is BenchmarkStepBack on a real module's test: x/sync's errgroup
// TestGoLimit starts 1,025 goroutines, ten at a time, and stops in the 1,000th, several
// thousand checkpoints into the run, on the line after its first atomic operation.
func BenchmarkStepBackRealCode(b *testing.B) {
	dir := filepath.Join(moduleCopy(b, "golang.org/x/sync@v0.25.0"), "errgroup")
	c, st := goLimitStop(b, dir)
	backAndForth(b, c, st, c.checkpoints())
}

// BenchmarkStepBackFromBreakpointRealCode is BenchmarkStepBackFromBreakpoint on the stop of
// BenchmarkStepBackRealCode: the first step back from the 1,000th hit, one launch each.
func BenchmarkStepBackFromBreakpointRealCode(b *testing.B) {
	dir := filepath.Join(moduleCopy(b, "golang.org/x/sync@v0.25.0"), "errgroup")
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		c, st := goLimitStop(b, dir)
		t0 := time.Now()
		c.stepBack(st.ThreadID)
		ds = append(ds, time.Since(t0))
		c.close()
	}
	reportLatency(b, ds)
}

// goLimitStop launches errgroup's TestGoLimit in the module copy dir and stops it at the
// 1,000th hit of errgroup_test.go:236.
func goLimitStop(b *testing.B, dir string) (*client, stopped) {
	c := newClient(b)
	initialize(c)
	args := map[string]any{"mode": "test", "program": dir, "args": []string{"-test.run", "^TestGoLimit$"}}
	c.response(c.custom("launch", args), buildTimeout)
	c.event("initialized", 30*time.Second)
	setBreakpoints(c, filepath.Join(dir, "errgroup_test.go"), godap.SourceBreakpoint{Line: 236, HitCondition: "1000"})
	c.response(c.send(&godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}), time.Minute)
	return c, c.stopped(5 * time.Minute)
}

// backAndForth times b.N step backs, each after a next, from stop st, n checkpoints into the
// run. The nexts are timed too (next-p50-ms, next-p95-ms): a forward move's stop costs what a
// step back's costs at best.
func backAndForth(b *testing.B, c *client, st stopped, n int) {
	var back, next []time.Duration
	b.ResetTimer()
	b.ReportMetric(float64(n), "checkpoints")
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		c.response(c.send(&godap.NextRequest{Request: godap.Request{Command: "next"}, Arguments: godap.NextArguments{ThreadId: st.ThreadID}}), time.Minute)
		st = c.stopped(time.Minute)
		c.stack(st.ThreadID)
		next = append(next, time.Since(t0))
		t0 = time.Now()
		st, _ = c.stepBack(st.ThreadID)
		back = append(back, time.Since(t0))
	}
	reportLatency(b, back)
	reportLatencyOf(b, "next-", next)
}

// BenchmarkStepBackFromBreakpoint measures a step back from a breakpoint hit, whose place in
// its segment is found by a first re-execution.
func BenchmarkStepBackFromBreakpoint(b *testing.B) {
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		c, st, _ := busyStop(b, godap.SourceBreakpoint{HitCondition: "300"})
		t0 := time.Now()
		c.stepBack(st.ThreadID)
		ds = append(ds, time.Since(t0))
		c.close()
	}
	reportLatency(b, ds)
}

// BenchmarkReverseContinue measures a reverse continue to the previous hit of a conditional
// breakpoint, a few hundred checkpoints into the run, moves back to back.
func BenchmarkReverseContinue(b *testing.B) { benchReverseContinue(b, 0) }

// BenchmarkReverseContinueInteractive is BenchmarkReverseContinue with a second between moves,
// as a person takes, in which the spare incarnations finish loading.
func BenchmarkReverseContinueInteractive(b *testing.B) { benchReverseContinue(b, time.Second) }

func benchReverseContinue(b *testing.B, pause time.Duration) {
	c, st, n := busyStop(b, godap.SourceBreakpoint{Condition: "total >= 300"})
	var ds []time.Duration
	b.ResetTimer()
	b.ReportMetric(float64(n), "checkpoints")
	for i := 0; i < b.N; i++ {
		st = c.cont(st.ThreadID)
		time.Sleep(pause)
		t0 := time.Now()
		c.response(c.send(&godap.ReverseContinueRequest{Request: godap.Request{Command: "reverseContinue"}, Arguments: godap.ReverseContinueArguments{ThreadId: st.ThreadID}}), time.Minute)
		st = c.stopped(time.Minute)
		ds = append(ds, time.Since(t0))
	}
	reportLatency(b, ds)
}

// BenchmarkExploreFirstBug measures the time from heddle/explore at a breakpoint to the first
// heddle/bugFound event.
func BenchmarkExploreFirstBug(b *testing.B) {
	c, _ := launchBank(b, 15, nil)
	c.stopped(time.Minute)
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		var r struct {
			ID int `json:"id"`
		}
		c.decode(c.response(c.custom("heddle/explore", map[string]any{"budget": "20s"}), 10*time.Second).Body, &r)
		c.next("the first bug", time.Minute, func(m *message) bool { return c.ofExploration(m, "heddle/bugFound", r.ID) })
		ds = append(ds, time.Since(t0))
		c.next("the end of the search", time.Minute, func(m *message) bool { return c.ofExploration(m, "heddle/exploreDone", r.ID) })
		// Drop the search's other events.
		c.queue = c.queue[:0]
	}
	reportLatency(b, ds)
}

// ofExploration reports whether m is event name of exploration id.
func (c *client) ofExploration(m *message, name string, id int) bool {
	if m.Event != name {
		return false
	}
	var f bugFound
	c.decode(m.Body, &f)
	return f.ID == id
}
