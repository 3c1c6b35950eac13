package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-delve/delve/service"
	delvedap "github.com/go-delve/delve/service/dap"
	godap "github.com/google/go-dap"

	"github.com/heddledbg/heddle/debugger"
	"github.com/heddledbg/heddle/internal/spawn"
	"github.com/heddledbg/heddle/wire"
)

// Each incarnation's Delve runs in a process of its own. Two Delve instances cannot share a
// process: Delve's Linux backend waits for any child (wait4(-1)), so one would reap the
// other's debuggee's stops. The heddle binary itself is that process, started with
// wire.EnvDelveSocket set; ServeDelve is its entry point.

// ServeDelve makes the process a Delve DAP server for one incarnation, and exits when that
// session ends, if the process was started as one. Binaries that embed the adapter call it
// first thing in main (and test binaries in TestMain).
func ServeDelve() {
	path := os.Getenv(wire.EnvDelveSocket)
	if path == "" {
		return
	}
	os.Unsetenv(wire.EnvDelveSocket)
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "heddle delve: %v\n", err)
		os.Exit(2)
	}
	disconnected := make(chan struct{})
	srv := delvedap.NewServer(&service.Config{Listener: ln, DisconnectChan: disconnected})
	srv.Run()
	<-disconnected
	srv.Stop()
	os.Exit(0)
}

