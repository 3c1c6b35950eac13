// Package worker is a stand-in for heddle's test harness: Serve runs the
// registered tests as subtests, so that a test can see what was registered.
package worker

import (
	"context"
	"testing"
)

type test struct {
	name string
	f    func(*testing.T)
}

var tests []test

func Register(name string, f func(*testing.T)) { tests = append(tests, test{name, f}) }

func Serve(t *testing.T) {
	for _, x := range tests {
		t.Run(x.name, x.f)
	}
}

func RegisterMain(main func()) {}

func Run(t *testing.T, name string, f func(*testing.T)) bool { return t.Run(name, f) }

func Parallel(t *testing.T) { t.Parallel() }

func Cleanup(t testing.TB, f func()) { t.Cleanup(f) }

func Context(t testing.TB) context.Context { return t.Context() }

func Checked(t testing.TB) testing.TB { return t }

func Late[T any](t T, what string) T { return t }
