package rt

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Goroutines that package initialisation starts (a package-level pool's purging goroutine, a
// worker that a package variable's initialiser starts) belong to every run, as under go test
// they run beside every test. rt holds them while init runs, without starting them, and the
// first run of the process adopts them: they start as goroutines of that run, before anything
// else of it but the root's first step, which Go's scheduler may do too (a new goroutine need
// not run at once). A process can adopt them once, so a test whose package started goroutines
// during init is explored with a fresh process per run (the controller's isolation), and its
// adopted goroutines are not the test's: one still blocked when the test returns is no leak.
//
// A goroutine of init's that init itself waits for (it blocks on a channel, a lock or a
// WaitGroup before init ends) cannot be held: the first such wait starts every held goroutine
// as a plain goroutine, and their calls into instrumented code then make the runs
// unexplorable, as for any goroutine heddle did not start.
var initGs struct {
	mu    sync.Mutex
	fs    []func()
	where []string // the go statements' positions
	held  atomic.Bool
	// adopted counts the goroutines the process's first run adopted.
	adopted int
}

// holdInit holds f if the caller is package initialisation, and reports whether it did.
//
//go:norace
func holdInit(f func()) bool {
	where, ok := initCaller()
	if !ok {
		return false
	}
	initGs.mu.Lock()
	defer initGs.mu.Unlock()
	initGs.fs = append(initGs.fs, f)
	initGs.where = append(initGs.where, where)
	initGs.held.Store(true)
	return true
}

// initCaller reports whether Go's caller runs package initialisation (runtime.doInit1 is on
// its stack), and the position of the go statement.
//
//go:norace
func initCaller() (string, bool) {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	where, init := "", false
	for {
		f, more := frames.Next()
		if where == "" && !inRT(f.Function) {
			where = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if strings.HasPrefix(f.Function, "runtime.doInit") {
			init = true
		}
		if !more {
			break
		}
	}
	return where, init
}

// initWait is called before a blocking operation outside any run: if init waits, what it
// waits for may be a goroutine it started, which must then run.
//
//go:norace
func initWait() {
	if !initGs.held.Load() {
		return
	}
	initGs.mu.Lock()
	fs := initGs.fs
	initGs.fs, initGs.where = nil, nil
	initGs.held.Store(false)
	initGs.mu.Unlock()
	for _, f := range fs {
		go f()
	}
}

// adoptInit starts the held goroutines as goroutines of run r, children of its root.
//
//go:norace
func (r *run) adoptInit() {
	if !initGs.held.Load() {
		return
	}
	initGs.mu.Lock()
	fs := initGs.fs
	initGs.fs, initGs.where = nil, nil
	initGs.held.Store(false)
	initGs.adopted = len(fs)
	initGs.mu.Unlock()
	for _, f := range fs {
		child := r.newG(r.root, f)
		child.noLeak = true
		r.accessGo(r.root, child)
		r.resume = append(r.resume, child)
	}
}

// InitGoroutines describes the goroutines that package initialisation started, which a run
// adopts: how many, and where the first was started. A process that has them can run one
// schedule of a test, and is then used up: n > 0 asks for a fresh process per run.
//
//go:norace
func InitGoroutines() (n int, where string) {
	initGs.mu.Lock()
	defer initGs.mu.Unlock()
	if len(initGs.fs) > 0 {
		return len(initGs.fs), initGs.where[0]
	}
	return initGs.adopted, ""
}
