// The heddle/* part of the debug adapter's protocol (docs/dap.md), and
// checks that turn the untyped bodies the adapter sends into these types.
// Nothing here depends on VS Code. The bodies that are Go types are generated
// from them (wire.gen.ts, by go run ./internal/tsgen); the types here are
// what the checks make of them.

import type * as wire from "./wire.gen";

export type Position = wire.Pos;

// A goroutine whose state the adapter left out is still shown.
export interface BugGoroutine extends Omit<wire.BugGoroutine, "state"> {
  state?: string;
}

// Ids are strings here, for keys and comparison; wireId is the value as the
// adapter sent it (a number from heddle dap), to send back in requests.
export type WireId = string | number;

export interface Bug extends Omit<wire.Bug, "id" | "goroutines"> {
  id: string;
  wireId: WireId;
  goroutines: BugGoroutine[];
}

export interface ProgressBody extends Omit<wire.Progress, "id"> {
  id: string;
  wireId: WireId;
}

export interface BugFoundBody {
  id: string;
  wireId: WireId;
  bug: Bug;
}

// The extension does not show the warnings.
export interface ExploreDoneBody extends Omit<wire.ExploreDone, "id" | "warnings"> {
  id: string;
  wireId: WireId;
}

// A checkpoint whose goroutine the adapter left out is still shown.
export interface CheckpointBody extends Omit<wire.CheckpointEvent, "goroutine"> {
  goroutine?: string;
}

export type RunnableGoroutine = wire.Runnable;

export const events = {
  progress: "heddle/progress",
  bugFound: "heddle/bugFound",
  exploreDone: "heddle/exploreDone",
  checkpoint: "heddle/checkpoint",
} as const;

export const requests = {
  explore: "heddle/explore",
  cancel: "heddle/cancel",
  replay: "heddle/replay",
  runnable: "heddle/runnable",
  scheduleNext: "heddle/scheduleNext",
  webview: "heddle/webview",
  gotoCheckpoint: "heddle/gotoCheckpoint",
} as const;

type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function num(v: unknown, fallback = 0): number {
  return typeof v === "number" && Number.isFinite(v) ? v : fallback;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

// wireIdOf accepts the ids the adapter uses, strings or numbers.
export function wireIdOf(v: unknown): WireId | undefined {
  if (typeof v === "string" && v !== "") return v;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  return undefined;
}

// idOf accepts the ids the adapter uses, strings or numbers, as strings.
export function idOf(v: unknown): string | undefined {
  if (typeof v === "string" && v !== "") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}

export function isCheckpointIndex(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

// parsePosition reads {file, line}, or the "file:line" string form.
export function parsePosition(v: unknown): Position | undefined {
  if (isObject(v)) {
    const file = str(v.file);
    const line = v.line;
    if (file && typeof line === "number" && Number.isSafeInteger(line) && line > 0) return { file, line };
    return undefined;
  }
  if (typeof v === "string") {
    const m = /^(.+):(\d+)(?::\d+)?$/.exec(v);
    if (m && Number(m[2]) > 0) return { file: m[1]!, line: Number(m[2]) };
  }
  return undefined;
}

export function basename(file: string): string {
  const i = Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\"));
  return i >= 0 ? file.slice(i + 1) : file;
}

export function formatPosition(p: Position | undefined, full = false): string {
  if (!p) return "";
  return `${full ? p.file : basename(p.file)}:${p.line}`;
}

export function parseBug(v: unknown): Bug | undefined {
  if (!isObject(v)) return undefined;
  const id = idOf(v.id);
  const kind = str(v.kind);
  if (id === undefined || !kind) return undefined;
  const goroutines: BugGoroutine[] = [];
  if (Array.isArray(v.goroutines)) {
    for (const g of v.goroutines) {
      if (!isObject(g)) continue;
      const gid = idOf(g.id);
      if (gid === undefined) continue;
      const bg: BugGoroutine = { id: gid };
      const state = str(g.state);
      const op = str(g.op);
      const position = parsePosition(g.position ?? g.pos);
      if (state !== undefined) bg.state = state;
      if (op !== undefined) bg.op = op;
      if (position) bg.position = position;
      goroutines.push(bg);
    }
  }
  const bug: Bug = { id, wireId: wireIdOf(v.id)!, kind, message: str(v.message) ?? "", goroutines };
  const schedule = str(v.schedule);
  const replay = str(v.replay);
  if (schedule) bug.schedule = schedule;
  if (replay) bug.replay = replay;
  return bug;
}

export function parseProgress(v: unknown): ProgressBody | undefined {
  if (!isObject(v)) return undefined;
  const id = idOf(v.id);
  if (id === undefined) return undefined;
  return {
    id,
    wireId: wireIdOf(v.id)!,
    runs: num(v.runs),
    schedulesPerSecond: num(v.schedulesPerSecond),
    bugs: num(v.bugs),
    elapsedMs: num(v.elapsedMs),
  };
}

export function parseBugFound(v: unknown): BugFoundBody | undefined {
  if (!isObject(v)) return undefined;
  const id = idOf(v.id);
  const bug = parseBug(v.bug);
  if (id === undefined || !bug) return undefined;
  return { id, wireId: wireIdOf(v.id)!, bug };
}

export function parseExploreDone(v: unknown): ExploreDoneBody | undefined {
  if (!isObject(v)) return undefined;
  const id = idOf(v.id);
  if (id === undefined) return undefined;
  const done: ExploreDoneBody = {
    id,
    wireId: wireIdOf(v.id)!,
    runs: num(v.runs),
    bugs: num(v.bugs),
    complete: v.complete === true,
    cancelled: v.cancelled === true,
  };
  const error = str(v.error);
  if (error) done.error = error;
  return done;
}

export function parseCheckpoint(v: unknown): CheckpointBody | undefined {
  if (!isObject(v) || !isCheckpointIndex(v.index)) return undefined;
  const body: CheckpointBody = { index: v.index };
  const g = idOf(v.goroutine);
  if (g !== undefined) body.goroutine = g;
  return body;
}

export function parseRunnable(v: unknown): RunnableGoroutine[] {
  if (!isObject(v) || !Array.isArray(v.goroutines)) {
    throw new Error("heddle/runnable: the response has no goroutines list");
  }
  const out: RunnableGoroutine[] = [];
  for (const g of v.goroutines) {
    if (!isObject(g)) continue;
    const id = idOf(g.id);
    if (id === undefined) continue;
    const r: RunnableGoroutine = { id, op: str(g.op) ?? "", current: g.current === true };
    const position = parsePosition(g.position ?? g.pos);
    if (position) r.position = position;
    out.push(r);
  }
  return out;
}
