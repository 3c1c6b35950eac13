package explorer_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heddledbg/heddle"
	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/corpus"
	"github.com/heddledbg/heddle/rt"
)

// pollWorker is the kernel pollworker written against rt: a worker polls its queue with a
// select default and Gosched until quit is closed, and sends each result on an unbuffered
// channel; the collector stops on a cancellation racing with it and waits for the worker,
// which (in the buggy version) is stuck in its send.
func pollWorker(fixed bool) func() {
	return func() {
		jobs, results := rt.MakeChan[int](2), rt.MakeChan[int](0)
		quit, stopped := rt.MakeChan[struct{}](0), rt.MakeChan[struct{}](0)
		rt.Go(func() {
			defer rt.Close(stopped)
			for {
				i, v, _ := rt.Select(true, rt.RecvCase(quit), rt.RecvCase(jobs))
				switch i {
				case 0:
					return
				case 1:
					r := rt.Recvd(jobs, v) * 2
					if !fixed {
						rt.Send(results, r)
					} else if j, _, _ := rt.Select(false, rt.SendCase(results, r), rt.RecvCase(quit)); j == 1 {
						return
					}
				default:
					rt.Gosched()
				}
			}
		})
		ctx, cancel := rt.WithCancel(context.Background())
		rt.Go(cancel)
		rt.Send(jobs, 1)
		rt.Send(jobs, 2)
		for range 2 {
			if i, _, _ := rt.Select(false, rt.RecvCase(results), rt.RecvCase(ctx.Done())); i == 1 {
				break
			}
		}
		rt.Close(quit)
		rt.Recv(stopped)
	}
}

var members = []string{"dpor", "pct-d1", "pct-d2", "pct-d3", "random"}

// TestPortfolioLoop: a worker that loops without bound does not trap the default strategy. It
// finds the deadlock, says which member found it in which run, the schedule replays it, and
// the correct twin has no deadlock.
func TestPortfolioLoop(t *testing.T) {
	rep := explorer.Explore(pollWorker(false), explorer.Options{MaxRuns: 2000, MaxSteps: 5000})
	b := firstOfKind(rep, rt.VerdictDeadlock)
	if b == nil {
		t.Fatalf("no deadlock in %d runs; bugs %v", rep.Stats.Runs, keys(rep))
	}
	if !slices.Contains(members, b.Strategy) || b.Run < 1 || b.Run > rep.Stats.Runs {
		t.Errorf("found by %q in run %d of %d, want a member of %v and a run of the exploration", b.Strategy, b.Run, rep.Stats.Runs, members)
	}
	t.Logf("deadlock found by %s in run %d", b.Strategy, b.Run)
	for i := range 100 {
		r := explorer.Explore(pollWorker(false), explorer.Options{Strategy: "dfs", Prefix: b.Schedule, MaxRuns: 1, MaxSteps: 5000})
		if len(r.Bugs) != 1 || r.Bugs[0].Key != b.Key {
			t.Fatalf("replay %d: bugs %v, want %s", i, keys(r), b.Key)
		}
	}
	fixed := explorer.Explore(pollWorker(true), explorer.Options{MaxRuns: 2000, MaxSteps: 5000})
	if b := firstOfKind(fixed, rt.VerdictDeadlock); b != nil {
		t.Errorf("fixed twin: %s", b.Message)
	}
}

