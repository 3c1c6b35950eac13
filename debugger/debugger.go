package debugger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/heddledbg/heddle/bidir"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/server"
)

// Front is the user interface the debugger reports to. Its methods are called from the
// debugger's goroutines, one at a time for each motion, and must not block for long.
type Front interface {
	// Stopped shows a stop of the debuggee.
	Stopped(Stop)
	// Terminated says the run ended: nothing is left to debug until the user goes back.
	Terminated()
	// Output prints text on the debug console; category is "console", "stdout" or "stderr".
	Output(category, text string)
	// Forward passes an event of the current target that the debugger does not interpret;
	// thread translates the target's goroutine ids to thread ids.
	Forward(native any, thread func(goid int64) int)
	// Progress, BugFound and ExploreDone report on an exploration (Explore).
	Progress(Progress)
	BugFound(explore int, b *Bug)
	ExploreDone(ExploreDone)
}

// Stop is where the debuggee stopped, as the front end shows it.
type Stop struct {
	// Reason is why: "step", "breakpoint", "entry", "goto", "pause", "exception"…
	Reason string
	// Thread is the stopped goroutine's thread id, and Goroutine its logical id.
	Thread    int
	Goroutine string
	// Description is a short label of the stop, short enough for an editor's call stack: the
	// kind of the bug stopped at (deadlock), or how the run ended (reason "end"). Text is
	// the bug's whole message.
	Description string
	Text        string
	// Checkpoint is the last checkpoint reached.
	Checkpoint int
	// Others are the states of the other goroutines, each shown with its thread, so that
	// none keeps the reason of an earlier stop.
	Others []ThreadState
}

// ThreadState is what a goroutine other than the stopped one is doing at a stop.
type ThreadState struct {
	Thread int
	// State is blocked or runnable, before operation Op.
	State string
	Op    string
	// Text says it as Go code: blocked in to.mu.Lock() at bank.go:15.
	Text string
}

// Config configures a Debugger.
type Config struct {
	Front  Front
	Launch Launcher
	// Web starts the web view (WebView); nil means a server.New with default options.
	Web func() (*server.Server, error)
}

// ErrBusy is the error of a motion asked for while another runs.
var ErrBusy = errors.New("the debugger is busy with another command; try again when it stops")

// ErrNoProgram is the error of a request that needs a program before launch.
var ErrNoProgram = errors.New("no program is being debugged (launch first)")

// ErrNotStopped is the error of a request that needs a stopped program.
var ErrNotStopped = errors.New("the program is not stopped")

// A Debugger debugs one program: it launches incarnations of it, schedules their goroutines,
// moves forwards and backwards, and explores from where the user stands.
type Debugger struct {
	cfg    Config
	front  Front
	ctx    context.Context
	cancel context.CancelFunc
	tmp    string

	mu     sync.Mutex
	prog   *program
	spec   Spec
	active *incarnation
	spare  []chan *incarnation
	// sparesLater defers topping the spares up to the end of the next motion (topUp).
	sparesLater bool
	// parked are incarnations kept at places of the recorded execution (parked.go).
	parked []*parked
	nextID int
	// bpVersion counts changes of the client's breakpoints, so that a spare incarnation
	// knows its breakpoints are stale; hitConditions says whether one counts hits.
	bpVersion     int
	hitConditions bool
	threads       threadIDs
	// cur is the position of the current stop; follow is the schedule the incarnations follow,
	// and leftOut the subtests they skip, as that schedule's exploration did.
	cur      *bidir.Stop
	curBug   *Bug // the bug the current stop is at
	follow   []string
	leftOut  []string
	recorded []Checkpoint
	moving   int // the current motion's id, 0 for none
	// hits records the breakpoint hits continues met; from is the place on it that the
	// current motion left from.
	hits     *bidir.Hits
	from     int
	motions  int
	explores *explorations
	// trace is the detailed trace of the schedule traceKey, for the web view and lock trees;
	// the web view knows it as traceName, the traces-th of the session.
	trace     *record.Trace
	traceKey  string
	traceName string
	traces    int
	web       *server.Server
	// names are the threads' names at the current stop of incarnation in (threadName).
	names struct {
		in *incarnation
		of map[string]string
	}
	// webOnce serializes the start of the web view.
	webOnce sync.Mutex
	wg      sync.WaitGroup
}

