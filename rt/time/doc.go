// Package time is the instrumented counterpart of the standard package time.
//
// The instrumenter makes instrumented code import this package in place of
// time. It declares every exported name of time. Now, Since, Until, Sleep,
// After, Tick, the timers and the tickers come from package rt and use its
// virtual clock; everything else (Time, Duration, Parse, …) is the standard
// package's, so values cross freely between instrumented and other code.
//
// The package variables (Local, UTC) are copies: assigning to them does not
// change the standard package's.
package time
