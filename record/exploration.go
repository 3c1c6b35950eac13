package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/heddledbg/heddle/locktree"
)

// Exploration is the result of exploring one test: the exploration file.
type Exploration struct {
	Heddle    string           `json:"heddle"`
	Version   int              `json:"version"`
	Program   Program          `json:"program"`
	Strategy  string           `json:"strategy,omitempty"`
	Stats     Stats            `json:"stats"`
	Tree      []Node           `json:"tree"`
	Bugs      []Bug            `json:"bugs"`
	LockTrees *locktree.Report `json:"lockTrees,omitempty"`
	// Shard, if set, says that the exploration is one shard's share of the search (heddle test
	// -shard), to be combined with the others' by heddle merge.
	Shard *Shard `json:"shard,omitempty"`
	// Warnings are the findings of the checks on plain memory accesses (docs/races.md).
	Warnings []Warning `json:"warnings,omitempty"`
	// Skipped says whether the test skipped itself (t.Skip) and no run failed: go test and
	// heddle test report it as skipped.
	Skipped bool `json:"skipped,omitempty"`
	// Skips are the subtests that skipped themselves, as go test reports them.
	Skips []Skip `json:"skips,omitempty"`
	// Subtests are the subtests that the runs started, in the order in which they first did:
	// go test reports each under the test, as failed if a bug's run ended in it
	// (Verdict.Subtest), skipped if it is in Skips, and passed otherwise.
	Subtests []string `json:"subtests,omitempty"`
	// Unexplorable, if set, says why heddle could not explore the test: go test's SKIP line
	// of heddle test, "cannot be explored: …".
	Unexplorable string `json:"unexplorable,omitempty"`
}

// Skip is a subtest that skipped itself (t.Skip, t.Skipf, t.SkipNow) in a run, as go test
// reports it: its name as go test prints it (TestX/sub) and its log, the skip's message last.
// A subtest is reported once, from the first run in which it skipped.
type Skip struct {
	Test   string `json:"test"`
	Output string `json:"output,omitempty"`
}

// SkipUnexplorable begins the output of a Skip that heddle left out of the exploration, because it
// cannot explore it, before the reason.
const SkipUnexplorable = "heddle: cannot be explored: "

// AddSkips appends to skips those of more whose subtests it does not hold yet.
func AddSkips(skips, more []Skip) []Skip {
	for _, k := range more {
		if !slices.ContainsFunc(skips, func(s Skip) bool { return s.Test == k.Test }) {
			skips = append(skips, k)
		}
	}
	return skips
}

// AddSubtests appends to subtests those of more that it does not hold yet.
func AddSubtests(subtests, more []string) []string {
	for _, s := range more {
		if !slices.Contains(subtests, s) {
			subtests = append(subtests, s)
		}
	}
	return subtests
}

// Warning is a finding of a predictive check: "lockset" (Eraser's discipline), "mld"
// (Stoller's MLD′ during a stoller search) or "atomicity" (a //heddle:atomic function
// possibly not atomic). It is not a bug and has no schedule of its own.
type Warning struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Hits    int    `json:"hits"`
	// Key identifies the warning across runs, workers and shards.
	Key string `json:"key,omitempty"`
	// Strategy and Run say which member of the search found it first, in which run.
	Strategy   string   `json:"strategy,omitempty"`
	Run        int      `json:"run,omitempty"`
	Goroutines []string `json:"goroutines,omitempty"`
	// Confirmed says which failure the race window found the race to lead to.
	Confirmed string `json:"confirmed,omitempty"`
	// Atomicity names the function of an "atomicity" warning (possibly not atomic).
	Atomicity *Atomicity `json:"atomicity,omitempty"`
}

// Shard is the share of a search that a sharded exploration made: Index of Of, from 0.
type Shard struct {
	Index int `json:"index"`
	Of    int `json:"of"`
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Of) }

