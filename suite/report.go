package suite

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

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/server"
)

// reporter prints what heddle test finds in go test's own format, for people and for Go's
// tools: a test's output (heddle's reports, indented as go test indents a test's log) with its
// "--- FAIL:", "--- PASS:" or "--- SKIP:" line, each package's "ok" or "FAIL" line, or, with
// -json, the events test2json makes of go test -v's output, with heddle's own fields added.
// A progress line is drawn on a terminal.
type reporter struct {
	w        io.Writer // the report
	errw     io.Writer // heddle's own messages
	f        Flags
	tty      bool
	enc      *json.Encoder
	lastDraw time.Time
	drawn    bool
	srv      *server.Server  // the live web view, with -serve
	started  map[string]bool // packages whose start event is written
	// out is the output of the test being explored, printed with its verdict: go test prints
	// a failed test's output after its "--- FAIL:" line, and under -v before it.
	out []outLine
	// failed is whether a package failed, for go test's last line, FAIL.
	failed bool
	// written holds the result files this run wrote and kept, which -keep-out-bytes does not
	// remove.
	written map[string]bool
	// published is whether a message the web view refused was reported: once is enough.
	published error
	// liveBase and liveNext number the nodes of the live view: each test, and each shard of a
	// test, numbers its own tree from 0, but the stream's ids are unique across it. The view
	// shows each test's nodes, after its Start, as a tree of its own.
	liveBase, liveNext int
	// hold keeps each test's verdict and output in held instead of printing them: under a
	// total budget, a test may be explored again before its package is printed.
	hold bool
	held *heldTest
}

// outLine is one line of a test's output, without its indentation or newline, and the bug or
// warning whose report it begins, which -json adds to its output event.
type outLine struct {
	text    string
	bug     *record.Bug
	warning *record.Warning
}

// publish sends a message to the live web view, with -serve. A message the view refuses is
// reported once: the view shows what came before it.
func (r *reporter) publish(msg any) {
	if r.srv == nil {
		return
	}
	if err := r.srv.Publish(msg); err != nil && r.published == nil {
		r.published = err
		fmt.Fprintln(r.errw, "heddle: warning: live web view:", err)
	}
}

