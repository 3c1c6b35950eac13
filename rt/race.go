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
// own locks and counters, are hidden from it (raceHide), and rt gives it instead the
// happens-before edges that Go's own implementation of each primitive gives it, no more and no
// fewer (docs/races.md has the table):
//
//   - sync's types as the sync package annotates itself (internal/race): a Mutex's Unlock
//     releases what its Lock acquires; an RWMutex has two addresses, as Go's has two
//     semaphores: Unlock releases the readers' one, which RLock and Lock acquire, and RUnlock
//     merges into the writers' one, which only Lock acquires, so readers do not order each
//     other; every WaitGroup.Done merges what Wait acquires; a Once's function releases what
//     Do acquires; a Cond orders nothing by itself.
//   - Atomic operations and channel buffers: the real operation does it, in the program's
//     goroutine, where the detector records it as Go's does (an atomic access of the address,
//     the buffer slot's release-acquire, the close). A hand-off of a buffered channel between
//     a goroutine and a parked one leaves the parked goroutine's half of the real operation to
//     it, done when it resumes.
//   - The rendezvous of an unbuffered channel orders both ways (runtime.racesync): each
//     partner acquires what the other did before it.
//   - A go statement orders the parent before the child, since the child's carrier is started
//     by a go statement; a timer's function and tick acquire what setting the timer released;
//     a goroutine's exit orders nothing.
//
// The detector reports a race as it happens, once per pair of stacks in a process. Each
// worker process writes its reports to a file of its own (GORACE=log_path, suffixed with the
// process id), so a run's reports are those written while it ran. Heddle's own state, which
// goroutines touch in turn across the hidden hand-offs, is not seen: rt's functions are
// //go:norace, and RaceSuppressions leave out the maps and slices the runtime checks for them.

const raceEnabled = true

// The addresses whose happens-before clocks stand for objects and goroutines. They lie in
// the data segment, which the detector accepts, and wrap around past their length, which
// only adds edges.
var (
	raceObjs [1 << 16]uint64
	// raceWriters is an RWMutex's second address, the writers' semaphore.
	raceWriters [len(raceObjs)]uint64
	// raceGs holds what a goroutine did before it parked on a channel operation, and
	// raceHandoffs what the partner that completed it did.
	raceGs       [1 << 12]uint64
	raceHandoffs [len(raceGs)]uint64
	// raceWake holds, for a goroutine completed by another, the address it acquires when it
	// resumes, or nil.
	raceWake [len(raceGs)]unsafe.Pointer
)

//go:norace
func raceObjAddr(id ObjID) unsafe.Pointer { return unsafe.Pointer(&raceObjs[int(id)%len(raceObjs)]) }

//go:norace
func raceGAddr(g *goroutine) unsafe.Pointer {
	return unsafe.Pointer(&raceGs[int(g.id)%len(raceGs)])
}

// raceReadAt and raceWriteAt make, for the detector, the accesses that Go's own primitives
// make to their own memory, so that it reports what go test -race reports of them: a send
// against a close of its channel (chansend reads the channel where closechan writes it), and
// a WaitGroup's Add from zero against a Wait (sync reads and writes its semaphore).
//
//go:norace
func raceReadAt(p unsafe.Pointer)  { runtime.RaceRead(p) }
func raceWriteAt(p unsafe.Pointer) { runtime.RaceWrite(p) }

func raceHide() { runtime.RaceDisable() }

//go:norace
func raceShow() { runtime.RaceEnable() }

//go:norace
func raceAcquire(id ObjID) {
	if id >= 0 {
		runtime.RaceAcquire(raceObjAddr(id))
	}
}

// raceRelease merges rather than overwrites, as sync's ReleaseMerge: releases that heddle does
// not order among themselves (Done) all happen before the acquires that follow.
//
//go:norace
func raceRelease(id ObjID) {
	if id >= 0 {
		runtime.RaceReleaseMerge(raceObjAddr(id))
	}
}

// raceAcquireWriters and raceReleaseWriters are the writers' semaphore of RWMutex id.
//
//go:norace
func raceAcquireWriters(id ObjID) {
	if id >= 0 {
		runtime.RaceAcquire(unsafe.Pointer(&raceWriters[int(id)%len(raceWriters)]))
	}
}

//go:norace
func raceReleaseWriters(id ObjID) {
	if id >= 0 {
		runtime.RaceReleaseMerge(unsafe.Pointer(&raceWriters[int(id)%len(raceWriters)]))
	}
}

// raceParked is called by g as it parks on a channel operation: the partner of a rendezvous
// acquires what g did before it.
//
//go:norace
func (r *run) raceParked(g *goroutine) { runtime.RaceRelease(raceGAddr(g)) }

