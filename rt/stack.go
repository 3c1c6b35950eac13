package rt

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// Stack is runtime.Stack as the program would see it without heddle. For its own goroutine,
// the trace leaves out heddle's frames (the scheduler the goroutine is parked in, the carrier
// under its function, the harness that calls the test): code that reads its own stack, to find
// its caller or to measure it, reads the program's.
//
// With all, in a run, the listing is the run's goroutines, the caller's first, as Go lists the
// goroutines of a process: leak checkers that list them (pion's test.CheckRoutines, leaktest)
// then see the program's goroutines and not heddle's idle carriers, its watchdog or the
// worker's own. Outside a run it is the process's.
func Stack(buf []byte, all bool) int {
	if !all {
		return copy(buf, renumber(ownStack(rawStack())))
	}
	r, g := current()
	if r == nil {
		return runtime.Stack(buf, true)
	}
	return copy(buf, r.stacks(g, allStacks()))
}

// stacks is the listing of runtime.Stack(buf, true) for the run's goroutines, self's first,
// cut from all, the process's listing. Each goroutine's trace is its carrier's without heddle's
// frames, under its number in the run (goroutineNumber). A parked goroutine is in the wait
// state that Go would show for its operation, since its carrier waits on a channel of
// heddle's whatever the operation; a goroutine not started yet is at its function's entry, as
// Go shows one.
//
//go:norace
func (r *run) stacks(self *goroutine, all string) []byte {
	blocks := make(map[int64]string)
	for _, b := range strings.Split(strings.TrimRight(all, "\n"), "\n\n") {
		rest, ok := strings.CutPrefix(b, "goroutine ")
		if !ok {
			continue
		}
		id, _, _ := strings.Cut(rest, " ")
		n, err := strconv.ParseInt(id, 10, 64)
		if err == nil {
			blocks[n] = b
		}
	}
	var out []byte
	add := func(g *goroutine) {
		if len(out) > 0 {
			out = append(out, '\n')
		}
		state := "running"
		if g != self {
			state = r.waitReason(g)
		}
		out = fmt.Appendf(out, "goroutine %d [%s]:\n", goroutineNumber(g), state)
		if g.start != nil {
			fn := "?"
			if f := runtime.FuncForPC(funcPC(g.start)); f != nil {
				fn = f.Name()
			}
			out = fmt.Appendf(out, "%s()\n", fn)
			return
		}
		_, trace, _ := strings.Cut(blocks[g.goid], "\n")
		kept := ownStack([]byte("goroutine\n" + trace))
		out = append(out, kept[len("goroutine\n"):]...)
	}
	add(self)
	for _, g := range r.gs {
		if g != self && g.state != gDone && !g.noLeak {
			add(g)
		}
	}
	return out
}

// waitReason is the state in which Go's traceback would show goroutine g of r: the wait of the
// operation at which it stopped, if that operation waits, and runnable otherwise. A goroutine
// stopped before a channel operation is shown in its wait: in Go it is blocked there or about
// to try.
//
//go:norace
func (r *run) waitReason(g *goroutine) string {
	if g.state != gParked && (g.state != gPending || r.enabled(g) && g.op.kind != OpSend && g.op.kind != OpRecv && g.op.kind != OpSelect) {
		return "runnable"
	}
	switch g.op.kind {
	case OpLock, OpLockWait:
		if g.op.so != nil && g.op.so.kind == ObjRWMutex {
			return "sync.RWMutex.Lock"
		}
		return "sync.Mutex.Lock"
	case OpRLock:
		return "sync.RWMutex.RLock"
	case OpWGWait:
		return "sync.WaitGroup.Wait"
	case OpCondWait:
		return "sync.Cond.Wait"
	case OpSend:
		return "chan send"
	case OpRecv:
		return "chan receive"
	case OpSelect:
		return "select"
	case OpSleep:
		return "sleep"
	case OpBubble, OpBubbleWait:
		return "synctest.Wait"
	}
	return "runnable"
}