// publishNode sends a node of the schedule tree of the given shard of the current test to the
// live web view. A node the explorer sends again with its pruned alternatives is left to the
// exploration file, which the view loads when the exploration ends: the live tree holds each
// node once.
func (r *reporter) publishNode(shard int, n *record.Node) {
	if r.srv == nil || n.Parent == record.Revisit {
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

func newReporter(f Flags) *reporter {
	r := &reporter{w: f.stdout(), errw: f.stderr(), f: f}
	if f.jsonOut {
		r.enc = json.NewEncoder(r.w)
	} else if fi, ok := r.errw.(interface{ Stat() (os.FileInfo, error) }); ok {
		if st, err := fi.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			r.tty = true
		}
	}
	return r
}

// Event is one line of -json output: test2json's event (go doc cmd/test2json), made of the
// lines heddle test -v prints, one output event per line, as go test -json makes them of go
// test -v's. heddle's own fields, which test2json's readers ignore, ride on the events that
// print what they hold (docs/formats.md).
type Event struct {
	Time        *time.Time `json:"Time,omitempty"`
	Action      string     `json:"Action"`
	Package     string     `json:"Package,omitempty"`
	ImportPath  string     `json:"ImportPath,omitempty"` // build-output and build-fail
	Test        string     `json:"Test,omitempty"`
	Elapsed     *float64   `json:"Elapsed,omitempty"`
	Output      string     `json:"Output,omitempty"`
	FailedBuild string     `json:"FailedBuild,omitempty"`
	// Verdict is a test's verdict (clean, bug, cut, skipped, unexplorable, interrupted) on its pass, fail
	// or skip event; Reason says why an unexplorable or interrupted test has no other.
	Verdict string        `json:"Verdict,omitempty"`
	Reason  string        `json:"Reason,omitempty"`
	Stats   *record.Stats `json:"Stats,omitempty"`
	// Bug is one bug of a test, on the output event of the first line of its report.
	Bug *record.Bug `json:"Bug,omitempty"`
	// Warning is one warning of a test (the lockset check's), on the output event of its first
	// line.
	Warning *record.Warning `json:"Warning,omitempty"`
	// Budget, under a total budget, is how its time was given to the test, on its pass, fail
	// or skip event.
	Budget *BudgetUse `json:"Budget,omitempty"`
}

func (r *reporter) emit(e Event) {
	if e.Action != "build-output" && e.Action != "build-fail" {
		now := time.Now()
		e.Time = &now
	}
	r.enc.Encode(e)
}

// print prints lines of go test's output that belong to pkg, and to test if not empty: as
// they are, or one output event per line.
func (r *reporter) print(pkg, test string, lines ...string) {
	for _, l := range lines {
		if r.enc != nil {
			r.emit(Event{Action: "output", Package: pkg, Test: test, Output: l + "\n"})
		} else {
			fmt.Fprintln(r.w, l)
		}
	}
}

// verbose is whether go test -v's lines are printed: with -v, and with -json, whose events
// are made of them as go test -json's are.
func (r *reporter) verbose() bool { return r.f.verbose || r.enc != nil }

func seconds(d time.Duration) *float64 {
	s := d.Round(time.Millisecond).Seconds()
	return &s
}

// startPackage writes a package's start event, once.
func (r *reporter) startPackage(pkg string) {
	if r.enc == nil || r.started[pkg] {
		return
	}
	if r.started == nil {
		r.started = map[string]bool{}
	}
	r.started[pkg] = true
	r.emit(Event{Action: "start", Package: pkg})
}

func (r *reporter) begin(pkg, test string) {
	r.liveBase = r.liveNext
	r.out = r.out[:0]
	// The live web view shows each test's tree on its own, named by the test.
	r.publish(record.Start{Program: record.Program{Package: pkg, Test: test}})
	if r.hold {
		return // printed with its verdict, by release
	}
	r.announce(pkg, test)
}

// restart starts the live view's tree of the test anew, for an exploration that starts again.
func (r *reporter) restart(pkg, test string) {
	r.liveBase = r.liveNext
	r.publish(record.Start{Program: record.Program{Package: pkg, Test: test}})
}

// announce writes a test's run event and its "=== RUN" line.
func (r *reporter) announce(pkg, test string) {
	if r.enc != nil {
		r.startPackage(pkg)
		r.emit(Event{Action: "run", Package: pkg, Test: test})
	}
	if r.verbose() {
		r.print(pkg, test, "=== RUN   "+test)
	}
}

// output adds text, which may have several lines, to the current test's output; the first
// line begins the report of bug or warning, if not nil.
func (r *reporter) output(text string, bug *record.Bug, warning *record.Warning) {
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		ol := outLine{text: strings.TrimRight(l, " ")}
		if i == 0 {
			ol.bug, ol.warning = bug, warning
		}
		r.out = append(r.out, ol)
	}
}

// note adds a line of heddle's to the current test's output.
func (r *reporter) note(pkg, test, msg string) { r.output("heddle: "+msg, nil, nil) }

// progress redraws the progress line, at most ten times a second, on a terminal only.
func (r *reporter) progress(test string, s *record.Stats, budget time.Duration, start time.Time) {
	if !r.tty || time.Since(r.lastDraw) < 100*time.Millisecond {
		return
	}
	r.lastDraw = time.Now()
	left := ""
	if budget > 0 {
		left = fmt.Sprintf("  %s left", (budget - time.Since(start)).Round(time.Second))
	}
	fmt.Fprintf(r.errw, "\r\033[K  %s  %s  %.0f schedules/s  %s%s", test, plural(s.Runs, "run"), s.SchedulesPerSecond(), plural(s.BuggyRuns, "buggy run"), left)
	r.drawn = true
}

