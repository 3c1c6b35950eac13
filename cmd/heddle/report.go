package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/server"
	"github.com/heddledbg/heddle/timeline"
)

// reporter prints what heddle test finds: human-readable reports, a progress line on a
// terminal, or JSON events in the spirit of test2json.
type reporter struct {
	w        io.Writer
	f        testFlags
	tty      bool
	enc      *json.Encoder
	lastDraw time.Time
	drawn    bool
	srv      *server.Server  // the live web view, with -serve
	started  map[string]bool // packages whose start event is written
	// published is whether a message the web view refused was reported: once is enough.
	published error
	// liveBase and liveNext number the nodes of the live view: the view has one tree, but each
	// test, and each shard of a test, numbers its own tree from 0. Each gets its own ids and
	// is shown as a root of its own.
	liveBase, liveNext int
}

// publish sends a message to the live web view, with -serve. A message the view refuses is
// reported once: the view shows what came before it.
func (r *reporter) publish(msg any) {
	if r.srv == nil {
		return
	}
	if err := r.srv.Publish(msg); err != nil && r.published == nil {
		r.published = err
		fmt.Fprintln(os.Stderr, "heddle: warning: live web view:", err)
	}
}

// publishNode sends a node of the schedule tree of the given shard of the current test to the
// live web view. A node the explorer sends again with its pruned alternatives is left to the
// exploration file, which the view loads when the exploration ends: the live tree holds each
// node once.
func (r *reporter) publishNode(shard int, n *timeline.Node) {
	if r.srv == nil || n.Parent == timeline.Revisit {
		return
	}
	shards := max(r.f.workers, 1)
	m := *n
	m.ID = r.liveBase + n.ID*shards + shard
	if n.Parent >= 0 {
		m.Parent = r.liveBase + n.Parent*shards + shard
	}
	r.liveNext = max(r.liveNext, m.ID+1)
	r.publish(&m)
}

func newReporter(w io.Writer, f testFlags) *reporter {
	r := &reporter{w: w, f: f}
	if f.jsonOut {
		r.enc = json.NewEncoder(w)
	} else if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		r.tty = true
	}
	return r
}

// event is one line of -json output, in go test -json's format (test2json): the actions are
// go test's (start, run, output, pass, fail, skip, and build-output and build-fail for a
// package that does not build), and heddle adds fields of its own.
type event struct {
	Time        *time.Time `json:"Time,omitempty"`
	Action      string     `json:"Action"`
	Package     string     `json:"Package,omitempty"`
	ImportPath  string     `json:"ImportPath,omitempty"` // build-output and build-fail
	Test        string     `json:"Test,omitempty"`
	Elapsed     *float64   `json:"Elapsed,omitempty"`
	Output      string     `json:"Output,omitempty"`
	FailedBuild string     `json:"FailedBuild,omitempty"`
	// Verdict is a test's verdict (clean, bug, cut, unexplorable, interrupted) on its pass, fail
	// or skip event; Reason says why an unexplorable or interrupted test has no other.
	Verdict string          `json:"Verdict,omitempty"`
	Reason  string          `json:"Reason,omitempty"`
	Stats   *timeline.Stats `json:"Stats,omitempty"`
	// Bug is one bug of a test, on an output event that prints its report.
	Bug *timeline.Bug `json:"Bug,omitempty"`
	// Warning is one warning of a test (the lockset check's), on an output event that prints it.
	Warning *timeline.Warning `json:"Warning,omitempty"`
}

func (r *reporter) emit(e event) {
	if e.Action != "build-output" && e.Action != "build-fail" {
		now := time.Now()
		e.Time = &now
	}
	r.enc.Encode(e)
}

func seconds(d time.Duration) *float64 {
	s := d.Round(time.Millisecond).Seconds()
	return &s
}

func (r *reporter) begin(pkg, test string) {
	r.liveBase = r.liveNext
	if r.enc != nil {
		if !r.started[pkg] {
			if r.started == nil {
				r.started = map[string]bool{}
			}
			r.started[pkg] = true
			r.emit(event{Action: "start", Package: pkg})
		}
		r.emit(event{Action: "run", Package: pkg, Test: test})
	}
}

func (r *reporter) note(pkg, test, msg string) {
	if r.enc != nil {
		r.emit(event{Action: "output", Package: pkg, Test: test, Output: "    heddle: " + msg + "\n"})
		return
	}
	fmt.Fprintf(os.Stderr, "heddle: %s %s: %s\n", pkg, test, msg)
}

