// Package rand is the instrumented counterpart of the standard package
// math/rand.
//
// The instrumenter makes instrumented code import this package in place of
// math/rand. Its top-level functions draw from a source of the run that the
// schedule seeds (rt.RandV1), so that a replayed schedule draws the same
// values; Rand, Source, New and the rest are the standard package's.
package rand
