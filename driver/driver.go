package driver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/spawn"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// Worker is an executable that serves the worker protocol: an instrumented test binary or
// program. Every request runs in a fresh process, so a program's global state, a call to
// os.Exit, or a crash cannot affect the next request or heddle itself.
type Worker struct {
	Path string
	Args []string
	Env  []string
	Dir  string
	// Output receives what the program prints; nil discards it.
	Output io.Writer

	mu sync.Mutex
	// spares, when set (KeepSpare), keeps one process started ahead of the next request,
	// so that a request does not wait for a process to start: the program's start-up (the
	// race detector's, its packages' init) overlaps the request before it.
	spares bool
	spare  *process
}

// KeepSpare makes the worker keep, from its next request on, one process started ahead of
// the request after it, or stops keeping one (the one kept serves the next request). Close
// ends it.
func (w *Worker) KeepSpare(on bool) {
	w.mu.Lock()
	w.spares = on
	w.mu.Unlock()
}

// Close ends the spare process, if any.
func (w *Worker) Close() {
	w.mu.Lock()
	p := w.spare
	w.spare, w.spares = nil, false
	w.mu.Unlock()
	if p != nil {
		p.kill()
	}
}

// ExitError reports a worker process that failed to answer: it exited, crashed or was
// killed before completing its request.
type ExitError struct {
	Path   string
	Status string
	Stderr string
}

// Untraced reports whether the worker died of a signal without a Go traceback. A Go program
// that crashes prints its goroutines; a process killed from outside (the kernel's
// out-of-memory killer, a user) or one whose runtime failed says nothing: heddle's failure,
// or one it cannot tell from it, never the program's bug.
func (e *ExitError) Untraced() bool {
	return strings.Contains(e.Status, "signal") && !strings.Contains(e.Stderr, "goroutine ")
}

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("%s: worker %s", e.Path, e.Status)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ":\n" + s
	}
	return msg
}

// Do sends req to a new worker process and passes every message it answers to recv. It
// returns when the worker has answered with a final message ("done", "result", "trace",
// "tests", "error"), or has exited without one, which is an *ExitError.
func (w *Worker) Do(ctx context.Context, req wire.Request, recv func(*wire.Message)) error {
	p, err := w.start()
	if err != nil {
		return err
	}
	return p.do(ctx, req, recv)
}

// A process is a worker process started ahead of its request, which it waits for.
type process struct {
	w      *Worker
	cmd    *exec.Cmd
	req    *os.File // the write end of the request pipe
	resp   *os.File // the read end of the response pipe
	stderr *tail
	// children is the file in which copies of the test binary that the program starts note
	// that they ran (wire.EnvChildren). The driver makes and removes it: the worker is
	// killed once it has answered, before its own clean-up could run.
	children string
}

func (w *Worker) start() (*process, error) {
	w.mu.Lock()
	p, spares := w.spare, w.spares
	w.spare = nil
	w.mu.Unlock()
	if p == nil {
		var err error
		if p, err = w.spawn(); err != nil {
			return nil, err
		}
	}
	if spares {
		if next, err := w.spawn(); err == nil {
			w.mu.Lock()
			if w.spares && w.spare == nil {
				w.spare, next = next, nil
			}
			w.mu.Unlock()
			if next != nil {
				next.kill()
			}
		}
	}
	return p, nil
}

