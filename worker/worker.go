// Package worker runs the tests of an instrumented test binary, or an instrumented program's
// main, under heddle's control: it serves the worker and debug protocols (package wire)
// inside the program under test, exploring in this process with package explorer. The
// instrumenter registers every test function of the package and adds a TestHeddleWorker test
// that calls Serve (or hands main to RegisterMain); heddle runs the binary with
// wire.EnvWorker set and speaks the worker protocol over file descriptors 3 and 4.
//
// It is linked into every program under test: besides heddle's runtime packages it imports
// only the standard library, and never the controller's side of the protocols (package
// driver).
package worker

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/testmatch"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/rt/member"
	"github.com/heddledbg/heddle/rt/testing/synctest"
	"github.com/heddledbg/heddle/wire"
)

var tests = map[string]func(*testing.T){}

func init() {
	synctest.CleanupScope = cleanupScope
	rt.Ending = ending
}

// Register records a test function of the package under test.
func Register(name string, test func(*testing.T)) { tests[name] = test }

// RegisterMain records the main function of a program. When the process is a worker, it
// serves the request and exits instead of letting main run uncontrolled.
func RegisterMain(main func()) {
	body := func() {
		rt.NameMain()
		main()
	}
	if member.Member() {
		os.Exit(member.Serve(func(run func(body func())) { run(body) }))
	}
	if os.Getenv(wire.EnvWorker) == "" {
		return
	}
	harnessFor := func(string) (explorer.Harness, error) {
		return func(run func(body func())) { run(body) }, nil
	}
	if ok, code := debug(harnessFor, func(string) string { return funcName(main) }); ok {
		os.Exit(code)
	}
	os.Exit(serve(harnessFor, []string{"main"}))
}

// A worker sets wire.EnvReexec to the test it explores, for a copy of the test binary that
// the test starts: heddle explores the runs of the test's own process, and the copy runs the
// test as go test would, out of heddle's reach. wire.EnvChildren names a file in which such
// a copy notes that it ran: heddle cannot explore what happens in it, so the run that started
// it says so (checkChildren) instead of passing. children is the worker's view of that file.
var children struct {
	path string
	size int64 // when last checked: no copy runs between two runs
}

