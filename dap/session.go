package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/bidir"
	"github.com/heddledbg/heddle/server"
	"github.com/heddledbg/heddle/timeline"
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
	cancel context.CancelFunc

	mu       sync.Mutex
	seq      int
	tmp      string
	initArgs json.RawMessage
	prog     *program
	spec     *launchSpec
	bps      *breakpoints
	active   *incarnation
	spare    []chan *incarnation
	nextID   int
	threads  threadIDs
	// cur is the position of the current stop; plan is the schedule the incarnations follow.
	cur      *bidir.Stop
	curBug   *Bug // the bug the current stop is at
	follow   []string
	recorded []Checkpoint
	moving   int // the current motion's id, 0 for none
	// hits records the breakpoint hits continues met; from is the place on it that the
	// current motion left from.
	hits     *bidir.Hits
	from     int
	motions  int
	explores *explorations
	// trace is the detailed trace of the schedule traceKey, for the web view and lock trees.
	trace    *timeline.Trace
	traceKey string
	web      *server.Server
	ended    bool
	wg       sync.WaitGroup
}

// Serve runs a session on a client connection until the client disconnects or the
// connection ends. It returns nil after a disconnect request.
func Serve(ctx context.Context, rw io.ReadWriter, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	tmp, err := os.MkdirTemp("", "heddle-dap-")
	if err != nil {
		cancel()
		return err
	}
	s := &Session{opts: opts, client: &writer{w: rw}, ctx: ctx, cancel: cancel, tmp: tmp, bps: newBreakpoints(),
		threads: newThreadIDs(), explores: newExplorations(), hits: bidir.NewHits()}
	defer s.shutdown()
	r := newReader(rw)
	for {
		m, err := r.read()
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
		if s.opts.Log != nil {
			fmt.Fprintf(s.opts.Log, "<- %s %s\n", m.Command, m.Arguments)
		}
		if done := s.dispatch(m); done {
			return nil
		}
	}
}