// spawn starts a process, which waits for its request.
func (w *Worker) spawn() (*process, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	f, err := os.CreateTemp("", "heddle-children-")
	if err != nil {
		reqR.Close()
		reqW.Close()
		respR.Close()
		respW.Close()
		return nil, fmt.Errorf("starting worker %s: %w", w.Path, err)
	}
	f.Close()
	cmd := exec.Command(w.Path, w.Args...)
	cmd.Dir = w.Dir
	// EnvDebug is cleared: a debug adapter in this process may have it set for a debuggee.
	cmd.Env = append(append(os.Environ(), w.Env...), wire.EnvWorker+"=1", wire.EnvDebug+"=", wire.EnvChildren+"="+f.Name())
	stderr := &tail{max: 16 << 10}
	cmd.Stderr = stderr
	if w.Output != nil {
		// Two goroutines of os/exec copy the two streams.
		out := &lockedWriter{w: w.Output}
		cmd.Stdout = out
		cmd.Stderr = io.MultiWriter(out, stderr)
	}
	err = spawn.Start(cmd, reqR, respW)
	reqR.Close()
	respW.Close()
	if err != nil {
		reqW.Close()
		respR.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("starting worker %s: %w", w.Path, err)
	}
	return &process{w: w, cmd: cmd, req: reqW, resp: respR, stderr: stderr, children: f.Name()}, nil
}

// wait reaps the process and removes its file.
func (p *process) wait() error {
	err := p.cmd.Wait()
	os.Remove(p.children)
	return err
}

// kill ends the process, and the processes the program started, and reaps it in the
// background.
func (p *process) kill() {
	spawn.Kill(p.cmd)
	p.req.Close()
	p.resp.Close()
	go p.wait()
}

