package debugger

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
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
	ID   int
	Name string
}

// Threads lists the controlled goroutines of the current incarnation, named by logical id
// and where they are, short enough for an editor's call stack: G1.2 bank.go:15 Transfer.
// Their states go with the stop (Stop.Others). Goroutines heddle does not control are
// listed only when there are no controlled ones (before the run starts), so that the user
// can still see where the program is.
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
		ours = append(ours, ThreadInfo{ID: id, Name: d.threadName(ctx, in, name, th.Goid, len(threads) <= maxNamedFrames)})
	}
	if len(ours) == 0 {
		ours = foreign
	}
	return ours, nil
}

// maxNamedFrames is the number of goroutines up to which a thread's name says where it is
// (each costs the debugger a stack trace), and up to which a stop reports their states.
const maxNamedFrames = 64

// threadName names goroutine g (runtime id goid) by its logical id and its innermost frame
// of the user's, when where is set: G1.2 bank.go:15 Transfer. The place comes before the
// function, whose name can be long (TestTransfer.func2): a narrow call stack cuts the end. The names are kept until the
// next stop: a client asks for the threads once per thread whose state a stop reports.
func (d *Debugger) threadName(ctx context.Context, in *incarnation, g string, goid int64, where bool) string {
	if !where {
		return g
	}
	d.mu.Lock()
	if d.names.in != in {
		d.names.in, d.names.of = in, map[string]string{}
	}
	name, ok := d.names.of[g]
	d.mu.Unlock()
	if ok {
		return name
	}
	name = g
	if frames, err := d.stack(ctx, in, goid, 50); err == nil {
		for _, f := range frames {
			if !f.hidden() {
				name = fmt.Sprintf("%s %s:%d %s", g, filepath.Base(f.File), f.Line, shortFunc(f.Func))
				break
			}
		}
	}
	d.mu.Lock()
	if d.names.in == in {
		d.names.of[g] = name
	}
	d.mu.Unlock()
	return name
}

// shortFunc is a function's name without its package: Transfer, (*Account).Deposit,
// TestTransfer.func1.
func shortFunc(fn string) string {
	fn = fn[strings.LastIndex(fn, "/")+1:]
	if _, after, ok := strings.Cut(fn, "."); ok {
		return after
	}
	return fn
}

// others returns the states of the goroutines of in other than the stopped goroutine, as
// the last scheduling point (or the bug) left them.
func (d *Debugger) others(in *incarnation, stopped string) []ThreadState {
	c := in.ctrl
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	if last == nil {
		return nil
	}
	var out []ThreadState
	var namer *record.Namer // read the sources only if a goroutine waits
	for _, st := range last.Goroutines {
		if st.ID == stopped || st.State == "running" {
			continue
		}
		if len(out) == maxNamedFrames {
			break
		}
		state := st.State
		if state == "blocked" && slices.ContainsFunc(last.Alts, func(a wire.DebugAlt) bool { return a.Name == st.ID }) {
			state = "runnable"
		}
		ts := ThreadState{Thread: d.threads.id(st.ID), State: state, Op: st.Op, Text: state}
		if st.Op != "" {
			expr := ""
			if st.Pos != nil {
				if namer == nil {
					namer = record.NewNamer()
				}
				expr = namer.Expr(*st.Pos, st.Op)
			}
			ts.Text = record.Blocked(st.Op, expr)
			if state != "blocked" {
				ts.Text = state + " before " + record.Call(st.Op, "", expr)
			}
		}
		if st.Pos != nil {
			ts.Text += fmt.Sprintf(" at %s:%d", filepath.Base(st.Pos.File), st.Pos.Line)
		}
		out = append(out, ts)
	}
	return out
}

// runtimeSource is the source directory of heddle's runtime as compiled into debuggees, or "".
var runtimeSource = sync.OnceValue(func() string {
	src, _ := instrument.RuntimeSource()
	return src
})

// hiddenDirs are the source directories of Go's runtime, whose frames the user does not see.
var hiddenDirs = sync.OnceValue(func() []string {
	var dirs []string
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
	return runtimeFile(runtimeSource(), path)
}

// runtimeFile reports whether path is a source file of one of heddle's runtime packages
// (rt.RuntimePackages) in src, the runtime module's directory.
func runtimeFile(src, path string) bool {
	if src == "" {
		return false
	}
	rel, err := filepath.Rel(src, filepath.Dir(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	pkg := rt.ModulePath
	if rel != "." {
		pkg += "/" + filepath.ToSlash(rel)
	}
	return rt.RuntimePackage(pkg)
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
	all, err := d.stack(ctx, in, goid, maxDepth)
	if err != nil {
		return nil, err
	}
	return visible(all), nil
}

// maxDepth is how many frames of a goroutine's stack the debugger reads to show it.
const maxDepth = 200

// visible returns the frames of all that the user sees: not heddle's runtime, nor Go's.
func visible(all []Frame) []Frame {
	out := []Frame{}
	for _, f := range all {
		if !f.hidden() {
			out = append(out, f)
		}
	}
	return out
}