// Stats count an exploration's work. The explorer fills them as it searches; the worker
// protocol, the exploration file and the live stream carry them as they are.
type Stats struct {
	Runs             int `json:"runs"`
	Decisions        int `json:"decisions"`          // decision nodes created in the schedule tree
	Diverged         int `json:"diverged,omitempty"` // runs whose schedule did not fit the program: their subtrees are skipped
	PrunedSleep      int `json:"prunedSleep"`        // alternatives pruned by sleep sets
	PrunedPersistent int `json:"prunedPersistent"`   // alternatives outside every backtrack (persistent) set
	PrunedDelayed    int `json:"prunedDelayed"`      // alternatives delayed away (ExitBlock-RW)
	PrunedBound      int `json:"prunedBound,omitempty"`
	PrunedDepth      int `json:"prunedDepth,omitempty"` // alternatives beyond the portfolio's depth bound
	Aborted          int `json:"aborted,omitempty"`     // runs abandoned because every enabled goroutine was asleep
	Elsewhere        int `json:"elsewhere,omitempty"`   // runs of a sharded search that belong to another shard (explorer/shard.go)
	Cut              int `json:"cut,omitempty"`         // runs stopped at the step bound while making progress
	Stopped          int `json:"stopped,omitempty"`     // runs stopped at the end of the time budget
	TooLarge         int `json:"tooLarge,omitempty"`    // runs too large for DPOR: too many goroutines times objects for its race analysis, or a long run a worker answered without its steps; the systematic search ended at the first
	Bugs             int `json:"bugs"`                  // distinct bugs
	BuggyRuns        int `json:"buggyRuns,omitempty"`   // runs that ended in a bug
	Steps            int `json:"steps,omitempty"`       // steps taken over all runs
	TimeoutRuns      int `json:"timeoutRuns,omitempty"` // runs of the timeout search (explorer/timeout.go), counted in Runs
	Timeouts         int `json:"timeouts,omitempty"`    // the timer sites the timeout search asked about
	// Elapsed is written as a Go duration string ("1.2s"), which is what a person reads in the
	// file, together with the derived schedulesPerSecond; see MarshalJSON.
	Elapsed  time.Duration `json:"-"`
	Complete bool          `json:"complete"` // the strategy exhausted its search space within the budget, and no run was cut
}

// Add adds the counts of o, the statistics of another share of the same search (a shard, a
// worker), to s. The shares ran side by side: the elapsed time is the longest, and the search
// is complete only if every share is.
func (s *Stats) Add(o *Stats) {
	s.Runs += o.Runs
	s.Decisions += o.Decisions
	s.Diverged += o.Diverged
	s.PrunedSleep += o.PrunedSleep
	s.PrunedPersistent += o.PrunedPersistent
	s.PrunedDelayed += o.PrunedDelayed
	s.PrunedBound += o.PrunedBound
	s.PrunedDepth += o.PrunedDepth
	s.Aborted += o.Aborted
	s.Elsewhere += o.Elsewhere
	s.Cut += o.Cut
	s.Stopped += o.Stopped
	s.TooLarge += o.TooLarge
	s.BuggyRuns += o.BuggyRuns
	s.Steps += o.Steps
	s.TimeoutRuns += o.TimeoutRuns
	s.Timeouts = max(s.Timeouts, o.Timeouts)
	s.Elapsed = max(s.Elapsed, o.Elapsed)
	s.Complete = s.Complete && o.Complete
}

// StepsPerSecond is the rate of steps, the measure of a search's speed that does not depend
// on the length of the runs.
func (s *Stats) StepsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Steps) / s.Elapsed.Seconds()
}

// SchedulesPerSecond is the run rate.
func (s *Stats) SchedulesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Runs) / s.Elapsed.Seconds()
}

// statsJSON is the encoded form of Stats: the fields that are not plain values of the Go
// type (a duration string and the derived rate) are added beside the others.
type statsJSON struct {
	plainStats
	Elapsed            string  `json:"elapsed,omitempty"`
	SchedulesPerSecond float64 `json:"schedulesPerSecond"`
}

type plainStats Stats

