package heddle

import "embed"

// RuntimeFS holds the source of the code that heddle links into a program
// under test: this package, the rt tree, and the explorer and timeline
// packages that rt/harness imports (all of them use only the standard
// library). The instrumenter extracts it into a module of its own, which
// instrumented builds of other modules replace github.com/heddledbg/heddle
// with, so that they build offline. The instrument package's tests check
// that the extracted module builds.
//
//go:embed *.go rt explorer timeline locktree
var RuntimeFS embed.FS
