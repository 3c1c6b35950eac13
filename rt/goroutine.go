package rt

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
)

// Go starts f in a new controlled goroutine, like a go statement. The instrumenter evaluates
// the function value and its arguments before calling Go, as the go statement does. Starting a
// goroutine is not a scheduling point (the child does nothing visible before its own first
// scheduling point); the child runs up to that point before the next decision.
//
//go:norace
func Go(f func()) {
	r, g := current()
	if r == nil {
		if !holdInit(f) {
			go f()
		}
		return
	}
	if r.cfg.ThreadBlocks {
		g.op = op{kind: OpGo, obj: NoObj}
		r.yield(g)
	}
	e := r.record(g, OpGo, NoObj)
	if r.ended {
		// The step ended the run (its bound): teardown has begun, and a child started now
		// could escape it.
		return
	}
	child := r.newG(g, f)
	r.accessGo(g, child)
	e.Child = child.id
	r.resume = append(r.resume, child)
	if r.cfg.Spawned != nil {
		r.cfg.Spawned(Spawn{Parent: r.gname(g), Child: r.gname(child), Fn: funcPC(f)})
	}
}

// Gosched is a scheduling point with no other effect, like runtime.Gosched. It polls: from
// its second poll on, the goroutine lets every other enabled goroutine step before it
// continues.
//
//go:norace
func Gosched() {
	r, g := current()
	if r == nil {
		runtime.Gosched()
		return
	}
	g.op = op{kind: OpYield, obj: NoObj}
	r.yield(g)
	r.record(g, OpYield, NoObj)
	r.poll(g)
}

// Goexit terminates the calling goroutine after running its deferred calls, like
// runtime.Goexit.
//
//go:norace
func Goexit() { runtime.Goexit() }

// NumGoroutine returns the number of live goroutines of the run (outside a run, the real
// number, less heddle's own).
//
//go:norace
func NumGoroutine() int {
	r := active
	if r == nil {
		return runtime.NumGoroutine() - ownGoroutines()
	}
	n := 0
	for _, g := range r.gs {
		if g.state != gDone {
			n++
		}
	}
	return n
}

// Choose returns a value in [0, n) chosen by the scheduler: each value is a decision that an
// exhaustive search explores (VeriSoft's VS_toss). Outside a run it returns 0.
//
//go:norace
func Choose(n int) int {
	r, g := current()
	if r == nil || n <= 1 {
		return 0
	}
	r.record(g, OpChoose, NoObj)
	alts := r.alts[:0]
	for i := 0; i < n; i++ {
		alts = append(alts, Alt{G: g.id, Op: OpChoose, Obj: NoObj, Case: i})
	}
	r.alts = alts
	i := r.choose(DecideChoose, alts, -1)
	if i < 0 {
		r.block(g)
	}
	return i
}

// AssertionError is the panic value of a failed heddle.Assert.
type AssertionError struct{ Msg string }

//go:norace
func (e *AssertionError) Error() string { return "assertion failed: " + e.Msg }

// TestFailure is the panic value by which a test harness reports that the root test failed
// (t.Error or t.Fatal) once its function has returned.
type TestFailure struct{ Msg string }

//go:norace
func (e *TestFailure) Error() string { return e.Msg }

// Exit stands for os.Exit, which the instrumenter rewrites into a call of Exit. In a run, the
// process does not exit: the run ends there, the way the process would, and explorations go
// on. A status other than 0 is the run's verdict exit, against the calling goroutine, so the
// report says where the program exited and under which schedule; status 0 ends the run as a
// program that returned would. Outside a run it is os.Exit.
//
//go:norace
func Exit(code int) {
	r, g := current()
	if r == nil || g == nil {
		os.Exit(code)
	}
	if code == 0 {
		r.fail(VerdictOK, "", nil, nil)
	} else {
		_, stack := callers()
		msg := fmt.Sprintf("os.Exit(%d) called by %s", code, r.gname(g))
		if fs := frames(stack); len(fs) > 0 {
			msg += " at " + fs[0].Position()
		}
		r.fail(VerdictExit, msg, g, stack)
	}
	r.block(g)
}

// Fail ends the run with a verdict of the given kind, reported against the current goroutine
// if blame is set. A harness calls it for test failures; it has no effect outside a run.
//
//go:norace
func Fail(kind VerdictKind, msg string, blame bool) {
	r, g := current()
	if r == nil {
		return
	}
	if blame {
		r.fail(kind, msg, g, nil)
	} else {
		r.fail(kind, msg, nil, nil)
	}
	if g != nil && g.state != gDone {
		r.block(g)
	}
}

// TestFailed records that the test of the run in progress has failed (t.Error, t.Fatal), as a
// test harness learns when the test's function ends, even while the run is torn down after
// another verdict: a deadlock in the cleanup of a test that had already failed is the
// failure's consequence (Result.TestFailed).
//
//go:norace
func TestFailed() {
	if r := active; r != nil {
		r.testFailed = true
	}
}

