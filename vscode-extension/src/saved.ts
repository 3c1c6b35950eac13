// The bugs heddle saved for a test, which "debug with heddle" offers to replay.
// heddle test, and the debug adapter's explorations, save each bug's trace as
// .heddle/<package import path>/<Test>/<kind>-<n>.trace.json under the module's
// root (timeline/layout.go). Nothing here depends on VS Code.

import { readFileSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { bugPosition } from "./model";
import { BugGoroutine, Position, formatPosition, isObject } from "./protocol";

export const resultDir = ".heddle";
export const traceSuffix = ".trace.json";

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
  name: string; // the file's name without .trace.json: deadlock-1
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
  return { file, name: path.basename(file).slice(0, -traceSuffix.length), kind: t.verdict.kind, position: bugPosition({ goroutines }) };
}

// readSavedBugs returns the bugs saved in directory dir, by name; a directory that does not
// exist has none, and files that are not traces of bugs are left out.
export function readSavedBugs(dir: string): SavedBug[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(traceSuffix));
  } catch {
    return [];
  }
  const bugs: SavedBug[] = [];
  for (const n of names.sort()) {
    const file = path.join(dir, n);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
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
