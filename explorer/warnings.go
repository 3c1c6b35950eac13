package explorer

import (
	"slices"
	"strings"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// A Warning is a distinct finding of a predictive check (rt.Warning) over an exploration:
// shown in the report, not a bug on its own. It is filed once per exploration, under its key.
type Warning struct {
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	Message string `json:"message"`
	Hits    int    `json:"hits"` // runs that showed it
	// Strategy and Run say which member of the search found it first, in which run.
	Strategy string `json:"strategy,omitempty"`
	Run      int    `json:"run,omitempty"`
	// Goroutines are the goroutines involved, by logical id: those of the two accesses, the
	// others that accessed the variable, those that wrote what these read, and their ancestors.
	// The race window explores them.
	Goroutines []string `json:"goroutines,omitempty"`
	// Confirmed, if not empty, says which failure the race window found the race to lead to:
	// "this race makes the test fail (…)".
	Confirmed string `json:"confirmed,omitempty"`
	// positions are those of the earlier and the later access.
	positions [2]string
	// raw is the run's warning, with the logical names of its goroutines in that run and the
	// run's schedule, for naming the locks by the program's expressions (nameLocks).
	raw      rt.Warning
	gnames   map[rt.GID]string
	schedule []rt.Decision
	// atomicity names the function of an "atomicity" warning.
	atomicity *record.Atomicity
}

// addWarnings files the warnings of run res.
func (e *explorer) addWarnings(res *rt.Result) {
	for i := range res.Warnings {
		rw := &res.Warnings[i]
		key := rw.Key()
		if w := e.warnings[key]; w != nil {
			w.Hits++
			if stollerSearch(e.opts.Strategy) && e.warnings["mld "+key] != nil {
				e.warnings["mld "+key].Hits++
			}
			continue
		}
		w := &Warning{Kind: rw.Kind, Key: key, Message: rw.Message(res), Hits: 1, Strategy: e.member, Run: e.rep.Stats.Runs,
			Goroutines: involved(res, rw), positions: [2]string{rw.Earlier.Pos, rw.Later.Pos}}
		w.keepNames(res, rw)
		if e.warnings == nil {
			e.warnings = map[string]*Warning{}
		}
		e.warnings[key] = w
		e.rep.Warnings = append(e.rep.Warnings, w)
		if stollerSearch(e.opts.Strategy) {
			e.addMLD(res, rw)
		}
	}
}

// stollerSearch reports whether strategy s is one of Stoller's reductions, which assume MLD.
func stollerSearch(s Strategy) bool { return s == Stoller || s == StollerPS }

// addMLD files, in a stoller search, the violation of the locking discipline that Stoller's
// reduction assumes (MLD′, "Model-checking multi-threaded distributed Java programs", §9): a
// variable that two goroutines access, one of them writing, with no common lock and no other
// order. heddle's initThread of a variable is the goroutine whose accesses come first and
// happen before every other goroutine's, which the lockset check verifies on every run rather
// than trusting the schedule: under the reduction, accesses are invisible and a step runs them
// right after its visible operation, so an unordered initialisation (§9's v := 1 after
// sem.up()) would otherwise pass as one.
func (e *explorer) addMLD(res *rt.Result, rw *rt.Warning) {
	key := "mld " + rw.Key()
	if e.warnings[key] != nil {
		return
	}
	w := &Warning{Kind: "mld", Key: key, Hits: 1, Strategy: e.member, Run: e.rep.Stats.Runs, Goroutines: involved(res, rw),
		Message: mldMessage(rw.Message(res))}
	w.keepNames(res, rw)
	e.warnings[key] = w
	e.rep.Warnings = append(e.rep.Warnings, w)
}

func mldMessage(lockset string) string {
	return "the stoller search is not sound for this program: it breaks the locking discipline (MLD′) that the reduction assumes, " +
		strings.TrimPrefix(lockset, "lockset: ") + "; schedules that order these accesses otherwise may be missing"
}

// keepNames keeps rw, whose storage is the run's, and the names of its goroutines and locks
// in res.
func (w *Warning) keepNames(res *rt.Result, rw *rt.Warning) {
	w.raw = *rw
	w.raw.Earlier.Locks = slices.Clone(rw.Earlier.Locks)
	w.raw.Later.Locks = slices.Clone(rw.Later.Locks)
	w.raw.Others = slices.Clone(rw.Others)
	w.gnames = map[rt.GID]string{rw.Earlier.G: res.Name(rw.Earlier.G), rw.Later.G: res.Name(rw.Later.G)}
	if len(rw.Earlier.Locks)+len(rw.Later.Locks) > 0 {
		w.schedule = slices.Clone(res.Decisions)
	}
}

// nameLocks names the locks of each warning by the program's expressions (r.mu): the run that
// showed it is replayed in detail, for the positions of its lock operations, as a bug's is.
func (e *explorer) nameLocks(over func() bool) {
	for _, w := range e.rep.Warnings {
		if w.schedule == nil || over() || !e.canReplay() {
			continue
		}
		detail := e.r.Run(scheduleGuide(w.schedule), true)
		names := lockTrees(detail).Names
		msg := w.raw.Describe(func(g rt.GID) string { return w.gnames[g] }, func(o rt.ObjID) string {
			l := detail.ObjName(o)
			if n := names[l]; n != "" {
				return n
			}
			return l
		})
		if w.Kind == "mld" {
			msg = mldMessage(msg)
		}
		w.Message = msg
	}
}

// involved returns the logical ids of the goroutines of w's accesses, of the others involved
// (rt.Warning.Others), and of their ancestors.
func involved(res *rt.Result, w *rt.Warning) []string {
	var names []string
	add := func(g rt.GID) {
		for g >= 0 && int(g) < len(res.Goroutines) {
			if n := res.Name(g); !slices.Contains(names, n) {
				names = append(names, n)
			}
			g = res.Goroutines[g].Parent
		}
	}
	add(w.Earlier.G)
	add(w.Later.G)
	for _, g := range w.Others {
		add(g)
	}
	return names
}

// WireWarnings converts warnings to the form the worker protocol and the files carry.
func WireWarnings(ws []*Warning) []*record.Warning {
	out := make([]*record.Warning, len(ws))
	for i, w := range ws {
		out[i] = &record.Warning{Kind: w.Kind, Key: w.Key, Message: w.Message, Hits: w.Hits, Strategy: w.Strategy,
			Run: w.Run, Goroutines: w.Goroutines, Confirmed: w.Confirmed, Atomicity: w.atomicity}
	}
	return out
}
