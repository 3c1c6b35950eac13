// Types of docs/formats.md and of the server's API, as the web view reads them.

// The types of the files and of the server's answers, generated from the Go types that
// write them (wire.gen.ts, by go run ./internal/tsgen), under the names the web view uses.
export type {
  Program,
  Pos as Position,
  Decision,
  Frame,
  GoroutineState as VerdictGoroutine,
  Verdict,
  Operation as HistoryOp,
  Goroutine,
  Object as SyncObject,
  Event as TraceEvent,
  Trace,
  Stats,
  Pruned,
  Leaf,
  Node as TreeNode,
  Bug,
  Warning,
  Atomicity,
  LockNode,
  LockSide as LockPath,
  LockWarning,
  LockReport as LockTrees,
  Exploration,
  Skip,
  Session,
  ExplorationSummary,
  BugSummary,
  TraceSummary,
  SourceSnippet,
} from "./wire.gen";
import type { Program, Bug, Node as TreeNode, Start, Progress, Done, Checkpoint } from "./wire.gen";

// The reasons for pruning that the view draws apart (Pruned.reason); Go writes any string.
export type PruneReason = "sleep" | "persistent" | "delayed" | "bound" | "depth";

export function isPruneReason(r: string): r is PruneReason {
  return r === "sleep" || r === "persistent" || r === "delayed" || r === "bound" || r === "depth";
}

// A message of the live stream: the type names the Go type of the rest (timeline/stream.go);
// the server sends hello first.
export type StreamMessage =
  | { type: "hello"; session: string; program: Program | null }
  | ({ type: "node" } & TreeNode)
  | ({ type: "bug" } & Bug)
  | ({ type: "progress" } & Progress)
  | ({ type: "done" } & Done)
  | ({ type: "start" } & Start)
  | ({ type: "checkpoint" } & Checkpoint);
