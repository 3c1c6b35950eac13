package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/heddledbg/heddle/record"
)

// MethodRefresh is the notification by which a client asks the server to read the result
// directories again at once, for instance after it ran heddle test. Sent as a request, it is
// answered once the diagnostics are published.
const MethodRefresh = "heddle/refresh"

// DefaultResultDir is where heddle test writes its results, relative to where it runs.
const DefaultResultDir = record.ResultDir

const defaultPoll = 1500 * time.Millisecond

// Options configure a server.
type Options struct {
	// Version is the server version reported to the client.
	Version string
	// Poll is how often the result directories are checked for changes. Zero means every
	// 1.5 seconds; a negative value disables polling, leaving refreshes to
	// workspace/didChangeWatchedFiles and heddle/refresh.
	Poll time.Duration
}

// ErrNoShutdown is returned by Serve when the client sent exit without a shutdown request
// first; the protocol asks the server to exit with status 1 then.
var ErrNoShutdown = errors.New("exit without a shutdown request")

type state int

const (
	starting state = iota // before initialize
	running
	shutDown // after shutdown: only exit is valid
)

type lspServer struct {
	conn   jsonrpc2.Conn
	client protocol.Client
	opts   Options
	ctx    context.Context // canceled when Serve returns

	exit     chan struct{} // closed by the exit notification
	exitOnce sync.Once
	// wake carries refresh requests to the watcher. A request's channel, if not nil, is
	// closed when the refresh is published.
	wake      chan chan struct{}
	watchDone chan struct{} // closed when the watcher returns
	// The watcher's own state: the fingerprint of the results last loaded, and the messages
	// logged about them, which are not repeated while the problem persists.
	lastScan   string
	lastLogged map[string]bool
	loader     *loader

	mu        sync.Mutex
	state     state
	watching  bool               // the watcher was started
	stop      context.CancelFunc // stops the watcher
	roots     []string           // workspace folders
	dirs      []string           // result directories, relative to each root or absolute
	docs      map[string]string
	published map[string][]protocol.Diagnostic // by path
	traces    map[string]bool                  // the trace files of the published diagnostics
}

// Serve serves the Language Server Protocol to one client over rwc, framed with
// Content-Length headers as LSP clients expect, until the client sends exit, the connection
// fails or ctx is done. It returns nil if the client asked for shutdown before exit (or
// before closing the connection), as the protocol wants.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	s := &lspServer{
		conn:      conn,
		client:    protocol.ClientDispatcher(conn, zap.NewNop()),
		opts:      opts,
		ctx:       ctx,
		exit:      make(chan struct{}),
		wake:      make(chan chan struct{}, 8),
		watchDone: make(chan struct{}),
		stop:      func() {},
		dirs:      []string{DefaultResultDir},
		docs:      map[string]string{},
		published: map[string][]protocol.Diagnostic{},
		traces:    map[string]bool{},
		loader:    newLoader(),
	}
	// Messages are handled one at a time on the connection's reading goroutine, in the order
	// they came: every handler is quick and only notifies the client, never calls it. So when
	// the connection ends, the messages before its end have all been handled.
	conn.Go(ctx, s.handle)
	select {
	case <-s.exit:
	case <-conn.Done():
	case <-ctx.Done():
	}
	var err error
	switch {
	case isClosed(s.exit):
		if !s.isShutDown() {
			err = ErrNoShutdown
		}
	case ctx.Err() != nil:
		err = ctx.Err()
	case !s.isShutDown():
		err = fmt.Errorf("connection to the client lost: %w", conn.Err())
	}
	cancel()
	// Closing the connection first unblocks a watcher that is writing to a client that no
	// longer reads.
	conn.Close()
	s.waitWatcher()
	return err
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (s *lspServer) isShutDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == shutDown
}

