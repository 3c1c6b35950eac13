package dap

import (
	godap "github.com/google/go-dap"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/heddledbg/heddle/debugger"
	"github.com/heddledbg/heddle/server"
)

// Options configure a debug adapter session.
type Options struct {
	// Log, if not nil, receives a line per message exchanged, for debugging the adapter.
	Log io.Writer
	// Web starts the web view for the session (heddle/webview); nil means none.
	Web func() (*server.Server, error)
}

// Session is one debug adapter session with one client.
type Session struct {
	opts   Options
	client *writer
	ctx    context.Context
	dbg    *debugger.Debugger
	bps    *breakpoints
	values values

	mu  sync.Mutex
	seq int
	// initArgs are the client's initialize arguments, nil before it sends them.
	initArgs *godap.InitializeRequestArguments
	// extra holds the client's launch attributes that Delve understands, passed through.
	extra map[string]json.RawMessage
	wg    sync.WaitGroup
	// thread is the thread of the last stop shown.
	thread int
}

// Serve runs a session on a client connection until the client disconnects or the
// connection ends. It returns nil after a disconnect request.
func Serve(ctx context.Context, rw io.ReadWriter, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Session{opts: opts, client: &writer{w: rw}, ctx: ctx, bps: newBreakpoints()}
	dbg, err := debugger.New(ctx, debugger.Config{Front: front{s}, Launch: s.launchDelve, Web: opts.Web})
	if err != nil {
		return err
	}
	s.dbg = dbg
	defer s.shutdown()
	for in := range s.requests(newReader(rw)) {
		m, err := in.m, in.err
		if err != nil {
			var de *decodeError
			if errors.As(err, &de) {
				// The framing was fine: answer the request if it can be identified, and go on.
				if m != nil && m.Seq > 0 {
					s.fail(m, "malformed request: %v", de.err)
				} else {
					s.output("stderr", "heddle: ignored a malformed message: "+de.err.Error()+"\n")
				}
				continue
			}
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("reading from the client: %w", err)
		}
		if m.Type != "request" {
			continue
		}
		if done := s.dispatch(m); done {
			return nil
		}
	}
	return nil
}

// incoming is a message read from the client, or the error that ended the reading.
type incoming struct {
	m   *message
	err error
}

// requests reads the client's messages and passes them on in order until the session's
// context ends, but for heddle/webview, which it answers itself at once: the request in hand
// may be a launch that builds the program for seconds or minutes, and the web view needs
// nothing of it (its page follows the session's stops once there are any). Opening the web
// view right after starting to debug then takes milliseconds, not the build's time.
func (s *Session) requests(r *reader) <-chan incoming {
	ch := make(chan incoming)
	go func() {
		defer close(ch)
		for {
			m, err := r.read()
			if err == nil && m.Type == "request" {
				if s.opts.Log != nil {
					fmt.Fprintf(s.opts.Log, "<- %s %s\n", m.Command, m.Arguments)
				}
				if m.Command == "heddle/webview" && s.ctx.Err() == nil {
					s.dispatch(m)
					continue
				}
			}
			select {
			case ch <- incoming{m, err}:
			case <-s.ctx.Done():
				return
			}
			var de *decodeError
			if err != nil && !errors.As(err, &de) {
				return
			}
		}
	}()
	return ch
}

// shutdown ends the debugger's incarnations and searches, then the requests in flight.
func (s *Session) shutdown() {
	s.dbg.Close()
	s.wg.Wait()
}

// send writes a message to the client.
func (s *Session) send(m *message) {
	s.mu.Lock()
	s.seq++
	m.Seq = s.seq
	s.mu.Unlock()
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "-> %s%s%s %s\n", m.Type[:1], m.Command, m.Event, m.Body)
	}
	s.client.write(m)
}

// respond answers req.
func (s *Session) respond(req *message, b any) {
	m := &message{Type: "response", RequestSeq: req.Seq, Command: req.Command, Success: true}
	if b != nil {
		m.Body = body(b)
	}
	s.send(m)
}

