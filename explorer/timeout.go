package explorer

import (
	"slices"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// The timeout search runs after the main search, as the race window does: what if a timeout
// fires before the work it waits for? Under the default time (rt.TimeQuantum) a 10 ms timeout
// beats work only after a million steps of it, so a receiver that gives up on a slow sender,
// leaving the sender blocked for ever, is never seen.
//
// The search asks the question of each timeout in turn. A first run lists where the program
// sets timers that a goroutine may wait for (rt.Config.TimerSites: a timer's channel,
// AfterFunc, a context's deadline); every run of the search adds the sites it reaches. Then,
// round robin over the sites, a PCT run lets the clock fire early only for timers set at one
// site, and only while a goroutine other than the one that set it can run (rt.Config.Timeout):
// the work that the timeout may beat. The search keeps only what that breaks elsewhere: a
// leak, a deadlock, a panic or a misuse. The test's own handling of its timeout (t.Fatal
// ("timeout") in the branch of the guard) is not a bug, and is not reported; nor is what
// follows once the test has failed, such as a cleanup that deadlocks on a lock the failed test
// still holds (rt.Result.TestFailed). A bug it finds
// says which timer fired before which goroutine reached where it blocks (rt.Verdict.Timing),
// and replays with the same timeout under adversarial time, which its schedule names.

// timeoutShare is the inverse of the share of the budget that the main search leaves to the
// timeout search, once a run has set a timer, and that the timeout search takes at most.
const timeoutShare = 10

// timeoutRuns bounds the timeout search.
const timeoutRuns = 200

// timeoutBug are the verdicts that the timeout search reports.
var timeoutBug = map[rt.VerdictKind]bool{rt.VerdictLeak: true, rt.VerdictDeadlock: true, rt.VerdictPanic: true, rt.VerdictMisuse: true}

// timeoutSearch runs the timeout search if a run set a timer and the budget allows.
func (e *explorer) timeoutSearch() {
	if !e.sawTimer || e.stopped || e.opts.Time == rt.TimeAdversarial {
		return
	}
	member := e.member
	e.member, e.timeouts = "timeout-search", true
	defer func() { e.member, e.timeouts, e.timeout = member, false, "" }()
	start, limit := e.rep.Stats.Runs, timeoutRuns
	if e.opts.MaxRuns > 0 {
		limit = min(limit, max(1, e.opts.MaxRuns/timeoutShare))
	}
	var end time.Time
	if e.opts.MaxTime > 0 {
		end = time.Now().Add(e.opts.MaxTime / timeoutShare)
	}
	more := func() bool {
		return e.rep.Stats.Runs-start < limit && !e.overBudget() && (end.IsZero() || time.Now().Before(end))
	}
	s := e.newSampler(PolicyPCT, e.opts.Depth, e.opts.Seed+1)
	// The first run, under the search's own time, finds the timeouts to ask about.
	if more() {
		s.step()
	}
	tried := map[string]bool{}
	for i := 0; len(e.timerSites) > 0 && more(); i++ {
		e.timeout = e.timerSites[i%len(e.timerSites)]
		tried[e.timeout] = true
		s.step()
	}
	e.rep.Stats.TimeoutRuns = e.rep.Stats.Runs - start
	e.rep.Stats.Timeouts = len(tried)
}

// setsTimer reports whether run res set a timer (a timer, a ticker, AfterFunc, a context's
// deadline), which a timeout may beat work with.
func setsTimer(res *rt.Result) bool {
	return slices.ContainsFunc(res.Events, func(e rt.Event) bool { return e.Op == rt.OpTimer })
}

// scheduleGuide is a guide that replays ds, asking about timeout if it is set.
func (e *explorer) scheduleGuide(ds []rt.Decision, timeout string) *Guide {
	gd := scheduleGuide(ds)
	gd.Timeout = timeout
	return gd
}