func (r *reporter) end() {
	if r.drawn {
		fmt.Fprint(r.errw, "\r\033[K")
		r.drawn = false
	}
}

// bugs adds the report of every bug of a test to its output: one per bug, however many runs
// hit it.
func (r *reporter) bugs(pkg, test string, bugs []savedBug) {
	for i, b := range bugs {
		jb := &record.Bug{ID: i, Kind: b.Kind, Message: b.Message, Preemptions: b.Preemptions, Hits: b.Hits}
		if b.Trace != nil {
			jb.Goroutines, jb.History = b.Trace.Verdict.Goroutines, b.Trace.Verdict.History
		}
		if b.Path != "" {
			jb.Trace, jb.Replay = b.Path, self()+" replay "+b.Path
		}
		var sb strings.Builder
		printBug(&sb, b)
		if i > 0 {
			r.output("", nil, nil)
		}
		r.output(sb.String(), jb, nil)
	}
}

// warnings adds the warnings of a test to its output: findings that are not bugs on their
// own, and do not change its verdict.
func (r *reporter) warnings(pkg, test string, ws []*record.Warning) {
	for _, w := range ws {
		text := fmt.Sprintf("warning: %s (%s)\n", w.Message, plural(w.Hits, "run"))
		if w.Confirmed != "" {
			text += "  " + w.Confirmed + "\n"
		}
		if a := w.Atomicity; a != nil && a.Replay != "" {
			text += "  replay: " + a.Replay + "\n"
		}
		r.output(text, nil, w)
	}
}

// verdict reports a test's one verdict, and returns o: its output, indented as go test
// indents a test's log, and its "--- FAIL:", "--- PASS:" or "--- SKIP:" line. A test's output
// is printed under -v, and otherwise only if it fails or is skipped, as go test does, or has a
// warning; heddle's statistics are printed under -v only. The test's elapsed time is counted from start, so
// that it includes what the reports took.
func (r *reporter) verdict(pkg, test string, s *record.Stats, start time.Time, o testOutcome) testOutcome {
	s.Elapsed = time.Since(start)
	h := &heldTest{pkg: pkg, test: test, stats: *s, o: o, out: slices.Clone(r.out)}
	r.out = r.out[:0]
	if r.hold {
		r.held = h
		return o
	}
	r.render(h)
	return o
}

// heldTest is a test's verdict and output, kept under a total budget until the test's time is
// all spent (total.go).
type heldTest struct {
	pkg, test string
	stats     record.Stats
	o         testOutcome
	out       []outLine
	// budget, when set, says how the total budget's time was given to the test; held is
	// whether the test's run event and "=== RUN" line are still to be written.
	budget *BudgetUse
	held   bool
}

// BudgetUse is how a total budget's time was given to a test: heddle's field Budget of its
// pass, fail or skip event, in seconds, and the line -v prints.
type BudgetUse struct {
	First  float64 `json:"first"`
	Extra  float64 `json:"extra,omitempty"`
	Used   float64 `json:"used"`
	Reason string  `json:"reason,omitempty"`
	line   string
}

// release prints a held test.
func (r *reporter) release(h *heldTest) {
	r.announce(h.pkg, h.test)
	r.render(h)
}