// fail answers req with an error response whose message the user sees.
func (s *Session) fail(req *message, format string, args ...any) {
	s.failShown(req, fmt.Sprintf(format, args...), true)
}

// failShown answers req with an error response; showUser says whether the client shows it.
func (s *Session) failShown(req *message, msg string, showUser bool) {
	s.send(&message{Type: "response", RequestSeq: req.Seq, Command: req.Command, Success: false, Message: msg,
		Body: body(godap.ErrorResponseBody{Error: &godap.ErrorMessage{Id: 3000, Format: msg, ShowUser: showUser}})})
}

// failErr answers req with err, named after the request unless it already is. A request
// that needs a stopped program and met a running one is not shown to the user: the client
// asked before it learned that the program runs, and the next stop brings a fresh answer.
func (s *Session) failErr(req *message, err error) {
	msg := err.Error()
	if !strings.HasPrefix(msg, req.Command+":") {
		msg = req.Command + ": " + msg
	}
	s.failShown(req, msg, !errors.Is(err, debugger.ErrNotStopped))
}

// reply answers req with body b, or with err if it is not nil.
func (s *Session) reply(req *message, b any, err error) {
	if err != nil {
		s.failErr(req, err)
		return
	}
	s.respond(req, b)
}

// answer returns the function that answers req when the debugger has done what it asked.
func (s *Session) answer(req *message) func(error) {
	return func(err error) { s.reply(req, nil, err) }
}

func (s *Session) event(name string, b any) {
	m := &message{Type: "event", Event: name}
	if b != nil {
		m.Body = body(b)
	}
	s.send(m)
}

func (s *Session) output(category, text string) {
	s.event("output", godap.OutputEventBody{Category: category, Output: text})
}

// dispatch handles one client request. It reports whether the session is over.
func (s *Session) dispatch(m *message) bool {
	switch m.Command {
	case "disconnect", "terminate":
		s.respond(m, nil)
		if m.Command == "terminate" {
			s.event("terminated", nil)
		}
		return true
	case "attach":
		s.fail(m, "heddle dap does not attach to running processes: use a launch configuration")
	case "restart":
		s.fail(m, "restart is not supported: use heddle/gotoCheckpoint with index 0")
	default:
		h, ok := handlers[m.Command]
		switch {
		case ok:
			h(s, m)
		case strings.HasPrefix(m.Command, "heddle/"):
			s.fail(m, "unknown request %q", m.Command)
		default:
			s.forward(m)
		}
	}
	return false
}

// capabilities are Delve's (TestCapabilities compares them with dlv dap's), whose requests
// heddle passes to the current incarnation's Delve, with three differences: going backwards is
// added; restart is left out (heddle's restart is a go to checkpoint 0); and so are data
// breakpoints, a watchpoint of one incarnation, which a step back's new incarnation would
// not have. heddle answers terminate itself.
var capabilities = godap.Capabilities{
	SupportsConfigurationDoneRequest:  true,
	SupportsConditionalBreakpoints:    true,
	SupportsHitConditionalBreakpoints: true,
	SupportsDelayedStackTraceLoading:  true,
	SupportsFunctionBreakpoints:       true,
	SupportsInstructionBreakpoints:    true,
	SupportsExceptionInfoRequest:      true,
	SupportsSetVariable:               true,
	SupportsEvaluateForHovers:         true,
	SupportsClipboardContext:          true,
	SupportsSteppingGranularity:       true,
	SupportsLogPoints:                 true,
	SupportsDisassembleRequest:        true,
	SupportsReadMemoryRequest:         true,
	SupportsWriteMemoryRequest:        true,
	SupportsStepBack:                  true,
	SupportsTerminateRequest:          true,
	// Delve's, which heddle passes on to it.
	ExceptionBreakpointFilters: []godap.ExceptionBreakpointsFilter{
		{Filter: "unrecovered-panic", Label: "Unrecovered Panics", Default: true},
		{Filter: "runtime-fatal-throw", Label: "Fatal Throws", Default: true},
	},
}