func (p *process) do(ctx context.Context, req wire.Request, recv func(*wire.Message)) error {
	req.V = wire.Version
	go func() {
		json.NewEncoder(p.req).Encode(req)
		p.req.Close()
	}()
	stop := make(chan struct{})
	defer close(stop)
	limit := answerLimit(req)
	timer := time.NewTimer(limit)
	defer timer.Stop()
	// A worker whose runs make progress says so (wire.Heartbeat): the limit then counts from
	// its last sign of progress, so that a long run on a loaded machine is not taken for a
	// stuck process.
	deadline := time.Now().Add(limit)
	alive := hangOf(req) + answerGrace
	// So are the bytes of an answer coming in: a run's result can be tens of megabytes, which
	// a loaded machine takes tens of seconds to pass through the pipe.
	in := &reading{r: p.resp}
	in.last.Store(time.Now().UnixNano())
	var late atomic.Bool
	exited := make(chan struct{}) // the answer's pipe closed: the worker is gone
	go func() {
		l, kill := waitLimit(ctx, timer, stop, in, alive)
		if !kill {
			return
		}
		late.Store(l)
		if l {
			p.quit(exited)
		}
		// Kill the whole process group: the program may have started processes of its own.
		spawn.Kill(p.cmd)
	}()
	final := false
	var decodeErr, readErr error
	lines := &lineReader{r: bufio.NewReaderSize(in, 1<<20), max: maxAnswer}
	for !final {
		line, err := lines.next()
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
		var m wire.Message
		if err := json.Unmarshal(line, &m); err != nil {
			decodeErr = fmt.Errorf("worker %s sent a malformed message: %v", p.w.Path, err)
			continue
		}
		if m.Type == wire.MsgAlive {
			if d := time.Now().Add(alive); d.After(deadline) {
				deadline = d
				timer.Reset(time.Until(d))
			}
			continue
		}
		final = m.Final()
		recv(&m)
	}
	close(exited)
	if final && p.w.Output == nil {
		// The answer is complete: what the worker does on its way out cannot change it, so
		// the process is not waited for.
		p.kill()
	} else if final {
		// Output has what the program printed once the process is reaped, and not before.
		spawn.Kill(p.cmd)
		p.req.Close()
		p.resp.Close()
		p.wait()
	} else {
		p.resp.Close()
		if err := readErr; err != nil {
			// Heddle's limit, not the program's exit: the worker is killed with its answer.
			spawn.Kill(p.cmd)
			p.wait()
			return fmt.Errorf("worker %s: reading its answer: %v (heddle's limit: an answer of up to %d MB)", p.w.Path, err, maxAnswer>>20)
		}
		werr := p.wait()
		spawn.Kill(p.cmd)
		if late.Load() {
			return fmt.Errorf("worker %s did not answer within %v (its budget, the hang limit and %v to report), nor did its runs make progress in the last %v, and was stopped (heddle's limit)%s", p.w.Path, limit, answerGrace, alive, stuckAt(p.stderr.String()))
		}
		if ctx.Err() == nil && decodeErr == nil {
			status := "exited without answering"
			var ee *exec.ExitError
			if errors.As(werr, &ee) {
				status = ee.ProcessState.String()
			}
			return &ExitError{Path: p.w.Path, Status: status, Stderr: p.stderr.String()}
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return decodeErr
}

// answerGrace is what a worker may take beyond its budget, for start-up, replays and reports.
var answerGrace = time.Minute

// answerLimit is how long a worker may take to answer req: the exploration's time budget, the
// hang limit of its last run, and answerGrace. An exploration bounded by runs only has none.
func answerLimit(req wire.Request) time.Duration {
	hang := hangOf(req)
	switch {
	case req.Cmd != "explore" && req.Cmd != "run":
		return hang + answerGrace
	case req.Options.MaxTime > 0:
		return req.Options.MaxTime + hang + answerGrace
	case req.Cmd == wire.CmdRun:
		return hang + answerGrace
	}
	return math.MaxInt64
}

// hangOf is the hang limit of req's runs.
func hangOf(req wire.Request) time.Duration {
	if req.Options.Hang > 0 {
		return req.Options.Hang
	}
	return rt.DefaultHang
}

// maxAnswer bounds a message of a worker (wire.MaxMessage; tests lower it).
var maxAnswer = wire.MaxMessage

// waitLimit waits out a worker's answer limit. It reports kill once the process must be
// stopped: ctx is done, or the timer fired with nothing read from the worker for alive, which
// is late. Once stop is closed, the answer complete, it returns without kill.
func waitLimit(ctx context.Context, timer *time.Timer, stop chan struct{}, in *reading, alive time.Duration) (late, kill bool) {
	for {
		select {
		case <-ctx.Done():
			return false, true
		case <-stop:
			return false, false
		case <-timer.C:
			if idle := time.Since(time.Unix(0, in.last.Load())); idle < alive {
				timer.Reset(alive - idle)
				continue
			}
			return true, true
		}
	}
}

// lineReader reads the lines of a worker's answer, each a message, of up to max bytes. Unlike
// bufio.Scanner, which looks for the end of a line from its start again after every read,
// it reads a line of a hundred megabytes (a long run's result) in time linear in its length:
// the Scanner took 7 s of a 30 s exploration to find the ends of lines.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// errLineTooLong is a message longer than the reader's max.
var errLineTooLong = errors.New("a message too long")

// next returns the next line without its newline, valid until the next call, or io.EOF.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(chunk) > l.max+1 {
			return nil, errLineTooLong
		}
		l.buf = append(l.buf, chunk...)
		switch {
		case err == nil:
			return l.buf[:len(l.buf)-1], nil
		case err == bufio.ErrBufferFull:
		case err == io.EOF && len(l.buf) > 0:
			return l.buf, nil
		default:
			return nil, err
		}
	}
}

// reading is the worker's response pipe, noting when it last gave bytes.
type reading struct {
	r    io.Reader
	last atomic.Int64 // UnixNano
}

func (r *reading) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// lockedWriter serializes the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

// grow lets t keep up to max bytes from now on.
func (t *tail) grow(max int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.max = max
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ToValidUTF8(t.buf, nil))
}

// Isolated runs a controller-side exploration in which every run is a fresh worker process:
// the strategy lives here, and each run's guide is sent to the worker, which answers with the
// run's result. It is slower than exploring inside the worker, and serves programs whose
// global state or exits make runs in one process interfere.
func Isolated(ctx context.Context, w *Worker, test string, opts explorer.Options) *explorer.Report {
	rep, _ := isolatedExplore(ctx, w, test, opts, nil)
	return rep
}

