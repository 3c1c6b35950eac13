package rt

import (
	"runtime"
	"slices"
	"sync"
)

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
