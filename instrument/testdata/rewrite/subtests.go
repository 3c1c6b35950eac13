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