// isolatedExplore is Isolated, and also returns the runner of the exploration it kept, whose
// skipped, skips and leftOut say which runs skipped the test, which subtests skipped
// themselves and which subtests heddle could not explore.
//
// As a worker's own exploration does (worker.serveExplore), it leaves out a subtest in which
// a run ended as one heddle cannot explore, and explores again without it, the tree's nodes of
// the first run held until the run is over. When the nodes were passed on already, restart, if
// not nil, is called first: what it was passed is void.
func isolatedExplore(ctx context.Context, w *Worker, test string, opts explorer.Options, restart func()) (*explorer.Report, *isolated) {
	start, budget := time.Now(), opts.MaxTime
	onNode := opts.OnNode
	var held []record.Node
	holding := true
	release := func() {
		holding = false
		for _, n := range held {
			onNode(n)
		}
		held = nil
	}
	if onNode != nil {
		opts.OnNode = func(n record.Node) {
			if holding {
				held = append(held, n)
			} else {
				onNode(n)
			}
		}
	}
	var leftOut map[string]string
	for {
		r := &isolated{ctx: ctx, w: w, test: test, opts: opts, start: time.Now(), leftOut: leftOut}
		r.first = func() {
			if holding && r.unexplorableIn == "" {
				release()
			}
		}
		rep := explorer.ExploreOn(r, opts)
		r.close()
		if _, again := leftOut[r.unexplorableIn]; rep.Err != nil || r.unexplorableIn == "" || again {
			release()
			return rep, r
		}
		if !holding && restart != nil {
			restart()
		}
		leftOut = maps.Clone(leftOut)
		if leftOut == nil {
			leftOut = map[string]string{}
		}
		leftOut[r.unexplorableIn] = r.why
		held = nil
		if budget > 0 {
			opts.MaxTime = max(budget-time.Since(start), time.Millisecond)
		}
	}
}

// isolated is the explorer.Runner of Isolated.
type isolated struct {
	ctx  context.Context
	w    *Worker
	test string
	opts explorer.Options
	// start is when the exploration began: a run still going at the end of its time budget
	// is stopped by its worker, as a run in a worker's own exploration is. A replay in
	// detail mode is stopped at detailDeadline, if set (explorer.DetailLimiter).
	start          time.Time
	detailDeadline time.Time
	// spare is the process of the next run, started while the current one runs: a process's
	// start-up costs more than its run, and it overlaps the run on another core.
	spare *process
	// skipped is the output of the first run in which the test skipped itself.
	skipped *string
	// skips are the subtests that skipped themselves, each from the first run that did.
	skips []record.Skip
	// subtests are the subtests that the runs started, in the order in which they first did.
	subtests []string
	// leftOut are the subtests that every run skips, with why heddle cannot explore them.
	leftOut map[string]string
	// runs counts the runs; after the first, first is called. unexplorableIn is the subtest in
	// which a run ended as one heddle cannot explore, which ends the exploration, with why
	// ("" if none did).
	runs                int
	first               func()
	unexplorableIn, why string
}

func (r *isolated) LimitDetail(deadline time.Time) { r.detailDeadline = deadline }

func (r *isolated) Run(gd *explorer.Guide, detail bool) *rt.Result {
	res := r.run(gd, detail)
	if res.Verdict.Kind == rt.VerdictUnsupported && res.Verdict.Subtest != "" {
		r.unexplorableIn, r.why = res.Verdict.Subtest, res.Verdict.Message
	}
	if r.runs++; r.runs == 1 && r.first != nil {
		r.first()
	}
	return res
}

