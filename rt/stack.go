package rt

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Stack is runtime.Stack as the program would see it without heddle, for its own goroutine:
// the trace leaves out heddle's frames (the scheduler the goroutine is parked in, the carrier
// under its function, the harness that calls the test). Code that reads its own stack, to find
// its caller or to measure it, reads the program's.
//
// With all, the listing is the process's, heddle's goroutines included. Heddle cannot show the
// program's goroutines as Go would (carriers are reused, so ids and creators differ, and a
// goroutine not started yet has no stack of its own), and a test that fails on what it read
// there names heddle's frames: heddle reports it as a test it cannot explore.
func Stack(buf []byte, all bool) int {
	if all {
		return runtime.Stack(buf, true)
	}
	return copy(buf, ownStack(rawStack()))
}

// DebugStack is runtime/debug.Stack through Stack. Its trace starts, as Go writes it, with
// debug.Stack's own frame: it is debug.Stack's trace, without heddle's frames.
func DebugStack() []byte { return ownStack(debug.Stack()) }

// PrintStack is runtime/debug.PrintStack through Stack: debug.Stack's trace, with the frame of
// debug.PrintStack that calls it under debug.Stack's.
func PrintStack() {
	s := ownStack(debug.Stack())
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
