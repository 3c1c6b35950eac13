package server

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/web"
)

// Options configure a Server.
type Options struct {
	// Port is the port to listen on at 127.0.0.1; 0 picks a free one.
	Port int
	// Session names the session in hello messages and /api/session.
	// The default is derived from the token.
	Session string
	// Program is reported in hello messages. When it is zero, the
	// program of the first exploration or trace added is reported.
	Program record.Program
	// Assets is the web view to serve; nil means web.Assets.
	Assets fs.FS
}

// A Server serves the web view of one session. Its methods may be called
// from several goroutines at once.
type Server struct {
	opts  Options
	token string
	port  int
	ln    net.Listener
	http  *http.Server
	index []byte // index.html with the token filled in

	mu           sync.Mutex
	closed       bool
	explorations []*exploration
	traces       map[string]*trace
	sources      map[string]bool // files that loaded traces mention
	origins      map[string]bool // further loopback origins allowed (AllowOrigin)
	program      *record.Program
	onGoto       func(step int) error
	live         live
	clients      map[*client]bool
	wg           sync.WaitGroup
}

type exploration struct {
	id   string
	name string
	e    *record.Exploration
	data []byte
	// traces maps a bug id to the name its trace was added under.
	traces map[int]string
}

type trace struct {
	name string
	t    *record.Trace
	data []byte
}

// New starts a server on 127.0.0.1. Call Close to stop it.
func New(opts Options) (*Server, error) {
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("server: invalid port %d", opts.Port)
	}
	if opts.Assets == nil {
		opts.Assets = web.Assets
	}
	index, err := fs.ReadFile(opts.Assets, "index.html")
	if err != nil {
		return nil, fmt.Errorf("server: web view assets: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("server: make token: %w", err)
	}
	token := hex.EncodeToString(raw[:])
	if opts.Session == "" {
		opts.Session = token[:8]
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s := &Server{
		opts:    opts,
		token:   token,
		port:    ln.Addr().(*net.TCPAddr).Port,
		ln:      ln,
		index:   []byte(strings.ReplaceAll(string(index), web.TokenPlaceholder, token)),
		traces:  make(map[string]*trace),
		sources: make(map[string]bool),
		clients: make(map[*client]bool),
		live:    live{ids: make(map[int]bool)},
	}
	if opts.Program != (record.Program{}) {
		p := opts.Program
		s.program = &p
	}
	s.http = &http.Server{Handler: s.guard(s.routes()), ReadHeaderTimeout: 10 * time.Second}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.http.Serve(ln) // returns when Close closes the listener
	}()
	return s, nil
}

// URL returns the address of the web view, including the token.
func (s *Server) URL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/?token=%s", s.port, s.token)
}

// Addr returns the address the server listens on, such as 127.0.0.1:43121.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Token returns the session token.
func (s *Server) Token() string { return s.token }

// Close stops the server and disconnects every client.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for c := range s.clients {
		c.kick()
	}
	s.mu.Unlock()
	err := s.http.Close()
	s.wg.Wait()
	return err
}

// OnGoto registers the function called when the page asks to go to a step
// of the trace it shows. It replaces any earlier one.
func (s *Server) OnGoto(f func(step int) error) {
	s.mu.Lock()
	s.onGoto = f
	s.mu.Unlock()
}

// AddExploration makes an exploration available under a new id, which it
// returns. The name is shown to the user, typically the file it came from.
// Traces of its bugs are found by the bug's trace name; add them with
// AddTrace.
func (s *Server) AddExploration(name string, e *record.Exploration) (string, error) {
	if path, err := e.Check(); err != nil {
		return "", &record.FileError{File: name, Path: path, Err: err}
	}
	data, err := json.Marshal(e)
	if err != nil {
		return "", fmt.Errorf("server: exploration %s: %w", name, err)
	}
	return s.addExploration(name, e, data, nil), nil
}