// New returns a debugger with nothing launched yet.
func New(ctx context.Context, cfg Config) (*Debugger, error) {
	tmp, err := os.MkdirTemp("", "heddle-dap-")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	return &Debugger{cfg: cfg, front: cfg.Front, ctx: ctx, cancel: cancel, tmp: tmp, threads: newThreadIDs(),
		explores: newExplorations(), hits: bidir.NewHits()}, nil
}

// Close ends every incarnation and search and removes temporary files.
func (d *Debugger) Close() {
	d.cancel()
	d.explores.cancel(0)
	d.mu.Lock()
	active := d.active
	d.active = nil
	spare := d.spare
	d.spare = nil
	parked := d.parked
	d.parked = nil
	web := d.web
	d.mu.Unlock()
	if active != nil {
		active.close()
	}
	for _, ch := range spare {
		go func() {
			if in := <-ch; in != nil {
				in.close()
			}
		}()
	}
	// The context is cancelled: no incarnation is parked from now on, and those on their way
	// give up.
	for _, e := range parked {
		discard(e)
	}
	d.wg.Wait()
	if web != nil {
		web.Close()
	}
	if d.prog != nil && d.prog.cleanup != nil {
		d.prog.cleanup()
	}
	os.RemoveAll(d.tmp)
}

// current returns the current incarnation, or nil before launch or after the end.
func (d *Debugger) current() *incarnation {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.active
}

// Current returns the current incarnation's target, or nil before launch.
func (d *Debugger) Current() Target {
	if in := d.current(); in != nil {
		return in.t
	}
	return nil
}

// Goid returns the runtime goroutine id of thread id in the current incarnation.
func (d *Debugger) Goid(thread int) int64 {
	in := d.current()
	if in == nil {
		return int64(thread)
	}
	return d.threads.goid(in, thread)
}

// BreakpointsChanged says that the client changed its breakpoints; hitConditions says
// whether one of them has a hit condition, which counts hits from the start of the run.
func (d *Debugger) BreakpointsChanged(hitConditions bool) {
	d.hits.Clear()
	d.mu.Lock()
	d.bpVersion++
	d.hitConditions = hitConditions
	d.mu.Unlock()
}

// breakpointVersion is that of the client's current breakpoints.
func (d *Debugger) breakpointVersion() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bpVersion
}

// Bug returns the bug the current stop is at, or nil.
func (d *Debugger) Bug() *Bug {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.curBug
}

// BugReport is what heddle test says of the bug the current stop is at, from the run's trace:
// its message (a failed test's log, which the debuggee, whose output goes to the console,
// does not capture), then for every goroutine what it blocks on and who holds it, and the
// wait-for cycle (record.Trace.VerdictReport). It is empty when the stop is at no bug.
func (d *Debugger) BugReport() (string, error) {
	in, _, err := d.stopped()
	if err != nil {
		return "", err
	}
	bug := d.Bug()
	if bug == nil {
		return "", nil
	}
	tr, _, err := d.sessionTrace(in)
	if err != nil {
		return "", fmt.Errorf("the report of the %s: %w", bug.Kind, err)
	}
	if tr.Verdict.Kind != bug.Kind {
		return "", fmt.Errorf("the report of the %s: the run's replay ended with %s", bug.Kind, tr.Verdict.Kind)
	}
	return tr.Verdict.Message + "\n" + tr.VerdictReport("  "), nil
}

// stopped returns the current stop, or ErrNoProgram or ErrNotStopped.
func (d *Debugger) stopped() (*incarnation, *bidir.Stop, error) {
	in := d.current()
	d.mu.Lock()
	cur := d.cur
	d.mu.Unlock()
	if in == nil {
		return nil, nil, ErrNoProgram
	}
	if cur == nil {
		return nil, nil, ErrNotStopped
	}
	return in, cur, nil
}

func (d *Debugger) errorf(format string, args ...any) {
	d.front.Output("stderr", "heddle: "+fmt.Sprintf(format, args...)+"\n")
}
