package rt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestOthersWork reads the process's state from a traceback: whether a goroutine waits for
// something that does not end by itself, and whether another goroutine still works, which is
// what decides that a goroutine waits outside heddle, whatever the machine's load.
func TestOthersWork(t *testing.T) {
	const waiting = "goroutine 7 [chan receive]:\nmain.f()\n\t/x.go:3 +0x1\n"
	tests := []struct {
		name  string
		other string // the traceback of goroutine 9
		works bool
	}{
		{"blocked on a channel", "goroutine 9 [chan receive, 2 minutes]:\nmain.g()\n\t/x.go:9 +0x1\n", false},
		{"blocked on a lock", "goroutine 9 [sync.Mutex.Lock]:\n", false},
		{"in a read system call", "goroutine 9 [syscall]:\n", false},
		{"waiting on the network", "goroutine 9 [IO wait]:\n", false},
		{"running", "goroutine 9 [running]:\n", true},
		{"runnable", "goroutine 9 [runnable]:\n", true},
		{"assisting the GC", "goroutine 9 [GC assist wait]:\n", true},
		{"sleeping", "goroutine 9 [sleep]:\n", true},
		{"preempted", "goroutine 9 [preempted]:\n", true},
	}
	for _, tt := range tests {
		all := "goroutine 1 [running]:\nmain.main()\n\n" + waiting + "\n" + tt.other
		if got := othersWork(all, 7, 1); got != tt.works {
			t.Errorf("%s: othersWork = %v, want %v", tt.name, got, tt.works)
		}
		if state, fns, _ := stackIn(all, 7); state != "chan receive" || len(fns) != 1 || fns[0] != "main.f" {
			t.Errorf("%s: stackIn = %q %q", tt.name, state, fns)
		}
	}
	for state, blocks := range map[string]bool{
		"chan send": true, "select": true, "select (no cases)": true, "semacquire": true,
		"sync.WaitGroup.Wait": true, "chan receive (durable)": true, "IO wait": true,
		"GC assist wait": false, "running": false, "syscall": false, "sleep": false, "": false,
	} {
		if blockingWait(state) != blocks {
			t.Errorf("blockingWait(%q) = %v, want %v", state, !blocks, blocks)
		}
	}
}

// TestCreatedBy names, from a goroutine's traceback, what started it, and the package that
// -instrument would put under control: never the standard library's or heddle's own.
func TestCreatedBy(t *testing.T) {
	const frames = "goroutine 105 [running]:\nexample.com/m.f()\n\t/m/f.go:3 +0x1\n"
	tests := []struct {
		name, created, fn, pkg string
	}{
		{"a module's method", "created by golang.org/x/sync/errgroup.(*Group).Go in goroutine 22\n\t/x/errgroup.go:75 +0x11d\n",
			"golang.org/x/sync/errgroup.(*Group).Go", "golang.org/x/sync/errgroup"},
		{"a closure of an external test", "created by example.com/m_test.TestX.func1 in goroutine 7\n",
			"example.com/m_test.TestX.func1", "example.com/m"},
		{"the standard library", "created by net/http.(*Server).Serve in goroutine 1\n", "net/http.(*Server).Serve", ""},
		{"heddle's go statement", "created by " + rtPrefix + ".Go in goroutine 1\n", rtPrefix + ".Go", ""},
		{"no creator", "", "", ""},
	}
	for _, tt := range tests {
		fn, pkg := createdBy([]byte(frames + tt.created))
		if fn != tt.fn || pkg != tt.pkg {
			t.Errorf("%s: createdBy = %q, %q; want %q, %q", tt.name, fn, pkg, tt.fn, tt.pkg)
		}
	}
}

// initCtx is made during package initialisation, as a package-level pool's context is.
var initCtx, initCancel = WithCancel(context.Background())

// TestInitContext: a cancellable context that package initialisation makes is heddle's, so a
// goroutine of init's that a run adopts waits on a channel heddle made, not in real time.
func TestInitContext(t *testing.T) {
	c, ok := initCtx.(*cancelCtx)
	if !ok || !controlledChan(c.Done()) {
		t.Fatalf("context made during init is %T, want heddle's cancelCtx with a controlled Done channel", initCtx)
	}
	if ctx, cancel := WithCancel(context.Background()); !isStd(ctx) {
		cancel()
		t.Errorf("context made outside a run and outside init is %T, want the standard package's", ctx)
	}
	res := Run(Config{}, func() {
		done := MakeChan[struct{}](0)
		Go(func() {
			Recv(initCtx.Done())
			Close(done)
		})
		initCancel()
		Recv(done)
	})
	if res.Verdict.Kind != VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
}

func isStd(ctx context.Context) bool { _, ok := ctx.(*cancelCtx); return !ok }