// childStarted notes, in a copy of the test binary that a test started, that it runs.
func childStarted() {
	f, err := os.OpenFile(os.Getenv(wire.EnvChildren), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%d %s\n", os.Getpid(), strings.Join(os.Args[1:], " "))
	f.Close()
}

func childrenSize() int64 {
	if fi, err := os.Stat(children.path); err == nil {
		return fi.Size()
	}
	return 0
}

// checkChildren ends the run as one heddle cannot explore if the test started a copy of its
// own binary during it.
func checkChildren(name string) bool {
	if children.path == "" {
		return false
	}
	size := childrenSize()
	if size == children.size {
		return false
	}
	children.size = size
	rt.Fail(rt.VerdictUnsupported, name+" runs its own test binary again, as a child process (os/exec of os.Args[0]); the test's work in that process is out of heddle's reach: heddle controls only the goroutines of the process it started", false)
	return true
}

// Serve serves the worker protocol for the registered tests. Outside heddle it skips.
func Serve(t *testing.T) {
	if member.Member() {
		// A member of a process group runs one test, named by the controller.
		name := os.Getenv(wire.EnvGroupTest)
		test := tests[name]
		if test == nil {
			t.Fatalf("heddle: group member: no test %q in this package", name)
		}
		if member.Serve(func(run func(body func())) { runTest(t, name, test, &capture{}, run) }) != 0 {
			t.FailNow()
		}
		return
	}
	if os.Getenv(wire.EnvWorker) == "" {
		if test := tests[os.Getenv(wire.EnvReexec)]; test != nil {
			childStarted()
			t.Run("heddle", test)
			return
		}
		t.Skip("run by heddle test")
	}
	if os.Getenv(wire.EnvVerbose) == "" {
		// The binary runs with -test.v so that testing prints each log line as it is
		// written, which the worker reads; its printer for this test and the subtests it
		// runs is set up already. The program's tests see what go test without -v shows
		// them: raft's, for one, log through t.Log only when testing.Verbose() is false.
		flag.Set("test.v", "false")
	}
	names := make([]string, 0, len(tests))
	for n := range tests {
		names = append(names, n)
	}
	slices.Sort(names)
	if ok, code := debug(func(name string) (explorer.Harness, error) {
		test := tests[name]
		if test == nil {
			return nil, fmt.Errorf("no test %s in this package", name)
		}
		// The program's output goes to the debugger's console, uncaptured.
		return func(run func(body func())) { runTest(t, name, test, &capture{}, run) }, nil
	}, func(name string) string { return funcName(tests[name]) }); ok {
		if code != 0 {
			t.FailNow()
		}
		return
	}
	cap := captureStdout()
	code := serve(func(name string) (explorer.Harness, error) {
		test := tests[name]
		if test == nil {
			return nil, fmt.Errorf("no test %s in this package", name)
		}
		return func(run func(body func())) { runTest(t, name, test, cap, run) }, nil
	}, names)
	cap.restore()
	if code != 0 {
		t.FailNow()
	}
}

// current describes the test that runTest is running, for the subtests it starts.
var current struct {
	name string
	t    *testing.T
	cap  *capture
}

// programOf is the program that test is of, as the traces the process makes name it, and
// sets selected from its -run and -skip.
func programOf(test string) (record.Program, error) {
	prog := record.Program{Package: os.Getenv(wire.EnvPackage), Test: test, Binary: os.Getenv(wire.EnvBinary),
		Run: os.Getenv(wire.EnvRun), Skip: os.Getenv(wire.EnvSkip)}
	sel, err := testmatch.New(prog.Run, prog.Skip)
	selected = sel
	return prog, err
}

// selected is go test's -run and -skip (wire.EnvRun, wire.EnvSkip): Run runs only the subtests
// it selects, as go test does.
var selected *testmatch.Filter

// skipped is the output of the first run of the current exploration in which the test
// skipped itself (t.Skip, t.Skipf, t.SkipNow), with the skip's message last; nil if none did.
// go test reports such a test as skipped, and so does heddle test, unless a run fails.
var skipped *string

// skips are the subtests that skipped themselves in the current exploration, each from the
// first run in which it did, and those left out of it as unexplorable.
var skips []record.Skip

// started are the subtests that the current exploration's runs started, in the order in
// which they first did: go test reports each under the test, as passed unless it failed or
// skipped itself. seen holds the same names.
var (
	started []string
	seen    map[string]bool
)

// clearSubtests forgets what the runs of the last exploration or run did with the test and its
// subtests.
func clearSubtests() {
	skipped, skips, started = nil, nil, nil
	clear(seen)
}

// inside are the subtests that the current run is in, as go test names them, the innermost
// last: the subtest that heddle could not explore, if the run ends so.
var inside []string

// unexplorableIn is the innermost subtest that the current run was in when it ended as one
// heddle cannot explore, with why; its subtest is "" if the run did not end so, or ended so
// outside any subtest.
var unexplorableIn struct{ subtest, reason string }

// leftOut are the subtests that the current exploration leaves out of every run, with why
// heddle could not explore them: each is skipped, as go test reports a subtest that skips
// itself, and the test's other subtests are explored (serveExplore).
var leftOut map[string]string

// leaveOut makes the runs of a replay skip the subtests that the schedule's exploration left
// out (record.Schedule.LeftOut), as it did.
func leaveOut(subtests []string) {
	leftOut = nil
	for _, s := range subtests {
		if leftOut == nil {
			leftOut = map[string]string{}
		}
		leftOut[s] = "left out of the exploration"
	}
}

// ending names, as a run ends with a bug, the subtest it was in, and notes it if heddle cannot
// explore the run.
func ending(v *rt.Verdict) {
	if len(inside) == 0 {
		return
	}
	v.Subtest = inside[len(inside)-1]
	if v.Kind == rt.VerdictUnsupported && unexplorableIn.subtest == "" {
		unexplorableIn.subtest, unexplorableIn.reason = v.Subtest, v.Message
	}
}

// runTest performs one run of test with a fresh *testing.T from t.Run. t.Run executes its
// function on a goroutine of its own and waits for it, so the run is started there, with the
// test function as its root goroutine. A test that fails (t.Error, t.Fatal) ends the run with
// a fatal verdict carrying the test's messages, which the worker's verbose output streams.
//
// The test's cleanups (t.Cleanup) run after the run, when t.Run's function returns. After a
// run that left a goroutine behind (rt.Poisoned), they may wait for it for ever, on objects of
// a run that will not go on: the worker then reports without waiting for them.
func runTest(t *testing.T, name string, test func(*testing.T), cap *capture, run func(body func())) {
	cap.reset()
	// A run that ended inside a subtest, torn down there, left it listed.
	inside, unexplorableIn.subtest, unexplorableIn.reason = inside[:0], "", ""
	ran, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t.Run("heddle", func(st *testing.T) {
			muteRaceCheck(st)
			defer close(ran)
			current.name, current.t, current.cap = name, st, cap
			clear(cleanups)
			run(func() {
				rt.NameRoot(name)
				defer func() {
					if failedOnItsOwn(st) == failed {
						rt.TestFailed()
					}
					if !checkChildren(name) {
						own := failedOnItsOwn(st)
						reportFailure("test failed", st.Failed(), own, current.cap.messages())
						if st.Skipped() && !st.Failed() && skipped == nil {
							msgs := current.cap.messages()
							if msgs == noMessage {
								msgs = ""
							}
							skipped = &msgs
						}
					}
				}()
				defer runCleanups(st)
				defer cancelContext(st)
				test(st)
			})
		})
	}()
	<-ran
	if rt.Poisoned() == nil {
		<-finished
	}
}

