package dap

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/heddledbg/heddle/instrument"
)

// foreignBase offsets the thread ids of goroutines heddle does not control (the runtime's,
// the test framework's) from those of controlled goroutines.
const foreignBase = 1_000_000

// threadIDs gives every controlled goroutine one DAP thread id for the whole session, across
// incarnations, whose runtime goroutine ids may differ: G1 is thread 1, the others are
// numbered as they are first seen.
type threadIDs struct {
	mu     sync.Mutex
	byName map[string]int
	names  []string
}

func newThreadIDs() threadIDs {
	return threadIDs{byName: map[string]int{"G1": 1}, names: []string{"G1"}}
}

func (t *threadIDs) id(name string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.byName[name]; ok {
		return id
	}
	t.names = append(t.names, name)
	id := len(t.names)
	t.byName[name] = id
	return id
}

func (t *threadIDs) name(id int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id < 1 || id > len(t.names) {
		return ""
	}
	return t.names[id-1]
}

// goid returns the runtime goroutine id of thread id in incarnation in.
func (t *threadIDs) goid(in *incarnation, id int) int64 {
	if id >= foreignBase {
		return int64(id - foreignBase)
	}
	name := t.name(id)
	in.ctrl.mu.Lock()
	defer in.ctrl.mu.Unlock()
	if g, ok := in.ctrl.goids[name]; ok {
		return g
	}
	return int64(id)
}

// client returns the thread id of runtime goroutine goid of incarnation in, and its logical
// id if heddle controls it.
func (t *threadIDs) client(in *incarnation, goid int64) (int, string) {
	in.ctrl.mu.Lock()
	name := in.ctrl.byGoid[goid]
	in.ctrl.mu.Unlock()
	if name == "" {
		return foreignBase + int(goid), ""
	}
	return t.id(name), name
}