// run performs one run in a fresh worker process.
func (r *isolated) run(gd *explorer.Guide, detail bool) *rt.Result {
	p := r.spare
	r.spare = nil
	if p == nil {
		var err error
		if p, err = r.w.start(); err != nil {
			return workerVerdict(err)
		}
	}
	if r.ctx.Err() == nil {
		r.spare, _ = r.w.start()
	}
	req := wire.Request{Cmd: wire.CmdRun, Test: r.test, Guide: gd.Wire(), Detail: detail, LeftOut: r.leftOut,
		Options: wire.Options{MaxSteps: r.opts.MaxSteps, Hang: r.opts.Hang, Time: r.opts.Time, Quantum: r.opts.Quantum}}
	switch {
	case r.opts.MaxTime > 0 && !detail:
		budget := r.opts.MaxTime
		if r.runs == 0 {
			// As a search in one process does: a long run without a finding is answered
			// without its steps (Result.Untold), so letting it end costs no long answer.
			budget = explorer.FirstRunLimit(budget)
		}
		req.Options.MaxTime = max(budget-time.Since(r.start), time.Millisecond)
	case detail && !r.detailDeadline.IsZero():
		req.Options.MaxTime = max(time.Until(r.detailDeadline), time.Millisecond)
	}
	var res *rt.Result
	var log []wire.LoggedPoint
	var kept []wire.Kept
	var diverged, failed string
	err := p.do(r.ctx, req, func(m *wire.Message) {
		switch m.Type {
		case wire.MsgResult:
			res, log, kept, diverged = m.Result, m.Log, m.DecisionsKept, m.Error
			if r.skipped == nil {
				r.skipped = m.Skipped
			}
			r.skips = record.AddSkips(r.skips, m.Skips)
			r.subtests = record.AddSubtests(r.subtests, m.Subtests)
		case wire.MsgError:
			failed = m.Error
		}
	})
	switch {
	case err != nil:
		return workerVerdict(err)
	case res == nil:
		return &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictInternal, Message: failed}}
	}
	err = gd.SetLog(log, diverged)
	if err == nil {
		err = wire.UndeltaDecisions(res.Decisions, kept)
	}
	if err != nil {
		return &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictInternal, Message: fmt.Sprintf("worker %s: its answer: %v", r.w.Path, err)}}
	}
	if diverged != "" {
		res.Verdict = rt.Verdict{Kind: rt.VerdictDiverged, Message: diverged}
	}
	return res
}

// close ends the spare process.
func (r *isolated) close() {
	if r.spare != nil {
		r.spare.kill()
		r.spare = nil
	}
}

// workerVerdict turns a worker that died during a run into the run's verdict: a program that
// exits (os.Exit from code heddle does not control) or crashes.
func workerVerdict(err error) *rt.Result {
	var we *ExitError
	if errors.As(err, &we) {
		if we.Untraced() {
			return &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictInternal, Message: "the worker process died of a " + strings.TrimPrefix(we.Status, "signal: ") + " without a Go traceback" + lastLine(we.Stderr)}}
		}
		kind := rt.VerdictExit
		if strings.Contains(we.Status, "signal") {
			kind = rt.VerdictPanic
		}
		return &rt.Result{Verdict: rt.Verdict{Kind: kind, Message: "the program " + we.Status + lastLine(we.Stderr)}}
	}
	return &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictInternal, Message: err.Error()}}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return ": " + s
}

// Explore explores test inside one worker process, streaming its messages to recv. A worker
// that can run one schedule only (its package started goroutines during init) says so, and
// the test is explored with a fresh process per run instead (ExploreIsolated).
func Explore(ctx context.Context, w *Worker, test string, opts wire.Options, recv func(*wire.Message)) error {
	var isolate string
	err := w.Do(ctx, wire.Request{Cmd: wire.CmdExplore, Test: test, Options: opts}, func(m *wire.Message) {
		if m.Type == wire.MsgIsolate {
			isolate = m.Error
			return
		}
		recv(m)
	})
	if err != nil || isolate == "" {
		return err
	}
	return ExploreIsolated(ctx, w, test, opts, isolate, recv)
}

