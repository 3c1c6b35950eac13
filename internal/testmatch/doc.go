// Package testmatch applies go test's -run and -skip to the full names of tests and
// subtests, as the testing package does: each pattern is split at its unbracketed slashes into
// one regular expression per level of the name, and at its top-level bars into alternatives.
// heddle test selects the tests it explores by their names, and its workers the subtests
// they run, with the same rule.
package testmatch