// startDelve starts a Delve process serving DAP on a Unix socket under dir and connects to it.
func startDelve(dir string, id int) (*exec.Cmd, net.Conn, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	path := fmt.Sprintf("%s/delve-%d.sock", dir, id)
	cmd := exec.Command(self)
	// Delve makes FIFOs for the debuggee's output in TMPDIR and leaves them when it is
	// killed: they go in the session's directory, which is removed at the end.
	cmd.Env = append(os.Environ(), wire.EnvDelveSocket+"="+path, "TMPDIR="+dir)
	// Delve announces its socket on stdout; its errors go to heddle's stderr.
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := spawn.Start(cmd); err != nil {
		return nil, nil, fmt.Errorf("starting the debugger: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.Dial("unix", path)
		if err == nil {
			return cmd, conn, nil
		}
		select {
		case <-exited:
			return nil, nil, fmt.Errorf("the debugger exited at start (%v)", cmd.ProcessState)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			spawn.Kill(cmd)
			return nil, nil, fmt.Errorf("the debugger did not start within 30s")
		}
	}
}

// delve is one incarnation's Delve, a debugger.Target: a Delve DAP server debugging one
// process of the instrumented binary.
type delve struct {
	cmd  *exec.Cmd
	conn net.Conn
	w    *writer
	bps  *breakpoints

	mu      sync.Mutex
	seq     int
	pending map[int]chan *message
	closed  bool
	events  chan debugger.Event
	// initialized is closed when Delve sends its initialized event, after launch.
	initialized chan struct{}
	initOnce    sync.Once
	done        chan struct{} // closed when Delve's connection ends
	// ret is the temporary instruction breakpoint that a ReturnTo set, which the next stop
	// removes: its goroutine and Delve's id of it.
	ret struct {
		set  bool
		goid int64
		id   int
	}
}

// launchDelve starts a Delve and launches the debuggee under it (a debugger.Launcher).
func (s *Session) launchDelve(ctx context.Context, id int, spec debugger.Spec) (debugger.Target, error) {
	cmd, conn, err := startDelve(spec.Temp, id)
	if err != nil {
		return nil, err
	}
	d := &delve{cmd: cmd, conn: conn, w: &writer{w: conn}, bps: s.bps, pending: map[int]chan *message{},
		events: make(chan debugger.Event, 1024), initialized: make(chan struct{}), done: make(chan struct{})}
	go d.read()
	s.mu.Lock()
	init := godap.InitializeRequestArguments{AdapterID: "heddle", LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path"}
	if s.initArgs != nil {
		init = *s.initArgs
	}
	extra := s.extra
	s.mu.Unlock()
	// The translator of values reads a stand-in by its type (values.go), which Delve gives
	// only to clients that ask; the client gets it only if it asked.
	init.SupportsVariableType = true
	if _, err := d.call(ctx, "initialize", init); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.launch(ctx, spec, extra); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *delve) Events() <-chan debugger.Event { return d.events }
func (d *delve) Done() <-chan struct{}         { return d.done }

func (d *delve) read() {
	defer close(d.done)
	defer close(d.events)
	r := newReader(d.conn)
	for {
		m, err := r.read()
		if err != nil {
			var de *decodeError
			if errors.As(err, &de) {
				continue
			}
			d.mu.Lock()
			d.closed = true
			for seq, ch := range d.pending {
				close(ch)
				delete(d.pending, seq)
			}
			d.mu.Unlock()
			return
		}
		switch m.Type {
		case "response":
			d.mu.Lock()
			ch := d.pending[m.RequestSeq]
			delete(d.pending, m.RequestSeq)
			d.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case "event":
			if m.Event == "stopped" {
				d.returned(m)
			}
			if ev, ok := d.event(m); ok {
				d.events <- ev
			}
		}
	}
}

// event translates one of Delve's events, or reports that it is Delve's own business.
func (d *delve) event(m *message) (debugger.Event, bool) {
	ev := debugger.Event{Native: m}
	switch m.Event {
	case "initialized":
		d.initOnce.Do(func() { close(d.initialized) })
		return ev, false
	case "stopped", "continued":
		var b struct {
			ThreadID int64  `json:"threadId"`
			Reason   string `json:"reason"`
		}
		// A body that does not decode is a stop of no goroutine in particular.
		if err := json.Unmarshal(m.Body, &b); err == nil {
			ev.Goid, ev.Reason = b.ThreadID, b.Reason
		}
		ev.Kind = debugger.Stopped
		if m.Event == "continued" {
			ev.Kind = debugger.Continued
		}
	case "terminated", "exited":
		ev.Kind = debugger.Exited
	case "output":
		var b struct {
			Output string `json:"output"`
		}
		if err := json.Unmarshal(m.Body, &b); err != nil {
			// Not an output heddle can read: the client gets it as it is.
			return ev, true
		}
		// Delve's console greeting is about its own command line, which heddle's users do
		// not have.
		if strings.Contains(b.Output, "Type 'dlv help'") {
			return ev, false
		}
		ev.Kind, ev.Text = debugger.Output, b.Output
	}
	return ev, true
}

// send sends a request to Delve and returns the channel its response will arrive on.
func (d *delve) send(command string, args json.RawMessage) (<-chan *message, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, fmt.Errorf("the debuggee's debugger has ended")
	}
	d.seq++
	seq := d.seq
	ch := make(chan *message, 1)
	d.pending[seq] = ch
	d.mu.Unlock()
	if err := d.w.write(&message{Seq: seq, Type: "request", Command: command, Arguments: args}); err != nil {
		d.mu.Lock()
		delete(d.pending, seq)
		d.mu.Unlock()
		return nil, fmt.Errorf("sending %s to the debugger: %w", command, err)
	}
	return ch, nil
}

// call sends a request and waits for its response. A failed response is an error.
func (d *delve) call(ctx context.Context, command string, args any) (*message, error) {
	var raw json.RawMessage
	switch a := args.(type) {
	case nil:
	case json.RawMessage:
		raw = a
	default:
		raw = body(a)
	}
	ch, err := d.send(command, raw)
	if err != nil {
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the debuggee's debugger has ended", command)
		}
		if !m.Success {
			if responseID(m) == delveRunning {
				// A request of the client's that crossed a motion the client did not ask for
				// by a request of its own, such as heddle/scheduleNext.
				return m, fmt.Errorf("%s: %w", command, debugger.ErrNotStopped)
			}
			return m, fmt.Errorf("%s: %s", command, responseError(m))
		}
		return m, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", command, ctx.Err())
	}
}

// decodeBody calls command and decodes its response's body into v.
func (d *delve) decodeBody(ctx context.Context, command string, args any, v any) error {
	resp, err := d.call(ctx, command, args)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(resp.Body, v); err != nil {
		return fmt.Errorf("%s: Delve's response: %v", command, err)
	}
	return nil
}

// delveRunning is the id of Delve's error for a request that needs the debuggee stopped
// (service/dap's DebuggeeIsRunning).
const delveRunning = 4000

// responseID is the id of a failed response's error, or 0.
func responseID(m *message) int {
	var b struct {
		Error struct {
			ID int `json:"id"`
		} `json:"error"`
	}
	if json.Unmarshal(m.Body, &b) != nil {
		return 0
	}
	return b.Error.ID
}