// Run runs f as a subtest of t, as t.Run does; the instrumenter rewrites the package's calls of
// t.Run into calls of Run. The subtest runs in the place of the goroutine that called Run, and
// ends cleanly when the run is torn down before it returns (see rt.Subtest). A subtest that
// fails ends the run when it returns, with a fatal verdict that names it. A subtest that the
// exploration leaves out (leftOut) skips itself at once.
func Run(t *testing.T, name string, f func(*testing.T)) bool {
	var sub *testing.T
	returned, own := false, failedUnknown
	torn := false // the run was torn down while the subtest ran: it did not skip itself
	unselected := false
	ok := t.Run(name, func(st *testing.T) {
		sub = st
		muteRaceCheck(st)
		defer func() { returned, own = true, failedOnItsOwn(st) }()
		if current.t != nil {
			full := fullName(st)
			if !selected.Match(full) {
				// go test would not run it; the testing package, which runs every subtest of the
				// worker's own test, runs it and finds it passed.
				unselected = true
				return
			}
			if !seen[full] {
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[full] = true
				started = append(started, full)
			}
			if _, ok := leftOut[full]; ok {
				st.SkipNow()
			}
			inside = append(inside, full)
			defer func() { inside = inside[:len(inside)-1] }()
		}
		rt.Subtest(func() {
			defer runCleanups(st)
			defer cancelContext(st)
			f(st)
		}, func() {
			torn = true
			st.SkipNow()
		})
	})
	if current.t == nil || sub == nil || unselected {
		return ok
	}
	full := fullName(sub)
	if !returned {
		// Only a t.Parallel that the instrumenter could not rewrite lets t.Run return early; the
		// subtest would go on after the run, out of heddle's control.
		rt.Fail(rt.VerdictInternal, "subtest "+full+" called t.Parallel where heddle could not rewrite the call (through an interface, or in a package outside the main module); heddle cannot schedule a parallel subtest", false)
	} else {
		// What the subtest did, and its failure, are its own: a run that ends here as one heddle
		// cannot explore ends in the subtest.
		inside = append(inside, full)
		if !checkChildren(full) {
			reportFailure("subtest "+full+" failed", !ok, own, cmp.Or(current.cap.messagesOf(sub.Name()), noMessage))
		}
		inside = inside[:len(inside)-1]
		if sub.Skipped() && !torn && !slices.ContainsFunc(skips, func(k record.Skip) bool { return k.Test == full }) {
			// As go test reports it under its parent: skipped, with its log, or with why heddle
			// left it out.
			out := current.cap.messagesOf(sub.Name())
			if why, ok := leftOut[full]; ok {
				out = record.SkipUnexplorable + why
			}
			skips = append(skips, record.Skip{Test: full, Output: out})
		}
	}
	return ok
}

