package rt_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// heddleFrame matches a frame or creator of heddle's runtime, harness or engine.
var heddleFrame = regexp.MustCompile(`(?m)^(created by )?github\.com/heddledbg/heddle/(rt|harness|explorer|worker|timeline|locktree|lin)[./]`)

// TestStack checks what a program under heddle reads of its own goroutine's stack
// (runtime.Stack, runtime/debug.Stack): its frames, none of heddle's; and that the listing of
// every goroutine is the process's, heddle's included, which the CLI's verdicts rely on to
// tell a test that failed on it (cmd/heddle, heddleFrame).
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
		if n := strings.Count(s, "goroutine "); n != 1 {
			t.Errorf("%s lists %d goroutines, want 1:\n%s", name, n, s)
		}
	}
	if lines := strings.Split(debug, "\n"); len(lines) < 2 || lines[1] != "runtime/debug.Stack()" {
		t.Errorf("DebugStack() does not start with debug.Stack's frame, as Go writes it:\n%s", debug)
	}
	if !strings.Contains(all, "rt_test.blockedInReceive") || heddleFrame.FindString(all) == "" {
		t.Errorf("Stack(buf, true) is not the process's listing, with the run's blocked goroutine and heddle's frames:\n%s", all)
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