// handle answers one message. Notifications get no answer; a notification the server cannot
// process is reported to the client's log instead.
func (s *lspServer) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
	_, isCall := req.(*jsonrpc2.Call)
	defer func() {
		// A bug of the server must not cut the editor off from it: answer, and go on.
		if p := recover(); p != nil {
			msg := fmt.Sprintf("heddle lsp: internal error in %s: %v", req.Method(), p)
			s.log(ctx, protocol.MessageTypeError, msg)
			err = reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InternalError, msg))
		}
	}()
	result, err := s.dispatch(ctx, req)
	// Editors also open documents that are not files (unsaved buffers); they have no tests
	// to run and no bugs, and are no cause for a warning.
	if err != nil && !isCall && !errors.Is(err, errNotFile) {
		s.log(ctx, protocol.MessageTypeWarning, "heddle lsp: "+err.Error())
	}
	return reply(ctx, result, err)
}

func (s *lspServer) dispatch(ctx context.Context, req jsonrpc2.Request) (any, error) {
	m := req.Method()
	_, isCall := req.(*jsonrpc2.Call)
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch {
	case m == protocol.MethodExit:
		s.exitOnce.Do(func() { close(s.exit) })
		return nil, nil
	case st == starting && m != protocol.MethodInitialize:
		if !isCall {
			return nil, nil // the protocol says to drop notifications before initialize
		}
		return nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, m+": the server is not initialized yet")
	case st == shutDown:
		if !isCall {
			return nil, nil
		}
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, m+": the server is shut down")
	}
	switch m {
	case protocol.MethodInitialize:
		return s.initialize(ctx, req)
	case protocol.MethodInitialized:
		s.startWatching()
		return nil, nil
	case protocol.MethodShutdown:
		s.mu.Lock()
		s.state = shutDown
		s.mu.Unlock()
		s.stopWatching()
		return nil, nil
	case protocol.MethodTextDocumentDidOpen:
		var p protocol.DidOpenTextDocumentParams
		if err := decode(req, &p); err != nil {
			return nil, err
		}
		return nil, s.setDoc(p.TextDocument.URI, func(string, bool) (string, error) { return p.TextDocument.Text, nil })
	case protocol.MethodTextDocumentDidChange:
		return nil, s.didChange(req)
	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if err := decode(req, &p); err != nil {
			return nil, err
		}
		path, err := pathOf(p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		delete(s.docs, path)
		s.mu.Unlock()
		return nil, nil
	case protocol.MethodTextDocumentCodeLens:
		return s.codeLens(req)
	case protocol.MethodTextDocumentCodeAction:
		return s.codeAction(req)
	case protocol.MethodWorkspaceDidChangeWorkspaceFolders:
		return nil, s.didChangeFolders(ctx, req)
	case protocol.MethodWorkspaceDidChangeWatchedFiles:
		s.refreshSoon()
		return nil, nil
	case MethodRefresh:
		if isCall {
			return nil, s.refreshAndWait(ctx)
		}
		s.refreshSoon()
		return nil, nil
	case protocol.MethodWorkspaceExecuteCommand:
		// The commands of the lenses and actions belong to the editor extension. The server
		// never runs a program on behalf of a message.
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, m+": heddle lsp executes no commands; the editor runs "+
			strings.Join([]string{CommandExplore, CommandDebugTest, CommandReplayBug, CommandCheckAtomicity}, ", "))
	}
	if isCall {
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method %q is not supported by heddle lsp", m))
	}
	return nil, nil // notifications the server has no use for, such as $/setTrace
}

// decode decodes the parameters of a message into v.
func decode(req jsonrpc2.Request, v any) error {
	if err := json.Unmarshal(req.Params(), v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: invalid params: %v", req.Method(), err))
	}
	return nil
}

// initializeParams are the parameters of initialize the server uses. The protocol package's
// type holds every client capability, so decoding into it fails on details the server ignores.
type initializeParams struct {
	RootURI               protocol.DocumentURI       `json:"rootUri"`
	RootPath              string                     `json:"rootPath"`
	WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
	InitializationOptions json.RawMessage            `json:"initializationOptions"`
}

