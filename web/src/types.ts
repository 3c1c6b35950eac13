// Types of docs/formats.md, as the web view reads them. Optional fields are
// the ones the format lets writers omit.

export interface Program {
  package?: string;
  test?: string;
  binary?: string;
  // The import paths of a process group's programs, comma-separated, in process order.
  group?: string;
}

export interface Position {
  file: string;
  line: number;
}

export interface Decision {
  kind: string;
  pick: string;
  of?: string[];
  at?: string;
  step?: number;
}

export interface Frame {
  func: string;
  file: string;
  line: number;
}

export interface VerdictGoroutine {
  id: string;
  state?: string;
  op?: string;
  obj?: string;
  pos?: Position;
  // The expression by which the program names obj at pos (from.mu).
  expr?: string;
  stack?: Frame[];
}

export interface Verdict {
  kind: string;
  message?: string;
  goroutines?: VerdictGoroutine[];
  cycle?: string[];
  // The history of a linearizability verdict, in the order of the calls.
  history?: HistoryOp[];
}

// HistoryOp is an operation of a history checked for linearizability. call
// and return are positions in the order of calls and returns (return is -1 if
// the operation never returned); the steps are the run's.
export interface HistoryOp {
  g: string;
  call: number;
  return: number;
  callStep: number;
  returnStep: number;
  input: string;
  output?: string;
}

export interface Goroutine {
  id: string;
  parent: string;
  func?: string;
  created: number;
  exited: number;
  pos?: Position;
}

export interface SyncObject {
  id: string;
  kind: string;
  pos?: Position;
  // The first expression by which the program names the object.
  name?: string;
}

export interface TraceEvent {
  step: number;
  g: string;
  op: string;
  obj?: string;
  child?: string;
  with?: string;
  pos?: Position;
  // The expression by which the program names obj at pos.
  expr?: string;
  // The defer statement whose call made the operation as its function returned at pos.
  defer?: Position;
  // For a park: the operation that waits (send, recv, select).
  waits?: string;
  after?: number[];
}

export interface Trace {
  heddle: "trace";
  version: number;
  program: Program;
  strategy?: string;
  decisions: Decision[] | null;
  goroutines: Goroutine[] | null;
  objects: SyncObject[] | null;
  events: TraceEvent[] | null;
  verdict?: Verdict;
}

export interface Stats {
  runs: number;
  decisions: number;
  prunedSleep: number;
  prunedPersistent: number;
  prunedDelayed: number;
  bugs: number;
  buggyRuns?: number;
  cut?: number;
  aborted?: number;
  diverged?: number;
  timeoutRuns?: number;
  steps?: number;
  elapsed?: string;
  schedulesPerSecond: number;
  complete: boolean;
}

export type PruneReason = "sleep" | "persistent" | "delayed" | "bound" | "depth";

export interface Pruned {
  g: string;
  reason: PruneReason;
}

export interface Leaf {
  verdict: string;
  bug?: number;
  key?: string;
}

export interface TreeNode {
  id: number;
  parent: number;
  kind?: string;
  g?: string;
  op?: string;
  obj?: string;
  pos?: Position;
  enabled: string[] | null;
  pruned?: Pruned[];
  leaf?: Leaf;
}

export interface Bug {
  id: number;
  kind: string;
  message?: string;
  trace?: string;
  replay?: string;
  preemptions?: number;
  // The runs that found the bug.
  hits?: number;
  key?: string;
}

// A Warning is a finding that is not a bug (docs/formats.md): a lockset race, an atomicity
// violation a checker suspects.
export interface Warning {
  kind: string;
  message: string;
  hits?: number;
  goroutines?: string[];
  confirmed?: string;
  atomicity?: { func: string; decl?: Position; definite?: boolean; checkers?: string[]; replay?: string };
}

export interface LockNode {
  lock?: string;
  pos?: Position;
  children: LockNode[] | null;
}

export interface LockPath {
  g: string;
  path: string[];
}

export interface LockWarning {
  locks: [string, string];
  first: LockPath;
  second: LockPath;
}

export interface LockTrees {
  trees: { g: string; root: LockNode }[] | null;
  warnings: LockWarning[] | null;
  suppressed: { locks: string[]; gates: string[] }[] | null;
  graph: {
    nodes: string[] | null;
    edges: { from: string; to: string; g: string[] | null; pos?: Position }[] | null;
    cycles: string[][] | null;
  };
  // The locks' names in the program (L3, from.mu), by logical id.
  names?: Record<string, string>;
}

export interface Exploration {
  heddle: "exploration";
  version: number;
  program: Program;
  strategy?: string;
  stats: Stats;
  tree: TreeNode[] | null;
  bugs: Bug[] | null;
  lockTrees?: LockTrees;
  warnings?: Warning[] | null;
  // The test skipped itself (t.Skip) and no run failed.
  skipped?: boolean;
  // The subtests that skipped themselves, as go test reports them.
  skips?: Skip[] | null;
  // Why heddle could not explore the test: the CLI's "cannot be explored: …".
  unexplorable?: string;
}

export interface Skip {
  test: string;
  output?: string;
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
