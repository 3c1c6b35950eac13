package rt

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// outsideAfter is how long a goroutine may wait in uninstrumented code (an Accept, a read from
// a socket, a real channel) before the run is given up as one heddle cannot control: only one
// goroutine runs at a time, so while it waits nothing else can run, and what it waits for may
// need another of the run's goroutines.
const outsideAfter = time.Second

// outsideLimit is how long the run's goroutine may wait outside heddle: outsideAfter, or a
// tenth of the hang limit when that is longer, so that a debuggee, which has no hang limit
// while a person looks at it, is never given up.
//
//go:norace
func (r *run) outsideLimit() time.Duration { return max(r.cfg.Hang/10, outsideAfter) }

// goid returns the calling goroutine's id, as the runtime prints it in stack traces.
//
//go:norace
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		id, _ := strconv.ParseInt(string(b[:i]), 10, 64)
		return id
	}
	return 0
}

// inRT reports whether function fn is part of heddle's runtime: rt and its shadow packages,
// not the harness that runs tests, whose frames stand for the test's caller, nor their own
// tests (package rt/net_test), whose frames are the programs they run.
//
//go:norace
func inRT(fn string) bool {
	if !strings.HasPrefix(fn, rtPrefix+".") && !strings.HasPrefix(fn, rtPrefix+"/") {
		return false
	}
	pkg := fn[:strings.IndexByte(fn[len(rtPrefix):], '.')+len(rtPrefix)]
	return !strings.HasSuffix(pkg, "_test")
}

// blockedOutside describes where the running goroutine waits, if it waits in uninstrumented
// code rather than running or waiting inside heddle; it returns "" otherwise.
//
//go:norace
func (r *run) blockedOutside() string { return r.waitsOutside(waitOutside) }

// atLimit describes where the running goroutine waits, past heddle's hang limit, in a system
// call or in uninstrumented code, whatever the process's other goroutines do; it returns ""
// if it does not wait there (it loops).
//
//go:norace
func (r *run) atLimit() string {
	if s := r.waitsOutside(waitSyscall); s != "" {
		return s
	}
	return r.waitsOutside(waitAtLimit)
}

// The ways waitsOutside looks at the running goroutine.
type waitMode uint8

const (
	waitOutside waitMode = iota // blocked in uninstrumented code, and no other goroutine works
	waitSyscall                 // in a system call
	waitAtLimit                 // blocked in uninstrumented code, at heddle's hang limit
)

// waitsOutside describes where the running goroutine waits outside heddle, looked at in mode,
// or returns "". A goroutine in a system call past the hang limit (waiting for a child process)
// is not a loop of the program's but a wait that heddle cannot see the end of.
//
//go:norace
func (r *run) waitsOutside(mode waitMode) string {
	g := r.cur
	if g == nil || g.goid == 0 || r.checking.Load() {
		return ""
	}
	all := allStacks()
	state, fns, files := stackIn(all, g.goid)
	syscall := mode == waitSyscall
	switch {
	case syscall && state != "syscall":
		return ""
	case !syscall && !blockingWait(state):
		return ""
	case mode == waitOutside && othersWork(all, g.goid, goid()):
		// Busy, waiting for something that ends by itself, or for a goroutine that still
		// works: on a loaded machine that may take any time, and is no sign of a wait heddle
		// cannot see the end of.
		return ""
	}
	goroot := runtime.GOROOT() + "/src/"
	if waitsInHeddle(state, fns, files, goroot) {
		return ""
	}
	// Where the program called into the code it waits in: the innermost frame outside Go's
	// sources, the module cache (dependencies) and heddle's runtime; else outside the first two.
	k := frameOf(fns, files, func(fn, file string) bool {
		return !strings.HasPrefix(file, goroot) && !strings.Contains(file, "/pkg/mod/") && !inRT(fn)
	})
	if k < 0 {
		k = frameOf(fns, files, func(fn, file string) bool { return !strings.HasPrefix(file, goroot) && !inRT(fn) })
	}
	if k >= 0 {
		at := files[k]
		if n := strings.LastIndex(at, " +0x"); n > 0 {
			at = at[:n]
		}
		limit := fmt.Sprint(r.outsideLimit())
		if mode == waitAtLimit {
			limit = fmt.Sprintf("%v, heddle's limit", r.cfg.Hang)
		}
		if syscall {
			return fmt.Sprintf("goroutine %s has been in a system call for over %v (%s, called at %s)", r.gname(g), r.cfg.Hang, fns[max(k-1, 0)], at)
		}
		if k == 0 {
			// Waiting on a channel or a lock of its own that heddle does not know of.
			return fmt.Sprintf("goroutine %s has waited for over %s outside heddle's control (%s at %s)", r.gname(g), limit, state, at)
		}
		// A wrapper of rt's stands for the standard function the program called.
		called := strings.TrimPrefix(fns[k-1], rtPrefix+"/")
		return fmt.Sprintf("goroutine %s has waited for over %s in uninstrumented code (%s, called at %s; %s)%s", r.gname(g), limit, called, at, state, instrumentHint(fns[:k], files[:k]))
	}
	return ""
}