// TestPortfolioComplete: on a small program the portfolio ends when DPOR has explored
// everything, says so, and finds what DPOR finds; the samplers cost at most as many steps as
// DPOR, so the runs are at most about twice DPOR's.
func TestPortfolioComplete(t *testing.T) {
	for _, name := range []string{"LostSignal", "SignalWithCondition", "SemaphoreLeak", "DoubleClose", "CloseOnce", "MissingUnlock"} {
		p, ok := corpus.Lookup(name)
		if !ok {
			t.Fatalf("no corpus program %s", name)
		}
		d := explorer.Explore(p.Body, explorer.Options{Strategy: "dpor"})
		pf := explorer.Explore(p.Body, explorer.Options{})
		if !pf.Stats.Complete {
			t.Errorf("%s: portfolio not complete after %d runs", name, pf.Stats.Runs)
		}
		if got, want := keys(pf), keys(d); !slices.Equal(sorted(got), sorted(want)) {
			t.Errorf("%s: portfolio found %v, dpor %v", name, got, want)
		}
		if pf.Stats.Runs > 3*d.Stats.Runs+4 {
			t.Errorf("%s: portfolio made %d runs, dpor %d", name, pf.Stats.Runs, d.Stats.Runs)
		}
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }

// TestPortfolioCut: when every run is cut at the step bound, the exploration is not complete:
// the cut runs say nothing of the schedules beyond the bound.
func TestPortfolioCut(t *testing.T) {
	endless := func() {
		a, b := rt.MakeChan[int](0), rt.MakeChan[int](0)
		rt.Go(func() {
			for {
				rt.Send(a, 1)
				rt.Recv(b)
			}
		})
		rt.Go(func() {
			for {
				rt.Recv(a)
				rt.Send(b, 1)
			}
		})
		var x int32
		done := rt.MakeChan[int](0)
		rt.Go(func() {
			rt.StoreInt32(&x, rt.LoadInt32(&x)+1)
			rt.Send(done, 0)
		})
		rt.StoreInt32(&x, rt.LoadInt32(&x)+1)
		rt.Recv(done)
		heddle.Assert(rt.LoadInt32(&x) == 2, "lost update")
	}
	rep := explorer.Explore(endless, explorer.Options{MaxRuns: 300, MaxSteps: 2000})
	if rep.Stats.Complete {
		t.Errorf("complete after %d runs, all cut", rep.Stats.Runs)
	}
	if firstOfKind(rep, rt.VerdictAssert) == nil {
		t.Errorf("no lost update in %d runs; bugs %v", rep.Stats.Runs, keys(rep))
	}
}

// TestPortfolioReproducible: with the same seed, the same runs find the same bugs.
func TestPortfolioReproducible(t *testing.T) {
	type found struct {
		key, strategy string
		run           int
		schedule      []rt.Decision
	}
	explore := func(seed uint64) []found {
		rep := explorer.Explore(pollWorker(false), explorer.Options{MaxRuns: 500, MaxSteps: 3000, Seed: seed})
		var out []found
		for _, b := range rep.Bugs {
			out = append(out, found{b.Key, b.Strategy, b.Run, b.Schedule})
		}
		return out
	}
	a, b := explore(7), explore(7)
	if !slices.EqualFunc(a, b, func(x, y found) bool {
		return x.key == y.key && x.strategy == y.strategy && x.run == y.run && picks(x.schedule) == picks(y.schedule)
	}) {
		t.Errorf("two explorations with seed 7 differ:\n%v\n%v", a, b)
	}
}

// TestPortfolioPrefixShards: the portfolio explores from a prefix and in shards. Each shard
// of a small program completes, and together the shards find what one exploration finds.
func TestPortfolioPrefixShards(t *testing.T) {
	p, _ := corpus.Lookup("LostSignal")
	whole := explorer.Explore(p.Body, explorer.Options{})
	var union []string
	for s := range 2 {
		r := explorer.Explore(p.Body, explorer.Options{Shard: s, Shards: 2})
		if !r.Stats.Complete {
			t.Errorf("shard %d not complete", s)
		}
		union = append(union, keys(r)...)
	}
	slices.Sort(union)
	if got, want := slices.Compact(union), sorted(keys(whole)); !slices.Equal(got, want) {
		t.Errorf("shards found %v, one exploration %v", got, want)
	}
	b := whole.Bugs[0]
	prefix := b.Schedule[:len(b.Schedule)/2]
	r := explorer.Explore(p.Body, explorer.Options{Prefix: prefix})
	if !r.Stats.Complete || firstOfKind(r, b.Kind) == nil {
		t.Errorf("from the bug's first %d decisions: complete=%v, bugs %v", len(prefix), r.Stats.Complete, keys(r))
	}
	for _, b := range r.Bugs {
		if picks(b.Schedule[:len(prefix)]) != picks(prefix) {
			t.Errorf("bug %s found outside the prefix", b.Key)
		}
	}
}

// picks renders a schedule's decisions.
func picks(ds []rt.Decision) string { return fmt.Sprint(ds) }

// TestPortfolioTooLarge: when a run has too many unordered goroutines for DPOR's race
// analysis, the exploration is not complete, DPOR says why and retires after that run, and the
// samplers make the other runs of the budget.
func TestPortfolioTooLarge(t *testing.T) {
	body := func() {
		var wg rt.WaitGroup
		for range 1500 {
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				rt.Sleep(time.Millisecond)
			})
		}
		wg.Wait()
	}
	rep := explorer.Explore(body, explorer.Options{MaxRuns: 20})
	if s := rep.Stats; s.TooLarge != 1 || s.Complete || s.Runs != 20 {
		t.Errorf("tooLarge %d, complete %v, runs %d: want one run too large, an incomplete search, and 20 runs", s.TooLarge, s.Complete, s.Runs)
	}
}

// untoldRunner answers as a worker does for a long run without a finding: without its steps.
type untoldRunner struct{ h explorer.Harness }

func (u untoldRunner) Run(gd *explorer.Guide, detail bool) *rt.Result {
	res := explorer.RunGuided(u.h, gd, explorer.Options{}, detail)
	if detail || res.Verdict.Kind.Bug() {
		return res
	}
	told := *res
	told.Events, told.Decisions, told.Pending, told.Untold = nil, nil, nil, true
	return &told
}

// TestPortfolioUntold: a run answered without its steps ends DPOR's search incomplete, counted
// too large, and the samplers go on and find the bug, whose run is answered whole.
func TestPortfolioUntold(t *testing.T) {
	body := func() {
		var a, b rt.Mutex
		var wg rt.WaitGroup
		wg.Add(2)
		rt.Go(func() { defer wg.Done(); a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
		rt.Go(func() { defer wg.Done(); b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
		wg.Wait()
	}
	rep := explorer.ExploreOn(untoldRunner{explorer.Body(body)}, explorer.Options{MaxRuns: 50})
	s := rep.Stats
	if s.TooLarge != 1 || s.Complete || s.Runs != 50 {
		t.Errorf("tooLarge %d, complete %v, runs %d: want one run too large, an incomplete search, and 50 runs", s.TooLarge, s.Complete, s.Runs)
	}
	if !slices.Contains(kinds(rep), "deadlock") {
		t.Errorf("bugs %v, want the deadlock, found by a sampler", kinds(rep))
	}
}

// TestPortfolioLogFull: a run of more decisions than the guide logs ends DPOR's search
// incomplete, counted too large, where its log would have grown with the run (a worker of
// 24 GB); the samplers go on.
func TestPortfolioLogFull(t *testing.T) {
	body := func() {
		var n int64
		var wg rt.WaitGroup
		for range 2 {
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				for range 150_000 {
					rt.AddInt64(&n, 1)
				}
			})
		}
		wg.Wait()
	}
	rep := explorer.Explore(body, explorer.Options{MaxRuns: 3, MaxSteps: 1 << 30})
	if s := rep.Stats; s.TooLarge != 1 || s.Complete || s.Runs != 3 {
		t.Errorf("tooLarge %d, complete %v, runs %d: want one run too large, an incomplete search, and 3 runs", s.TooLarge, s.Complete, s.Runs)
	}
}