// ExploreIsolated explores test with a fresh worker process per run (Isolated), and streams
// what it found to recv as a worker's exploration would: its tree's nodes, its bugs, and a
// "done" message whose Isolated says why, if the worker asked for it.
func ExploreIsolated(ctx context.Context, w *Worker, test string, opts wire.Options, why string, recv func(*wire.Message)) error {
	o := explorer.OptionsOf(opts)
	o.OnNode = func(n record.Node) { recv(&wire.Message{Type: wire.MsgNode, Node: &n}) }
	r, run := isolatedExplore(ctx, w, test, o, func() { recv(&wire.Message{Type: wire.MsgRestart}) })
	if r.Err != nil {
		return r.Err
	}
	prog := record.Program{Package: w.env(wire.EnvPackage), Test: test, Run: w.env(wire.EnvRun), Skip: w.env(wire.EnvSkip)}
	for _, b := range r.Bugs {
		wb := explorer.WireBugTrace(b, prog, opts.Strategy)
		if wb.Trace != nil {
			wb.Trace.LeftOut = slices.Sorted(maps.Keys(run.leftOut))
			// The trace's positions are the worker binary's: a worker replays it to name them.
			if tr, err := Replay(ctx, w, test, wb.Trace.Schedule(), wire.Options{MaxSteps: opts.MaxSteps, Hang: opts.Hang, Time: opts.Time, Quantum: opts.Quantum}); err == nil {
				wb.Trace = tr
			}
		}
		recv(&wire.Message{Type: wire.MsgBug, Bug: wb})
	}
	recv(&wire.Message{Type: wire.MsgDone, Stats: &r.Stats, LockTrees: r.LockTrees, Divergence: r.Divergence,
		Warnings: explorer.WireWarnings(r.Warnings), Isolated: why, Skipped: run.skipped, Skips: run.skips, Subtests: run.subtests})
	return nil
}

// env is the value of the worker's environment variable name, "" if it sets none.
func (w *Worker) env(name string) string {
	for _, kv := range w.Env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// Replay replays a schedule in a worker and returns the detailed trace.
func Replay(ctx context.Context, w *Worker, test string, s *record.Schedule, opts wire.Options) (*record.Trace, error) {
	var tr *record.Trace
	var failed string
	err := w.Do(ctx, wire.Request{Cmd: wire.CmdReplay, Test: test, Schedule: s, Options: opts}, func(m *wire.Message) {
		switch m.Type {
		case wire.MsgTrace:
			tr = m.Trace
		case wire.MsgError:
			failed = m.Error
		}
	})
	if err != nil {
		return nil, err
	}
	if tr == nil {
		return nil, errors.New(failed)
	}
	return tr, nil
}

// List asks a worker for its registered tests.
func List(ctx context.Context, w *Worker) ([]string, error) {
	var tests []string
	var failed string
	err := w.Do(ctx, wire.Request{Cmd: wire.CmdList}, func(m *wire.Message) {
		tests = append(tests, m.Tests...)
		if m.Type == wire.MsgError {
			failed = m.Error
		}
	})
	if err == nil && failed != "" {
		err = errors.New(failed)
	}
	return tests, err
}

// Parallel explores test with n worker processes, each a part of the search or of the shard
// that opts asks for (explorer's sharding): the systematic strategies split their runs, and
// random, PCT and the portfolio's samplers their seeds; random and PCT split their runs too.
// Messages from all workers go to recv, with the worker's index, from one goroutine at a
// time.
func Parallel(ctx context.Context, w *Worker, test string, opts wire.Options, n int, recv func(shard int, m *wire.Message)) error {
	if n <= 1 {
		return Explore(ctx, w, test, opts, func(m *wire.Message) { recv(0, m) })
	}
	var mu sync.Mutex
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		o := opts
		o.Part, o.Parts = i, n
		switch o.Strategy {
		case "random", "pct":
			runs := o.MaxRuns
			if runs == 0 {
				runs = 1000
			}
			o.MaxRuns = runs / n
			if i < runs%n {
				o.MaxRuns++
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = Explore(ctx, w, test, o, func(m *wire.Message) {
				mu.Lock()
				defer mu.Unlock()
				recv(i, m)
			})
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