// waitsInHeddle reports whether a goroutine blocked in state, with the stack fns and files
// (innermost first), waits in an operation of heddle's: its innermost frame outside Go's
// sources (goroot) is heddle's. A frame of the program's (or of a dependency) inside that one
// called what waits: the heddle frame further out only runs the program's function (the run's
// root, a subtest, synctest's bubble). A real socket that rt/net wraps waits in the network
// poller, outside heddle, whoever called it.
func waitsInHeddle(state string, fns, files []string, goroot string) bool {
	if state == "IO wait" {
		return false
	}
	for i, fn := range fns {
		if inRT(fn) {
			return fn != rtPrefix+".(*run).body" && fn != rtPrefix+".Subtest"
		}
		if i < len(files) && !strings.HasPrefix(files[i], goroot) {
			return false
		}
	}
	return false
}

// stackOf reads the stack of the goroutine with runtime id goid from a dump of all the
// process's goroutines: its state ("running", "chan receive", ...), and its function lines,
// innermost first, each with its "file:line +0x.." line. The creator's frame is left out.
//
//go:norace
func stackOf(goid int64) (state string, fns, files []string) { return stackIn(allStacks(), goid) }

// allStacks is the traceback of every goroutine of the process.
//
//go:norace
func allStacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// blockingWait reports whether a goroutine in state, the runtime's wait reason as a traceback
// prints it, waits for another goroutine or for the world outside the process. Every other
// state is work or a wait that ends by itself: running, runnable, a system call, a sleep, and
// the runtime's own waits such as "GC assist wait" or "preempted", which a loaded machine makes
// long.
//
//go:norace
func blockingWait(state string) bool {
	switch strings.TrimSuffix(state, " (durable)") {
	case "chan receive", "chan send", "chan receive (nil chan)", "chan send (nil chan)",
		"select", "select (no cases)", "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock",
		"sync.Cond.Wait", "sync.WaitGroup.Wait", "semacquire", "IO wait",
		"waiting": // a carrier parked by heddle's scheduler (parker)
		return true
	}
	return false
}

// othersWork reports whether a goroutine of the traceback all, other than wait and self, works
// (its state is not a blocking wait): the goroutine that waits may be waiting for it. A
// goroutine in a system call waits for the world outside, as the worker's reader of its
// requests does, and so does not count.
//
//go:norace
func othersWork(all string, wait, self int64) bool {
	for _, block := range strings.Split(all, "\n\n") {
		rest, ok := strings.CutPrefix(block, "goroutine ")
		if !ok {
			continue
		}
		id, rest, _ := strings.Cut(rest, " [")
		state, _, _ := strings.Cut(rest, "]")
		state, _, _ = strings.Cut(state, ",")
		n, _ := strconv.ParseInt(id, 10, 64)
		if n != wait && n != self && state != "syscall" && !blockingWait(state) {
			return true
		}
	}
	return false
}

// stackIn reads the stack of goroutine goid from all, as stackOf.
//
//go:norace
func stackIn(all string, goid int64) (state string, fns, files []string) {
	head := "goroutine " + strconv.FormatInt(goid, 10) + " ["
	i := strings.Index(all, head)
	if i < 0 {
		return "", nil, nil
	}
	block := all[i+len(head):]
	if j := strings.Index(block, "\n\n"); j >= 0 {
		block = block[:j]
	}
	state, stack, _ := strings.Cut(block, "]:\n")
	state, _, _ = strings.Cut(state, ",") // "IO wait, 2 minutes"
	stack, _, _ = strings.Cut(stack, "\ncreated by ")
	lines := strings.Split(stack, "\n")
	for i := 0; i+1 < len(lines); i += 2 {
		fn, file := lines[i], lines[i+1]
		if k := strings.LastIndex(fn, "("); k > 0 && strings.HasPrefix(file, "\t") {
			fns, files = append(fns, fn[:k]), append(files, strings.TrimSpace(file))
		}
	}
	return state, fns, files
}