// fullName is the name of subtest st as go test prints it, without the worker's own levels.
func fullName(st *testing.T) string {
	return current.name + strings.TrimPrefix(st.Name(), current.t.Name())
}

// muteRaceCheck keeps the testing package from failing t for the race detector's reports: heddle
// reports races itself, with the run's race verdict (rt/race.go), and leaves out those of its
// own state (racereport.go), which testing counts too. A test that had logged anything was
// then reported as failed with its log alone: resty's TestClientOnResponseError, where
// heddle's and the program's uses of fmt's pool of printers met. It sets testing's unexported
// raceErrorLogged, after which testing's race check no longer adds its failure; if the field
// is ever gone, it does nothing, and failedOnItsOwn and raceOnly decide as before.
func muteRaceCheck(t *testing.T) {
	f := reflect.ValueOf(t).Elem().FieldByName("raceErrorLogged")
	if !f.IsValid() || f.Type() != reflect.TypeFor[atomic.Bool]() {
		return
	}
	(*atomic.Bool)(unsafe.Pointer(f.UnsafeAddr())).Store(true)
}

// failure says whether a test failed by itself, before the testing package's race check.
type failure int

const (
	failedUnknown failure = iota
	failed
	notFailed
)

// failedOnItsOwn reports whether t has failed without counting the races the detector
// reported: t.Failed, and the end of a test, add a failure of their own for every new report,
// and heddle reports races itself, with the run's race verdict (rt/race.go). A race that only
// heddle's own state makes does not fail the test, and a failure of the test's own is reported
// even in the run where the detector reports such a race. It reads testing's unexported flag;
// if that is ever gone, it answers failedUnknown and the messages decide (raceOnly). It must
// be called before t.Failed, which runs the race check.
func failedOnItsOwn(t *testing.T) failure {
	f := reflect.ValueOf(t).Elem().FieldByName("failed")
	switch {
	case !f.IsValid() || f.Kind() != reflect.Bool:
		return failedUnknown
	case f.Bool():
		return failed
	}
	return notFailed
}

// reportFailure ends the run as fatal, with the test's messages msg after what, if the test
// failed (failedNow, as t.Failed or t.Run says) for a reason of its own (own, from
// failedOnItsOwn).
func reportFailure(what string, failedNow bool, own failure, msg string) {
	if !failedNow || own == notFailed {
		return
	}
	if own == failed && strings.Contains(msg, raceMarker) {
		own = failedUnknown // an earlier race check may have set the flag
	}
	if own == failed || !raceOnly(msg) {
		rt.Fail(rt.VerdictFatal, failedWith(what, withoutRaceMarkers(msg)), false)
	}
}

// raceMarker ends the message of the failure that the testing package adds for a race.
const raceMarker = ": race detected during execution of test"

// raceOnly reports whether a failed test's messages are only the testing package's for a
// data race the race detector reported. Heddle reports races itself, with the verdict race of
// the run (rt/race.go), and the run goes on as the test does.
func raceOnly(msgs string) bool {
	for _, m := range strings.Split(msgs, "\n") {
		if !strings.HasSuffix(m, raceMarker) {
			return false
		}
	}
	return true
}

