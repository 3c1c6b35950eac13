package explorer

import (
	"slices"

	"github.com/heddledbg/heddle/rt"
)

// The portfolio is the default strategy, in the spirit of Coyote's: an exhaustive search and
// samplers share the budget, interleaved run by run, so that a test whose systematic search
// cannot finish (a goroutine that loops without bound makes every run long and the tree deep)
// still gets the probabilistic guarantees of PCT and random walks, and a small test still
// completes exhaustively.
//
// The members and their shares of the steps executed:
//
//	dpor     1/2  DPOR with sleep sets, bounded in depth once a run is cut at the step bound
//	pct-d1   1/8  PCT with bug depth 1 (no change point: one random priority order per run)
//	pct-d2   1/8  PCT with bug depth 2
//	pct-d3   1/8  PCT with bug depth 3
//	random   1/8  uniform random walks
//
// Shares count steps, not runs or time: a member whose runs are long (a search deep inside a
// loop) gets fewer of them, as a time share would, yet the order of the runs, and so the whole
// exploration, depends only on the seed. Each member keeps its own state between its turns:
// DPOR its tree, the samplers their seed sequences. When DPOR completes, the exploration is
// complete and stops: the samplers cannot reach a schedule it has not covered.

// portfolioMember is one strategy of the portfolio.
type portfolioMember struct {
	name   string
	weight int64
	used   int64 // steps of its runs so far
	step   func() *rt.Result
}

// minDepth is the depth bound, in decisions after the prefix, that the exhaustive member
// starts with when a run is cut before any run ended on its own.
const minDepth = 64

func (e *explorer) portfolio() {
	ex := &exhaustive{e: e}
	ex.s = e.newSearch(&optimal{}, -1)
	ex.s.adaptive = true
	members := []*portfolioMember{{name: "dpor", weight: 4, step: ex.step}}
	for i, d := range []int{1, 2, 3} {
		s := e.newSampler(PolicyPCT, d, memberSeed(e.opts.Seed, i+1))
		members = append(members, &portfolioMember{name: "pct-d" + string(rune('0'+d)), weight: 1, step: s.step})
	}
	s := e.newSampler(PolicyRandom, 0, memberSeed(e.opts.Seed, 4))
	members = append(members, &portfolioMember{name: "random", weight: 1, step: s.step})

	// Without a budget, the samplers stop after the 1,000 runs that pct and random make alone.
	sampled, unbudgeted := 0, e.opts.MaxRuns == 0 && e.opts.MaxTime == 0
	dp := members[0]
	for !e.overBudget() {
		// Stride scheduling: the member furthest below its share goes next; ties go to the
		// earlier member, so the exhaustive search makes the first run. DPOR leaves when it
		// can do no more (the program diverged under its schedules, or runs were cut at the
		// step bound and going deeper leaves nothing new); the samplers go on.
		var m *portfolioMember
		for _, c := range members {
			if c == dp && ex.retired || c != dp && unbudgeted && sampled >= 1000 {
				continue
			}
			if m == nil || c.used*m.weight < m.used*c.weight {
				m = c
			}
		}
		if m == nil {
			return
		}
		e.member = m.name
		res := m.step()
		m.used += int64(res.Steps) + 1
		if m == dp {
			m.used += ex.analysis
			ex.analysis = 0
		}
		if m != dp {
			sampled++
		}
		if ex.complete && !e.timedOut {
			e.rep.Stats.Complete = true
			return
		}
	}
}

// memberSeed derives the seed sequence of member i from the exploration's seed (splitmix64),
// so that the members sample apart; newSampler splits each sequence among the shards.
func memberSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// exhaustive is the portfolio's DPOR. A run cut at the step bound shows a loop that does not
// end on its own: depth-first search would spend the budget on the orders of that loop's last
// iterations and never return to the decisions at the start of the run. So from the first
// cut run on, the search leaves unexplored the alternatives at depths beyond a bound (twice
// the longest run that ended on its own, at least minDepth decisions), and when the bounded
// search is done it starts again four times deeper (iterative deepening).
//
// The exploration is complete when a search ends with no alternative left out and no run cut:
// a cut run says nothing about its schedules beyond the bound, and DPOR does not even see the
// goroutines that a loop starved in it. A search that left nothing out by depth but cut runs
// cannot do better by going deeper, so DPOR retires and the samplers use the rest of the
// budget.
type exhaustive struct {
	e        *explorer
	s        *search
	complete bool
	retired  bool
	// analysis is the race analysis's work since the portfolio last charged it, in steps
	// (analysisPerStep): DPOR's share counts it, or the analysis of runs of thousands of
	// goroutines, which grows faster than their steps, would leave the samplers no time.
	analysis int64
}

