// Package sync is the instrumented counterpart of the standard package sync.
//
// The instrumenter makes instrumented code import this package in place of
// sync. It declares every exported name of sync: Mutex, RWMutex, WaitGroup,
// Cond, Once, Map and the Once helpers come from package rt, so that their
// operations are scheduling points; Locker and Pool are the standard ones.
package sync