// failedWith is what a failed test printed, after what, as go test prints it: a message of
// several lines starts on a line of its own, one line each.
func failedWith(what, msgs string) string {
	if strings.Contains(msgs, "\n") {
		return what + ":\n    " + strings.ReplaceAll(msgs, "\n", "\n    ")
	}
	return what + ": " + msgs
}

// withoutRaceMarkers leaves the testing package's race failures out of a failed test's
// messages, unless there is nothing else: the race is the run's verdict if it is the program's.
func withoutRaceMarkers(msgs string) string {
	var kept []string
	for _, m := range strings.Split(msgs, "\n") {
		if !strings.HasSuffix(m, raceMarker) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return msgs
	}
	return strings.Join(kept, "\n")
}

// cleanups holds the functions that tests and subtests registered with Cleanup in the current
// run, by test. Only the run's running goroutine touches it.
var cleanups = map[testing.TB][]func(){}

// Cleanup stands for t.Cleanup, which the instrumenter rewrites into a call of Cleanup. In a
// run, f runs when the test's or subtest's function returns, inside the run, as testing would
// run it: its operations are explored, and the goroutines it stops (a cancel, a Close) are not
// left blocked, which would be reported as leaks. Outside a run it is t.Cleanup.
func Cleanup(t testing.TB, f func()) {
	if !rt.Running() {
		t.Cleanup(f)
		return
	}
	if fs := scopes[t]; fs != nil {
		*fs = append(*fs, f)
		return
	}
	cleanups[t] = append(cleanups[t], f)
}

// contexts holds the contexts that Context gave the tests of the run, with their cancels.
var contexts = map[testing.TB]testContext{}

type testContext struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// Context stands for t.Context, which the instrumenter rewrites into a call of Context. In a
// run, the context is one of the run, canceled when the test's function returns, just before
// its cleanups run, as testing cancels it: a goroutine that waits for it to end is woken under
// heddle's control, where the testing package's own context would be canceled after the run,
// and the goroutine reported leaked. Outside a run it is t.Context.
func Context(t testing.TB) context.Context {
	if !rt.Running() {
		return t.Context()
	}
	c, ok := contexts[t]
	if !ok {
		c.ctx, c.cancel = rt.WithCancel(context.Background())
		contexts[t] = c
	}
	return c.ctx
}

// cancelContext cancels the context that Context gave t, if it gave one.
func cancelContext(t testing.TB) {
	if c, ok := contexts[t]; ok {
		delete(contexts, t)
		c.cancel()
	}
}

// runCleanups calls t's cleanups, last registered first; the rest still run when one fails the
// test (runtime.Goexit) or panics.
func runCleanups(t testing.TB) {
	fs := cleanups[t]
	if len(fs) == 0 {
		delete(cleanups, t)
		return
	}
	cleanups[t] = fs[:len(fs)-1]
	defer runCleanups(t)
	fs[len(fs)-1]()
}

// scopes holds, for a test whose function runs synctest.Test, the cleanups that the bubble
// registers: testing gives the bubble's function a T of its own.
var scopes = map[testing.TB]*[]func(){}

// cleanupScope opens a scope of t's cleanups for synctest.Test's function: the cleanups
// registered on t until end is called are the scope's, and end calls them, last first, on the
// bubble's goroutine, when the function returns and before the bubble's goroutines are waited
// for, as testing runs a synctest T's. The test's own cleanups are not among them: if the run
// is torn down first, the test's goroutine does not run the bubble's.
func cleanupScope(t *testing.T) (end func()) {
	outer, fs := scopes[t], new([]func())
	scopes[t] = fs
	return func() {
		defer func() {
			if outer == nil {
				delete(scopes, t)
			} else {
				scopes[t] = outer
			}
		}()
		runScope(fs)
	}
}

// runScope calls the cleanups of a scope, last first, as runCleanups does.
func runScope(fs *[]func()) {
	n := len(*fs)
	if n == 0 {
		return
	}
	f := (*fs)[n-1]
	*fs = (*fs)[:n-1]
	defer runScope(fs)
	f()
}