// toDelve translates the threadId of request arguments.
func (t *threadIDs) toDelve(in *incarnation, args json.RawMessage) json.RawMessage {
	if len(args) == 0 || !strings.Contains(string(args), `"threadId"`) {
		return args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	var id int
	if json.Unmarshal(m["threadId"], &id) != nil {
		return args
	}
	m["threadId"] = body(t.goid(in, id))
	return body(m)
}

// fromDelve translates the threadId of an event body.
func (t *threadIDs) fromDelve(in *incarnation, b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !strings.Contains(string(b), `"threadId"`) {
		return b
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	var goid int64
	if json.Unmarshal(m["threadId"], &goid) != nil {
		return b
	}
	id, _ := t.client(in, goid)
	m["threadId"] = body(id)
	return body(m)
}

// threadsRequest lists the controlled goroutines, named by logical id and scheduler state.
// Goroutines heddle does not control are listed only when there are no controlled ones (before
// the run starts), so that the user can still see where the program is.
func (s *Session) threadsRequest(m *message) {
	in := s.current()
	if in == nil {
		s.respond(m, map[string]any{"threads": []any{}})
		return
	}
	resp, err := s.call(in, "threads", nil)
	if err != nil {
		s.fail(m, "%v", err)
		return
	}
	var b struct {
		Threads []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"threads"`
	}
	json.Unmarshal(resp.Body, &b)
	type thread struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	var ours, foreign []thread
	for _, th := range b.Threads {
		id, name := s.threads.client(in, th.ID)
		if name == "" {
			foreign = append(foreign, thread{id, th.Name})
			continue
		}
		ours = append(ours, thread{id, describe(in, name)})
	}
	if len(ours) == 0 {
		ours = foreign
	}
	s.respond(m, map[string]any{"threads": ours})
}

// describe names goroutine g with its scheduler state: G1.2 [blocked: Lock G1#1 at bank.go:17].
func describe(in *incarnation, g string) string {
	c := in.ctrl
	c.mu.Lock()
	defer c.mu.Unlock()
	running := ""
	if n := len(c.checkpoints); n > 0 && c.bug == nil {
		running = c.checkpoints[n-1].Goroutine
	}
	if g == running {
		return g + " [running]"
	}
	if c.last == nil {
		return g
	}
	runnable := false
	for _, a := range c.last.Alts {
		if a.Name == g {
			runnable = true
		}
	}
	for _, st := range c.last.Goroutines {
		if st.ID != g {
			continue
		}
		if st.State != "blocked" {
			return g + " [" + st.State + "]"
		}
		what := "blocked"
		if runnable {
			what = "runnable"
		}
		op := st.Op
		if st.Obj != "" {
			op += " " + st.Obj
		}
		if st.Pos != nil {
			op += fmt.Sprintf(" at %s:%d", filepath.Base(st.Pos.File), st.Pos.Line)
		}
		return g + " [" + what + ": " + op + "]"
	}
	return g + " [done]"
}

// hiddenDirs are the source directories of heddle's runtime (as compiled into debuggees) and
// of Go's runtime, whose frames the user does not see.
var hiddenDirs = sync.OnceValue(func() []string {
	var dirs []string
	if src, err := instrument.RuntimeSource(); err == nil {
		for _, d := range []string{"rt", "harness", "explorer"} {
			dirs = append(dirs, filepath.Join(src, d)+string(filepath.Separator))
		}
	}
	root := runtime.GOROOT()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root = strings.TrimSpace(string(out))
	}
	if root != "" {
		dirs = append(dirs, filepath.Join(root, "src", "runtime")+string(filepath.Separator), filepath.Join(root, "src", "internal")+string(filepath.Separator))
	}
	return dirs
})

// hiddenFrame reports whether a frame (Delve's short function name and source path) belongs to
// heddle's runtime or Go's.
func hiddenFrame(fn, path string) bool {
	if strings.HasPrefix(fn, "runtime.") || fn == "???" || path == "" || path == "." || strings.HasPrefix(path, "<") {
		// Go's runtime, wrappers the compiler generated without source, and code Delve
		// cannot name (a pause can land there).
		return true
	}
	for _, d := range hiddenDirs() {
		if strings.HasPrefix(path, d) {
			return true
		}
	}
	return false
}

// stackFrame is the part of a DAP stack frame heddle reads.
type stackFrame struct {
	Name   string `json:"name"`
	Line   int    `json:"line"`
	Source *struct {
		Path string `json:"path"`
	} `json:"source"`
}

func (f *stackFrame) hidden() bool {
	path := ""
	if f.Source != nil {
		path = f.Source.Path
	}
	return hiddenFrame(f.Name, path)
}

// stackTrace answers with the user's frames only.
func (s *Session) stackTrace(m *message) {
	in := s.current()
	if in == nil {
		s.fail(m, "stackTrace: no program is being debugged")
		return
	}
	var a struct {
		ThreadID   int `json:"threadId"`
		StartFrame int `json:"startFrame"`
		Levels     int `json:"levels"`
	}
	json.Unmarshal(m.Arguments, &a)
	frames, err := s.frames(in, s.threads.goid(in, a.ThreadID))
	if err != nil {
		s.fail(m, "%v", err)
		return
	}
	total := len(frames)
	start := min(max(a.StartFrame, 0), total)
	end := total
	if a.Levels > 0 {
		end = min(start+a.Levels, total)
	}
	s.respond(m, map[string]any{"stackFrames": frames[start:end], "totalFrames": total})
}

// frames returns the visible frames of goroutine goid, as Delve's raw frames.
// addresses are the pointers in Delve's renderings of values.
var addresses = regexp.MustCompile(`0x[0-9a-f]+`)

// state renders the variables of goroutine goid's innermost user frame, without the
// addresses, which another execution of the same schedule need not repeat, and without the
// renderings Delve cut short.
func (s *Session) state(in *incarnation, goid int64) (string, error) {
	frames, err := s.frames(in, goid)
	if err != nil {
		return "", err
	}
	if len(frames) == 0 {
		return "", fmt.Errorf("goroutine %d has no frame of the program's", goid)
	}
	var top struct {
		ID int `json:"id"`
	}
	json.Unmarshal(frames[0], &top)
	resp, err := s.call(in, "scopes", map[string]any{"frameId": top.ID})
	if err != nil {
		return "", err
	}
	var scopes struct {
		Scopes []struct {
			Name string `json:"name"`
			Ref  int    `json:"variablesReference"`
		} `json:"scopes"`
	}
	json.Unmarshal(resp.Body, &scopes)
	var b strings.Builder
	for _, sc := range scopes.Scopes {
		if sc.Name != "Locals" || sc.Ref == 0 {
			continue
		}
		resp, err := s.call(in, "variables", map[string]any{"variablesReference": sc.Ref})
		if err != nil {
			return "", err
		}
		var vars struct {
			Variables []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"variables"`
		}
		json.Unmarshal(resp.Body, &vars)
		for _, v := range vars.Variables {
			if strings.HasSuffix(v.Value, "...") {
				// Delve cut the rendering at a length that the addresses in it change.
				fmt.Fprintf(&b, "%s\n", v.Name)
				continue
			}
			fmt.Fprintf(&b, "%s=%s\n", v.Name, addresses.ReplaceAllString(v.Value, "0x"))
		}
	}
	return b.String(), nil
}

func (s *Session) frames(in *incarnation, goid int64) ([]json.RawMessage, error) {
	resp, err := s.call(in, "stackTrace", map[string]any{"threadId": goid, "startFrame": 0, "levels": 200})
	if err != nil {
		return nil, err
	}
	var b struct {
		StackFrames []json.RawMessage `json:"stackFrames"`
	}
	json.Unmarshal(resp.Body, &b)
	out := []json.RawMessage{}
	for _, f := range b.StackFrames {
		var sf stackFrame
		json.Unmarshal(f, &sf)
		if !sf.hidden() {
			out = append(out, f)
		}
	}
	return out, nil
}
