// The bugs heddle saved for a test, which "debug with heddle" offers to replay.
// heddle test, and the debug adapter's explorations, save each bug's trace as
// .heddle/<package import path>/<Test>/<kind>-<n>.trace.json.gz under the module's
// root (timeline/layout.go), compressed with gzip; earlier versions saved them plain, as
// <kind>-<n>.trace.json, and both are read. Nothing here depends on VS Code.

import { readFileSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";
import { bugPosition } from "./model";
import { BugGoroutine, Position, formatPosition, isObject } from "./protocol";

export const resultDir = ".heddle";
// The suffixes of trace files: compressed, and plain (earlier versions, heddle replay -o).
export const traceSuffixes = [".trace.json.gz", ".trace.json"] as const;

// traceName is a trace file's name without its suffix: deadlock-1.
export function traceName(file: string): string {
  const base = path.basename(file);
  const suffix = traceSuffixes.find((s) => base.endsWith(s));
  return suffix ? base.slice(0, -suffix.length) : base;
}

// readTraceText reads a trace file, decompressing it if it is compressed: whatever its name,
// a file that begins with gzip's magic number is.
export function readTraceText(file: string): string {
  const data = readFileSync(file);
  return (data[0] === 0x1f && data[1] === 0x8b ? gunzipSync(data) : data).toString("utf8");
}

export interface Module {
  root: string; // the directory of go.mod
  path: string; // the module path
}

// findModule returns the module that holds directory dir, or undefined.
export function findModule(dir: string): Module | undefined {
  for (let d = path.resolve(dir); ; ) {
    let text: string | undefined;
    try {
      text = readFileSync(path.join(d, "go.mod"), "utf8");
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      const m = /^\s*module\s+("?)([^\s"]+)\1\s*$/m.exec(text);
      return m ? { root: d, path: m[2]! } : undefined;
    }
    const up = path.dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

// importPath is the import path of the package in directory dir of module m.
export function importPath(m: Module, dir: string): string {
  const rel = path.relative(m.root, path.resolve(dir)).split(path.sep).join("/");
  return rel === "" ? m.path : `${m.path}/${rel}`;
}

// testResultDir is where the bugs of test in package pkg (an import path) are saved.
export function testResultDir(m: Module, pkg: string, test: string): string {
  return path.join(m.root, resultDir, ...pkg.split("/"), test);
}

export interface SavedBug {
  file: string;
  name: string; // the file's name without .trace.json.gz or .trace.json: deadlock-1
  kind: string;
  position?: Position;
}

// parseSavedBug reads a trace file's verdict; it returns undefined for a file that is not a
// trace of a bug.
export function parseSavedBug(file: string, text: string): SavedBug | undefined {
  let t: unknown;
  try {
    t = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(t) || !isObject(t.verdict) || typeof t.verdict.kind !== "string" || t.verdict.kind === "ok") return undefined;
  const goroutines: BugGoroutine[] = [];
  for (const g of Array.isArray(t.verdict.goroutines) ? t.verdict.goroutines : []) {
    if (!isObject(g) || typeof g.id !== "string") continue;
    const pos = isObject(g.pos) && typeof g.pos.file === "string" && typeof g.pos.line === "number" ? { file: g.pos.file, line: g.pos.line } : undefined;
    goroutines.push({ id: g.id, state: typeof g.state === "string" ? g.state : undefined, op: typeof g.op === "string" ? g.op : undefined, position: pos });
  }
  return { file, name: traceName(file), kind: t.verdict.kind, position: bugPosition({ goroutines }) };
}

// readSavedBugs returns the bugs saved in directory dir, by name; a directory that does not
// exist has none, and files that are not traces of bugs are left out.
export function readSavedBugs(dir: string): SavedBug[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => !n.startsWith(".") && traceSuffixes.some((s) => n.endsWith(s)));
  } catch {
    return [];
  }
  const bugs: SavedBug[] = [];
  for (const n of names.sort()) {
    const file = path.join(dir, n);
    let text: string;
    try {
      text = readTraceText(file);
    } catch {
      continue;
    }
    const b = parseSavedBug(file, text);
    if (b) bugs.push(b);
  }
  return bugs;
}

export interface DebugChoice {
  label: string;
  detail?: string;
  trace?: string; // the bug to replay; none to run a new schedule
}

// debugChoices are the quick pick's items: each saved bug to replay, then a new schedule.
export function debugChoices(bugs: SavedBug[]): DebugChoice[] {
  const items: DebugChoice[] = bugs.map((b) => {
    const where = formatPosition(b.position);
    return { label: `Replay ${b.name}${where ? ` (${where})` : ""}`, detail: b.file, trace: b.file };
  });
  items.push({ label: "Run a new schedule", detail: "the default schedule, stopping at a bug if it finds one" });
  return items;
}