func (s *Server) addExploration(name string, e *record.Exploration, data []byte, traces map[int]string) string {
	if traces == nil {
		traces = make(map[int]string)
		for _, b := range e.Bugs {
			if b.Trace != "" {
				traces[b.ID] = b.Trace
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := strconv.Itoa(len(s.explorations) + 1)
	s.explorations = append(s.explorations, &exploration{id: id, name: name, e: e, data: data, traces: traces})
	if s.program == nil {
		p := e.Program
		s.program = &p
	}
	return id
}

// AddTrace makes a trace available under name, replacing any trace
// added under the same name. Source snippets become available for the files
// it mentions.
func (s *Server) AddTrace(name string, t *record.Trace) error {
	if path, err := t.Check(); err != nil {
		return &record.FileError{File: name, Path: path, Err: err}
	}
	data, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("server: trace %s: %w", name, err)
	}
	s.addTrace(name, t, data)
	return nil
}

func (s *Server) addTrace(name string, t *record.Trace, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.traces[name] = &trace{name: name, t: t, data: data}
	for _, f := range traceFiles(t) {
		s.sources[f] = true
	}
	if s.program == nil {
		p := t.Program
		s.program = &p
	}
}

// files returns the source files a trace mentions.
func traceFiles(t *record.Trace) []string {
	var fs []string
	add := func(p *record.Pos) {
		if p != nil && p.File != "" {
			fs = append(fs, p.File)
		}
	}
	for i := range t.Goroutines {
		add(t.Goroutines[i].Pos)
	}
	for i := range t.Objects {
		add(t.Objects[i].Pos)
	}
	for i := range t.Events {
		add(t.Events[i].Pos)
		add(t.Events[i].Defer)
	}
	for _, g := range t.Verdict.Goroutines {
		add(g.Pos)
		for _, f := range g.Stack {
			add(&record.Pos{File: f.File, Line: f.Line})
		}
	}
	return fs
}

// Load reads a schedule, trace or exploration file and adds it. For an
// exploration it also loads the traces of its bugs, which are named
// relative to the exploration file; a missing trace file is skipped, a
// malformed one is an error. A schedule is served as a trace without events.
func (s *Server) Load(name string) error {
	v, err := record.ReadFile(name)
	if err != nil {
		return err
	}
	switch v := v.(type) {
	case *record.Schedule:
		s.addTrace(name, scheduleTrace(v), mustMarshal(scheduleTrace(v)))
	case *record.Trace:
		s.addTrace(name, v, mustMarshal(v))
	case *record.Exploration:
		traces := make(map[int]string)
		for _, b := range v.Bugs {
			if b.Trace == "" {
				continue
			}
			p := b.Trace
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(name), p)
			}
			tv, err := record.ReadFile(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("trace of bug %d of %s: %w", b.ID, name, err)
			}
			t, ok := tv.(*record.Trace)
			if !ok {
				return fmt.Errorf("trace of bug %d of %s: %s is not a trace file", b.ID, name, p)
			}
			s.addTrace(p, t, mustMarshal(t))
			traces[b.ID] = p
		}
		s.addExploration(name, v, mustMarshal(v), traces)
	}
	return nil
}

// verdictOf is a schedule's verdict, if it records one.
func verdictOf(sc *record.Schedule) record.Verdict {
	if sc.Verdict == nil {
		return record.Verdict{}
	}
	return *sc.Verdict
}

// scheduleTrace converts a schedule to a trace with no events, so that the web view
// can show its decisions and verdict.
func scheduleTrace(sc *record.Schedule) *record.Trace {
	return &record.Trace{
		Heddle:    "trace",
		Version:   sc.Version,
		Program:   sc.Program,
		Strategy:  sc.Strategy,
		Seed:      sc.Seed,
		Decisions: sc.Decisions,
		Verdict:   verdictOf(sc),
	}
}

// mustMarshal marshals a value decoded from JSON, which cannot fail.
func mustMarshal(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.serveIndex)
	mux.HandleFunc("GET /index.html", s.serveIndex)
	mux.Handle("GET /", http.FileServerFS(s.opts.Assets))
	mux.HandleFunc("GET /api/session", s.apiSession)
	mux.HandleFunc("GET /api/explorations", s.apiExplorations)
	mux.HandleFunc("GET /api/exploration/{id}", s.apiExploration)
	mux.HandleFunc("GET /api/exploration/{id}/bugs", s.apiBugs)
	mux.HandleFunc("GET /api/traces", s.apiTraces)
	mux.HandleFunc("GET /api/trace", s.apiTrace)
	mux.HandleFunc("GET /api/source", s.apiSource)
	mux.HandleFunc("POST /api/goto", s.apiGoto)
	mux.HandleFunc("GET /ws", s.serveWS)
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		httpError(w, http.StatusNotFound, "no such API: %s %s", r.Method, r.URL.Path)
	})
	return mux
}