// goroutineNumber is the number by which the tracebacks that Stack writes name goroutine g:
// its index in the run, from 1, rather than its carrier's id. Carriers are reused and their
// ids differ from process to process, and a program that prints its stacks must print the
// same thing in every replay of a schedule. Like Go's ids, a number is never another
// goroutine's in the same run.
func goroutineNumber(g *goroutine) int { return int(g.id) + 1 }

// renumber gives the traceback s of the calling goroutine, in a run, the goroutine's number in
// the run in place of its carrier's id.
func renumber(s []byte) []byte {
	r, g := current()
	if r == nil {
		return s
	}
	rest, ok := bytes.CutPrefix(s, []byte("goroutine "))
	if !ok {
		return s
	}
	i := bytes.IndexByte(rest, ' ')
	if i < 0 {
		return s
	}
	return append(fmt.Appendf(nil, "goroutine %d", goroutineNumber(g)), rest[i:]...)
}

// DebugStack is runtime/debug.Stack through Stack. Its trace starts, as Go writes it, with
// debug.Stack's own frame: it is debug.Stack's trace, without heddle's frames.
func DebugStack() []byte { return renumber(ownStack(debug.Stack())) }

// PrintStack is runtime/debug.PrintStack through Stack: debug.Stack's trace, with the frame of
// debug.PrintStack that calls it under debug.Stack's.
func PrintStack() {
	s := renumber(ownStack(debug.Stack()))
	// The trace's header and debug.Stack's frame, a line of its function and one of its file.
	head := 0
	for range 3 {
		head += bytes.IndexByte(s[head:], '\n') + 1
	}
	var out []byte
	out = append(out, s[:head]...)
	out = append(out, printStackFrame()...)
	out = append(out, s[head:]...)
	os.Stderr.Write(out)
}

// printStackFrame is debug.PrintStack's frame in a trace: its function, and its file and line
// where it calls debug.Stack, its body's first line (the line after the function's entry).
var printStackFrame = sync.OnceValue(func() string {
	f := runtime.FuncForPC(reflect.ValueOf(debug.PrintStack).Pointer())
	if f == nil {
		return ""
	}
	entry := f.Entry()
	_, first := f.FileLine(entry)
	for pc := entry; runtime.FuncForPC(pc) == f; pc++ {
		if file, line := f.FileLine(pc); line != first {
			return fmt.Sprintf("%s()\n\t%s:%d +%#x\n", f.Name(), file, line, pc-entry)
		}
	}
	return ""
})

// rawStack is the calling goroutine's traceback, as runtime.Stack writes it.
func rawStack() []byte {
	for n := 1 << 12; ; n *= 2 {
		buf := make([]byte, n)
		if k := runtime.Stack(buf, false); k < n {
			return buf[:k]
		}
	}
}

// ownStack is the traceback raw without heddle's frames.
func ownStack(raw []byte) []byte {
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	kept := lines[:1]
	for i := 1; i < len(lines); i++ {
		// A frame is its function's line and, indented, its file's.
		n := 1
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
			n = 2
		}
		if fn, ok := frameFunc(lines[i]); !ok || !heddleFunc(fn) {
			kept = append(kept, lines[i:i+n]...)
		}
		i += n - 1
	}
	return []byte(strings.Join(kept, "\n") + "\n")
}

// frameFunc returns the function of a traceback line that names one: a call
// ("pkg.F(0x1, 0x2)") or a goroutine's creator ("created by pkg.F in goroutine 7").
func frameFunc(line string) (fn string, ok bool) {
	if line == "" || line[0] == '\t' || strings.HasPrefix(line, "goroutine ") || strings.HasPrefix(line, "...") {
		return "", false
	}
	if c, found := strings.CutPrefix(line, "created by "); found {
		fn, _, _ = strings.Cut(c, " in goroutine ")
		return fn, true
	}
	if k := strings.LastIndex(line, "("); k > 0 {
		return line[:k], true
	}
	return "", false
}
