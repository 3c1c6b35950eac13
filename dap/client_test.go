package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// client is a DAP client for tests: go-dap's codec on a real connection to a Session.
type client struct {
	t      testing.TB
	conn   net.Conn
	r      *bufio.Reader
	seq    int
	queue  []*message
	done   chan error
	cancel context.CancelFunc

	closeOnce sync.Once
}

// newClient starts a session on one end of a pipe and returns a client on the other.
func newClient(t testing.TB) *client {
	t.Helper()
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{t: t, conn: a, r: bufio.NewReader(a), done: make(chan error, 1), cancel: cancel}
	go func() { c.done <- Serve(ctx, b, Options{}); b.Close() }()
	t.Cleanup(c.close)
	return c
}

func (c *client) close() { c.closeOnce.Do(c.doClose) }

func (c *client) doClose() {
	c.cancel()
	c.conn.Close()
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		buf := make([]byte, 1<<20)
		c.t.Errorf("the session did not end within 30s of its client closing:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

// send writes a typed go-dap request.
func (c *client) send(req godap.RequestMessage) int {
	c.t.Helper()
	c.seq++
	req.GetRequest().Seq = c.seq
	req.GetRequest().Type = "request"
	if err := godap.WriteProtocolMessage(c.conn, req); err != nil {
		c.t.Fatalf("writing %s: %v", req.GetRequest().Command, err)
	}
	return c.seq
}

// custom writes a heddle/* request, which go-dap has no type for.
func (c *client) custom(command string, args any) int {
	c.t.Helper()
	c.seq++
	m := &message{Seq: c.seq, Type: "request", Command: command}
	if args != nil {
		m.Arguments = body(args)
	}
	b, _ := json.Marshal(m)
	if err := godap.WriteBaseMessage(c.conn, b); err != nil {
		c.t.Fatalf("writing %s: %v", command, err)
	}
	return c.seq
}

func (c *client) read(timeout time.Duration) *message {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(timeout))
	content, err := godap.ReadBaseMessage(c.r)
	if err != nil {
		buf := make([]byte, 1<<20)
		c.t.Fatalf("reading from the adapter: %v; pending: %s\n%s", err, c.pending(), buf[:runtime.Stack(buf, true)])
	}
	m, err := decode(content)
	if err != nil {
		c.t.Fatalf("the adapter sent a malformed message: %v: %s", err, content)
	}
	return m
}

// next returns the next message that satisfies match, keeping the others for later.
func (c *client) next(what string, timeout time.Duration, match func(*message) bool) *message {
	c.t.Helper()
	for i, m := range c.queue {
		if match(m) {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			return m
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			c.t.Fatalf("no %s within %v; pending: %s", what, timeout, c.pending())
		}
		m := c.read(left)
		if match(m) {
			return m
		}
		c.queue = append(c.queue, m)
	}
}

func (c *client) pending() string {
	var s []string
	for _, m := range c.queue {
		s = append(s, m.Type+":"+m.Command+m.Event+" "+string(m.Body))
	}
	return strings.Join(s, "; ")
}

// response waits for the response to request seq and fails the test if it failed.
func (c *client) response(seq int, timeout time.Duration) *message {
	c.t.Helper()
	m := c.responseAny(seq, timeout)
	if !m.Success {
		c.t.Fatalf("%s failed: %s", m.Command, responseError(m))
	}
	return m
}

func (c *client) responseAny(seq int, timeout time.Duration) *message {
	c.t.Helper()
	return c.next("response to request "+strconv.Itoa(seq), timeout, func(m *message) bool { return m.Type == "response" && m.RequestSeq == seq })
}

func (c *client) event(name string, timeout time.Duration) *message {
	c.t.Helper()
	return c.next("event "+name, timeout, func(m *message) bool { return m.Type == "event" && m.Event == name })
}

// stopped is a stopped event's body.
type stopped struct {
	Reason            string `json:"reason"`
	ThreadID          int    `json:"threadId"`
	Description       string `json:"description"`
	Text              string `json:"text"`
	PreserveFocusHint bool   `json:"preserveFocusHint"`
}

// stopped returns the next stop of the program, skipping the states of its other threads
// (stopped events that keep the focus) that come with each.
func (c *client) stopped(timeout time.Duration) stopped {
	c.t.Helper()
	m := c.next("stopped", timeout, func(m *message) bool {
		return m.Type == "event" && m.Event == "stopped" && !strings.Contains(string(m.Body), `"preserveFocusHint":true`)
	})
	var s stopped
	c.decode(m.Body, &s)
	return s
}

// frame is a stack frame as the client sees it.
type frame struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Line   int    `json:"line"`
	Source struct {
		Path string `json:"path"`
	} `json:"source"`
}

func (c *client) stack(thread int) []frame {
	c.t.Helper()
	seq := c.send(&godap.StackTraceRequest{Request: godap.Request{Command: "stackTrace"}, Arguments: godap.StackTraceArguments{ThreadId: thread, Levels: 20}})
	var b struct {
		StackFrames []frame `json:"stackFrames"`
	}
	c.decode(c.response(seq, 30*time.Second).Body, &b)
	return b.StackFrames
}

type thread struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

func (c *client) threads() []thread {
	c.t.Helper()
	seq := c.send(&godap.ThreadsRequest{Request: godap.Request{Command: "threads"}})
	var b struct {
		Threads []thread `json:"threads"`
	}
	c.decode(c.response(seq, 30*time.Second).Body, &b)
	return b.Threads
}

// variable evaluates expr in the top frame of thread.
func (c *client) evaluate(thread int, expr string) string {
	c.t.Helper()
	fs := c.stack(thread)
	if len(fs) == 0 {
		c.t.Fatalf("thread %d has no frames", thread)
	}
	seq := c.send(&godap.EvaluateRequest{Request: godap.Request{Command: "evaluate"}, Arguments: godap.EvaluateArguments{Expression: expr, FrameId: fs[0].ID, Context: "watch"}})
	var b struct {
		Result string `json:"result"`
	}
	c.decode(c.response(seq, 30*time.Second).Body, &b)
	return b.Result
}

// decode decodes a message's body, which the test needs to read.
func (c *client) decode(data []byte, v any) {
	c.t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		c.t.Fatalf("decoding %s: %v", data, err)
	}
}