func (s *Server) serveIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(s.index)
}

func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": fmt.Sprintf(format, args...)})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func writeRaw(w http.ResponseWriter, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// Session is the answer of /api/session: what the server holds.
type Session struct {
	Session string          `json:"session"`
	Program *record.Program `json:"program"`
	// Stats are the live exploration's, else the first exploration file's.
	Stats        *record.Stats `json:"stats"`
	Explorations int           `json:"explorations"`
	Traces       int           `json:"traces"`
	// Live says that the server streams an exploration as it runs.
	Live bool `json:"live"`
	// Debugger says that a debugger follows the view's moves (/api/goto).
	Debugger bool `json:"debugger"`
}

func (s *Server) apiSession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var stats *record.Stats
	switch {
	case s.live.stats != nil:
		stats = s.live.stats
	case len(s.explorations) > 0:
		stats = &s.explorations[0].e.Stats
	}
	writeJSON(w, Session{s.opts.Session, s.program, stats, len(s.explorations), len(s.traces), len(s.live.log) > 0, s.onGoto != nil})
}

// ExplorationSummary is an exploration in the list of /api/explorations.
type ExplorationSummary struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Program  record.Program `json:"program"`
	Strategy string         `json:"strategy"`
	Stats    record.Stats   `json:"stats"`
	Nodes    int            `json:"nodes"`
	Bugs     int            `json:"bugs"`
	// Skipped, Skips and Unexplorable are the exploration file's: the test skipped itself, the
	// subtests that did, and why heddle could not explore the test.
	Skipped      bool          `json:"skipped,omitempty"`
	Skips        []record.Skip `json:"skips,omitempty"`
	Unexplorable string        `json:"unexplorable,omitempty"`
}

func (s *Server) apiExplorations(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	list := make([]ExplorationSummary, 0, len(s.explorations))
	for _, x := range s.explorations {
		list = append(list, ExplorationSummary{x.id, x.name, x.e.Program, x.e.Strategy, x.e.Stats, len(x.e.Tree), len(x.e.Bugs), x.e.Skipped, x.e.Skips, x.e.Unexplorable})
	}
	s.mu.Unlock()
	writeJSON(w, list)
}

func (s *Server) findExploration(id string) *exploration {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.explorations {
		if x.id == id {
			return x
		}
	}
	return nil
}

func (s *Server) apiExploration(w http.ResponseWriter, r *http.Request) {
	x := s.findExploration(r.PathValue("id"))
	if x == nil {
		httpError(w, http.StatusNotFound, "no exploration %q", r.PathValue("id"))
		return
	}
	writeRaw(w, x.data)
}

// BugSummary is a bug with what its trace says about where it happened,
// for the bugs list (/api/explorations/{id}/bugs).
type BugSummary struct {
	record.Bug
	Exploration string `json:"exploration"`
	// TraceLoaded says whether the server holds the bug's trace.
	TraceLoaded bool `json:"traceLoaded"`
	// Goroutines are those of the trace's verdict, without their stacks.
	Goroutines []record.GoroutineState `json:"goroutines"`
}

func (s *Server) apiBugs(w http.ResponseWriter, r *http.Request) {
	x := s.findExploration(r.PathValue("id"))
	if x == nil {
		httpError(w, http.StatusNotFound, "no exploration %q", r.PathValue("id"))
		return
	}
	s.mu.Lock()
	list := make([]BugSummary, 0, len(x.e.Bugs))
	for _, b := range x.e.Bugs {
		sum := BugSummary{Bug: b, Exploration: x.id, Goroutines: []record.GoroutineState{}}
		if t := s.traces[x.traces[b.ID]]; t != nil {
			sum.TraceLoaded = true
			if t.t.Verdict.Kind != "" {
				for _, g := range t.t.Verdict.Goroutines {
					g.Stack = nil
					sum.Goroutines = append(sum.Goroutines, g)
				}
			}
		}
		list = append(list, sum)
	}
	s.mu.Unlock()
	writeJSON(w, list)
}

