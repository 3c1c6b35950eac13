// Package wire defines the two protocols between heddle and the processes it runs, and
// nothing else: their message types, their version, the environment variables that select
// them, and the command line of a test binary that serves them.
//
// The worker protocol connects a controller (heddle test, heddle replay, the debug adapter's
// explorations) to a worker: an instrumented test binary run with the arguments of TestArgs,
// or an instrumented program, with EnvWorker set. The controller writes one Request as JSON to
// the worker's file descriptor 3; the worker answers with Messages, one JSON object per line,
// on file descriptor 4, and exits. Everything the worker prints on stdout and stderr is the
// program's own output.
//
// The debug protocol connects a debuggee (a worker run by the debug adapter under Delve, with
// EnvDebug set to the path of a Unix socket) to the adapter, which acts as its scheduler: the
// debuggee reads a DebugStart, reports every scheduling point, resumption and bug as a
// DebugEvent, and waits for a DebugReply to each.
//
// docs/protocol.md describes both. The types here are plain data: package worker serves the
// protocols inside the program under test, package driver drives worker processes, and
// package explorer converts its guides and bugs to and from the wire. So that every test
// binary can link it, this package imports no process machinery and nothing of the search.
package wire