// InitializationOptions are the options a client may pass in initialize.
type InitializationOptions struct {
	// ResultDirs are the directories heddle test writes to, relative to each workspace folder
	// or absolute. The default is [".heddle"].
	ResultDirs []string `json:"resultDirs"`
}

func (s *lspServer) initialize(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p initializeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	var roots []string
	for _, f := range p.WorkspaceFolders {
		roots = s.addRoot(ctx, roots, protocol.DocumentURI(f.URI))
	}
	if len(p.WorkspaceFolders) == 0 {
		switch {
		case p.RootURI != "":
			roots = s.addRoot(ctx, roots, p.RootURI)
		case p.RootPath != "":
			roots = append(roots, filepath.Clean(p.RootPath))
		}
	}
	dirs := []string{DefaultResultDir}
	if len(p.InitializationOptions) > 0 && string(p.InitializationOptions) != "null" {
		var o InitializationOptions
		if err := json.Unmarshal(p.InitializationOptions, &o); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("initialize: initializationOptions: %v", err))
		}
		if len(o.ResultDirs) > 0 {
			dirs = o.ResultDirs
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != starting {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize: the server is already initialized")
	}
	s.state, s.roots, s.dirs = running, roots, dirs
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync:   protocol.TextDocumentSyncOptions{OpenClose: true, Change: protocol.TextDocumentSyncKindFull},
			CodeLensProvider:   &protocol.CodeLensOptions{},
			CodeActionProvider: protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix}},
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
			},
		},
		ServerInfo: &protocol.ServerInfo{Name: "heddle", Version: s.opts.Version},
	}, nil
}

// addRoot adds the workspace folder u to roots. A folder that is not a file URI cannot hold
// results; it is reported and left out.
func (s *lspServer) addRoot(ctx context.Context, roots []string, u protocol.DocumentURI) []string {
	path, err := pathOf(u)
	if err != nil {
		s.log(ctx, protocol.MessageTypeWarning, "heddle lsp: ignoring workspace folder: "+err.Error())
		return roots
	}
	return append(roots, path)
}

func (s *lspServer) didChangeFolders(ctx context.Context, req jsonrpc2.Request) error {
	var p protocol.DidChangeWorkspaceFoldersParams
	if err := decode(req, &p); err != nil {
		return err
	}
	var added []string
	for _, f := range p.Event.Added {
		added = s.addRoot(ctx, added, protocol.DocumentURI(f.URI))
	}
	s.mu.Lock()
	for _, f := range p.Event.Removed {
		if path, err := pathOf(protocol.DocumentURI(f.URI)); err == nil {
			s.roots = slices.DeleteFunc(s.roots, func(r string) bool { return r == path })
		}
	}
	s.roots = append(s.roots, added...)
	s.mu.Unlock()
	s.refreshSoon()
	return nil
}

// setDoc sets the text of the open document u to what edit returns, given the old text and
// whether the document was open.
func (s *lspServer) setDoc(u protocol.DocumentURI, edit func(old string, open bool) (string, error)) error {
	path, err := pathOf(u)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, open := s.docs[path]
	text, err := edit(old, open)
	if err != nil {
		return err
	}
	s.docs[path] = text
	return nil
}

// didChangeParams decodes the range of a change as a pointer: a change without one replaces
// the whole document.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []struct {
		Range *protocol.Range `json:"range"`
		Text  string          `json:"text"`
	} `json:"contentChanges"`
}

// didChange applies the changes of a document. The server asks for full text, but applies
// ranged changes too, so that a client that ignores the sync kind still gets right lenses.
func (s *lspServer) didChange(req jsonrpc2.Request) error {
	var p didChangeParams
	if err := decode(req, &p); err != nil {
		return err
	}
	return s.setDoc(p.TextDocument.URI, func(text string, open bool) (string, error) {
		if !open {
			return "", fmt.Errorf("%s: change of %s, which is not open", req.Method(), p.TextDocument.URI)
		}
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				text = c.Text
				continue
			}
			start, end := offsetOf(text, c.Range.Start), offsetOf(text, c.Range.End)
			if end < start {
				return "", fmt.Errorf("%s: change of %s ends before it starts", req.Method(), p.TextDocument.URI)
			}
			text = text[:start] + c.Text + text[end:]
		}
		return text, nil
	})
}