// Parallel stands for t.Parallel, which the instrumenter rewrites into a call of Parallel. A
// run executes a single test, so under heddle a test or subtest that calls Parallel simply
// goes on, in its parent's place; interleavings between parallel subtests are not explored.
func Parallel(t *testing.T) {
	if current.t == nil {
		t.Parallel()
	}
}

// serve reads one request and answers it; it returns the process exit code.
func serve(harnessFor func(name string) (explorer.Harness, error), names []string) int {
	in := os.NewFile(3, "heddle-request")
	out := os.NewFile(4, "heddle-response")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "heddle worker: file descriptors 3 and 4 are not open")
		return 2
	}
	var sending sync.Mutex
	write := func(b []byte) {
		sending.Lock()
		defer sending.Unlock()
		out.Write(b)
	}
	send := func(m *wire.Message) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		switch m.Type {
		case wire.MsgNode, wire.MsgProgress, wire.MsgAlive:
			enc.Encode(m)
			write(buf.Bytes())
			return
		}
		// A run's result, a bug's trace or an exploration's end can take seconds to encode, and
		// tens under the race detector on a loaded machine, while nothing runs: it is encoded
		// outside the lock, and the controller, whose answer limit counts from the worker's
		// last sign of life, hears meanwhile that the worker is alive.
		done := make(chan struct{})
		go func() {
			t := time.NewTicker(wire.Heartbeat)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					var alive bytes.Buffer
					json.NewEncoder(&alive).Encode(&wire.Message{Type: wire.MsgAlive})
					write(alive.Bytes())
				}
			}
		}()
		enc.Encode(m)
		close(done)
		write(buf.Bytes())
	}
	// A test may run its own binary again (os/exec on os.Args[0]): that process is the
	// program's, not a worker, and must not inherit the protocol's descriptors.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	os.Unsetenv(wire.EnvWorker)
	var req wire.Request
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		send(&wire.Message{Type: wire.MsgError, Error: "heddle worker: reading request: " + err.Error()})
		return 2
	}
	if req.V != wire.Version {
		send(&wire.Message{Type: wire.MsgError, Error: fmt.Sprintf("heddle worker: protocol version %d, want %d", req.V, wire.Version)})
		return 2
	}
	if req.Cmd == wire.CmdList {
		send(&wire.Message{Type: wire.MsgTests, Tests: names})
		return 0
	}
	h, err := harnessFor(req.Test)
	if err != nil {
		send(&wire.Message{Type: wire.MsgError, Error: err.Error()})
		return 2
	}
	// The test's own process runs it as TestHeddleWorker/heddle: a copy it starts with that
	// -test.run runs the test again, uncontrolled (see Worker).
	os.Setenv(wire.EnvReexec, req.Test)
	// The driver makes the file (see driver's process.children); a worker started otherwise
	// makes its own.
	children.path = os.Getenv(wire.EnvChildren)
	if children.path == "" {
		if f, err := os.CreateTemp("", "heddle-children-"); err == nil {
			f.Close()
			children.path = f.Name()
			defer os.Remove(f.Name())
			os.Setenv(wire.EnvChildren, f.Name())
		}
	}
	prog, err := programOf(req.Test)
	if err != nil {
		send(&wire.Message{Type: wire.MsgError, Error: "heddle worker: " + err.Error()})
		return 2
	}
	rt.Heartbeat(wire.Heartbeat, func() { send(&wire.Message{Type: wire.MsgAlive}) })
	switch req.Cmd {
	case wire.CmdExplore:
		if n, where := rt.InitGoroutines(); n > 0 {
			send(&wire.Message{Type: wire.MsgIsolate, Error: fmt.Sprintf("%d goroutine(s) started during package init, the first at %s, belong to every run; a process adopts them once", n, where)})
			break
		}
		serveExplore(h, req, prog, send)
	case wire.CmdReplay:
		leaveOut(req.Schedule.LeftOut)
		res, err := explorer.ReplayWith(h, req.Schedule, explorer.OptionsOf(req.Options))
		if err != nil {
			send(&wire.Message{Type: wire.MsgError, Error: err.Error()})
			return 2
		}
		tr := record.FromResult(res, prog, req.Schedule.Strategy)
		tr.LeftOut = req.Schedule.LeftOut
		send(&wire.Message{Type: wire.MsgTrace, Trace: tr})
	case wire.CmdRun:
		send(serveRun(h, req))
	default:
		send(&wire.Message{Type: wire.MsgError, Error: fmt.Sprintf("heddle worker: unknown command %q", req.Cmd)})
		return 2
	}
	return 0
}

