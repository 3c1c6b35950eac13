package debugger

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/instrument"
)

// foreignBase offsets the thread ids of goroutines heddle does not control (the runtime's,
// the test framework's) from those of controlled goroutines.
const foreignBase = 1_000_000

// threadIDs gives every controlled goroutine one thread id for the whole session, across
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

// ThreadInfo is a thread as the front end shows it.
type ThreadInfo struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// Threads lists the controlled goroutines of the current incarnation, named by logical id
// and scheduler state. Goroutines heddle does not control are listed only when there are no
// controlled ones (before the run starts), so that the user can still see where the program
// is.
func (d *Debugger) Threads(ctx context.Context) ([]ThreadInfo, error) {
	in := d.current()
	if in == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	threads, err := in.t.Threads(ctx)
	if err != nil {
		return nil, err
	}
	var ours, foreign []ThreadInfo
	for _, th := range threads {
		id, name := d.threads.client(in, th.Goid)
		if name == "" {
			foreign = append(foreign, ThreadInfo{ID: id, Name: th.Name})
			continue
		}
		ours = append(ours, ThreadInfo{ID: id, Name: describe(in, name)})
	}
	if len(ours) == 0 {
		ours = foreign
	}
	return ours, nil
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
		for _, d := range []string{"rt", "harness", "explorer", "worker"} {
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

// HiddenFrame reports whether a frame (Delve's short function name and source path) belongs to
// heddle's runtime or Go's.
func HiddenFrame(fn, path string) bool {
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

func (f *Frame) hidden() bool { return HiddenFrame(f.Func, f.File) }

// Frames returns the frames of thread's goroutine in the current incarnation that are the
// program's: not heddle's runtime, not Go's.
func (d *Debugger) Frames(ctx context.Context, thread int) ([]Frame, error) {
	in := d.current()
	if in == nil {
		return nil, ErrNoProgram
	}
	return d.frames(ctx, in, d.threads.goid(in, thread))
}

// addresses are the pointers in a debugger's renderings of values.
var addresses = regexp.MustCompile(`0x[0-9a-f]+`)

// state renders the variables of goroutine goid's innermost user frame, without the
// addresses, which another execution of the same schedule need not repeat, and without the
// renderings the debugger cut short.
func (d *Debugger) state(ctx context.Context, in *incarnation, goid int64) (string, error) {
	frames, err := d.frames(ctx, in, goid)
	if err != nil {
		return "", err
	}
	if len(frames) == 0 {
		return "", fmt.Errorf("goroutine %d has no frame of the program's", goid)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	vars, err := in.t.Locals(ctx, frames[0].ID)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, v := range vars {
		if strings.HasSuffix(v.Value, "...") {
			// The debugger cut the rendering at a length that the addresses in it change.
			fmt.Fprintf(&b, "%s\n", v.Name)
			continue
		}
		fmt.Fprintf(&b, "%s=%s\n", v.Name, addresses.ReplaceAllString(v.Value, "0x"))
	}
	return b.String(), nil
}

// frames returns the visible frames of goroutine goid.
func (d *Debugger) frames(ctx context.Context, in *incarnation, goid int64) ([]Frame, error) {
	all, err := d.stack(ctx, in, goid, 200)
	if err != nil {
		return nil, err
	}
	out := []Frame{}
	for _, f := range all {
		if !f.hidden() {
			out = append(out, f)
		}
	}
	return out, nil
}
