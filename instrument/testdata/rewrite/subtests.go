// Package p tests the rewriting of subtests and parallel tests onto the harness.
package p

import "testing"

type suite struct {
	*testing.T
	name string
}

type valueSuite struct{ testing.T }

func subtests(t *testing.T) {
	t.Parallel()
	ok := t.Run("a", func(t *testing.T) {
		t.Parallel()
		ch := make(chan int)
		go func() { ch <- 1 }()
		<-ch
	})
	t.Run("b",
		func(t *testing.T) { // the function on a line of its own
			t.Run("nested", func(*testing.T) {})
		})
	s := &suite{T: t}
	s.Run(s.name, func(*testing.T) {})
	var v valueSuite
	v.Run("value", nil)
	(t).Run("paren", nil)
	defer t.Run("deferred", nil)
	t.Cleanup(func() {})
	var tb testing.TB = t
	tb.Cleanup(nil)
	s.Cleanup(nil)
	_ = t.Context()
	_ = tb.Context()
	f := t.Run // a method value stays
	_, _ = ok, f
}

// testingT is an assertion library's interface (testify's assert.TestingT): its calls are
// checked for a test that completed. A logger's Error, with another signature, is not.
type testingT interface {
	Errorf(format string, args ...any)
	FailNow()
}

type logger interface {
	Error(msg string, kv ...any)
}

func assertions(t *testing.T, tt testingT, l logger) {
	t.Logf("checked %d", 1)
	tt.Errorf("late %d", 2)
	tt.FailNow()
	fail := tt.FailNow // a method value too
	l.Error("not a test", "k", 1)
	_ = fail
}