// progress redraws the progress line, at most ten times a second, on a terminal only.
func (r *reporter) progress(test string, s *timeline.Stats, budget time.Duration, start time.Time) {
	if !r.tty || time.Since(r.lastDraw) < 100*time.Millisecond {
		return
	}
	r.lastDraw = time.Now()
	left := ""
	if budget > 0 {
		left = fmt.Sprintf("  %s left", (budget - time.Since(start)).Round(time.Second))
	}
	fmt.Fprintf(os.Stderr, "\r\033[K  %s  %s  %.0f schedules/s  %s%s", test, plural(s.Runs, "run"), s.SchedulesPerSecond(), plural(s.BuggyRuns, "buggy run"), left)
	r.drawn = true
}

func (r *reporter) end() {
	if r.drawn {
		fmt.Fprint(os.Stderr, "\r\033[K")
		r.drawn = false
	}
}

// bugs prints the report of every bug of a test: one per bug, however many runs hit it.
func (r *reporter) bugs(pkg, test string, bugs []savedBug) {
	for i, b := range bugs {
		if r.enc == nil {
			printBug(r.w, test, b)
			continue
		}
		jb := &timeline.Bug{ID: i, Kind: b.Kind, Message: b.Message, Preemptions: b.Preemptions, Hits: b.Hits}
		if b.Trace != nil {
			jb.Goroutines, jb.History = b.Trace.Verdict.Goroutines, b.Trace.Verdict.History
		}
		if b.Path != "" {
			jb.Trace, jb.Replay = b.Path, self()+" replay "+b.Path
		}
		var sb strings.Builder
		printBug(&sb, test, b)
		r.emit(event{Action: "output", Package: pkg, Test: test, Output: sb.String(), Bug: jb})
	}
}

// warnings reports the warnings of a test: findings that are not bugs on their own, and do
// not change its verdict.
func (r *reporter) warnings(pkg, test string, ws []*timeline.Warning) {
	for _, w := range ws {
		line := fmt.Sprintf("    warning: %s (%s)\n", w.Message, plural(w.Hits, "run"))
		if w.Confirmed != "" {
			line += "      " + w.Confirmed + "\n"
		}
		if a := w.Atomicity; a != nil && a.Replay != "" {
			line += "      replay: " + a.Replay + "\n"
		}
		if r.enc == nil {
			fmt.Fprint(r.w, line)
			continue
		}
		r.emit(event{Action: "output", Package: pkg, Test: test, Output: line, Warning: w})
	}
}

// verdict reports a test's one verdict, and returns o. The test's elapsed time is counted
// from start, so that it includes what the reports took.
func (r *reporter) verdict(pkg, test string, s *timeline.Stats, start time.Time, o testOutcome) testOutcome {
	s.Elapsed = time.Since(start)
	status, action := "ok  ", "pass"
	var what string
	switch o.verdict {
	case verdictClean:
		what = "clean"
	case verdictCut:
		what = fmt.Sprintf("cut: %d of %d runs reached the step bound of %d while making progress", s.Cut, s.Runs, r.f.steps)
	case verdictBug:
		status, action = "FAIL", "fail"
		what = plural(o.bugs, "bug")
	case verdictUnexplorable:
		status, action = "SKIP", "skip"
		what = "cannot be explored: " + o.reason
	case verdictInterrupted:
		status, action = "FAIL", "fail"
		what = o.reason
	}
	search := ", search stopped by the budget"
	switch {
	case o.verdict == verdictUnexplorable || o.verdict == verdictInterrupted:
		search = ""
	case s.Complete:
		search = ", search complete"
	case o.ended != "":
		search = ", search ended by " + o.ended
	}
	strategy := r.f.strategy
	if r.f.shard.total > 1 {
		strategy += ", shard " + r.f.shard.String()
	}
	line := fmt.Sprintf("%s %s %s: %s (%s: %s%s, %s)", status, pkg, test, what, strategy, plural(s.Runs, "run"), search, fmt.Sprintf("%.2fs", s.Elapsed.Seconds()))
	if r.f.verbose && s.Runs > 0 {
		line += fmt.Sprintf("\n    %s, %s in %s; %s runs/s, %s steps/s", plural(s.BuggyRuns, "buggy run"), plural(s.Cut, "cut run"), plural(s.Runs, "run"), rate(s.SchedulesPerSecond()), rate(s.StepsPerSecond()))
		if s.Diverged > 0 {
			line += fmt.Sprintf(", %s skipped", plural(s.Diverged, "diverging run"))
		}
	}
	if r.enc != nil {
		r.emit(event{Action: "output", Package: pkg, Test: test, Output: line + "\n"})
		r.emit(event{Action: action, Package: pkg, Test: test, Elapsed: seconds(s.Elapsed), Verdict: o.verdict, Reason: o.reason, Stats: s})
		if o.verdict == verdictUnexplorable || o.verdict == verdictInterrupted {
			// On standard error too, where a script looks for what heddle could not do.
			fmt.Fprintf(os.Stderr, "heddle: %s %s: %s\n", pkg, test, what)
		}
	} else {
		fmt.Fprintln(r.w, line)
	}
	return o
}

