package rt_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// heddleFrame matches a frame or creator of heddle's runtime, harness or engine.
var heddleFrame = regexp.MustCompile(`(?m)^(created by )?github\.com/heddledbg/heddle/(rt|worker|explorer|wire|record|locktree|lin)[./]`)

// TestStack checks what a program under heddle reads of its own goroutine's stack
// (runtime.Stack, runtime/debug.Stack): its frames, none of heddle's; and that the listing of
// every goroutine is the run's, the caller's first and running, the others in the wait of
// their operation, none of them with heddle's frames and none of heddle's own goroutines,
// each under its number in the run, the same in every replay.
func TestStack(t *testing.T) {
	var one, all, debug string
	res := rt.Run(rt.Config{}, func() {
		ch := rt.MakeChan[int](0)
		rt.Go(func() { blockedInReceive(ch) })
		rt.Gosched()
		buf := make([]byte, 1<<16)
		one = string(buf[:rt.Stack(buf, false)])
		all = string(buf[:rt.Stack(buf, true)])
		debug = string(rt.DebugStack())
		rt.Send(ch, 1)
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %+v", res.Verdict)
	}
	for name, s := range map[string]string{"Stack(buf, false)": one, "DebugStack()": debug} {
		if !strings.HasPrefix(s, "goroutine ") || !strings.Contains(s, "rt_test.TestStack.func") {
			t.Errorf("%s does not start with the calling goroutine's frames:\n%s", name, s)
		}
		if m := heddleFrame.FindString(s); m != "" {
			t.Errorf("%s shows heddle's frame %q:\n%s", name, m, s)
		}
		if !strings.HasPrefix(s, "goroutine 1 [running]:\n") {
			t.Errorf("%s does not name the root goroutine 1, its number in the run:\n%s", name, s)
		}
		if n := strings.Count(s, "goroutine "); n != 1 {
			t.Errorf("%s lists %d goroutines, want 1:\n%s", name, n, s)
		}
	}
	if lines := strings.Split(debug, "\n"); len(lines) < 2 || lines[1] != "runtime/debug.Stack()" {
		t.Errorf("DebugStack() does not start with debug.Stack's frame, as Go writes it:\n%s", debug)
	}
	blocks := strings.Split(strings.TrimSuffix(all, "\n"), "\n\n")
	if len(blocks) != 2 || !strings.HasPrefix(blocks[0], "goroutine 1 [running]:\n") || !strings.HasPrefix(blocks[1], "goroutine 2 [") || !strings.Contains(blocks[0], "rt_test.TestStack.func") ||
		!strings.Contains(blocks[1], " [chan receive]:\n") || !strings.Contains(blocks[1], "rt_test.blockedInReceive") {
		t.Errorf("Stack(buf, true) is not the run's two goroutines, the caller running and the other in its receive:\n%s", all)
	}
	if m := heddleFrame.FindString(all); m != "" {
		t.Errorf("Stack(buf, true) shows heddle's frame %q:\n%s", m, all)
	}
	// What a short buffer gets: the start, as runtime.Stack gives it.
	short := make([]byte, 20)
	var n int
	rt.Run(rt.Config{}, func() { n = rt.Stack(short, false) })
	if n != len(short) || !strings.HasPrefix(string(short), "goroutine ") {
		t.Errorf("Stack into 20 bytes wrote %d: %q", n, short)
	}
}

//go:noinline
func blockedInReceive(ch chan int) { rt.Recv(ch) }