// analysisPerStep is the race analysis's work (raceFinder.work) that costs about as much time
// as one step of a run. A count of work, not a time, keeps the exploration a function of its
// seed alone.
const analysisPerStep = 256

func (x *exhaustive) step() *rt.Result {
	res := x.s.step()
	x.analysis += int64(x.s.t.work / analysisPerStep)
	x.s.t.work = 0
	if !x.s.ended {
		return res
	}
	deeper := x.e.rep.Stats.PrunedDepth > x.s.prunedDepth
	switch {
	case !x.s.complete:
		x.retired = true // the program diverged, or a run was too large for the race analysis
	case !deeper && x.s.cuts == 0:
		x.complete = true
	case !deeper:
		x.retired = true
	default:
		next := x.e.newSearch(&optimal{}, -1)
		next.adaptive, next.longest = true, x.s.longest
		next.t.depth = 4 * x.s.t.depth
		next.t.nextID = x.s.t.nextID // node ids stay unique in the schedule tree view
		x.s = next
	}
	return res
}

// search is a systematic tree search performed one run at a time, so that the portfolio can
// interleave it with other strategies.
type search struct {
	e      *explorer
	t      *tree
	br     brancher
	gd     *Guide
	pruned int // Stats.PrunedBound when the search started
	// prunedDepth is Stats.PrunedDepth when the search started.
	prunedDepth int
	// adaptive bounds the depth of the tree once a run is cut at the step bound; longest is
	// the most decisions after the prefix of a run that ended on its own.
	adaptive bool
	longest  int
	cuts     int // runs stopped at the step bound
	// ended: the search explored its tree (complete) or the program diverged.
	ended, complete bool
}

func (e *explorer) newSearch(br brancher, bound int) *search {
	o := &e.opts
	t := &tree{br: br, stats: &e.rep.Stats, bound: bound,
		shard: o.Shard, shards: o.Shards, part: o.Part, parts: o.Parts, sh: sharesOf(o.Shard, o.Shards, o.Part, o.Parts)}
	if o.MaxTime > 0 {
		t.deadline = e.searchEnd()
	}
	if e.opts.OnNode != nil {
		t.onNode = e.emitNode
		t.onPop = e.emitPruned
	}
	footprints, persistent := stollerRuns(br)
	return &search{e: e, t: t, br: br, pruned: e.rep.Stats.PrunedBound, prunedDepth: e.rep.Stats.PrunedDepth,
		gd: &Guide{Prefix: e.base, Kinds: e.kinds, Bound: bound, Shard: o.Shard, Shards: o.Shards, Part: o.Part, Parts: o.Parts, SplitFrom: len(e.base), footprints: footprints, persistent: persistent}}
}

// tooLarge ends the search, incomplete, at a run too large for it.
func (s *search) tooLarge() {
	s.ended = true
	s.e.rep.Stats.TooLarge++
}

