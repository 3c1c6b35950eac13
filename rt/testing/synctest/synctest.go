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

// Test executes f in a new bubble and waits for every goroutine of the bubble to exit.
func Test(t *testing.T, f func(*testing.T)) {
	if !rt.Running() {
		synctest.Test(t, f)
		return
	}
	rt.Bubble(func() { f(t) })
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
