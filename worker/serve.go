package worker

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// serveExplore answers an "explore" request in a worker: it explores in this process and
// streams progress (at most ten times a second), tree nodes (if asked), every new bug with
// its detailed trace, and a final "done" message.
//
// A subtest that heddle cannot explore is left out: when a run ends as unexplorable inside a
// subtest, the exploration starts again with that subtest skipped in every run (leftOut), and
// its other subtests are explored. What the first run streamed is held until the run is over,
// so that an exploration that its first run voids reaches the controller not at all; one that
// a later run voids is followed by a "restart" message, after which the controller takes
// what comes as the whole exploration.
func serveExplore(h explorer.Harness, req wire.Request, prog record.Program, send func(*wire.Message)) {
	opts := explorer.OptionsOf(req.Options)
	start, budget := time.Now(), opts.MaxTime
	leftOut = nil
	defer func() { leftOut = nil }()
	var held []*wire.Message // the first run's, while it may be discarded
	holding := true
	stream := func(m *wire.Message) {
		if holding {
			held = append(held, m)
		} else {
			send(m)
		}
	}
	release := func() {
		holding = false
		for _, m := range held {
			send(m)
		}
		held = nil
	}
	var last time.Time
	opts.Progress = func(s *record.Stats) {
		if now := time.Now(); now.Sub(last) >= 100*time.Millisecond {
			last = now
			st := *s
			send(&wire.Message{Type: wire.MsgProgress, Stats: &st})
		}
	}
	sent := 0
	if req.Options.Tree {
		// The controller writes every node it receives to the exploration file when the
		// exploration ends, part of the budget.
		opts.ReportCost = func() time.Duration { return time.Duration(sent) * nodeWriteCost }
		opts.OnNode = func(n record.Node) {
			// The schedule tree is for people: past this size it is summarised by the
			// statistics alone.
			if sent < maxTreeNodes {
				sent++
				stream(&wire.Message{Type: wire.MsgNode, Node: &n})
			}
		}
	}
	// Bugs are streamed as found; their traces follow when the exploration ends.
	opts.OnBug = func(b *explorer.Bug) {
		if b.Kind == rt.VerdictUnsupported && unexplorableIn.subtest != "" {
			// The run ended in a subtest heddle cannot explore: the exploration starts again
			// without it, or, if it cannot, reports the bug with the others at its end.
			return
		}
		stream(&wire.Message{Type: wire.MsgFound, Bug: explorer.WireBug(b)})
	}
	var rep *explorer.Report
	for {
		clearSubtests()
		runs := 0
		var in struct{ subtest, reason string } // where a run was unexplorable
		rep = explorer.ExploreWith(func(run func(body func())) {
			h(run)
			if unexplorableIn.subtest != "" {
				in = unexplorableIn // a run so ends the exploration
			}
			if runs++; runs == 1 && holding && in.subtest == "" {
				release()
			}
		}, opts)
		// A process that can run no more schedules (rt.Poisoned) cannot explore again.
		if _, again := leftOut[in.subtest]; rep.Err != nil || in.subtest == "" || again || rt.Poisoned() != nil {
			break
		}
		if leftOut == nil {
			leftOut = map[string]string{}
		}
		leftOut[in.subtest] = in.reason
		if holding {
			held = nil
		} else {
			// The tree and bugs streamed are of runs that may enter the subtest.
			send(&wire.Message{Type: wire.MsgRestart})
		}
		sent = 0
		if budget > 0 {
			opts.MaxTime = max(budget-time.Since(start), time.Millisecond)
		}
	}
	release()
	if rep.Err != nil {
		send(&wire.Message{Type: wire.MsgError, Error: "heddle worker: " + rep.Err.Error()})
		return
	}
	deadlock := false
	for _, b := range rep.Bugs {
		deadlock = deadlock || b.Kind == rt.VerdictDeadlock
		wb := explorer.WireBugTrace(b, prog, opts.Strategy.String())
		if wb.Trace != nil {
			wb.Trace.LeftOut = leftOutNames()
		}
		send(&wire.Message{Type: wire.MsgBug, Bug: wb})
	}
	// A lock-order inversion is a deadlock that the runs may not have hit: report it, with the
	// run its lock trees come from, unless a deadlock was found anyway.
	if rep.LockTrees != nil && !deadlock {
		lt := rep.LockTrees
		var trace *record.Trace
		if len(lt.Warnings) > 0 {
			trace = record.FromResult(rep.First, prog, opts.Strategy.String())
			trace.LeftOut = leftOutNames()
		}
		for _, w := range lt.Warnings {
			send(&wire.Message{Type: wire.MsgBug, Bug: &wire.Bug{
				Kind: "lockorder",
				Key:  "lockorder|" + w.Locks[0] + "|" + w.Locks[1],
				Message: fmt.Sprintf("lock-order inversion between %s and %s: %s nests %s, %s nests %s",
					lt.Label(w.Locks[0]), lt.Label(w.Locks[1]), w.First.G, lockPath(lt, w.First.Path), w.Second.G, lockPath(lt, w.Second.Path)),
				Hits:  1,
				Trace: trace,
			}})
		}
	}
	send(&wire.Message{Type: wire.MsgDone, Stats: &rep.Stats, LockTrees: rep.LockTrees, Divergence: rep.Divergence, Warnings: explorer.WireWarnings(rep.Warnings), Atomicity: rep.Atomicity, Skipped: skipped, Skips: skips, Subtests: started})
}