// step performs the search's next run and returns its result, valid until the next run.
func (s *search) step() *rt.Result {
	e, t := s.e, s.t
	res := e.once(s.gd)
	if res.Untold || s.gd.logFull {
		// A worker left out the run's steps (a long run without a finding), or the run had
		// more decisions than the guide logs: the tree does not know its decisions, so the
		// search ends incomplete, as for a run too large to analyse, and the portfolio's
		// samplers go on.
		s.tooLarge()
		return res
	}
	if res.Verdict.Kind == rt.VerdictDiverged {
		// The run did not follow its prefix, so it says nothing about the subtree the prefix
		// leads to: that subtree is skipped, and the search goes on with the alternatives that
		// do replay. The divergence is recorded by once.
		s.advance()
		return res
	}
	seen := res
	if s.adaptive {
		switch res.Verdict.Kind {
		case rt.VerdictCut, rt.VerdictLivelock:
			s.cuts++
			if t.depth == 0 {
				t.depth = max(minDepth, 2*s.longest)
			}
		case rt.VerdictPruned:
		default:
			s.longest = max(s.longest, len(res.Decisions)-len(e.base))
		}
		if t.depth > 0 {
			// Nothing beyond the depth bound branches: the tree and the race analysis see
			// the run up to it, which keeps a run of a hundred thousand steps cheap.
			end := len(e.base) + t.depth
			seen = truncated(res, end)
			s.gd.log = s.gd.log[:max(0, min(len(s.gd.log), end-len(s.gd.Prefix)))]
		}
	}
	t.absorbBase(s.gd, seen, len(e.base))
	if t.late {
		// The budget ran out while the run's races were being found: the search ends, as
		// when it runs out during a run.
		e.stopped, e.timedOut = true, true
	}
	if e.opts.OnNode != nil && res.Verdict.Kind != rt.VerdictPruned {
		e.emitLeaf(t, res)
	}
	if t.tooLarge {
		// The run's races were not found, so the tree does not know which orders to try
		// next: the search ends incomplete, and the portfolio's samplers go on.
		s.tooLarge()
		return res
	}
	if p, ok := s.br.(predictor); ok {
		// Predicted bugs are replayed at once, and the replay reuses the run's storage.
		res = res.Clone()
		for _, pr := range p.predict(res) {
			e.addPrediction(res, pr)
		}
	}
	if e.stopped {
		return res
	}
	s.advance()
	return res
}

// advance takes the next guide of the tree, or ends the search when there is none.
func (s *search) advance() {
	if s.gd = s.t.next(); s.gd == nil {
		s.ended, s.complete = true, true
		return
	}
	s.gd.Prefix = append(slices.Clip(s.e.base), s.gd.Prefix...)
	s.gd.Kinds = append(slices.Clip(s.e.kinds), s.gd.Kinds...)
}

// sampler runs random or PCT schedules, one per step, with seeds seed, seed+stride, ….
type sampler struct {
	e            *explorer
	gd           *Guide
	seed, stride uint64
}

// newSampler returns a sampler of the seeds from seed on that belong to the exploration's
// share: every Shards*Parts-th, so that the shares of a search never run a seed twice.
func (e *explorer) newSampler(p Policy, depth int, seed uint64) *sampler {
	o := &e.opts
	parts := max(o.Parts, 1)
	stride := uint64(max(o.Shards, 1) * parts)
	if stride > 1 {
		seed += uint64(o.Shard*parts + o.Part)
	}
	return &sampler{e: e, seed: seed, stride: stride,
		gd: &Guide{Prefix: e.base, Kinds: e.kinds, Bound: -1, Depth: depth, Policy: p, noLog: true}}
}

func (s *sampler) step() *rt.Result {
	s.gd.Seed = s.seed
	s.seed += s.stride
	s.gd.Length = max(s.e.maxLen, 16)
	return s.e.once(s.gd)
}

// truncated returns run res as seen up to decision n: the events before the step that
// decision n picked, and as pending the operations of the goroutines that did not step after
// it (they were pending at that point too).
func truncated(res *rt.Result, n int) *rt.Result {
	if len(res.Decisions) <= n {
		return res
	}
	end := len(res.Events)
	for i := range res.Events {
		if ev := &res.Events[i]; ev.Start && int(ev.Decision) >= n {
			end = i
			break
		}
	}
	moved := map[rt.GID]bool{}
	for i := range res.Events[end:] {
		ev := &res.Events[end+i]
		moved[ev.G] = true
		moved[ev.With] = true
		for _, p := range ev.Partners {
			moved[p.G] = true
		}
	}
	t := *res
	t.Events = res.Events[:end]
	t.Decisions = res.Decisions[:n]
	t.Pending = nil
	for _, g := range res.Pending {
		if !moved[g.ID] {
			t.Pending = append(t.Pending, g)
		}
	}
	if moved[rt.ClockID] {
		t.Clock = nil
	}
	return &t
}