// capture collects what the test binary prints on its standard output (test logs and the
// program's own output) so that a failed run's messages can be reported, and so that
// thousands of runs do not flood the terminal.
type capture struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	saved int
	r, w  *os.File
	seen  chan struct{}
	mark  string
	// resetMark is the line by which reset marks the start of a run's output.
	resetMark string
}

func captureStdout() *capture {
	c := &capture{seen: make(chan struct{}, 1)}
	c.resetMark = fmt.Sprintf("heddle-reset-%p", c)
	r, w, err := os.Pipe()
	if err != nil {
		return c
	}
	saved, err := redirectStdout(w)
	if err != nil {
		r.Close()
		w.Close()
		return c
	}
	c.r, c.w, c.saved = r, w, saved
	go c.read()
	return c
}

func (c *capture) read() {
	sc := bufio.NewScanner(c.r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		c.mu.Lock()
		if strings.Contains(line, c.resetMark) {
			c.buf.Reset()
			c.mu.Unlock()
			continue
		}
		if c.mark != "" && strings.Contains(line, c.mark) {
			c.mark = ""
			c.mu.Unlock()
			c.seen <- struct{}{}
			continue
		}
		if c.buf.Len() < 64<<10 {
			c.buf.WriteString(line)
			c.buf.WriteByte('\n')
		}
		c.mu.Unlock()
	}
}

// reset forgets the output printed so far. What the previous run printed may still be in the
// pipe, so the reader forgets it when it reaches the reset mark.
func (c *capture) reset() {
	if c.r == nil {
		return
	}
	fmt.Fprintln(os.Stdout, c.resetMark)
}

// flushed returns, with c.mu held, once the reader has passed whatever the test printed so
// far: that is in the pipe before the mark it writes.
func (c *capture) flushed() {
	c.mu.Lock()
	c.mark = fmt.Sprintf("heddle-mark-%p", c)
	c.mu.Unlock()
	fmt.Fprintln(os.Stdout, c.mark)
	<-c.seen
	c.mu.Lock()
}

// messagesOf returns the log lines that the subtest named run (its name under this process's
// own tests) printed in this run, without its own subtests' or other tests' output: the lines
// after a "=== RUN", "=== NAME" or "=== CONT" line that names it, up to the next "===" or "---"
// line.
func (c *capture) messagesOf(run string) string {
	if c.r == nil {
		return ""
	}
	c.flushed()
	defer c.mu.Unlock()
	var msgs []string
	in := false
	for _, l := range strings.Split(c.buf.String(), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
			f := strings.Fields(l)
			in = len(f) == 3 && f[0] == "===" && f[2] == run
			continue
		}
		if in && l != "" {
			msgs = append(msgs, l)
		}
	}
	return strings.Join(msgs, "\n")
}

// noMessage is what messages returns for a run that printed nothing.
const noMessage = "(no message)"

// messages returns the test's log lines printed so far in this run.
func (c *capture) messages() string {
	if c.r == nil {
		return "(output not captured)"
	}
	c.flushed()
	defer c.mu.Unlock()
	var msgs []string
	for _, l := range strings.Split(c.buf.String(), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		msgs = append(msgs, l)
	}
	if len(msgs) == 0 {
		return noMessage
	}
	return strings.Join(msgs, "\n")
}

func (c *capture) restore() {
	if c.r == nil {
		return
	}
	restoreStdout(c.saved)
	runtime.KeepAlive(c.w)
}