// render prints a test's verdict and its output.
func (r *reporter) render(h *heldTest) {
	pkg, test, s, o := h.pkg, h.test, &h.stats, h.o
	r.out = h.out
	status, action := "PASS", "pass"
	switch o.verdict {
	case verdictBug:
		status, action = "FAIL", "fail"
	case verdictSkipped:
		status, action = "SKIP", "skip"
	case verdictUnexplorable:
		status, action = "SKIP", "skip"
		r.note(pkg, test, "cannot be explored: "+o.reason)
	case verdictInterrupted:
		status, action = "FAIL", "fail"
		r.note(pkg, test, o.reason)
	}
	// A skipped test's output is go test's: its log and the skip's message.
	if r.verbose() && o.verdict != verdictSkipped {
		if o.verdict == verdictCut {
			r.note(pkg, test, fmt.Sprintf("cut: %d of %d runs reached the step bound of %d while making progress", s.Cut, s.Runs, r.f.steps))
		}
		r.note(pkg, test, r.statistics(s, o))
	}
	if r.f.verbose && h.budget != nil {
		r.note(pkg, test, h.budget.line)
	}
	line := fmt.Sprintf("--- %s: %s (%.2fs)", status, test, s.Elapsed.Seconds())
	if r.verbose() {
		r.printOutput(pkg, test)
		for _, sub := range o.subtests {
			// As go test -v prints a subtest: its run and its log, then, under its parent's
			// result, its own.
			r.announce(pkg, sub.test)
			r.printLog(pkg, sub.test, "    ", sub.output)
		}
		r.print(pkg, test, line)
		r.printSubtests(pkg, o.subtests, false)
	} else if status != "PASS" && o.verdict != verdictSkipped || slices.ContainsFunc(r.out, func(l outLine) bool { return l.warning != nil }) {
		// A warning is a finding that the test asked for (//heddle:atomic) or that it
		// should see, though it does not fail the test: it is printed as a failure's log is.
		// A test that skipped itself is not printed, as go test does not print it without -v.
		r.print(pkg, test, line)
		r.printOutput(pkg, test)
		r.printSubtests(pkg, o.subtests, true)
	}
	r.out = r.out[:0]
	if r.enc != nil {
		r.emit(Event{Action: action, Package: pkg, Test: test, Elapsed: seconds(s.Elapsed), Verdict: o.verdict, Reason: o.reason, Stats: s, Budget: h.budget})
	}
	if r.enc != nil && (o.verdict == verdictUnexplorable || o.verdict == verdictInterrupted) {
		// On standard error too, where a script looks for what heddle could not do.
		what := o.reason
		if o.verdict == verdictUnexplorable {
			what = "cannot be explored: " + what
		}
		fmt.Fprintf(r.errw, "heddle: %s %s: %s\n", pkg, test, what)
	}
}

// subtestVerdicts are the verdicts of a subtest's pass, fail and skip events, by its status.
var subtestVerdicts = map[string]string{"PASS": verdictClean, "FAIL": verdictBug, "SKIP": verdictSkipped}

// printSubtests prints the results of subtests under their parent's, as go test does: "--- FAIL:"
// indented by four spaces for each level (in -json's events, as test2json makes them, not
// indented), and, if quiet, a skip's log indented by four more. Quiet leaves out the subtests
// that passed or skipped themselves, as go test does without -v, but not those heddle left out. A subtest's elapsed time is not measured: it is
// printed as 0.00s.
func (r *reporter) printSubtests(pkg string, subs []subtestResult, quiet bool) {
	for _, sub := range subs {
		if quiet && (sub.status == "PASS" || sub.status == "SKIP" && !strings.HasPrefix(sub.output, record.SkipUnexplorable)) {
			// As go test without -v; a subtest heddle left out is shown with why.
			continue
		}
		indent := strings.Repeat("    ", sub.depth)
		line := fmt.Sprintf("--- %s: %s (0.00s)", sub.status, sub.test)
		if r.enc == nil {
			// test2json's events carry the line unindented.
			line = indent + line
		}
		r.print(pkg, sub.test, line)
		if quiet {
			r.printLog(pkg, sub.test, indent+"    ", sub.output)
		}
		if r.enc != nil {
			r.emit(Event{Action: strings.ToLower(sub.status), Package: pkg, Test: sub.test, Elapsed: seconds(0), Verdict: subtestVerdicts[sub.status]})
		}
	}
}

// printLog prints a test's log, each line after indent.
func (r *reporter) printLog(pkg, test, indent, text string) {
	if text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		r.print(pkg, test, indent+l)
	}
}

