// Package context is the instrumented counterpart of the standard package
// context.
//
// The instrumenter makes instrumented code import this package in place of
// context. Context is the standard interface, so contexts cross freely
// between instrumented and other code. The functions that start timers or
// goroutines (WithCancel, WithTimeout, WithDeadline and their Cause variants,
// AfterFunc) and Cause, which must see the causes they record, come from
// package rt, as do WithoutCancel and WithValue, whose results must not
// lead a child made by uninstrumented code to start a goroutine heddle does
// not control; everything else is the standard package's.
package context