// stallInRT spins in heddle's own code until stop, with no access counted: as a bookkeeping
// call that takes long does.
//
//go:noinline
func stallInRT(stop *int32) {
	for atomic.LoadInt32(stop) == 0 {
	}
}

// TestStallInHeddle: a goroutine that spends the hang limit inside heddle's own code, counting
// no access, is heddle's cost, not a hang of the program: the run cannot be explored, and the
// report says why. It runs in a child process, which the stall poisons.
func TestStallInHeddle(t *testing.T) {
	if os.Getenv("HEDDLE_RT_CHILD") == "stall" {
		var stop int32
		time.AfterFunc(4*time.Second, func() { atomic.StoreInt32(&stop, 1) })
		res := Run(Config{Hang: time.Second}, func() { stallInRT(&stop) })
		fmt.Printf("stall: %s: %s\n", res.Verdict.Kind, res.Verdict.Message)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestStallInHeddle$")
	cmd.Env = append(os.Environ(), "HEDDLE_RT_CHILD=stall")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := "stall: unsupported: rt: goroutine G1 spent over 1s in heddle's own code (" + rtPrefix + ".stallInRT): heddle's cost, not a hang of the program"
	if !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// TestWaitsInHeddle tells a goroutine that waits in an operation of heddle's from one that
// waits in code the program called, from its stack: jrpc2's TestSeq, whose synctest bubble
// (heddle's stand-in) dials an in-memory listener of a dependency, was reported as a hang of
// the program when it waits outside heddle.
func TestWaitsInHeddle(t *testing.T) {
	const goroot = "/go/src/"
	rtf := func(fn string) string { return rtPrefix + fn }
	tests := []struct {
		name  string
		state string
		fns   []string
		files []string
		want  bool
	}{
		{"a carrier parked by the scheduler", "waiting",
			[]string{"runtime.gopark", rtf(".(*parker).park"), rtf(".(*run).yield"), rtf(".Recv[...]"), "example.com/m.TestX", rtf(".(*run).body")},
			[]string{"/go/src/runtime/proc.go:462", "/h/rt/park.go:50", "/h/rt/sched.go:700", "/h/rt/chan.go:80", "/m/x_test.go:9", "/h/rt/sched.go:300"}, true},
		{"heddle's own lock", "sync.Mutex.Lock",
			[]string{"runtime.gopark", "sync.runtime_SemacquireMutex", "sync.(*Mutex).Lock", rtf(".takeCarrier"), rtf(".Go")},
			[]string{"/go/src/runtime/proc.go:462", "/go/src/runtime/sema.go:90", "/go/src/sync/mutex.go:50", "/h/rt/carrier.go:40", "/h/rt/sched.go:800"}, true},
		{"the test's function in a synctest bubble, in a dependency's select", "select",
			[]string{"runtime.gopark", "runtime.selectgo", "github.com/creachadair/mds/mnet.Listener.dialContextAs", "github.com/creachadair/jrpc2/server_test.mustDial",
				"github.com/creachadair/jrpc2/server_test.TestSeq.func1", rtf("/testing/synctest.Test.func1"), rtf(".(*run).body")},
			[]string{"/go/src/runtime/proc.go:462", "/go/src/runtime/select.go:351", "/root/go/pkg/mod/github.com/creachadair/mds@v0.31.0/mnet/mnet.go:256", "/j/server/loop_test.go:40",
				"/j/server/loop_test.go:107", "/h/rt/testing/synctest/synctest.go:30", "/h/rt/sched.go:300"}, false},
		{"the run's root, in a dependency's select", "select",
			[]string{"runtime.gopark", "runtime.selectgo", "example.com/dep.(*Pair).Send", "example.com/m.TestX", rtf(".(*run).body")},
			[]string{"/go/src/runtime/proc.go:462", "/go/src/runtime/select.go:351", "/m/dep/dep.go:11", "/m/x_test.go:9", "/h/rt/sched.go:300"}, false},
		{"a real socket that rt/net wraps", "IO wait",
			[]string{"runtime.gopark", "internal/poll.runtime_pollWait", "net.(*conn).Read", rtf("/net.(*UnixConn).Read"), "example.com/m.TestX"},
			[]string{"/go/src/runtime/proc.go:462", "/go/src/runtime/netpoll.go:351", "/go/src/net/net.go:196", "/h/rt/net/unix.go:90", "/m/x_test.go:9"}, false},
	}
	for _, tt := range tests {
		if got := waitsInHeddle(tt.state, tt.fns, tt.files, goroot); got != tt.want {
			t.Errorf("%s: waitsInHeddle = %v, want %v", tt.name, got, tt.want)
		}
	}
}
