package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heddledbg/heddle/worker"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// An incarnation is one live debuggee: a Delve DAP server debugging one process of the
// instrumented binary, and the controller that schedules that process's goroutines.
// Going backwards replaces the session's incarnation with a new one.
type incarnation struct {
	id   int
	cmd  *exec.Cmd
	conn net.Conn
	w    *writer
	ctrl *controller

	mu      sync.Mutex
	seq     int
	pending map[int]chan *message
	closed  bool
	// events receives Delve's events; the session routes them, to sink while a motion waits
	// for this incarnation to stop.
	events chan *message
	sink   chan *message
	// version is that of the breakpoints applied.
	version int
	// exited is closed when Delve reports the debuggee's end; output keeps the end of what
	// the debuggee printed while it was not the session's current incarnation.
	exited     chan struct{}
	exitedOnce sync.Once
	output     []string
	done       chan struct{} // closed when Delve's connection ends
}

// launchSpec is what every incarnation of a session is launched with.
type launchSpec struct {
	initialize json.RawMessage // the client's initialize arguments
	binary     string
	args       []string
	env        map[string]string
	cwd        string
	// extra holds the client's launch attributes that Delve understands (stackTraceDepth,
	// showGlobalVariables, substitutePath, …), passed through.
	extra map[string]json.RawMessage
}

// prepareIncarnation starts Delve and launches the binary under it, with the control socket
// in its environment. The debuggee is not running yet: finish lets it start.
func prepareIncarnation(ctx context.Context, id int, dir string, spec *launchSpec) (*incarnation, error) {
	// Delve answers these within seconds; a minute means it is stuck, and nothing may wait
	// for it forever.
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ctrl, err := newController(filepath.Join(dir, "ctl-"+strconv.Itoa(id)+".sock"))
	if err != nil {
		return nil, err
	}
	done := trace("start delve")
	in, err := newIncarnation(dir, id, ctrl)
	done()
	if err != nil {
		ctrl.close()
		return nil, err
	}
	if _, err := in.call(ctx, "initialize", spec.initialize); err != nil {
		in.close()
		return nil, err
	}
	done = trace("delve launch")
	if err := in.launch(ctx, spec); err != nil {
		in.close()
		return nil, err
	}
	done()
	return in, nil
}

// finish lets the debuggee start and waits until it has connected to its controller, ready
// for its run to begin. The first incarnation gets the client's function breakpoints (the
// client set its others on it already); the others get heddle's breakpoint alone, so that
// replaying to a checkpoint does not stop at every breakpoint hit on the way: navigation
// applies the client's breakpoints once there (ensureBreakpoints).
func (in *incarnation) finish(ctx context.Context, bps *breakpoints, first bool) error {
	defer trace("finish")()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	args := heddleOnly()
	in.version = -1
	if first {
		args = bps.functions(nil)
		in.version = bps.version()
	}
	if _, err := in.call(ctx, "setFunctionBreakpoints", args); err != nil {
		return err
	}
	if _, err := in.call(ctx, "configurationDone", nil); err != nil {
		return err
	}
	return in.waitConnected(ctx)
}

// ensureBreakpoints applies the client's current breakpoints.
func (in *incarnation) ensureBreakpoints(ctx context.Context, bps *breakpoints) error {
	v := bps.version()
	if in.version == v {
		return nil
	}
	if err := in.configure(ctx, bps); err != nil {
		return err
	}
	in.version = v
	return nil
}

func newIncarnation(dir string, id int, ctrl *controller) (*incarnation, error) {
	cmd, conn, err := startDelve(dir, id)
	if err != nil {
		return nil, err
	}
	in := &incarnation{id: id, cmd: cmd, conn: conn, w: &writer{w: conn}, ctrl: ctrl, pending: map[int]chan *message{},
		events: make(chan *message, 1024), done: make(chan struct{}), exited: make(chan struct{})}
	go in.read()
	return in, nil
}

func (in *incarnation) read() {
	defer close(in.done)
	defer close(in.events)
	r := newReader(in.conn)
	for {
		m, err := r.read()
		if err != nil {
			var de *decodeError
			if errors.As(err, &de) {
				continue
			}
			in.mu.Lock()
			in.closed = true
			for seq, ch := range in.pending {
				close(ch)
				delete(in.pending, seq)
			}
			in.mu.Unlock()
			return
		}
		switch m.Type {
		case "response":
			in.mu.Lock()
			ch := in.pending[m.RequestSeq]
			delete(in.pending, m.RequestSeq)
			in.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case "event":
			in.events <- m
		}
	}
}