// raceResume is called by the goroutine that completes w's parked or pending operation,
// before w resumes. Only the rendezvous of an unbuffered channel orders the two here, both
// ways; a tick acquires what setting its timer released; the other operations order by what
// w does on resuming: the real operation on a channel's buffer, or the acquire of a sync
// primitive. A close, a wake by a Cond and the end of a sleep order nothing more.
//
//go:norace
func (r *run) raceResume(w *goroutine) {
	if w.real != realNone {
		return
	}
	var st *chanState
	switch w.op.kind {
	case OpSend, OpRecv:
		st = w.op.ch
	case OpSelect:
		if w.selected >= 0 && w.selected < len(w.op.cases) {
			st = w.op.cases[w.selected].st
		}
	}
	if st == nil || st.closed || st.foreign {
		return
	}
	i := int(w.id) % len(raceWake)
	if st.timer != nil {
		raceWake[i] = raceObjAddr(st.timer.obj.id)
		return
	}
	runtime.RaceAcquire(raceGAddr(w))
	runtime.RaceRelease(unsafe.Pointer(&raceHandoffs[i]))
	raceWake[i] = unsafe.Pointer(&raceHandoffs[i])
}

// raceStartAfter makes g, a goroutine started by the clock (time.AfterFunc), acquire the
// timer's object as it starts: it does not inherit the clock of the goroutine whose stack the
// clock's step runs on.
//
//go:norace
func raceStartAfter(g *goroutine, id ObjID) {
	if id >= 0 {
		raceWake[int(g.id)%len(raceWake)] = raceObjAddr(id)
	}
}

// raceWoken is called by g when it resumes after a hand-off.
//
//go:norace
func raceWoken(g *goroutine) {
	i := int(g.id) % len(raceWake)
	if p := raceWake[i]; p != nil {
		raceWake[i] = nil
		runtime.RaceAcquire(p)
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

//go:norace
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
//
//go:norace
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

//go:norace
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
//
//go:norace
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
			// Only heddle's own state: see raceReport.internal.
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

//go:norace
func raceOverrides(v Verdict) bool {
	switch v.Kind {
	case VerdictOK, VerdictLeak, VerdictPruned, VerdictCut, VerdictStopped:
		// A run that its strategy abandons, or that a bound or the budget stops, may have
		// raced before it ended; the detector reports a pair of accesses once in a process,
		// so the run that a pruned one stands for would not show the race again.
		return true
	case VerdictFatal:
		return strings.Contains(v.Message, "race detected during execution of test")
	}
	return false
}

// raceKey names the run by its root function and its first n steps: a run with the same key
// ran the same code up to there.
//
//go:norace
func (r *run) raceKey(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%x|", r.root.fn)
	for _, e := range r.events[:n] {
		fmt.Fprintf(&b, "%d:%d:%d,", e.G, e.Op, e.Obj)
	}
	return b.String()
}

// raceVerdictOf describes the race of rep, whose access was made by g (nil if unknown). The
// earlier access's goroutine is found by raceGoroutine.
//
//go:norace
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

// raceGoroutine finds the goroutine other than not that made access a. The detector numbers
// goroutines its own way, so its "by goroutine N" names none of the run's; what it gives is
// the address and the stack. The candidates are the goroutines that the lockset check saw
// access that address (write it, for a write), narrowed to those that run the function under
// rt's frames at the bottom of a's stack; without the check's record (code that is not
// instrumented), those that run that function. Of several, the oldest is named: each of them
// made such an access.
//
//go:norace
func (r *run) raceGoroutine(a *raceAccess, not *goroutine) *goroutine {
	// The entry is the outermost frame of the program's: a deferred call run as its function
	// returns shows under runtime.deferreturn, in place of that function's frame.
	entry := ""
	for i, f := range a.frames {
		if strings.HasPrefix(f.Func, rtPrefix+".(*run).body") {
			for j := i - 1; j >= 0 && entry == ""; j-- {
				if !strings.HasPrefix(a.frames[j].Func, "runtime.") {
					entry = a.frames[j].Func
				}
			}
		}
	}
	runs := func(g *goroutine) bool {
		if entry == "" || g.fn == 0 {
			return false
		}
		fn := runtime.FuncForPC(g.fn)
		// The goroutine's function itself, or a closure in it (a deferred one).
		return fn != nil && (fn.Name() == entry || strings.HasPrefix(entry, fn.Name()+"."))
	}
	set := r.accessors(a.addr, strings.Contains(a.kind, "write"))
	var byAddr, byFunc *goroutine
	for _, g := range r.gs {
		if g == not {
			continue
		}
		accessed := g.id < 64 && set&(1<<g.id) != 0
		switch {
		case accessed && runs(g):
			return g
		case accessed && byAddr == nil:
			byAddr = g
		case runs(g) && byFunc == nil:
			byFunc = g
		}
	}
	if byAddr != nil {
		return byAddr
	}
	return byFunc
}

// accessors returns the goroutines (of ids below 64, as a set of bits) that the lockset check
// saw write the variable at addr, or access it if write is false.
//
//go:norace
func (r *run) accessors(addr uintptr, write bool) uint64 {
	if r.acc == nil || addr == 0 {
		return 0
	}
	i, ok := r.acc.vars.at(addr)
	if !ok {
		return 0
	}
	v := &r.acc.shadows[i]
	if write {
		return v.writers
	}
	return v.readers | v.writers
}