// standInAssertion ends the message of the panic of a type assertion that fails only because
// heddle stands in for the type asserted: http.DefaultTransport is rt/net/http's Transport in
// an instrumented program, and http.DefaultTransport.(*http.Transport) (a common way to
// clone it) panics there, not under go test.
const standInAssertion = "is *http.Transport, not *http.Transport (types from different packages)"

// panicVerdict returns the kind and message of the verdict of a panic with value p.
//
//go:norace
func panicVerdict(p any) (VerdictKind, string) {
	msg := fmt.Sprint(p)
	if _, ok := p.(*runtime.TypeAssertionError); ok && strings.HasSuffix(msg, standInAssertion) {
		return VerdictUnsupported, msg + ": the program asserts that http.DefaultTransport is net/http's, " +
			"which under heddle is rt/net/http's Transport, carrying requests on controlled goroutines (docs/network.md)"
	}
	return classifyPanic(p), msg
}

//go:norace
func classifyPanic(p any) VerdictKind {
	var ae *AssertionError
	var tf *TestFailure
	if err, ok := p.(error); ok {
		switch {
		case errors.As(err, &ae):
			return VerdictAssert
		case errors.As(err, &tf):
			return VerdictFatal
		}
	}
	switch fmt.Sprint(p) {
	case "close of closed channel", "close of nil channel", "sync: negative WaitGroup counter":
		return VerdictMisuse
	}
	return VerdictPanic
}

// panicStack returns the stack of a panicking goroutine, from inside its deferred recover.
//
//go:norace
func panicStack() []uintptr {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	pcs = pcs[:n]
	// Drop the frames of the panic machinery and of rt, keeping the user's.
	return pcs
}

const rtPrefix = ModulePath + "/rt"

// harnessPrefix starts the names of the functions of the harness that runs tests under heddle
// (package worker, which rt cannot import).
const harnessPrefix = ModulePath + "/worker."

// callers returns the user's call site of the rt operation in progress and the user's stack.
// The site is the program's own frame nearest the operation: a standard function between them
// (fmt.Fprintf writing to an io.PipeWriter, io.Copy reading a connection) is passed over for
// the line that called it, unless the stack has no other.
//
//go:norace
func callers() (uintptr, []uintptr) {
	var buf [48]uintptr
	n := runtime.Callers(3, buf[:])
	frames := runtime.CallersFrames(buf[:n])
	var user []uintptr
	var site, stdSite uintptr
	for i := 0; ; i++ {
		f, more := frames.Next()
		if !internalFrame(f.Function) {
			switch {
			case site != 0:
			case stdFunc(f.Function):
				if stdSite == 0 {
					stdSite = f.PC + 1
				}
			default:
				site = f.PC + 1
			}
			// Frame.PC is the call instruction; CallersFrames wants the return address
			// form, and only from that does it expand the frames of inlined calls.
			user = append(user, f.PC+1)
		}
		if !more {
			break
		}
	}
	if site == 0 {
		site = stdSite
	}
	return site, user
}

// callerSite returns the position, as file:line, of the program's call that led to the
// caller: its first frame that is not heddle's.
//
//go:norace
func callerSite() string {
	var buf [32]uintptr
	n := runtime.Callers(3, buf[:])
	frames := runtime.CallersFrames(buf[:n])
	for {
		f, more := frames.Next()
		if !internalFrame(f.Function) {
			return f.File + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}

// frames symbolises a stack, dropping heddle's own frames.
//
//go:norace
func frames(pcs []uintptr) []Frame {
	if len(pcs) == 0 {
		return nil
	}
	var out []Frame
	fs := runtime.CallersFrames(pcs)
	for {
		f, more := fs.Next()
		if f.Function != "" && !internalFrame(f.Function) && FuncPackage(f.Function) != "testing" {
			out = append(out, Frame{Func: f.Function, File: f.File, Line: f.Line})
		}
		if !more {
			break
		}
	}
	return out
}

// Position symbolises a PC recorded in detail mode. It works on the pcs of Event.PC,
// ObjectInfo.PC and GoroutineState.PC, which are return addresses.
//
//go:norace
func Position(pc uintptr) (file string, line int, fn string) {
	if pc == 0 {
		return "", 0, ""
	}
	// When an rt function was inlined into the user's, both share the PC; the frames of the
	// PC run from the innermost out, so skip heddle's own to reach the user's line.
	fs := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := fs.Next()
		if !internalFrame(f.Function) || !more {
			return f.File, f.Line, f.Function
		}
	}
}

//go:norace
func funcPC(f func()) uintptr { return reflect.ValueOf(f).Pointer() }
