// Package goleak is the instrumented counterpart of go.uber.org/goleak (v1.3.0's API).
//
// The instrumenter makes instrumented code import this package in place of goleak. goleak
// lists every goroutine of the process, and under heddle it would see heddle's own and fail
// correct tests. Heddle checks for leaks itself: a goroutine still blocked when the test's root
// goroutine has returned is a leak, in every schedule explored. So VerifyNone and
// VerifyTestMain pass their options on to that check (rt.IgnoreLeaks) and check nothing
// themselves, and Find reports no leak.
package goleak

import (
	"os"

	"github.com/heddledbg/heddle/rt"
)

// TestingT is the part of testing.TB that VerifyNone uses.
type TestingT interface {
	Error(...interface{})
}

// TestingM is the part of testing.M that VerifyTestMain uses.
type TestingM interface {
	Run() int
}

// An Option changes which goroutines the leak check passes over.
type Option interface {
	apply(*opts)
}

type opts struct {
	top, any []string
	cleanup  func(exitCode int)
}

type optionFunc func(*opts)

func (f optionFunc) apply(o *opts) { f(o) }

// IgnoreTopFunction passes over the goroutines blocked in function f.
func IgnoreTopFunction(f string) Option {
	return optionFunc(func(o *opts) { o.top = append(o.top, f) })
}

// IgnoreAnyFunction passes over the goroutines with function f anywhere on their stack.
func IgnoreAnyFunction(f string) Option {
	return optionFunc(func(o *opts) { o.any = append(o.any, f) })
}

// IgnoreCurrent passes over the goroutines that exist when it is called.
func IgnoreCurrent() Option {
	// goleak takes a snapshot here; heddle's runs start with only the test's goroutine, so
	// the goroutines to pass over are those that exist when the options are applied, which
	// for the usual defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) is the same moment.
	rt.IgnoreLeaks(nil, nil, true)
	return optionFunc(func(o *opts) {})
}

// Cleanup sets the function VerifyTestMain calls with the exit code, in place of os.Exit.
func Cleanup(cleanupFunc func(exitCode int)) Option {
	return optionFunc(func(o *opts) { o.cleanup = cleanupFunc })
}

func build(options []Option) *opts {
	o := &opts{}
	for _, opt := range options {
		opt.apply(o)
	}
	return o
}

// Find reports no leak: under heddle, a leak is reported by heddle's own check when the test
// returns.
func Find(options ...Option) error { return nil }

// VerifyNone hands its options to heddle's leak check, which reports any goroutine still
// blocked when the test returns.
func VerifyNone(t TestingT, options ...Option) {
	o := build(options)
	rt.IgnoreLeaks(o.top, o.any, false)
}

// VerifyTestMain runs the tests with its options handed to heddle's leak check for every one
// of them, and exits with their exit code (or calls the Cleanup function with it).
func VerifyTestMain(m TestingM, options ...Option) {
	o := build(options)
	rt.IgnoreLeaks(o.top, o.any, false)
	code := m.Run()
	if o.cleanup != nil {
		o.cleanup(code)
		return
	}
	os.Exit(code)
}