// MarshalJSON writes Elapsed as a duration string and adds schedulesPerSecond.
func (s Stats) MarshalJSON() ([]byte, error) {
	j := statsJSON{plainStats: plainStats(s), SchedulesPerSecond: s.SchedulesPerSecond()}
	if s.Elapsed != 0 {
		j.Elapsed = s.Elapsed.String()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, strictly: an unknown field is an error, as
// in the rest of a heddle file. schedulesPerSecond is derived and not read back.
func (s *Stats) UnmarshalJSON(data []byte) error {
	var j statsJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return err
	}
	*s = Stats(j.plainStats)
	if j.Elapsed != "" {
		d, err := time.ParseDuration(j.Elapsed)
		if err != nil {
			return fmt.Errorf("elapsed: %q is not a duration", j.Elapsed)
		}
		s.Elapsed = d
	}
	return nil
}

// Node is a node of the schedule tree: a decision point, or a leaf where a run ended. The
// edge into a node is the step chosen at its parent: G, Op, Obj and Pos describe that step.
// Parents come before their children, so that a tree can be drawn as it streams in.
type Node struct {
	ID     int `json:"id"`
	Parent int `json:"parent"` // -1 for the root, or Revisit
	// Kind is the decision kind of a decision point.
	Kind string `json:"kind,omitempty"`
	// The edge from the parent: the goroutine (or select case, or value) chosen, and the
	// operation it was stopped before.
	G   string `json:"g,omitempty"`
	Op  string `json:"op,omitempty"`
	Obj string `json:"obj,omitempty"`
	Pos *Pos   `json:"pos,omitempty"`
	// Enabled names the alternatives of a decision point; a leaf has none.
	Enabled []string `json:"enabled"`
	Pruned  []Pruned `json:"pruned,omitempty"`
	Leaf    *Leaf    `json:"leaf,omitempty"`
}

// Revisit is the Parent of a node the explorer sends again, with Pruned filled in, once the
// search has left its subtree for good. Only the worker protocol carries such nodes: the
// exploration file and the live stream hold each node once.
const Revisit = -2

// Pruned is an alternative the search did not explore, and why: "sleep" (sleep set),
// "persistent" (outside the backtrack set), "delayed" (ExitBlock-RW), "bound" (preemption
// bound), "depth" (the portfolio's depth bound).
type Pruned struct {
	G      string `json:"g"`
	Reason string `json:"reason"`
}

// pruneReasons are the reasons a Pruned may give.
var pruneReasons = map[string]bool{"sleep": true, "persistent": true, "delayed": true, "bound": true, "depth": true}

// Leaf is how the run that ended at a leaf ended.
type Leaf struct {
	Verdict string `json:"verdict"`
	// Bug is the id of the run's bug in the exploration's bugs; Key is the bug's signature,
	// which identifies it across runs and shards before bugs are numbered.
	Bug *int   `json:"bug,omitempty"`
	Key string `json:"key,omitempty"`
}

// Bug is a bug found by an exploration: an entry of an exploration file, of the live stream
// and of heddle test -json's events.
type Bug struct {
	ID      int    `json:"id"`
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
	// Trace is the bug's trace file: in an exploration file, relative to it.
	Trace       string `json:"trace,omitempty"`
	Replay      string `json:"replay,omitempty"`
	Preemptions int    `json:"preemptions"`
	Hits        int    `json:"hits,omitempty"`
	// Key is the bug's signature (Leaf.Key), which tells the same bug found by two shards.
	Key string `json:"key,omitempty"`
	// Goroutines, in heddle test -json's events, are the goroutines of the bug's verdict, so
	// that a tool can place the bug without reading its trace.
	Goroutines []GoroutineState `json:"goroutines,omitempty"`
	// History, in heddle test -json's events, is a linearizability bug's history.
	History []Operation `json:"history,omitempty"`
}

// MergeWarnings adds the warnings ws of one worker or shard to those of the others, once per
// key.
func MergeWarnings(all []*Warning, ws []*Warning) []*Warning {
	for _, w := range ws {
		i := slices.IndexFunc(all, func(o *Warning) bool { return o.Key == w.Key })
		if i < 0 {
			c := *w
			all = append(all, &c)
			continue
		}
		all[i].Hits += w.Hits
		if all[i].Confirmed == "" {
			all[i].Confirmed = w.Confirmed
		}
	}
	return all
}