// printOutput prints the current test's output, indented by four spaces as go test indents
// a test's log.
func (r *reporter) printOutput(pkg, test string) {
	for _, l := range r.out {
		text := "    " + l.text
		if r.enc == nil {
			fmt.Fprintln(r.w, text)
			continue
		}
		r.emit(Event{Action: "output", Package: pkg, Test: test, Output: text + "\n", Bug: l.bug, Warning: l.warning})
	}
}

// statistics is heddle's line on a test's search: its verdict, the strategy, the runs, whether
// the search was complete, and its rates.
func (r *reporter) statistics(s *record.Stats, o testOutcome) string {
	what := o.verdict
	if o.verdict == verdictBug {
		what = plural(o.bugs, "bug")
	}
	search := ", search stopped by the budget"
	switch {
	case o.verdict == verdictUnexplorable || o.verdict == verdictInterrupted:
		search = ""
	case s.Complete:
		search = ", search complete"
	case o.search != "":
		search = ", " + o.search
	case o.ended != "":
		search = ", search ended by " + o.ended
	}
	strategy := r.f.strategy
	if r.f.shard.total > 1 {
		strategy += ", shard " + r.f.shard.String()
	}
	line := fmt.Sprintf("%s; %s: %s", what, strategy, plural(s.Runs, "run"))
	if s.Runs > 0 {
		line += fmt.Sprintf(" (%d buggy, %d cut", s.BuggyRuns, s.Cut)
		if s.Diverged > 0 {
			line += fmt.Sprintf(", %d diverging, skipped", s.Diverged)
		}
		if s.TimeoutRuns > 0 {
			line += fmt.Sprintf(", %d in the timeout search, which asked about %s", s.TimeoutRuns, plural(s.Timeouts, "timeout"))
		}
		line += ")"
	}
	line += search
	if s.Runs > 0 {
		line += fmt.Sprintf("; %s runs/s, %s steps/s", rate(s.SchedulesPerSecond()), rate(s.StepsPerSecond()))
	}
	return line
}

// rate prints runs per second with two significant digits below 10, where long runs are.
func rate(r float64) string {
	if r < 10 {
		return strconv.FormatFloat(r, 'g', 2, 64)
	}
	return strconv.FormatFloat(r, 'f', 0, 64)
}

// Package outcomes of packageDone other than ok and a reason in brackets.
const (
	pkgFail        = "FAIL"
	pkgNoTests     = "no tests to run"
	pkgNoTestFiles = "no test files"
)

// packageDone ends a package as go test does: ok or FAIL with its elapsed time, ? for a
// package without test files, or FAIL with what went wrong in brackets.
func (r *reporter) packageDone(pkg, problem string, elapsed time.Duration) {
	r.startPackage(pkg)
	took := fmt.Sprintf("%.3fs", elapsed.Seconds())
	var lines []string
	action := "pass"
	switch problem {
	case "":
		lines = []string{"ok  \t" + pkg + "\t" + took}
		if r.verbose() {
			lines = append([]string{"PASS"}, lines...)
		}
	case pkgFail:
		lines, action = []string{"FAIL", "FAIL\t" + pkg + "\t" + took}, "fail"
	case pkgNoTests:
		lines = []string{"ok  \t" + pkg + "\t" + took + " [no tests to run]"}
		if r.verbose() {
			// What the test binary prints under go test -v.
			lines = append([]string{"testing: warning: no tests to run", "PASS"}, lines...)
		}
	case pkgNoTestFiles:
		lines, action = []string{"?   \t" + pkg + "\t[no test files]"}, "skip"
	default:
		lines, action = []string{"FAIL\t" + pkg + " [" + problem + "]"}, "fail"
	}
	r.print(pkg, "", lines...)
	if action == "fail" {
		r.failed = true
	}
	if r.enc != nil {
		r.emit(Event{Action: action, Package: pkg, Elapsed: seconds(elapsed)})
	}
}

