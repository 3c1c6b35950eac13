package rt

import (
	"bytes"
	"fmt"
	"runtime"
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
// not the harness that runs tests, whose frames stand for the test's caller.
//
//go:norace
func inRT(fn string) bool {
	return strings.HasPrefix(fn, rtPrefix+".") || strings.HasPrefix(fn, rtPrefix+"/")
}

// blockedOutside describes where the running goroutine waits, if it waits in uninstrumented
// code rather than running or waiting inside heddle; it returns "" otherwise.
//
//go:norace
func (r *run) blockedOutside() string { return r.waitsOutside(false) }

// inSyscall describes where the running goroutine is blocked in a system call, such as waiting
// for a child process, if it is; it returns "" otherwise. Past the hang limit that is not a
// loop of the program's but a wait that heddle cannot see the end of.
//
//go:norace
func (r *run) inSyscall() string { return r.waitsOutside(true) }

//go:norace
func (r *run) waitsOutside(syscall bool) string {
	g := r.cur
	if g == nil || g.goid == 0 || r.checking.Load() {
		return ""
	}
	state, fns, files := stackOf(g.goid)
	switch {
	case syscall && state != "syscall":
		return ""
	case !syscall && (state == "running" || state == "runnable" || state == "syscall" || state == "sleep" || state == ""):
		// Busy, or waiting for something that ends by itself.
		return ""
	}
	for _, fn := range fns {
		if inRT(fn) {
			// The innermost frame of heddle's: waiting in an operation is waiting inside heddle.
			if fn != rtPrefix+".(*run).body" && fn != rtPrefix+".Subtest" {
				return ""
			}
			break
		}
	}
	// Where the program called into the code it waits in: the innermost frame outside Go's
	// sources, the module cache (dependencies) and heddle's; else outside the first two.
	goroot := runtime.GOROOT() + "/src/"
	k := frameOf(fns, files, func(fn, file string) bool {
		return !strings.HasPrefix(file, goroot) && !strings.Contains(file, "/pkg/mod/")
	})
	if k < 0 {
		k = frameOf(fns, files, func(fn, file string) bool { return !strings.HasPrefix(file, goroot) })
	}
	if k >= 0 {
		at := files[k]
		if n := strings.LastIndex(at, " +0x"); n > 0 {
			at = at[:n]
		}
		if syscall {
			return fmt.Sprintf("goroutine %s has been in a system call for over %v (%s, called at %s)", r.gname(g), r.cfg.Hang, fns[max(k-1, 0)], at)
		}
		if k == 0 {
			// Waiting on a channel or a lock of its own that heddle does not know of.
			return fmt.Sprintf("goroutine %s has waited for over %v outside heddle's control (%s at %s)", r.gname(g), r.outsideLimit(), state, at)
		}
		return fmt.Sprintf("goroutine %s has waited for over %v in uninstrumented code (%s, called at %s; %s)", r.gname(g), r.outsideLimit(), fns[k-1], at, state)
	}
	return ""
}

// stackOf reads the stack of the goroutine with runtime id goid from a dump of all the
// process's goroutines: its state ("running", "chan receive", ...), and its function lines,
// innermost first, each with its "file:line +0x.." line. The creator's frame is left out.
//
//go:norace
func stackOf(goid int64) (state string, fns, files []string) {
	buf := make([]byte, 1<<20)
	all := string(buf[:runtime.Stack(buf, true)])
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

// loopingAt returns the frames of goroutine g, which runs without reaching a scheduling
// point, from the program's innermost one: where it loops.
//
//go:norace
func loopingAt(g *goroutine) []Frame {
	if g == nil || g.goid == 0 {
		return nil
	}
	_, fns, files := stackOf(g.goid)
	k := frameOf(fns, files, func(fn, file string) bool { return !strings.HasPrefix(fn, "runtime.") })
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