// TraceSummary is a trace in the list of /api/traces.
type TraceSummary struct {
	Name string `json:"name"`
	// Verdict is the kind of the trace's verdict.
	Verdict string `json:"verdict"`
	Steps   int    `json:"steps"`
}

func (s *Server) apiTraces(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	list := make([]TraceSummary, 0, len(s.traces))
	for _, t := range s.traces {
		e := TraceSummary{Name: t.name, Steps: len(t.t.Events)}
		if t.t.Verdict.Kind != "" {
			e.Verdict = t.t.Verdict.Kind
		}
		list = append(list, e)
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b TraceSummary) int { return strings.Compare(a.Name, b.Name) })
	writeJSON(w, list)
}

// apiTrace serves a trace by the name it was added under, or as the trace of
// a bug. The name is only ever a key: it is never opened as a file.
func (s *Server) apiTrace(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name := q.Get("path")
	if name == "" {
		x := s.findExploration(q.Get("exploration"))
		if x == nil {
			httpError(w, http.StatusNotFound, "no exploration %q", q.Get("exploration"))
			return
		}
		bug, err := strconv.Atoi(q.Get("bug"))
		if err != nil {
			httpError(w, http.StatusBadRequest, "bug: want a number, got %q", q.Get("bug"))
			return
		}
		var ok bool
		if name, ok = x.traces[bug]; !ok {
			httpError(w, http.StatusNotFound, "no trace for bug %d of exploration %s", bug, x.id)
			return
		}
	}
	s.mu.Lock()
	t := s.traces[name]
	s.mu.Unlock()
	if t == nil {
		httpError(w, http.StatusNotFound, "no trace %q was loaded", name)
		return
	}
	writeRaw(w, t.data)
}

const (
	maxSourceSize    = 8 << 20
	defaultContext   = 6
	maxSourceContext = 200
)

// SourceSnippet is the answer of /api/source: the lines Start… of File around Line.
type SourceSnippet struct {
	File  string   `json:"file"`
	Line  int      `json:"line"`
	Start int      `json:"start"`
	Lines []string `json:"lines"`
}

// apiSource serves lines around file:line, for files that loaded traces
// mention and nothing else.
func (s *Server) apiSource(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	file := q.Get("file")
	line, err := strconv.Atoi(q.Get("line"))
	if err != nil || line < 1 {
		httpError(w, http.StatusBadRequest, "line: want a positive number, got %q", q.Get("line"))
		return
	}
	context := defaultContext
	if c := q.Get("context"); c != "" {
		if context, err = strconv.Atoi(c); err != nil || context < 0 || context > maxSourceContext {
			httpError(w, http.StatusBadRequest, "context: want a number from 0 to %d, got %q", maxSourceContext, c)
			return
		}
	}
	s.mu.Lock()
	known := s.sources[file]
	s.mu.Unlock()
	if !known {
		httpError(w, http.StatusNotFound, "%s is not a source file of a loaded trace", file)
		return
	}
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSourceSize {
		httpError(w, http.StatusNotFound, "cannot read %s", file)
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		httpError(w, http.StatusNotFound, "cannot read %s", file)
		return
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if line > len(lines) {
		httpError(w, http.StatusNotFound, "%s has %d lines, not %d", file, len(lines), line)
		return
	}
	start := max(1, line-context)
	end := min(len(lines), line+context)
	writeJSON(w, SourceSnippet{file, line, start, lines[start-1 : end]})
}

func (s *Server) apiGoto(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		httpError(w, http.StatusUnsupportedMediaType, "want Content-Type application/json, got %q", ct)
		return
	}
	var req struct {
		Step *int `json:"step"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	if err := dec.Decode(&req); err != nil || req.Step == nil || *req.Step < 0 {
		httpError(w, http.StatusBadRequest, `want {"step": N} with N >= 0`)
		return
	}
	s.mu.Lock()
	f := s.onGoto
	s.mu.Unlock()
	if f == nil {
		httpError(w, http.StatusServiceUnavailable, "no debugger is attached")
		return
	}
	if err := f(*req.Step); err != nil {
		httpError(w, http.StatusConflict, "go to step %d: %v", *req.Step, err)
		return
	}
	writeJSON(w, map[string]int{"step": *req.Step})
}