// buildFailed reports a package that does not build, as go test does: the compiler's (or the
// go command's) output, then FAIL for the package, with why: "build failed" or "setup failed".
func (r *reporter) buildFailed(pkg, output, why string) {
	r.failed = true
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
		fmt.Fprint(r.errw, output)
		fmt.Fprintln(r.w, line)
		return
	}
	// go test names the build of a package's test binary "pkg [pkg.test]", and a package it
	// could not load by its pattern.
	ip := pkg
	if why == "build failed" {
		ip = fmt.Sprintf("%s [%s.test]", pkg, pkg)
	}
	for _, l := range strings.SplitAfter(output, "\n") {
		if l != "" {
			r.emit(Event{Action: "build-output", ImportPath: ip, Output: l})
		}
	}
	r.emit(Event{Action: "build-fail", ImportPath: ip})
	r.startPackage(pkg)
	r.print(pkg, "", line)
	r.emit(Event{Action: "fail", Package: pkg, Elapsed: seconds(0), FailedBuild: ip})
}

// keep bounds a test's results directory (-keep-files, -keep-bytes), keeping first the files
// its exploration wrote, and notes those of them that the bounds left no room for.
func (r *reporter) keep(pkg, test, dir string, wrote []current) {
	dropped, err := keepTest(dir, wrote, r.f.keepFiles, int64(r.f.keepBytes))
	if err != nil {
		r.note(pkg, test, "-keep-files, -keep-bytes: "+err.Error())
	}
	for _, p := range dropped {
		r.note(pkg, test, fmt.Sprintf("%s not kept: the test's results are bounded to %s and %s (-keep-files, -keep-bytes)", p, plural(r.f.keepFiles, "file"), &r.f.keepBytes))
	}
	if r.written == nil {
		r.written = map[string]bool{}
	}
	for _, c := range wrote {
		if !slices.Contains(dropped, c.path) {
			r.written[filepath.Clean(c.path)] = true
		}
	}
}

// finish ends the output as go test does: FAIL on a line of its own if a package failed. In
// -json, go test has no such line, and neither has heddle.
func (r *reporter) finish() {
	if r.failed && r.enc == nil {
		fmt.Fprintln(r.w, "FAIL")
	}
}

// plural says n things, in English: 1 bug, 2 bugs.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// printBug prints the report of a bug, the first line saying which, the others indented.
func printBug(w io.Writer, b savedBug) {
	fmt.Fprintf(w, "BUG: %s (%s)\n", b.Kind, plural(b.Hits, "run"))
	fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(b.Message, "\n", "\n    "))
	fmt.Fprint(w, foundBy(b.Bug))
	if b.Trace == nil {
		return
	}
	fmt.Fprint(w, b.Trace.VerdictReport("    "))
	if len(b.Trace.Verdict.History) > 0 {
		fmt.Fprintln(w)
		PrintHistory(w, b.Trace.Verdict.History, "    ")
	}
	if len(b.Trace.Events) == 0 {
		// A test that fails before any goroutine synchronizes: its one schedule.
		fmt.Fprintf(w, "\n    interleaving: none, the run reached no scheduling point\n")
	} else {
		fmt.Fprintf(w, "\n    interleaving (%s, %s):\n", plural(len(b.Trace.Decisions), "decision"), plural(b.Preemptions, "preemption"))
		printInterleaving(w, b.Trace, "    ", newWindow(b.Trace))
	}
	fmt.Fprintf(w, "\n    schedule: %s\n    replay:   %s replay %s\n", b.Path, self(), b.Path)
}

// PrintHistory prints the history of a linearizability verdict, if any: which operations
// overlapped is what decides linearizability.
func PrintHistory(w io.Writer, h []record.Operation, indent string) {
	if len(h) == 0 {
		return
	}
	fmt.Fprintf(w, "%shistory (%s, call to return):\n", indent, plural(len(h), "operation"))
	for _, l := range strings.SplitAfter(record.DrawHistory(h), "\n") {
		if l != "" {
			fmt.Fprint(w, indent+"  "+l)
		}
	}
}