// rate prints runs per second with two significant digits below 10, where long runs are.
func rate(r float64) string {
	if r < 10 {
		return strconv.FormatFloat(r, 'g', 2, 64)
	}
	return strconv.FormatFloat(r, 'f', 0, 64)
}

// packageDone ends a package as go test does: ok or FAIL, with its elapsed time, or with
// what went wrong in brackets.
func (r *reporter) packageDone(pkg, problem string, elapsed time.Duration) {
	line, action := fmt.Sprintf("ok  \t%s\t%.3fs", pkg, elapsed.Seconds()), "pass"
	switch problem {
	case "":
	case "FAIL":
		line, action = fmt.Sprintf("FAIL\t%s\t%.3fs", pkg, elapsed.Seconds()), "fail"
	case "no tests to run":
		line = fmt.Sprintf("ok  \t%s\t%.3fs [%s]", pkg, elapsed.Seconds(), problem)
		if r.f.verbose {
			// What the test binary prints under go test -v.
			line = "testing: warning: no tests to run\nPASS\n" + line
		}
	default:
		line, action = fmt.Sprintf("FAIL\t%s [%s]", pkg, problem), "fail"
	}
	if r.enc != nil {
		if !r.started[pkg] {
			r.emit(event{Action: "start", Package: pkg})
		}
		for _, l := range strings.Split(line, "\n") {
			r.emit(event{Action: "output", Package: pkg, Output: l + "\n"})
		}
		r.emit(event{Action: action, Package: pkg, Elapsed: seconds(elapsed)})
		return
	}
	fmt.Fprintln(r.w, line)
}

// buildFailed reports a package that does not build, as go test does: the compiler's (or the
// go command's) output, then FAIL for the package, with why: "build failed" or "setup failed".
func (r *reporter) buildFailed(pkg, output, why string) {
	// The go command's own verdict lines (FAIL pkg [setup failed]) are replaced by heddle's.
	var keep []string
	for _, l := range strings.SplitAfter(output, "\n") {
		if t := strings.TrimSpace(l); t != "FAIL" && !strings.HasPrefix(t, "FAIL\t") {
			keep = append(keep, l)
		}
	}
	output = strings.Join(keep, "")
	line := fmt.Sprintf("FAIL\t%s [%s]", pkg, why)
	if !strings.HasPrefix(output, "# ") {
		output = "# " + pkg + "\n" + output
	}
	if r.enc == nil {
		fmt.Fprint(os.Stderr, output)
		fmt.Fprintln(r.w, line)
		return
	}
	ip := fmt.Sprintf("%s [%s.test]", pkg, pkg)
	for _, l := range strings.SplitAfter(output, "\n") {
		if l != "" {
			r.emit(event{Action: "build-output", ImportPath: ip, Output: l})
		}
	}
	r.emit(event{Action: "build-fail", ImportPath: ip})
	r.emit(event{Action: "start", Package: pkg})
	r.emit(event{Action: "output", Package: pkg, Output: line + "\n"})
	r.emit(event{Action: "fail", Package: pkg, Elapsed: seconds(0), FailedBuild: ip})
}

// plural says n things, in English: 1 bug, 2 bugs.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func printBug(w io.Writer, test string, b savedBug) {
	fmt.Fprintf(w, "--- BUG: %s: %s (%s)\n", test, b.Kind, plural(b.Hits, "run"))
	fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(b.Message, "\n", "\n    "))
	fmt.Fprint(w, foundBy(b.Bug))
	if b.Trace == nil {
		fmt.Fprintln(w)
		return
	}
	fmt.Fprint(w, b.Trace.VerdictReport("    "))
	if len(b.Trace.Verdict.History) > 0 {
		fmt.Fprintln(w)
		printHistory(w, b.Trace.Verdict.History, "    ")
	}
	if len(b.Trace.Events) == 0 {
		// A test that fails before any goroutine synchronizes: its one schedule.
		fmt.Fprintf(w, "\n    interleaving: none, the run reached no scheduling point\n")
	} else {
		fmt.Fprintf(w, "\n    interleaving (%s, %s):\n", plural(len(b.Trace.Decisions), "decision"), plural(b.Preemptions, "preemption"))
		printInterleaving(w, b.Trace, "    ", newWindow(b.Trace))
	}
	fmt.Fprintf(w, "\n    schedule: %s\n    replay:   %s replay %s\n\n", b.Path, self(), b.Path)
}

