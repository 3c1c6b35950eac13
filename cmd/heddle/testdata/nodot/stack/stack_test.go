// Package stack reads its own goroutine's stack, as code that finds its caller does: it must
// read as Go writes it.
package stack

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

//go:noinline
func debugStack() string { return string(debug.Stack()) }

//go:noinline
func runtimeStack() string {
	buf := make([]byte, 1<<16)
	return string(buf[:runtime.Stack(buf, false)])
}

//go:noinline
func printStack(t *testing.T) string {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	debug.PrintStack()
	os.Stderr = stderr
	w.Close()
	buf := make([]byte, 1<<16)
	n, _ := r.Read(buf)
	r.Close()
	return string(buf[:n])
}

// TestDebugStackFirstFrame checks what a library checks of debug.Stack: the header, then
// debug.Stack's own frame.
func TestDebugStackFirstFrame(t *testing.T) {
	s := debugStack()
	lines := strings.Split(s, "\n")
	if !strings.HasPrefix(s, "goroutine ") || !strings.HasSuffix(lines[0], " [running]:") || lines[1] != "runtime/debug.Stack()" {
		t.Errorf("debug.Stack() =\n%s", s)
	}
}

var call = regexp.MustCompile(`^(created by )?(\S+?)(\(.*\))?( in goroutine \d+)?$`)

// TestStackShapes writes, into the directory $STACKS, the shape of each trace of the calling
// goroutine: its header without the goroutine's id, and each frame's function, file name and line.
func TestStackShapes(t *testing.T) {
	dir := os.Getenv("STACKS")
	if dir == "" {
		t.Skip("STACKS is not set")
	}
	for name, s := range map[string]string{"debug.Stack": debugStack(), "runtime.Stack": runtimeStack(), "debug.PrintStack": printStack(t)} {
		var shape []string
		for i, line := range strings.Split(strings.TrimSpace(s), "\n") {
			switch {
			case i == 0:
				_, state, _ := strings.Cut(line, " [")
				shape = append(shape, "goroutine N ["+state)
			case strings.HasPrefix(line, "\t"):
				file, _, _ := strings.Cut(strings.TrimSpace(line), " +0x")
				file = filepath.Base(file)
				shape = append(shape, "\t"+file)
			default:
				m := call.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("%s: not a frame: %q", name, line)
				}
				shape = append(shape, m[1]+m[2])
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(shape, "\n")+"\n"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}
