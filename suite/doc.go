// Package suite runs heddle over a Go test suite, as go test runs one: it builds the packages
// with heddle's instrumentation, lists their tests, explores each test's interleavings in
// worker processes within its budget (or a share of a total budget for the whole run),
// collects what the workers stream, reports every test's verdict in go test's format, and
// keeps the results under .heddle. It also merges the results of a sharded run and replays a
// saved schedule. The heddle command parses flags and calls it.
package suite

// Exit codes mirror go test: 0 nothing found, 1 a bug found or a package that does not build
// (go test fails it as it fails a test), 2 a usage error.
const (
	ExitOK    = 0
	ExitBug   = 1
	ExitUsage = 2
)