func (s *Session) initialize(m *message, a godap.InitializeRequestArguments) {
	s.mu.Lock()
	s.initArgs = &a
	s.mu.Unlock()
	s.respond(m, capabilities)
}

// delve returns the current incarnation's Delve, or nil before launch.
func (s *Session) delve() *delve {
	t, _ := s.dbg.Current().(*delve)
	return t
}

// forward passes a request to the current incarnation's Delve and its response back, with
// thread ids translated.
func (s *Session) forward(m *message) {
	d := s.delve()
	if d == nil {
		s.fail(m, "%s: no program is being debugged (launch first)", m.Command)
		return
	}
	args, err := rewriteThreadID(m.Arguments, func(id int64) int64 { return s.dbg.Goid(int(id)) })
	if err != nil {
		s.fail(m, "%s: malformed arguments: %v", m.Command, err)
		return
	}
	ch, err := d.send(m.Command, args)
	if err != nil {
		s.failErr(m, err)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		resp, ok := <-ch
		if !ok {
			s.fail(m, "%s: the debugger ended", m.Command)
			return
		}
		s.userValues(d, m, resp)
		resp.RequestSeq = m.Seq
		resp.Command = m.Command
		s.send(resp)
	}()
}

// front shows what the debugger reports as DAP events.
type front struct{ s *Session }

func (f front) Stopped(st debugger.Stop) {
	f.s.values.reset()
	f.s.mu.Lock()
	f.s.thread = st.Thread
	f.s.mu.Unlock()
	// The description is the label a client shows beside the thread: one word, rather than
	// VS Code's "Paused on breakpoint", leaves the thread's name room in a narrow call stack.
	b := godap.StoppedEventBody{Reason: st.Reason, ThreadId: st.Thread, AllThreadsStopped: true, Description: st.Reason, Text: st.Text}
	if st.Description != "" {
		b.Description = st.Description
	}
	f.s.event("stopped", b)
	// A client keeps the reason of an earlier stop for the threads this one does not name
	// (VS Code's "Paused on breakpoint" on a goroutine now blocked in a deadlock): each
	// other goroutine's state is a stop of its own thread, which leaves the focus alone. The
	// label is one word, which leaves the thread's name room in a narrow call stack.
	for _, o := range st.Others {
		f.s.event("stopped", godap.StoppedEventBody{Reason: o.State, ThreadId: o.Thread, Description: o.State,
			Text: o.Text, PreserveFocusHint: true})
	}
	f.s.event("heddle/checkpoint", CheckpointEvent{Goroutine: st.Goroutine, Index: st.Checkpoint})
}

func (f front) Terminated() { f.s.event("terminated", nil) }

func (f front) Output(category, text string) { f.s.output(category, text) }

// Forward passes an event of Delve's on, with its thread id translated.
func (f front) Forward(native any, thread func(goid int64) int) {
	m, ok := native.(*message)
	if !ok {
		return
	}
	b, err := rewriteThreadID(m.Body, func(goid int64) int64 { return int64(thread(goid)) })
	if err != nil {
		f.s.output("stderr", fmt.Sprintf("heddle: Delve's %s event: %v\n", m.Event, err))
		b = m.Body
	}
	f.s.send(&message{Type: "event", Event: m.Event, Body: b})
}

func (f front) Progress(p debugger.Progress) { f.s.event("heddle/progress", Progress(p)) }

func (f front) BugFound(explore int, b *debugger.Bug) {
	f.s.event("heddle/bugFound", BugFound{Bug: bugBody(b), ID: explore})
}

func (f front) ExploreDone(d debugger.ExploreDone) { f.s.event("heddle/exploreDone", ExploreDone(d)) }
