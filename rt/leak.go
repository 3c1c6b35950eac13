package rt

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
)

// LeakWindow is how long, in virtual time, the goroutines of a run go on after the root
// returned before heddle judges them, as goleak's VerifyNone retries before it reports: by
// default (goleak v1.3.0) 20 retries, sleeping from 1 µs, doubling, at most 100 ms, between
// them; 431.071 ms in all.
const LeakWindow = 431071 * time.Microsecond

// NameRoot names the run's root goroutine in its verdicts ("after TestX returned").
//
//go:norace
func NameRoot(name string) {
	if r, _ := current(); r != nil {
		r.rootName = name
	}
}

// Returned reports whether the root of the caller's run has returned: the test has completed,
// and its goroutines go on in the leak check's window.
//
//go:norace
func Returned() bool {
	r, _ := current()
	return r != nil && r.rootDone()
}

// NameMain names the run's root main: the run is a program's, which exits when main returns,
// as Go ends the process without waiting for its other goroutines.
//
//go:norace
func NameMain() {
	if r, _ := current(); r != nil {
		r.rootName, r.exits = "main", true
	}
}

// endAfterReturn ends a run whose root has returned: at the end of the window, at the step
// bound, or when nothing can run before the window ends. A goroutine blocked on an object of
// the run is blocked forever; one that can run, or waits for a timer, is still running. Both
// are leaks, as goleak reports them, except the goroutines of package init, and those the
// program's leak checks pass over.
//
//go:norace
func (r *run) endAfterReturn() {
	var blocked, running []*goroutine
	for _, g := range r.gs {
		switch {
		case g.state == gDone || g.noLeak || r.ignoredLeak(g):
		case r.stillRunning(g):
			running = append(running, g)
		default:
			blocked = append(blocked, g)
		}
	}
	if len(blocked)+len(running) == 0 {
		r.verdict = Verdict{Kind: VerdictOK}
		r.finish()
		return
	}
	root := r.rootName
	if root == "" {
		root = "the root goroutine"
	}
	still := fmt.Sprintf("still running %v after %s returned", LeakWindow.Round(time.Millisecond), root)
	if r.steps > r.cfg.MaxSteps {
		still = fmt.Sprintf("still running at heddle's step bound, %d steps after %s returned", r.steps-int(r.root.exited), root)
	}
	var msg string
	switch {
	case len(running) == 0:
		msg = fmt.Sprintf("%d goroutine(s) blocked forever after %s returned", len(blocked), root)
	case len(blocked) == 0:
		msg = fmt.Sprintf("%d goroutine(s) %s", len(running), still)
	default:
		msg = fmt.Sprintf("%d goroutine(s) blocked forever, and %d %s", len(blocked), len(running), still)
	}
	r.verdict = Verdict{Kind: VerdictLeak, Message: msg}
	for _, g := range append(blocked, running...) {
		r.verdict.Goroutines = append(r.verdict.Goroutines, r.goroutineState(g))
	}
	r.finish()
}

// stillRunning reports whether g, alive after the root returned, is not blocked forever: it
// can run, or a timer will wake it.
//
//go:norace
func (r *run) stillRunning(g *goroutine) bool {
	switch g.state {
	case gParked:
		return r.waitsOnClock(g)
	case gPending:
		return r.enabled(g) || r.waitsOnClock(g)
	}
	return true
}

// Leak checks written for go test, such as go.uber.org/goleak's VerifyNone, list every
// goroutine of the process and would see heddle's own. Under heddle, a goroutine still blocked
// when the root goroutine has returned is a leak of the run, found in every schedule explored
// (end), and those checks hand heddle only what they were told to ignore.

// A leakIgnore says which goroutines a leak check passes over: those blocked in one of top,
// those running one of any (blocked in it, or started on it), and, in a run, the first before
// goroutines, which existed when the program asked to ignore the current ones.
type leakIgnore struct {
	top, any []string
	before   int
}

// processIgnore applies to every run of the process: what a TestMain asked.
var processIgnore struct {
	sync.Mutex
	leakIgnore
}

// IgnoreLeaks makes heddle's leak check pass over the goroutines blocked in a function named
// in top, or running one named in any (full names, as runtime.FuncForPC gives them:
// "example.com/pkg.(*T).loop"), and, if existing is set, the goroutines that exist now. In a
// run it applies to the run; outside one, to every later run of the process.
//
//go:norace
func IgnoreLeaks(top, any []string, existing bool) {
	r, _ := current()
	if r == nil {
		processIgnore.Lock()
		processIgnore.top = append(processIgnore.top, top...)
		processIgnore.any = append(processIgnore.any, any...)
		processIgnore.Unlock()
		return
	}
	r.ignore.top = append(r.ignore.top, top...)
	r.ignore.any = append(r.ignore.any, any...)
	if existing {
		r.ignore.before = len(r.gs)
	}
}

// ignoredLeak reports whether g, blocked after the root returned, is one the program's leak
// checks said to pass over.
//
//go:norace
func (r *run) ignoredLeak(g *goroutine) bool {
	processIgnore.Lock()
	top := append(slices.Clip(r.ignore.top), processIgnore.top...)
	any := append(slices.Clip(r.ignore.any), processIgnore.any...)
	processIgnore.Unlock()
	if len(top) == 0 && len(any) == 0 && r.ignore.before == 0 {
		return false
	}
	if slices.Index(r.gs, g) < r.ignore.before {
		return true
	}
	var funcs []string // the functions of g's stack, innermost first
	if g.pc != 0 {
		for _, f := range frames(g.stack) {
			funcs = append(funcs, f.Func)
		}
	} else {
		// Outside detail mode a step does not keep its stack: read the carrier's.
		_, fns, _ := stackOf(g.goid)
		for _, fn := range fns {
			if !internalFrame(fn) {
				funcs = append(funcs, fn)
			}
		}
	}
	if f := runtime.FuncForPC(g.fn); f != nil {
		funcs = append(funcs, f.Name())
	}
	if len(funcs) > 0 && slices.Contains(top, funcs[0]) {
		return true
	}
	return slices.ContainsFunc(funcs, func(f string) bool { return slices.Contains(any, f) })
}