// loopingAt returns the frames of a goroutine that runs without reaching a scheduling point,
// whose stack has the functions fns and their files, from the program's innermost frame:
// where it loops.
//
//go:norace
func loopingAt(fns, files []string) []Frame {
	// Inside one of heddle's hooks (an access of sink++), std's frames inward of it are code
	// that rt calls: the program loops where it called the hook. A callback of the program's
	// that a hook runs (Once.Do's) is the program's own.
	notRuntime := func(fn, file string) bool { return !strings.HasPrefix(fn, "runtime.") }
	heddle := func(fn string) bool { return inRT(fn) || strings.HasPrefix(fn, harnessPrefix) }
	k := frameOf(fns, files, notRuntime)
	goroot := runtime.GOROOT() + "/src/"
	if i := slices.IndexFunc(fns, heddle); i >= 0 && i > k && !slices.ContainsFunc(files[max(k, 0):i], func(f string) bool { return !strings.HasPrefix(f, goroot) }) {
		j := i
		for j < len(fns) && heddle(fns[j]) {
			j++
		}
		if past := frameOf(fns[j:], files[j:], notRuntime); past >= 0 {
			k = j + past
		}
	}
	if k < 0 {
		return nil
	}
	var out []Frame
	for ; k < len(fns); k++ {
		if inRT(fns[k]) || strings.HasPrefix(fns[k], harnessPrefix) {
			break
		}
		at, _, _ := strings.Cut(files[k], " +0x")
		i := strings.LastIndexByte(at, ':')
		if i < 0 {
			break
		}
		l, _ := strconv.Atoi(at[i+1:])
		out = append(out, Frame{Func: fns[k], File: at[:i], Line: l})
	}
	return out
}

// stalledIn returns the function of heddle's that a goroutine whose stack has the functions
// fns is in, if its innermost frame outside Go's runtime and standard library is heddle's, and
// "" otherwise.
//
//go:norace
func stalledIn(fns []string) string {
	for _, fn := range fns {
		switch {
		case strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/") || stdFunc(fn):
		case inRT(fn):
			return fn
		default:
			return ""
		}
	}
	return ""
}

// frameOf returns the index of the innermost frame, not heddle's, that ok accepts, or -1.
//
//go:norace
func frameOf(fns, files []string, ok func(fn, file string) bool) int {
	for k := range fns {
		if !inRT(fns[k]) && !strings.HasPrefix(fns[k], harnessPrefix) && ok(fns[k], files[k]) {
			return k
		}
	}
	return -1
}

// starter names the function that started the calling goroutine, and its package when that
// lies outside the standard library and heddle's runtime (createdBy).
//
//go:noinline
//go:norace
func starter() (fn, pkg string) {
	var buf [16 << 10]byte
	return createdBy(buf[:runtime.Stack(buf[:], false)])
}

// createdBy reads the "created by" line of a goroutine's stack: the function that started it,
// "" when the stack does not say, and that function's package when it lies outside the
// standard library and heddle's runtime, which -instrument can then put under control (an
// external test package stands for the package it tests).
//
//go:norace
func createdBy(stack []byte) (fn, pkg string) {
	const created = "\ncreated by "
	i := bytes.LastIndex(stack, []byte(created))
	if i < 0 {
		return "", ""
	}
	line := stack[i+len(created):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	if j := bytes.Index(line, []byte(" in goroutine ")); j >= 0 {
		line = line[:j]
	}
	fn = string(line)
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 || inRT(fn) {
		return fn, ""
	}
	pkg = fn[:slash+1+dot]
	if first, _, _ := strings.Cut(pkg, "/"); !strings.Contains(first, ".") {
		return fn, "" // the standard library
	}
	return fn, strings.TrimSuffix(pkg, "_test")
}

// instrumentHint names, for a wait in uninstrumented frames fns (innermost first) with their
// files, the dependency that the program called into, when one of them is a module's rather
// than Go's: instrumenting it puts its locks and channels under heddle's control, and its
// wait becomes one heddle schedules.
//
//go:norace
func instrumentHint(fns, files []string) string {
	for j := len(fns) - 1; j >= 0; j-- {
		if strings.Contains(files[j], "/pkg/mod/") && !inRT(fns[j]) {
			pkg := FuncPackage(fns[j])
			return fmt.Sprintf("; %s is a dependency heddle does not instrument: -instrument %s puts its locks and channels under heddle's control", pkg, pkg)
		}
	}
	return ""
}