// responseError is the text of a failed response: Delve puts details in body.error.format.
func responseError(m *message) string {
	var b struct {
		Error struct {
			Format string `json:"format"`
		} `json:"error"`
	}
	if err := json.Unmarshal(m.Body, &b); err == nil && b.Error.Format != "" {
		return b.Error.Format
	}
	if m.Message != "" {
		return m.Message
	}
	return "failed"
}

func (d *delve) launch(ctx context.Context, spec debugger.Spec, extra map[string]json.RawMessage) error {
	args := map[string]any{}
	for k, v := range extra {
		args[k] = v
	}
	args["mode"] = "exec"
	args["program"] = spec.Binary
	args["args"] = spec.Args
	args["env"] = spec.Env
	args["stopOnEntry"] = false
	// The debuggee's output comes back as output events: on stdio, it would otherwise mix
	// with the protocol.
	args["outputMode"] = "remote"
	if spec.Cwd != "" {
		args["cwd"] = spec.Cwd
	}
	if _, err := d.call(ctx, "launch", args); err != nil {
		return err
	}
	// Delve sends "initialized" after the launch response.
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	select {
	case <-d.initialized:
		return nil
	case <-d.done:
		return fmt.Errorf("the debugger ended during launch")
	case <-deadline.C:
		return fmt.Errorf("the debugger did not initialise within 30s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *delve) FunctionBreakpoints(ctx context.Context, client bool, extra []string) error {
	args := functionBreakpoints(nil, extra)
	if client {
		args = d.bps.functions(extra)
	}
	_, err := d.call(ctx, "setFunctionBreakpoints", args)
	return err
}

// ApplyBreakpoints applies the client's breakpoints, with heddle's own function breakpoint.
func (d *delve) ApplyBreakpoints(ctx context.Context) error {
	for _, args := range d.bps.sources() {
		if _, err := d.call(ctx, "setBreakpoints", args); err != nil {
			return err
		}
	}
	if _, err := d.call(ctx, "setFunctionBreakpoints", d.bps.functions(nil)); err != nil {
		return err
	}
	if args := d.bps.instructions(); args != nil {
		if _, err := d.call(ctx, "setInstructionBreakpoints", args); err != nil {
			return err
		}
	}
	if args := d.bps.exceptions(); args != nil {
		if _, err := d.call(ctx, "setExceptionBreakpoints", args); err != nil {
			return err
		}
	}
	return nil
}

func (d *delve) Begin(ctx context.Context) error {
	_, err := d.call(ctx, "configurationDone", nil)
	return err
}

func (d *delve) Resume(ctx context.Context, r debugger.Resume) error {
	// The motions take the same arguments: a thread, and for the steps a granularity.
	args := godap.NextArguments{ThreadId: int(r.Goid), Granularity: godap.SteppingGranularity(r.Granularity)}
	_, err := d.call(ctx, r.Motion.String(), args)
	return err
}

// ReturnTo sets a temporary instruction breakpoint at frame's return address, for its
// goroutine and its activation only (Delve evaluates the condition itself, as its own step
// out does, so no other goroutine's pass stops there), and continues.
func (d *delve) ReturnTo(ctx context.Context, goid int64, frame debugger.Frame) error {
	f, ok := frame.Native.(godap.StackFrame)
	if !ok || f.InstructionPointerReference == "" {
		return debugger.ErrNoReturn
	}
	var off godap.EvaluateResponseBody
	if err := d.decodeBody(ctx, "evaluate", godap.EvaluateArguments{Expression: "runtime.frameoff", FrameId: frame.ID, Context: "watch"}, &off); err != nil {
		return err
	}
	args := godap.SetInstructionBreakpointsArguments{Breakpoints: []godap.InstructionBreakpoint{}}
	if raw := d.bps.instructions(); raw != nil {
		if err := json.Unmarshal(raw, &args); err != nil {
			return fmt.Errorf("the client's instruction breakpoints: %v", err)
		}
	}
	args.Breakpoints = append(args.Breakpoints, godap.InstructionBreakpoint{
		InstructionReference: f.InstructionPointerReference,
		Condition:            fmt.Sprintf("runtime.curg.goid == %d && runtime.frameoff == %s", goid, off.Result),
	})
	var b godap.SetInstructionBreakpointsResponseBody
	err := d.decodeBody(ctx, "setInstructionBreakpoints", args, &b)
	if err == nil && (len(b.Breakpoints) != len(args.Breakpoints) || !b.Breakpoints[len(b.Breakpoints)-1].Verified) {
		err = debugger.ErrNoReturn
	}
	if err != nil {
		d.clearReturn()
		return err
	}
	d.mu.Lock()
	d.ret.set, d.ret.goid, d.ret.id = true, goid, b.Breakpoints[len(b.Breakpoints)-1].Id
	d.mu.Unlock()
	return d.Resume(ctx, debugger.Resume{Motion: debugger.Continue, Goid: goid})
}

// clearReturn gives Delve back the client's instruction breakpoints alone. It does not wait
// for the answer: Delve answers requests in order, so the next one sees them.
func (d *delve) clearReturn() {
	args := d.bps.instructions()
	if args == nil {
		args = body(godap.SetInstructionBreakpointsArguments{Breakpoints: []godap.InstructionBreakpoint{}})
	}
	d.send("setInstructionBreakpoints", args)
}

// returned removes the breakpoint of a ReturnTo at the stop that ends it, before the stop
// is passed on, and names the stop a step if the goroutine reached the return.
func (d *delve) returned(m *message) {
	d.mu.Lock()
	ret := d.ret
	d.ret.set = false
	d.mu.Unlock()
	if !ret.set {
		return
	}
	d.clearReturn()
	var b godap.StoppedEventBody
	if json.Unmarshal(m.Body, &b) != nil || int64(b.ThreadId) != ret.goid || !slices.Contains(b.HitBreakpointIds, ret.id) {
		return
	}
	b.Reason = "step"
	m.Body = body(b)
}

func (d *delve) Stack(ctx context.Context, goid int64, levels int) ([]debugger.Frame, error) {
	var b godap.StackTraceResponseBody
	if err := d.decodeBody(ctx, "stackTrace", godap.StackTraceArguments{ThreadId: int(goid), Levels: levels}, &b); err != nil {
		return nil, err
	}
	frames := make([]debugger.Frame, len(b.StackFrames))
	for i, f := range b.StackFrames {
		frames[i] = debugger.Frame{ID: f.Id, Func: f.Name, Line: f.Line, Native: f}
		if f.Source != nil {
			frames[i].File = f.Source.Path
		}
	}
	return frames, nil
}

func (d *delve) Locals(ctx context.Context, frame int) ([]debugger.Variable, error) {
	var scopes godap.ScopesResponseBody
	if err := d.decodeBody(ctx, "scopes", godap.ScopesArguments{FrameId: frame}, &scopes); err != nil {
		return nil, err
	}
	var out []debugger.Variable
	for _, sc := range scopes.Scopes {
		if sc.Name != "Locals" || sc.VariablesReference == 0 {
			continue
		}
		var vars godap.VariablesResponseBody
		if err := d.decodeBody(ctx, "variables", godap.VariablesArguments{VariablesReference: sc.VariablesReference}, &vars); err != nil {
			return nil, err
		}
		for _, v := range vars.Variables {
			out = append(out, debugger.Variable{Name: v.Name, Value: v.Value})
		}
	}
	return out, nil
}

func (d *delve) Threads(ctx context.Context) ([]debugger.Thread, error) {
	var b godap.ThreadsResponseBody
	if err := d.decodeBody(ctx, "threads", nil, &b); err != nil {
		return nil, err
	}
	out := make([]debugger.Thread, len(b.Threads))
	for i, th := range b.Threads {
		out[i] = debugger.Thread{Goid: int64(th.Id), Name: th.Name}
	}
	return out, nil
}

// Close ends the debuggee and its Delve. It never blocks for long.
func (d *delve) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Delve handles one request at a time: while it is busy (launching, say) it does not read,
	// and the request must not block the close.
	d.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	d.call(ctx, "disconnect", godap.DisconnectArguments{TerminateDebuggee: true})
	d.conn.Close()
	select {
	case <-d.done:
	case <-time.After(5 * time.Second):
	}
	// Delve ends with its session; if it does not, it and its debuggee are killed.
	spawn.Kill(d.cmd)
}
