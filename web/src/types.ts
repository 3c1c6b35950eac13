// Types of docs/formats.md and of the server's API, as the web view reads them.

// The types of the files, generated from the Go types that write them (wire.gen.ts, by
// go run ./internal/tsgen), under the names the web view uses.
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
} from "./wire.gen";
import type { Program, Stats, Bug, GoroutineState as VerdictGoroutine, Node as TreeNode, Skip } from "./wire.gen";

// The reasons for pruning that the view draws apart (Pruned.reason); Go writes any string.
export type PruneReason = "sleep" | "persistent" | "delayed" | "bound" | "depth";

export function isPruneReason(r: string): r is PruneReason {
  return r === "sleep" || r === "persistent" || r === "delayed" || r === "bound" || r === "depth";
}

// What the server adds around the files.

export interface Session {
  session: string;
  program: Program | null;
  stats: Stats | null;
  explorations: number;
  traces: number;
  live: boolean;
  debugger: boolean;
}

export interface ExplorationSummary {
  id: string;
  name: string;
  program: Program;
  strategy: string;
  stats: Stats;
  nodes: number;
  bugs: number;
  skipped?: boolean;
  skips?: Skip[] | null;
  unexplorable?: string;
}

export interface BugSummary extends Bug {
  exploration: string;
  traceLoaded: boolean;
  goroutines: VerdictGoroutine[];
}

export interface TraceSummary {
  name: string;
  verdict: string;
  steps: number;
}

export interface SourceSnippet {
  file: string;
  line: number;
  start: number;
  lines: string[];
}

export type StreamMessage =
  | { type: "hello"; session: string; program: Program | null }
  | ({ type: "node" } & TreeNode)
  | ({ type: "bug" } & Bug)
  | { type: "progress"; stats: Stats }
  | { type: "done"; stats: Stats }
  | { type: "start"; program: Program }
  | { type: "checkpoint"; index: number; step: number; trace: string };
