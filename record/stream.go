package record

// The live stream (docs/formats.md) carries a Start, a Node, a Bug, a Progress, a Done or a
// Checkpoint per message, each with its fields beside the message's "type".

// Start reports that the exploration of a test begins: the nodes that follow, up to the next
// Start, are its schedule tree's, which the web view shows as a tree of its own.
type Start struct {
	Program Program `json:"program"`
}

// Progress reports how far an exploration has got.
type Progress struct {
	Stats Stats `json:"stats"`
}

// Done reports that an exploration finished.
type Done struct {
	Stats Stats `json:"stats"`
}

// Checkpoint reports that the debugger stopped at decision Index, which precedes step Step of
// the trace named Trace.
type Checkpoint struct {
	Index int    `json:"index"`
	Step  int    `json:"step"`
	Trace string `json:"trace"`
}