// docText returns the text of a document: the editor's if it is open, else the file's.
func (s *lspServer) docText(u protocol.DocumentURI) (path string, text []byte, err error) {
	if path, err = pathOf(u); err != nil {
		return "", nil, err
	}
	text, err = s.fileText(path)
	return path, text, err
}

func (s *lspServer) codeLens(req jsonrpc2.Request) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	if !strings.HasSuffix(string(p.TextDocument.URI), ".go") {
		return []protocol.CodeLens{}, nil
	}
	path, text, err := s.docText(p.TextDocument.URI)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: %v", req.Method(), err))
	}
	lenses := append(testLenses(path, text), atomicLenses(path, text, s.fileText)...)
	slices.SortStableFunc(lenses, func(a, b protocol.CodeLens) int { return cmp.Compare(a.Range.Start.Line, b.Range.Start.Line) })
	if lenses == nil {
		lenses = []protocol.CodeLens{}
	}
	return lenses, nil
}

// fileText returns the text of a file: the editor's if it is open, else the file's.
func (s *lspServer) fileText(path string) ([]byte, error) {
	s.mu.Lock()
	t, open := s.docs[path]
	s.mu.Unlock()
	if open {
		return []byte(t), nil
	}
	return readSmallFile(path, maxSourceSize)
}

// codeAction offers to replay the bug of each heddle diagnostic in the request.
func (s *lspServer) codeAction(req jsonrpc2.Request) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	actions := []protocol.CodeAction{}
	if len(p.Context.Only) > 0 && !slices.ContainsFunc(p.Context.Only, func(k protocol.CodeActionKind) bool {
		return k == protocol.QuickFix || strings.HasPrefix(string(protocol.QuickFix), string(k)+".")
	}) {
		return actions, nil
	}
	path, _ := pathOf(p.TextDocument.URI)
	seen := map[string]bool{}
	for _, d := range p.Context.Diagnostics {
		if d.Source != Source {
			continue
		}
		trace := s.traceOf(path, d)
		if trace == "" || seen[trace] {
			continue
		}
		seen[trace] = true
		const title = "Replay with heddle"
		actions = append(actions, protocol.CodeAction{
			Title:       title,
			Kind:        protocol.QuickFix,
			Diagnostics: []protocol.Diagnostic{d},
			Command:     &protocol.Command{Title: title, Command: CommandReplayBug, Arguments: []any{ReplayArgs{Trace: trace}}},
		})
	}
	return actions, nil
}

// traceOf returns the trace file of a diagnostic the server published: the one its data
// names, or for a client that does not keep the data, the one of the published diagnostic
// with the same line and message. A trace the server did not publish is not offered: the
// client would run heddle on it.
func (s *lspServer) traceOf(path string, d protocol.Diagnostic) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := d.Data.(map[string]any); ok {
		if t, ok := m["trace"].(string); ok && s.traces[t] {
			return t
		}
	}
	for _, p := range s.published[path] {
		// A warning (possibly not atomic) has no trace to replay.
		if a, ok := p.Data.(ReplayArgs); ok && p.Range.Start.Line == d.Range.Start.Line && p.Message == d.Message {
			return a.Trace
		}
	}
	return ""
}

// startWatching starts the goroutine that loads the results and publishes diagnostics, once
// the client is ready for notifications.
func (s *lspServer) startWatching() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watching {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	s.watching, s.stop = true, cancel
	go s.watchResults(ctx)
}

// stopWatching stops the watcher and waits for it, so that no diagnostics follow the reply
// to shutdown.
func (s *lspServer) stopWatching() {
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	stop()
	s.waitWatcher()
}