// PrintInterleaving prints a trace with one column per goroutine: whole, every step, or the
// steps that a bug's report shows.
func PrintInterleaving(w io.Writer, t *record.Trace, indent string, whole bool) {
	win := window{}
	if !whole {
		win = newWindow(t)
	}
	printInterleaving(w, t, indent, win)
}

// printInterleaving prints a trace with one column per goroutine, the steps of win only.
func printInterleaving(w io.Writer, t *record.Trace, indent string, win window) {
	names, cols := interleavingColumns(t, win)
	ops := historyCalls(t)
	if win.note != "" {
		fmt.Fprintf(w, "%s(%s)\n", indent, win.note)
	}
	if t.Program.Group != "" {
		// Each process's name over its first column.
		fmt.Fprintf(w, "%s%5s  ", indent, "")
		for i, n := range names {
			p := record.ProcessOf(n)
			if i > 0 && record.ProcessOf(names[i-1]) == p {
				p = ""
			}
			fmt.Fprintf(w, "%-*s", columnWidth, p)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s%5s  ", indent, "step")
	for _, n := range names {
		fmt.Fprintf(w, "%-*s", columnWidth, n)
	}
	fmt.Fprintln(w)
	for i := range t.Events {
		if !win.shows(t, i) {
			continue
		}
		e := &t.Events[i]
		mark := " "
		if e.Decision != nil {
			mark = "*"
		}
		fmt.Fprintf(w, "%s%5d %s%s%s\n", indent, e.Step, mark, strings.Repeat(" ", cols[e.G]*columnWidth), stepCell(t, e, ops))
	}
	// The legend ends with the decisions' line, where the transcript tests cut the table.
	if slices.ContainsFunc(t.Events, func(e record.Event) bool { return e.Defer != nil }) {
		fmt.Fprintf(w, "%s(defer: a deferred call, made as its function returned; the line is its defer statement's)\n", indent)
	}
	if len(t.Decisions) > 0 {
		fmt.Fprintf(w, "%s(* marks a step that heddle chose among several)\n", indent)
	}
}

// columnWidth is the width of a goroutine's column in an interleaving table.
const columnWidth = 30

// interleavingColumns are the goroutines of a table's columns, and each one's column: in the
// order the goroutines were created, as the web view's timeline has them, and a process
// group's grouped by process.
func interleavingColumns(t *record.Trace, win window) ([]string, map[string]int) {
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
	if t.Program.Group != "" {
		slices.SortStableFunc(names, func(a, b string) int {
			pa, pb := record.ProcessOf(a), record.ProcessOf(b)
			return cmp.Or(cmp.Compare(len(pa), len(pb)), strings.Compare(pa, pb))
		})
		for i, n := range names {
			cols[n] = i
		}
	}
	return names, cols
}

// historyCalls are the calls and returns of a linearizability verdict's history, by step:
// they are shown as operations, not as steps on the history object.
func historyCalls(t *record.Trace) map[int]string {
	ops := map[int]string{}
	for _, op := range t.Verdict.History {
		ops[op.CallStep] = op.Input
		if op.Return >= 0 {
			ops[op.ReturnStep] = op.Input + " -> " + op.Output
		}
	}
	return ops
}

// stepCell is a step's cell in an interleaving table: its operation, as the program wrote it,
// and where.
func stepCell(t *record.Trace, e *record.Event, ops map[int]string) string {
	var cell string
	switch {
	case ops[e.Step] != "":
		cell = record.Call(e.Op, "", "") + " " + ops[e.Step]
	case e.Expr != "" || e.Obj == "" || e.Op == "sleep" || e.Op == "timer":
		cell = record.Call(e.Op, e.Waits, e.Expr) // a timer has no name in the program
	case t.Label(e.Obj) != e.Obj:
		// A name the object has at another operation: the unlock inside s.cond.Wait().
		cell = record.Call(e.Op, e.Waits, t.Label(e.Obj))
	default:
		cell = record.Call(e.Op, e.Waits, "") + " on " + t.Describe(e.Obj)
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
	return cell
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