// printHistory prints the history of a linearizability verdict, if any: which operations
// overlapped is what decides linearizability.
func printHistory(w io.Writer, h []timeline.Operation, indent string) {
	if len(h) == 0 {
		return
	}
	fmt.Fprintf(w, "%shistory (%s, call to return):\n", indent, plural(len(h), "operation"))
	for _, l := range strings.SplitAfter(timeline.DrawHistory(h), "\n") {
		if l != "" {
			fmt.Fprint(w, indent+"  "+l)
		}
	}
}

// printInterleaving prints a trace with one column per goroutine.
func printInterleaving(w io.Writer, t *timeline.Trace, indent string, win window) {
	// Columns in the order the goroutines were created, as the web view's timeline has them.
	stepped := map[string]bool{}
	for _, e := range t.Events {
		stepped[e.G] = win.column(e.G)
	}
	cols := map[string]int{}
	var names []string
	add := func(g string) {
		if _, ok := cols[g]; !ok && stepped[g] {
			cols[g] = len(names)
			names = append(names, g)
		}
	}
	for _, g := range t.Goroutines {
		add(g.ID)
	}
	for _, e := range t.Events {
		add(e.G) // the clock
	}
	// A process group's columns are grouped by process, each under its process's name.
	group := t.Program.Group != ""
	if group {
		slices.SortStableFunc(names, func(a, b string) int {
			pa, pb := timeline.ProcessOf(a), timeline.ProcessOf(b)
			return cmp.Or(cmp.Compare(len(pa), len(pb)), strings.Compare(pa, pb))
		})
		for i, n := range names {
			cols[n] = i
		}
	}
	// The calls and returns of a linearizability verdict's history are shown as operations,
	// not as steps on the history object.
	ops := map[int]string{}
	for _, op := range t.Verdict.History {
		ops[op.CallStep] = op.Input
		if op.Return >= 0 {
			ops[op.ReturnStep] = op.Input + " -> " + op.Output
		}
	}
	const width = 30
	if win.note != "" {
		fmt.Fprintf(w, "%s(%s)\n", indent, win.note)
	}
	if group {
		fmt.Fprintf(w, "%s%5s  ", indent, "")
		for i, n := range names {
			p := timeline.ProcessOf(n)
			if i > 0 && timeline.ProcessOf(names[i-1]) == p {
				p = ""
			}
			fmt.Fprintf(w, "%-*s", width, p)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s%5s  ", indent, "step")
	for _, n := range names {
		fmt.Fprintf(w, "%-*s", width, n)
	}
	fmt.Fprintln(w)
	for i := range t.Events {
		if !win.shows(t, i) {
			continue
		}
		e := &t.Events[i]
		var cell string
		switch {
		case ops[e.Step] != "":
			cell = timeline.Call(e.Op, "", "") + " " + ops[e.Step]
		case e.Expr != "" || e.Obj == "" || e.Op == "sleep" || e.Op == "timer":
			cell = timeline.Call(e.Op, e.Waits, e.Expr) // a timer has no name in the program
		case t.Label(e.Obj) != e.Obj:
			// A name the object has at another operation: the unlock inside s.cond.Wait().
			cell = timeline.Call(e.Op, e.Waits, t.Label(e.Obj))
		default:
			cell = timeline.Call(e.Op, e.Waits, "") + " on " + t.Describe(e.Obj)
		}
		if e.Child != "" {
			cell += " " + e.Child
		}
		pos := e.Pos
		if e.Defer != nil {
			// Go runs a deferred call where its function returns; the user wrote it at the defer.
			cell, pos = "defer "+cell, e.Defer
		}
		if pos != nil {
			cell += " " + pos.Short()
		}
		mark := " "
		if e.Decision != nil {
			mark = "*"
		}
		fmt.Fprintf(w, "%s%5d %s%s%s\n", indent, e.Step, mark, strings.Repeat(" ", cols[e.G]*width), cell)
	}
	// The legend ends with the decisions' line, where the transcript tests cut the table.
	if slices.ContainsFunc(t.Events, func(e timeline.Event) bool { return e.Defer != nil }) {
		fmt.Fprintf(w, "%s(defer: a deferred call, made as its function returned; the line is its defer statement's)\n", indent)
	}
	if len(t.Decisions) > 0 {
		fmt.Fprintf(w, "%s(* marks a step that heddle chose among several)\n", indent)
	}
}

// self is how to run this heddle again in a printed command: "heddle" when that is the
// heddle on PATH, else the running binary's absolute path, or go run when the binary is
// go run's temporary one, which is gone once it exits.
var self = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "heddle"
	}
	if p, err := exec.LookPath("heddle"); err == nil {
		if a, err1 := os.Stat(p); err1 == nil {
			if b, err2 := os.Stat(exe); err2 == nil && os.SameFile(a, b) {
				return "heddle"
			}
		}
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run github.com/heddledbg/heddle/cmd/heddle"
	}
	return exe
})
