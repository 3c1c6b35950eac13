//go:build race

package rt

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"
)

// Data races are found by the Go race detector (ThreadSanitizer), which instruments every
// memory access of a -race build, in every package. Heddle hands control from one goroutine
// to the next over real channels, and the detector would take each hand-off for
// synchronization: everything would be ordered and no race found. So the hand-offs, and rt's
// own locks and counters, are hidden from it (raceHide), and rt tells it instead of the
// happens-before edges of heddle's model of synchronization: a release on an object's address
// where the operation releases (Unlock, a send, close, Done, an atomic store), an acquire
// where it acquires, and a goroutine completed by another one acquires what its partner
// released. A go statement orders the parent before the child by itself, since the child's
// carrier is started by the go statement; a goroutine's exit orders nothing.
//
// The detector reports a race as it happens, once per pair of stacks in a process. Each
// worker process writes its reports to a file of its own (GORACE=log_path, suffixed with the
// process id), so a run's reports are those written while it ran. rt's own state, which
// goroutines touch in turn across the hidden hand-offs, races for the detector: RaceSuppressions
// keep those races from being reported, and any that comes through is left out here.

const raceEnabled = true

// The addresses whose happens-before clocks stand for objects and goroutines. They lie in
// the data segment, which the detector accepts, and wrap around past their length, which
// only adds edges.
var (
	raceObjs [1 << 16]uint64
	raceGs   [1 << 12]uint64
	// raceWake holds, for a goroutine completed by another, the object it acquires when it
	// resumes, plus one.
	raceWake [len(raceGs)]int32
)

func raceObjAddr(id ObjID) unsafe.Pointer { return unsafe.Pointer(&raceObjs[int(id)%len(raceObjs)]) }
func raceGAddr(g *goroutine) unsafe.Pointer {
	return unsafe.Pointer(&raceGs[int(g.id)%len(raceGs)])
}

func raceHide() { runtime.RaceDisable() }
func raceShow() { runtime.RaceEnable() }

func raceAcquire(id ObjID) {
	if id >= 0 {
		runtime.RaceAcquire(raceObjAddr(id))
	}
}

// raceRelease merges rather than overwrites: releases that heddle does not order among
// themselves (RUnlock, Done, buffered sends) all happen before the acquires that follow.
func raceRelease(id ObjID) {
	if id >= 0 {
		runtime.RaceReleaseMerge(raceObjAddr(id))
	}
}

// raceParked is called by g as it parks on a channel operation: a receiver that completes a
// parked send learns what the sender did before it.
func (r *run) raceParked(g *goroutine) { runtime.RaceRelease(raceGAddr(g)) }

// raceResume is called by the goroutine that completes w's parked or pending operation,
// before w resumes: w acquires, on its resumption, what its partner did so far. Completing a
// channel operation also makes the partner acquire what w did before it parked, so that a
// rendezvous orders both ways: the receive of an unbuffered channel happens before the send
// completes, as does the kth receive of a buffered one before the (k+C)th send. A close is not
// ordered after the receivers it completes.
//
//go:norace
func (r *run) raceResume(w *goroutine) {
	id := w.op.obj
	if w.op.kind == OpSelect && w.selected >= 0 && w.selected < len(w.op.cases) {
		if c := w.op.cases[w.selected]; c.st != nil {
			id = c.st.obj.id
		}
	}
	switch w.op.kind {
	case OpSend, OpRecv, OpSelect:
		if r.cur == nil || r.cur.op.kind != OpClose {
			runtime.RaceAcquire(raceGAddr(w))
		}
	}
	if id < 0 {
		return
	}
	raceRelease(id)
	raceWake[int(w.id)%len(raceWake)] = int32(id) + 1
}

// raceStartAfter makes g, a goroutine started by the clock (time.AfterFunc), acquire the
// timer's object as it starts: it does not inherit the clock of the goroutine whose stack the
// clock's step runs on.
func raceStartAfter(g *goroutine, id ObjID) {
	if id >= 0 {
		raceWake[int(g.id)%len(raceWake)] = int32(id) + 1
	}
}

// raceWoken is called by g when it resumes after a hand-off.
//
//go:norace
func raceWoken(g *goroutine) {
	i := int(g.id) % len(raceWake)
	if k := raceWake[i]; k != 0 {
		raceWake[i] = 0
		raceAcquire(ObjID(k - 1))
	}
}

// raceReports tracks the detector's reports: how many were counted, and how far the log has
// been read.
var raceReports struct {
	seen int
	log  string // "" when the reports go to standard error
	off  int
	// verdicts keeps the race verdict of each run that showed one, with the run's steps up to
	// the race: the detector reports a pair of accesses only once in a process, so a run that
	// takes the same steps (the detailed replay of the bug) finds its race here.
	verdicts []raceSeen
}

func init() {
	for _, kv := range strings.Fields(os.Getenv("GORACE")) {
		if v, ok := strings.CutPrefix(kv, "log_path="); ok && v != "stdout" && v != "stderr" {
			raceReports.log = v + "." + strconv.Itoa(os.Getpid())
		}
	}
}

// raceSteps attributes the reports of the run in progress: the detector numbers goroutines its
// own way, so the goroutine that made the access that found a race is told by counting the
// reports at every scheduling point. Reports up to upTo (a count since the process started)
// were made by g, in the steps before step.
var raceSteps []raceStep