// shutdown ends every incarnation and search and removes temporary files.
func (s *Session) shutdown() {
	s.cancel()
	s.explores.cancel(0)
	s.mu.Lock()
	active := s.active
	s.active = nil
	spare := s.spare
	s.spare = nil
	web := s.web
	s.mu.Unlock()
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
	s.wg.Wait()
	if web != nil {
		web.Close()
	}
	if s.prog != nil && s.prog.cleanup != nil {
		s.prog.cleanup()
	}
	os.RemoveAll(s.tmp)
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

// respond answers req. Requests heddle makes itself (from the web view) have no seq and get
// no response.
func (s *Session) respond(req *message, b any) {
	if req.Seq == 0 {
		return
	}
	m := &message{Type: "response", RequestSeq: req.Seq, Command: req.Command, Success: true}
	if b != nil {
		m.Body = body(b)
	}
	s.send(m)
}

// fail answers req with an error response whose message the user sees.
func (s *Session) fail(req *message, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if req.Seq == 0 {
		s.output("stderr", "heddle: "+msg+"\n")
		return
	}
	s.send(&message{Type: "response", RequestSeq: req.Seq, Command: req.Command, Success: false, Message: msg,
		Body: body(map[string]any{"error": map[string]any{"id": 3000, "format": msg, "showUser": true}})})
}

func (s *Session) event(name string, b any) {
	m := &message{Type: "event", Event: name}
	if b != nil {
		m.Body = body(b)
	}
	s.send(m)
}

func (s *Session) output(category, text string) {
	s.event("output", map[string]string{"category": category, "output": text})
}

// dispatch handles one client request. It reports whether the session is over.
func (s *Session) dispatch(m *message) bool {
	switch m.Command {
	case "initialize":
		s.initialize(m)
	case "launch":
		s.launch(m)
	case "attach":
		s.fail(m, "heddle dap does not attach to running processes: use a launch configuration")
	case "disconnect", "terminate":
		s.respond(m, nil)
		if m.Command == "terminate" {
			s.event("terminated", nil)
		}
		return true
	case "configurationDone":
		s.configurationDone(m)
	case "setBreakpoints":
		s.hits.Clear()
		s.bps.setSource(m.Arguments)
		s.forward(m)
	case "setFunctionBreakpoints":
		s.hits.Clear()
		s.setFunctionBreakpoints(m)
	case "setExceptionBreakpoints":
		s.hits.Clear()
		s.bps.setExceptions(m.Arguments)
		s.forward(m)
	case "setInstructionBreakpoints":
		s.hits.Clear()
		s.bps.setInstructions(m.Arguments)
		s.forward(m)
	case "continue", "next", "stepIn", "stepOut":
		s.forwardMotion(m)
	case "stepBack", "reverseContinue":
		s.backward(m)
	case "threads":
		s.threadsRequest(m)
	case "stackTrace":
		s.stackTrace(m)
	case "exceptionInfo":
		s.exceptionInfo(m)
	case "restart":
		s.fail(m, "restart is not supported: use heddle/gotoCheckpoint with index 0")
	default:
		if strings.HasPrefix(m.Command, "heddle/") {
			s.custom(m)
			return false
		}
		s.forward(m)
	}
	return false
}

// capabilities are Delve's, with going backwards added and restart left out (heddle's
// restart is a go to checkpoint 0).
func (s *Session) initialize(m *message) {
	s.mu.Lock()
	s.initArgs = m.Arguments
	s.mu.Unlock()
	s.respond(m, map[string]any{
		"supportsConfigurationDoneRequest":  true,
		"supportsConditionalBreakpoints":    true,
		"supportsHitConditionalBreakpoints": true,
		"supportsDelayedStackTraceLoading":  true,
		"supportsFunctionBreakpoints":       true,
		"supportsInstructionBreakpoints":    true,
		"supportsExceptionInfoRequest":      true,
		"supportsSetVariable":               true,
		"supportsEvaluateForHovers":         true,
		"supportsClipboardContext":          true,
		"supportsSteppingGranularity":       true,
		"supportsLogPoints":                 true,
		"supportsDisassembleRequest":        true,
		"supportsStepBack":                  true,
		"supportsTerminateRequest":          true,
		"supportsRestartRequest":            false,
		"exceptionBreakpointFilters": []map[string]any{
			{"filter": "panic", "label": "Panic", "default": true},
			{"filter": "fatal", "label": "Fatal error", "default": true},
		},
	})
}

// active returns the current incarnation, or nil before launch or after the end.
func (s *Session) current() *incarnation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// forward passes a request to the current incarnation's Delve and its response back, with
// thread ids translated.
func (s *Session) forward(m *message) {
	in := s.current()
	if in == nil {
		s.fail(m, "%s: no program is being debugged (launch first)", m.Command)
		return
	}
	args := s.threads.toDelve(in, m.Arguments)
	ch, err := in.send(m.Command, args)
	if err != nil {
		s.fail(m, "%s: %v", m.Command, err)
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
		resp.RequestSeq = m.Seq
		resp.Command = m.Command
		s.send(resp)
	}()
}

// call sends a request to an incarnation on the client's behalf and waits for the response.
func (s *Session) call(in *incarnation, command string, args any) (*message, error) {
	ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	return in.call(ctx, command, args)
}

func (s *Session) setFunctionBreakpoints(m *message) {
	s.bps.setFunctions(m.Arguments)
	in := s.current()
	if in == nil {
		s.fail(m, "setFunctionBreakpoints: no program is being debugged (launch first)")
		return
	}
	resp, err := s.call(in, "setFunctionBreakpoints", s.bps.functions(nil))
	if err != nil {
		s.fail(m, "%v", err)
		return
	}
	// Leave heddle's own breakpoint out of the client's view.
	var b struct {
		Breakpoints []json.RawMessage `json:"breakpoints"`
	}
	json.Unmarshal(resp.Body, &b)
	if n := s.bps.clientFunctions(); len(b.Breakpoints) > n {
		b.Breakpoints = b.Breakpoints[:n]
	}
	s.respond(m, b)
}
