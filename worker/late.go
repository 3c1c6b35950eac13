package worker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// Checked stands for the receiver of the package's calls and method values of t.Log, t.Logf,
// t.Error, t.Errorf, t.Fatal, t.Fatalf, t.Fail and t.FailNow, for t a *testing.T or a
// testing.TB: the instrumenter rewrites t.Logf into worker.Checked(t).Logf. After the test
// has returned (with its cleanups), its goroutines go on for the leak check's window
// (rt.LeakWindow); a call then fails the run as go test fails it, with a panic in the calling
// goroutine in go test's words. Go logs a late message into a parent test that is still
// running, and panics only once every ancestor has completed; a run of heddle is one test, so
// the panic is what it shows. Calls through an interface of another package (an assertion
// library's TestingT) are checked by Late.
func Checked(t testing.TB) Test { return Test{t} }

// Late stands for the receiver t of a call of one of those methods through another interface,
// such as testify's TestingT.Errorf: when t holds a testing.TB, the call is checked as
// Checked's are. The instrumenter rewrites t.Errorf into worker.Late(t, "Log").Errorf, and
// "Fail" for Fail and FailNow. While the test runs, the call is the library's own, from the
// frame its t.Helper marks.
func Late[T any](t T, what string) T {
	tb, ok := any(t).(testing.TB)
	if !ok || !completed() {
		return t
	}
	// The call is late: it goes to Test's method, which panics with what it would log.
	if c, ok := any(Test{tb}).(T); ok {
		return c
	}
	Test{tb}.late(what, "")
	return t
}

// LateValue stands for the receiver t of a method value of such an interface (f :=
// tt.Errorf): taken while the test runs, the value may be called after it returned, so when t
// holds a testing.TB and Test has every method of T, the value is bound to Test, which checks
// each call. what is as for Late.
func LateValue[T any](t T, what string) T {
	if tb, ok := any(t).(testing.TB); ok {
		if c, ok := any(Test{tb}).(T); ok {
			return c
		}
	}
	return Late(t, what)
}

// Test is a testing.TB whose logging and failing methods check that the test has not
// completed (Checked).
type Test struct{ tb testing.TB }

// late panics, as testing does, if the run's test has returned. what is "Log" or "Fail", and
// msg the message logged.
func (t Test) late(what, msg string) {
	if !completed() {
		return
	}
	name := t.tb.Name()
	if current.t != nil {
		name = current.name + strings.TrimPrefix(name, current.t.Name())
	}
	if what == "Fail" {
		panic("Fail in goroutine after " + name + " has completed")
	}
	if msg == "" {
		panic("Log in goroutine after " + name + " has completed")
	}
	panic("Log in goroutine after " + name + " has completed: " + strings.TrimSuffix(msg, "\n"))
}

// completed reports whether the caller's run has a test that returned.
func completed() bool { return rt.Running() && rt.Returned() }

// Log is t.Log, checked.
func (t Test) Log(args ...any) {
	t.late("Log", fmt.Sprintln(args...))
	t.tb.Helper()
	t.tb.Log(args...)
}

// Logf is t.Logf, checked.
func (t Test) Logf(format string, args ...any) {
	t.late("Log", fmt.Sprintf(format, args...))
	t.tb.Helper()
	t.tb.Logf(format, args...)
}

// Error is t.Error, checked.
func (t Test) Error(args ...any) {
	t.late("Log", fmt.Sprintln(args...))
	t.tb.Helper()
	t.tb.Error(args...)
}

// Errorf is t.Errorf, checked.
func (t Test) Errorf(format string, args ...any) {
	t.late("Log", fmt.Sprintf(format, args...))
	t.tb.Helper()
	t.tb.Errorf(format, args...)
}

// Fatal is t.Fatal, checked.
func (t Test) Fatal(args ...any) {
	t.late("Log", fmt.Sprintln(args...))
	t.tb.Helper()
	t.tb.Fatal(args...)
}

// Fatalf is t.Fatalf, checked.
func (t Test) Fatalf(format string, args ...any) {
	t.late("Log", fmt.Sprintf(format, args...))
	t.tb.Helper()
	t.tb.Fatalf(format, args...)
}

// Fail is t.Fail, checked.
func (t Test) Fail() {
	t.late("Fail", "")
	t.tb.Helper()
	t.tb.Fail()
}

// FailNow is t.FailNow, checked.
func (t Test) FailNow() {
	t.late("Fail", "")
	t.tb.Helper()
	t.tb.FailNow()
}
