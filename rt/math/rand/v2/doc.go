// Package rand is the instrumented counterpart of the standard package
// math/rand/v2.
//
// The instrumenter makes instrumented code import this package in place of
// math/rand/v2. Its top-level functions draw from a source of the run that
// the schedule seeds (rt.RandV2), so that a replayed schedule draws the same
// values; Rand, PCG, ChaCha8 and the rest are the standard package's.
package rand
