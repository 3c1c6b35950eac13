package heddle

import "embed"

// RuntimeFS holds the source of the code that heddle links into a program
// under test: this package, the rt tree, the harness (package worker), and
// the explorer, wire, record and locktree packages that the harness imports (all of
// them use only the standard library), internal/testmatch, by which the harness runs the
// subtests that -run selects (its Go files only: its testdata is a module of its own), and
// package lin, which also imports
// Porcupine: a module that uses lin requires Porcupine itself. The instrumenter extracts it into a module of its own, which
// instrumented builds of other modules replace github.com/heddledbg/heddle
// with, so that they build offline. The instrument package's tests check
// that the extracted module builds.
//
//go:embed *.go rt worker explorer wire record locktree lin internal/testmatch/*.go
var RuntimeFS embed.FS