type raceStep struct {
	upTo, step int
	g          *goroutine
}

type raceSeen struct {
	steps   string // raceKey up to the step in which the race happened
	verdict Verdict
}

// raceStart leaves out the reports made before the run.
func (r *run) raceStart() {
	clear(raceWake[:])
	raceSteps = raceSteps[:0]
	if n := runtime.RaceErrors(); n != raceReports.seen {
		raceReports.seen = n
		raceReadLog()
	}
}

// raceStep is called at every scheduling point with the goroutine that has run up to it.
//
//go:norace
func (r *run) raceStep(g *goroutine) {
	seen := raceReports.seen
	if k := len(raceSteps); k > 0 {
		seen = raceSteps[k-1].upTo
	}
	if n := runtime.RaceErrors(); n != seen {
		raceSteps = append(raceSteps, raceStep{upTo: n, step: r.steps, g: g})
	}
}

func raceReadLog() string {
	if raceReports.log == "" {
		return ""
	}
	data, err := os.ReadFile(raceReports.log)
	if err != nil || len(data) < raceReports.off {
		return ""
	}
	text := string(data[raceReports.off:])
	raceReports.off = len(data)
	return text
}

// raceVerdict makes a run in which the detector reported a race of the program's a race
// verdict. It takes the place of a verdict that says less: none, a leak, or the failure that
// the testing package records for a race ("race detected during execution of test").
func (r *run) raceVerdict() {
	if !raceOverrides(r.verdict) {
		return
	}
	cached := func() {
		if len(raceReports.verdicts) == 0 {
			return
		}
		key := r.raceKey(len(r.events))
		for _, s := range raceReports.verdicts {
			if strings.HasPrefix(key, s.steps) {
				r.verdict = s.verdict
				return
			}
		}
	}
	n := runtime.RaceErrors()
	if n == raceReports.seen {
		cached()
		return
	}
	first, steps := raceReports.seen, len(r.events)
	raceReports.seen = n
	text := raceReadLog()
	var v Verdict
	if raceReports.log == "" {
		v = Verdict{Kind: VerdictRace, Message: "data race (the race detector's report is on standard error)"}
	} else {
		reports := parseRaceReports(text)
		i := 0
		for i < len(reports) && reports[i].internal() {
			i++
		}
		if i == len(reports) {
			// Only heddle's own state. If the test failed only because the testing package
			// saw those reports, it did not fail. The harness reports a failure of the test's
			// own without the race marker (harness.failedOnItsOwn), so a fatal verdict that
			// carries the marker is one it could not tell apart.
			if r.verdict.Kind == VerdictFatal {
				r.verdict = Verdict{Kind: VerdictOK}
			}
			cached()
			return
		}
		var by *goroutine
		for _, s := range raceSteps {
			if first+i < s.upTo {
				by, steps = s.g, s.step
				break
			}
		}
		v = r.raceVerdictOf(&reports[i], by)
	}
	raceReports.verdicts = append(raceReports.verdicts, raceSeen{r.raceKey(steps), v})
	r.verdict = v
}

func raceOverrides(v Verdict) bool {
	switch v.Kind {
	case VerdictOK, VerdictLeak:
		return true
	case VerdictFatal:
		return strings.Contains(v.Message, "race detected during execution of test")
	}
	return false
}

// raceKey names the run by its root function and its first n steps: a run with the same key
// ran the same code up to there.
func (r *run) raceKey(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%x|", r.root.fn)
	for _, e := range r.events[:n] {
		fmt.Fprintf(&b, "%d:%d:%d,", e.G, e.Op, e.Obj)
	}
	return b.String()
}

// raceVerdictOf describes the race of rep, whose access was made by g (nil if unknown). The
// earlier access's goroutine is the other goroutine of the run that runs the same function,
// the first one if several do.
func (r *run) raceVerdictOf(rep *raceReport, g *goroutine) Verdict {
	v := Verdict{Kind: VerdictRace}
	names := [2]string{"an unknown goroutine", "an unknown goroutine"}
	for i, a := range [2]*raceAccess{&rep.cur, &rep.prev} {
		s := GoroutineState{ID: NoG, State: a.kind, Obj: NoObj, Stack: a.userFrames()}
		if i == 1 {
			g = r.raceGoroutine(a, g)
		}
		if g != nil {
			s.ID, names[i] = g.id, r.gname(g)
		}
		v.Goroutines = append(v.Goroutines, s)
	}
	v.Message = fmt.Sprintf("data race: %s at %s by %s, and %s at %s by %s",
		rep.cur.kind, rep.cur.position(), names[0], rep.prev.kind, rep.prev.position(), names[1])
	return v
}

// raceGoroutine finds the goroutine other than not that made access a, by the function it
// runs: the frame under rt's, at the bottom of the stack.
func (r *run) raceGoroutine(a *raceAccess, not *goroutine) *goroutine {
	entry := ""
	for i, f := range a.frames {
		if strings.HasPrefix(f.Func, rtPrefix+".(*run).body") && i > 0 {
			entry = a.frames[i-1].Func
		}
	}
	if entry == "" {
		return nil
	}
	for _, g := range r.gs {
		if g != not && g.fn != 0 {
			if fn := runtime.FuncForPC(g.fn); fn != nil && fn.Name() == entry {
				return g
			}
		}
	}
	return nil
}