// waitWatcher waits for the watcher to return, if it was started.
func (s *lspServer) waitWatcher() {
	s.mu.Lock()
	started := s.watching
	s.mu.Unlock()
	if started {
		<-s.watchDone
	}
}

// refreshSoon asks the watcher to load the results again.
func (s *lspServer) refreshSoon() {
	select {
	case s.wake <- nil:
	default: // refreshes are pending already
	}
}

// refreshAndWait asks the watcher to load the results again and waits until it published
// the diagnostics. Before initialized there is nothing to wait for.
func (s *lspServer) refreshAndWait(ctx context.Context) error {
	s.mu.Lock()
	started := s.watching
	s.mu.Unlock()
	if !started {
		return nil
	}
	done := make(chan struct{})
	select {
	case s.wake <- done:
	case <-s.watchDone:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
	case <-s.watchDone:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

func (s *lspServer) watchResults(ctx context.Context) {
	defer close(s.watchDone)
	var tick <-chan time.Time
	if s.opts.Poll >= 0 {
		t := time.NewTicker(cmp.Or(s.opts.Poll, defaultPoll))
		defer t.Stop()
		tick = t.C
	}
	s.refresh(ctx, true)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			s.refresh(ctx, false)
		case done := <-s.wake:
			s.refresh(ctx, true)
			if done != nil {
				close(done)
			}
		}
	}
}

// resultDirs returns the absolute result directories of the workspace.
func (s *lspServer) resultDirs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var dirs []string
	for _, d := range s.dirs {
		if filepath.IsAbs(d) {
			dirs = append(dirs, filepath.Clean(d))
			continue
		}
		for _, r := range s.roots {
			dirs = append(dirs, filepath.Join(r, d))
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// refresh loads the results if they changed since the last time, or if force is set, and
// publishes the diagnostics of the files whose diagnostics changed, including the files that
// no longer have any.
func (s *lspServer) refresh(ctx context.Context, force bool) {
	defer func() {
		if p := recover(); p != nil {
			s.log(ctx, protocol.MessageTypeError, fmt.Sprintf("heddle lsp: internal error loading results: %v", p))
		}
	}()
	dirs := s.resultDirs()
	scan := strings.Join(dirs, "\x00") + "\x00\x00" + fingerprint(dirs)
	if !force && scan == s.lastScan {
		return
	}
	s.lastScan = scan
	logged := map[string]bool{}
	logOnce := func(typ protocol.MessageType) func(string) {
		return func(msg string) {
			if !s.lastLogged[msg] && !logged[msg] {
				s.log(ctx, typ, msg)
			}
			logged[msg] = true
		}
	}
	results := s.loader.results(dirs, logOnce(protocol.MessageTypeWarning))
	s.mu.Lock()
	open := maps.Clone(s.docs)
	s.mu.Unlock()
	diags := diagnose(results, newSources(open), logOnce(protocol.MessageTypeInfo))
	s.lastLogged = logged

	traces := map[string]bool{}
	for _, r := range results {
		if r.path != "" {
			traces[r.path] = true
		}
	}
	s.mu.Lock()
	old := s.published
	s.published, s.traces = diags, traces
	s.mu.Unlock()

	paths := slices.Sorted(maps.Keys(diags))
	for p := range old {
		if _, ok := diags[p]; !ok {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		ds := diags[p]
		if reflect.DeepEqual(ds, old[p]) {
			continue
		}
		if ds == nil {
			ds = []protocol.Diagnostic{} // clears the file's diagnostics; null is not allowed
		}
		if err := s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: uriOf(p), Diagnostics: ds}); err != nil {
			return // the connection is gone
		}
	}
}

// log writes a message to the client's log.
func (s *lspServer) log(ctx context.Context, typ protocol.MessageType, msg string) {
	s.client.LogMessage(ctx, &protocol.LogMessageParams{Type: typ, Message: msg})
}
