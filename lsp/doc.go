// Package lsp is heddle's language server: it shows the results of heddle test in an
// editor, over the Language Server Protocol (LSP), and offers to explore, debug and replay.
//
// [Serve] speaks the protocol on a stream, usually the standard input and output of
// "heddle lsp". The server provides:
//
//   - Code lenses above every func TestXxx(t *testing.T) of an open _test.go file: "explore
//     interleavings" (command heddle.explore) and "debug with heddle" (heddle.debugTest),
//     both with the argument {"package": <directory of the file>, "test": "TestXxx"}.
//   - A code lens above every function whose doc comment has //heddle:atomic, in any open Go
//     file: "check atomicity" (heddle.checkAtomicity), with the argument {"package": <directory
//     of the file>, "func": "(*Buffer).Append", "tests": <the package's tests that reach it>}.
//   - Diagnostics (source "heddle", code the bug kind, severity Warning unless said) at the
//     source lines of the bugs of the latest explorations, read from the trace and
//     exploration files that heddle test writes under .heddle in each workspace folder: one
//     at each blocked goroutine of a deadlock or leak, with the other goroutines as related
//     information; at the failing line of a panic, misuse, assertion or failed test; at the
//     nested acquisitions of a lock-order inversion or of a predicted lock cycle; at the
//     declaration of a //heddle:atomic function found not atomic, an error if definitely (a
//     bug), a warning if possibly (an atomicity warning of the exploration). The server
//     polls the result directories, and reloads them at once on
//     workspace/didChangeWatchedFiles or on the heddle/refresh notification.
//   - A quick fix on each of its diagnostics of a bug, "Replay with heddle" (command
//     heddle.replayBug, argument {"trace": <absolute path of the trace file>}).
//
// The commands belong to the editor extension, which runs heddle. The server runs no program
// and answers workspace/executeCommand with an error: nothing a client sends can make it
// execute anything. Files it cannot read or parse are skipped with a window/logMessage
// warning. docs/lsp.md describes the protocol surface for extension authors.
package lsp