// send sends a request to Delve and returns the channel its response will arrive on.
func (in *incarnation) send(command string, args json.RawMessage) (<-chan *message, error) {
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return nil, fmt.Errorf("the debuggee's debugger has ended")
	}
	in.seq++
	seq := in.seq
	ch := make(chan *message, 1)
	in.pending[seq] = ch
	in.mu.Unlock()
	if err := in.w.write(&message{Seq: seq, Type: "request", Command: command, Arguments: args}); err != nil {
		in.mu.Lock()
		delete(in.pending, seq)
		in.mu.Unlock()
		return nil, fmt.Errorf("sending %s to the debugger: %w", command, err)
	}
	return ch, nil
}

// call sends a request and waits for its response. A failed response is an error.
func (in *incarnation) call(ctx context.Context, command string, args any) (*message, error) {
	var raw json.RawMessage
	switch a := args.(type) {
	case nil:
	case json.RawMessage:
		raw = a
	default:
		raw = body(a)
	}
	ch, err := in.send(command, raw)
	if err != nil {
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the debuggee's debugger has ended", command)
		}
		if !m.Success {
			return m, fmt.Errorf("%s: %s", command, responseError(m))
		}
		return m, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", command, ctx.Err())
	}
}

// responseError is the text of a failed response: Delve puts details in body.error.format.
func responseError(m *message) string {
	var b struct {
		Error struct {
			Format string `json:"format"`
		} `json:"error"`
	}
	json.Unmarshal(m.Body, &b)
	if b.Error.Format != "" {
		return b.Error.Format
	}
	if m.Message != "" {
		return m.Message
	}
	return "failed"
}

func (in *incarnation) launch(ctx context.Context, spec *launchSpec) error {
	args := map[string]any{}
	for k, v := range spec.extra {
		args[k] = v
	}
	env := map[string]string{}
	for k, v := range spec.env {
		env[k] = v
	}
	env[worker.EnvWorker] = "1"
	env[worker.EnvDebug] = in.ctrl.path
	args["mode"] = "exec"
	args["program"] = spec.binary
	args["args"] = spec.args
	args["env"] = env
	args["stopOnEntry"] = false
	// The debuggee's output comes back as output events: on stdio, it would otherwise mix
	// with the protocol.
	args["outputMode"] = "remote"
	if spec.cwd != "" {
		args["cwd"] = spec.cwd
	}
	if _, err := in.call(ctx, "launch", args); err != nil {
		return err
	}
	// Delve sends "initialized" after the launch response.
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case ev, ok := <-in.events:
			if !ok {
				return fmt.Errorf("the debugger ended during launch")
			}
			if ev.Event == "initialized" {
				return nil
			}
		case <-deadline.C:
			return fmt.Errorf("the debugger did not initialise within 30s")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// configure applies breakpoints, with heddle's own function breakpoint added.
func (in *incarnation) configure(ctx context.Context, bps *breakpoints) error {
	for _, args := range bps.sources() {
		if _, err := in.call(ctx, "setBreakpoints", args); err != nil {
			return err
		}
	}
	if _, err := in.call(ctx, "setFunctionBreakpoints", bps.functions(nil)); err != nil {
		return err
	}
	if args := bps.instructions(); args != nil {
		if _, err := in.call(ctx, "setInstructionBreakpoints", args); err != nil {
			return err
		}
	}
	if args := bps.exceptions(); args != nil {
		if _, err := in.call(ctx, "setExceptionBreakpoints", args); err != nil {
			return err
		}
	}
	return nil
}

func (in *incarnation) waitConnected(ctx context.Context) error {
	t := time.NewTimer(60 * time.Second)
	defer t.Stop()
	select {
	case <-in.ctrl.connected:
		return nil
	case <-in.done:
		return fmt.Errorf("the debugger ended before the debuggee started")
	case <-in.exited:
		in.mu.Lock()
		out := strings.Join(in.output, "")
		in.mu.Unlock()
		return fmt.Errorf("the debuggee exited before it connected to heddle:\n%s", out)
	case <-t.C:
		return fmt.Errorf("the debuggee did not start within 60s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close ends the debuggee and its debugger. It never blocks for long.
func (in *incarnation) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Delve handles one request at a time: while it is busy (launching, say) it does not read,
	// and the request must not block the close.
	in.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	in.call(ctx, "disconnect", map[string]any{"terminateDebuggee": true})
	in.ctrl.close()
	in.conn.Close()
	select {
	case <-in.done:
	case <-time.After(5 * time.Second):
	}
	// Delve ends with its session; if it does not, it and its debuggee are killed.
	syscall.Kill(-in.cmd.Process.Pid, syscall.SIGKILL)
}
