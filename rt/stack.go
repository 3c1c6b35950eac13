package rt

import (
	"os"
	"runtime"
	"strings"
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
	return copy(buf, ownStack())
}

// DebugStack is runtime/debug.Stack through Stack.
func DebugStack() []byte { return ownStack() }

// PrintStack is runtime/debug.PrintStack through Stack.
func PrintStack() { os.Stderr.Write(ownStack()) }

// ownStack is the calling goroutine's traceback without heddle's frames.
func ownStack() []byte {
	var raw []byte
	for n := 1 << 12; ; n *= 2 {
		buf := make([]byte, n)
		if k := runtime.Stack(buf, false); k < n {
			raw = buf[:k]
			break
		}
	}
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
