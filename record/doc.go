// Package record holds heddle's records of executions, the one definition of every file and
// stream format (docs/formats.md): schedules (the decisions that fix a run), traces (a
// schedule plus the steps observed along it and the verdict), explorations (statistics, the
// schedule tree and the bugs of exploring one test), and the messages of the web view's live
// stream. The explorer, the worker protocol, the CLI, the debug adapter, the web server and
// the LSP server all use these types.
//
// It also says how a record reads to a person, so that every view says it alike: objects named
// by the expressions of the program's source that use them (names.go), a goroutine's state and
// a verdict in words (report.go), and a checked history drawn as text (history.go).
//
// Files are written atomically and read strictly, by Parse: every version from 1 up to Version
// is accepted, and a malformed, unknown or newer file is rejected with an error that names the
// file and the field at fault.
package record