// leftOutNames returns the subtests that the exploration leaves out, in order.
func leftOutNames() []string {
	return slices.Sorted(maps.Keys(leftOut))
}

// lockPath shows a lock tree's path by the locks' names.
func lockPath(lt *locktree.Report, path []string) string {
	var b strings.Builder
	for i, l := range path {
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(lt.Label(l))
	}
	return b.String()
}

const maxTreeNodes = 200_000

// nodeWriteCost is what writing one node of the schedule tree to the exploration file costs
// the controller (JSON encoding and writing), measured on a tree of 40,000 nodes.
const nodeWriteCost = 10 * time.Microsecond

// limitSteps is the longest run whose answer a worker sends: three quarters of the largest
// message, at wire.StepBytes a step.
var limitSteps = wire.MaxMessage * 3 / 4 / wire.StepBytes

// untoldSteps is the longest run without a finding whose answer carries its steps (Result.Untold).
var untoldSteps = 100_000

// serveRun answers a "run" request: one run steered by the request's guide.
func serveRun(h explorer.Harness, req wire.Request) *wire.Message {
	if req.Guide == nil {
		return &wire.Message{Type: wire.MsgError, Error: "run request without a guide"}
	}
	gd := explorer.GuideOf(req.Guide)
	clearSubtests()
	leftOut = req.LeftOut
	defer func() { leftOut = nil }()
	res := explorer.RunGuided(h, gd, explorer.OptionsOf(req.Options), req.Detail)
	if res.Verdict.Kind == rt.VerdictStopped && !req.Detail {
		// The time budget ended during the run, and the exploration ends with it: it needs
		// the run's verdict and length, not its steps. ants' tests stopped after 600,000
		// steps, whose answer took the rest of the budget twice over to encode and decode.
		sent := *res
		sent.Events, sent.Decisions, sent.Pending = nil, nil, nil
		return &wire.Message{Type: wire.MsgResult, Result: &sent, Error: gd.Diverged(), Skipped: skipped, Skips: skips, Subtests: started}
	}
	if !req.Detail && res.Steps > untoldSteps && !res.Verdict.Kind.Bug() && len(res.Warnings) == 0 && len(res.Regions) == 0 {
		// A long run without a finding: its steps would take seconds to encode (27 µs a step
		// under the race detector) for a search that gains little from them. The controller
		// counts the run and its verdict; DPOR cannot branch from it and retires.
		sent := *res
		sent.Events, sent.Decisions, sent.Pending, sent.Untold = nil, nil, nil, true
		return &wire.Message{Type: wire.MsgResult, Result: &sent, Error: gd.Diverged(), Skipped: skipped, Skips: skips, Subtests: started}
	}
	if res.Steps > limitSteps {
		// Said at once: encoding an answer of hundreds of megabytes for the controller to
		// refuse took ants' TestAntsPoolWaitToGetWorker 8 minutes under the race detector.
		return &wire.Message{Type: wire.MsgError, Error: fmt.Sprintf("a run of %d steps in a process of its own: its answer, which carries every step, would be over heddle's limit of %d MB (a smaller -budget or -steps keeps its runs shorter)", res.Steps, wire.MaxMessage>>20)}
	}
	sent := *res
	var kept []wire.Kept
	sent.Decisions, kept = wire.DeltaDecisions(res.Decisions)
	return &wire.Message{Type: wire.MsgResult, Result: &sent, Log: gd.Log(), DecisionsKept: kept, Error: gd.Diverged(), Skipped: skipped, Skips: skips, Subtests: started}
}
