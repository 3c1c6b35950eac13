// Package debugger is heddle's debugger core: it debugs one program under a source-level
// debugger while heddle schedules the program's goroutines.
//
// A Debugger owns incarnations: an incarnation is one process of the instrumented binary
// under a Target (Delve, in heddle dap), with the controller that answers the debuggee's
// scheduling points over the debug protocol (worker.DebugEvent) and records its
// checkpoints and decisions. Forward moves (Move) drive the target and keep the user out of
// heddle's runtime. Backward moves (StepBack, ReverseContinue, GotoCheckpoint) and changes of
// schedule (ScheduleNext, Replay) re-execute in a fresh incarnation, planned by package bidir;
// spare incarnations are kept ready so that a move does not wait for the debugger to start,
// and incarnations parked at places along the run (parked.go) so that it need not start from
// the beginning of the run.
// Explore searches the schedules that share the decisions made so far, and the web view
// (WebView) follows the debugger.
//
// The package speaks Go types: its requests are methods, its results structs and errors, and
// what it reports goes to a Front. It knows nothing of the Debug Adapter Protocol; package dap
// translates between the protocol and this package, and implements Target over Delve.
// The behaviour is described in docs/dap.md.
package debugger
