// Package synctest is the instrumented counterpart of the standard package testing/synctest.
//
// The instrumenter makes instrumented code import this package in place of testing/synctest.
// In a run, Test and Wait have synctest's meaning on heddle's virtual clock (see rt.Bubble and
// rt.TimeSynctest); outside a run they are the standard package's.
package synctest

import (
	"testing"
	"testing/synctest"

	"github.com/heddledbg/heddle/rt"
)

// CleanupScope is set by the harness, whose Cleanup stands for t.Cleanup in a run: it returns
// a function that calls the cleanups registered on t since the call, last first.
var CleanupScope func(t *testing.T) (end func())

// Test executes f in a new bubble and waits for every goroutine of the bubble to exit. As in
// testing/synctest, the cleanups that f registers run inside the bubble when f returns, before
// the wait: a cleanup that stops a goroutine of the bubble lets it exit.
func Test(t *testing.T, f func(*testing.T)) {
	if !rt.Running() {
		synctest.Test(t, f)
		return
	}
	rt.Bubble(func() {
		if CleanupScope != nil {
			defer CleanupScope(t)()
		}
		f(t)
	})
}

// Wait blocks until every goroutine of the current bubble, other than the caller, is durably
// blocked.
func Wait() {
	if !rt.Running() {
		synctest.Wait()
		return
	}
	rt.BubbleWait()
}
