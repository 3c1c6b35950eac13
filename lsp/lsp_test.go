package lsp_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/heddledbg/heddle/internal/golden"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/heddledbg/heddle/lsp"
)

// tmpRoot holds what the tests share: the heddle binary and the kernel workspace.
var tmpRoot string

func TestMain(m *testing.M) {
	flag.Parse()
	var err error
	if tmpRoot, err = os.MkdirTemp("", "heddle-lsp-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

// A client is an LSP client on a real connection to a server started by lsp.Serve. It
// records the notifications the server sends.
type client struct {
	t      *testing.T
	ctx    context.Context
	conn   jsonrpc2.Conn
	server protocol.Server // calls the server through the protocol package's dispatcher

	served   chan error // lsp.Serve's result
	doneOnce sync.Once
	doneErr  error
	done     bool

	mu     sync.Mutex
	diags  map[string][]protocol.Diagnostic // by path
	logs   []protocol.LogMessageParams
	notify chan struct{} // closed and replaced at each notification
}

// start starts a server on one end of a pipe and connects a client to the other.
func start(t *testing.T, opts lsp.Options) *client {
	t.Helper()
	srvEnd, cliEnd := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{t: t, ctx: ctx, served: make(chan error, 1), diags: map[string][]protocol.Diagnostic{}, notify: make(chan struct{})}
	go func() { c.served <- lsp.Serve(ctx, srvEnd, opts) }()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(cliEnd))
	// The client handles notifications on the connection's reading goroutine, not
	// asynchronously: everything the server sent before a reply is recorded when the call
	// returns.
	c.conn.Go(ctx, protocol.ClientHandler(c, jsonrpc2.MethodNotFoundHandler))
	c.server = protocol.ServerDispatcher(c.conn, zap.NewNop())
	t.Cleanup(func() {
		cancel()
		c.conn.Close()
		if _, ok := c.serveResult(10 * time.Second); !ok {
			t.Error("lsp.Serve did not return after the connection closed")
		}
	})
	return c
}

// serveResult waits for lsp.Serve to return.
func (c *client) serveResult(timeout time.Duration) (error, bool) {
	c.doneOnce.Do(func() {
		select {
		case c.doneErr = <-c.served:
			c.done = true
		case <-time.After(timeout):
		}
	})
	return c.doneErr, c.done
}

// initialize initializes the server with root as the only workspace folder.
func (c *client) initialize(root string, opts any) *protocol.InitializeResult {
	c.t.Helper()
	res, err := c.server.Initialize(c.ctx, &protocol.InitializeParams{
		RootURI:               uri.File(root),
		WorkspaceFolders:      []protocol.WorkspaceFolder{{URI: string(uri.File(root)), Name: filepath.Base(root)}},
		InitializationOptions: opts,
	})
	if err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	if err := c.server.Initialized(c.ctx, &protocol.InitializedParams{}); err != nil {
		c.t.Fatalf("initialized: %v", err)
	}
	return res
}

// refresh asks the server to read the results again and waits until it published them.
func (c *client) refresh() {
	c.t.Helper()
	if _, err := c.conn.Call(c.ctx, lsp.MethodRefresh, nil, nil); err != nil {
		c.t.Fatalf("%s: %v", lsp.MethodRefresh, err)
	}
}

// waitFor waits until cond, called with c.mu held, holds.
func (c *client) waitFor(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		ok, ch := cond(), c.notify
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			c.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (c *client) diagnostics() map[string][]protocol.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]protocol.Diagnostic, len(c.diags))
	for p, ds := range c.diags {
		out[p] = slices.Clone(ds)
	}
	return out
}

func (c *client) logMessages() []protocol.LogMessageParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.logs)
}

func (c *client) signal() {
	close(c.notify)
	c.notify = make(chan struct{})
}

// The protocol.Client methods. The server sends only logMessage and publishDiagnostics.

func (c *client) LogMessage(_ context.Context, p *protocol.LogMessageParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logs = append(c.logs, *p)
	c.signal()
	return nil
}

func (c *client) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	path, err := filePath(p.URI)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.Diagnostics == nil {
		return errors.New("publishDiagnostics without a diagnostics array") // null is not allowed
	}
	c.diags[path] = p.Diagnostics
	c.signal()
	return nil
}

var errUnexpected = errors.New("the server must not send this")

func (c *client) Progress(context.Context, *protocol.ProgressParams) error { return errUnexpected }
func (c *client) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return errUnexpected
}
func (c *client) ShowMessage(context.Context, *protocol.ShowMessageParams) error {
	return errUnexpected
}
func (c *client) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, errUnexpected
}
func (c *client) Telemetry(context.Context, any) error { return errUnexpected }
func (c *client) RegisterCapability(context.Context, *protocol.RegistrationParams) error {
	return errUnexpected
}
func (c *client) UnregisterCapability(context.Context, *protocol.UnregistrationParams) error {
	return errUnexpected
}
func (c *client) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (bool, error) {
	return false, errUnexpected
}
func (c *client) Configuration(context.Context, *protocol.ConfigurationParams) ([]any, error) {
	return nil, errUnexpected
}
func (c *client) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	return nil, errUnexpected
}

// filePath returns the path of a file URI.
func filePath(u protocol.DocumentURI) (string, error) {
	p, err := url.Parse(string(u))
	if err != nil || p.Scheme != "file" {
		return "", fmt.Errorf("not a file URI: %q", u)
	}
	return filepath.FromSlash(p.Path), nil
}

// checkGolden compares got with the golden file testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	golden.Check(t, filepath.Join("testdata", name), got)
}

// copyWorkspace copies testdata/workspace to a temporary directory, with $WORK in the result
// files replaced by that directory and the result directory renamed from dot-heddle to
// .heddle (which git ignores, so it cannot be stored under that name).
func copyWorkspace(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", "workspace")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		rel = strings.Replace(rel, "dot-heddle", lsp.DefaultResultDir, 1)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".json") {
			data = []byte(strings.ReplaceAll(string(data), "$WORK", filepath.ToSlash(dst)))
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// render prints diagnostics by file, with paths under root shown relative to $WORK.
func render(root string, diags map[string][]protocol.Diagnostic) string {
	rel := func(p string) string { return strings.ReplaceAll(p, root, "$WORK") }
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(diags)) {
		fmt.Fprintf(&b, "== %s\n", rel(p))
		for _, d := range diags[p] {
			fmt.Fprintf(&b, "%s %s %v/%v: %s\n", rng(d.Range), severity(d.Severity), d.Source, d.Code, rel(d.Message))
			for _, r := range d.RelatedInformation {
				path, _ := filePath(r.Location.URI)
				fmt.Fprintf(&b, "\trelated %s:%s: %s\n", rel(path), rng(r.Location.Range), rel(r.Message))
			}
			if m, ok := d.Data.(map[string]any); ok {
				fmt.Fprintf(&b, "\tdata.trace %s\n", rel(fmt.Sprint(m["trace"])))
			}
		}
	}
	return b.String()
}

func rng(r protocol.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line+1, r.Start.Character, r.End.Line+1, r.End.Character)
}

func severity(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	}
	return fmt.Sprintf("severity(%v)", s)
}

// renderLogs prints the log messages, with paths under root shown relative to $WORK.
func renderLogs(root string, logs []protocol.LogMessageParams) string {
	var lines []string
	for _, l := range logs {
		lines = append(lines, fmt.Sprintf("%v: %s", l.Type, strings.ReplaceAll(l.Message, root, "$WORK")))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}
