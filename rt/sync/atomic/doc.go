// Package atomic is the instrumented counterpart of the standard package
// sync/atomic.
//
// The instrumenter makes instrumented code import this package in place of
// sync/atomic. Every function and type comes from package rt, so that each
// atomic operation is a scheduling point.
package atomic
