// Package bidir moves a debug session backwards by re-execution.
//
// Heddle records no program state. A position in an execution is named by the last
// checkpoint before it (every resumption of a goroutine by the controlled scheduler is a
// checkpoint) and by the number of line steps the resumed goroutine made since; the schedule
// makes execution deterministic, so a new incarnation of the program that follows the same
// schedule to the same checkpoint and makes the same steps is in exactly the same state.
// This is the "reset + replay" of VeriSoft and of Stoller's model checker (SPIN 2000, §3),
// applied to a debugger rather than to a search.
//
// The package plans the moves: StepBack to the previous line the current goroutine executed,
// ReverseContinue to the latest earlier breakpoint hit. It drives incarnations through the
// Incarnation interface, which package debugger implements on its incarnations.
package bidir
