// Launch configurations of the "heddle" debug type: finding the test under
// the cursor and filling in defaults. Nothing here depends on VS Code.

import { isTestName } from "./gotest";
import { basename } from "./protocol";

export interface LaunchConfig {
  type: string;
  request: string;
  name: string;
  mode?: "test" | "debug" | "replay" | string;
  program?: string;
  args?: string[];
  buildFlags?: string;
  env?: Record<string, string>;
  cwd?: string;
  stopOnEntry?: boolean;
  schedule?: string;
  strategy?: string;
  budget?: string;
  stopOnBug?: boolean;
  [key: string]: unknown;
}

export interface Settings {
  strategy: string;
  budget: string;
}

export const defaultSettings: Settings = { strategy: "portfolio", budget: "total=10m,time=60s" };

export const strategies = [
  "portfolio",
  "dpor",
  "dpor-sleep",
  "dfs",
  "exitblock",
  "exitblock-rw",
  "exitblock-dd",
  "exitblock-rwdd",
  "exitblock-rw-thesis",
  "stoller",
  "stoller-ps",
  "bounded",
  "pct",
  "random",
] as const;

// A function taking a *testing.T (the package may be imported under another
// name); a test if its name is one too (isTestName).
const testFunc = /^func\s+([\p{L}_][\p{L}\p{N}_]*)\s*\(\s*[\p{L}_][\p{L}\p{N}_]*\s+\*\s*[\p{L}_][\p{L}\p{N}_]*\.T\s*\)/u;
const anyFunc = /^func[\s(]/;
const topLevelEnd = /^\}/;

// findEnclosingTest returns the name of the top-level test function that
// encloses the 0-based line of a Go test file, or undefined when the line
// is outside every test function. It goes by Go's formatting: top-level
// declarations start and end at column 0 (gofmt style).
export function findEnclosingTest(text: string, line: number): string | undefined {
  const lines = text.split(/\r?\n/);
  if (line < 0 || line >= lines.length) return undefined;
  for (let i = line; i >= 0; i--) {
    const l = lines[i]!;
    if (anyFunc.test(l)) {
      const m = testFunc.exec(l);
      if (!m || !isTestName(m[1])) return undefined;
      // A one-line function ends on its own line; the cursor below it is outside.
      if (i < line && l.trimEnd().endsWith("}") && braceBalance(l) === 0) return undefined;
      return m[1];
    }
    // The closing brace of a top-level declaration above the cursor: the
    // cursor is after it, outside. On the cursor's own line it is the end of
    // the enclosing function.
    if (i < line && topLevelEnd.test(l)) return undefined;
    if (i < line && /^(type|var|const|import)\b/.test(l)) return undefined;
  }
  return undefined;
}

function braceBalance(l: string): number {
  let n = 0;
  for (const c of l) {
    if (c === "{") n++;
    else if (c === "}") n--;
  }
  return n;
}

// dirname of a file path, with either separator.
export function dirname(file: string): string {
  const i = Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\"));
  if (i < 0) return ".";
  if (i === 0) return file.slice(0, 1);
  return file.slice(0, i);
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// testConfiguration debugs one test of the package in the file's directory.
export function testConfiguration(file: string, test: string): LaunchConfig {
  return {
    type: "heddle",
    request: "launch",
    name: `Heddle: ${test}`,
    mode: "test",
    program: dirname(file),
    args: ["-test.run", `^${escapeRegExp(test)}$`],
  };
}

// replayConfiguration follows a schedule (a bug's trace file).
export function replayConfiguration(schedule: string, cwd?: string): LaunchConfig {
  const c: LaunchConfig = {
    type: "heddle",
    request: "launch",
    name: `Heddle: replay ${basename(schedule)}`,
    mode: "replay",
    schedule,
    stopOnEntry: true,
  };
  if (cwd) c.cwd = cwd;
  return c;
}

export function isEmptyConfig(c: { [key: string]: unknown } | undefined): boolean {
  return !c || (!c.type && !c.request && !c.name);
}

export interface Editor {
  file: string;
  languageId: string;
  text: string;
  line: number;
}

export type Resolution = { config: LaunchConfig } | { error: string };

// resolve completes a launch configuration. An empty one (F5 without a
// launch.json) debugs the test under the cursor in the active editor.
export function resolve(config: LaunchConfig | Record<string, unknown>, editor: Editor | undefined, settings: Settings): Resolution {
  let c: LaunchConfig;
  if (isEmptyConfig(config)) {
    if (!editor || !editor.file.endsWith("_test.go")) {
      return { error: "Open a Go test file and put the cursor inside a test function to debug it with Heddle, or add a \"heddle\" launch configuration." };
    }
    const test = findEnclosingTest(editor.text, editor.line);
    if (!test) return { error: `The cursor is not inside a test function (func TestXxx(t *testing.T)) in ${basename(editor.file)}.` };
    c = testConfiguration(editor.file, test);
  } else {
    c = { ...(config as LaunchConfig) };
    c.type ||= "heddle";
    c.request ||= "launch";
    c.name ||= "Heddle";
  }
  if (c.request !== "launch") return { error: `Heddle supports only "launch" configurations, not "${c.request}".` };
  c.mode ??= c.schedule ? "replay" : "test";
  switch (c.mode) {
    case "test":
    case "debug":
      c.program ??= "${fileDirname}";
      break;
    case "replay":
      if (!c.schedule) return { error: "A Heddle replay configuration needs \"schedule\": the schedule or trace file to follow." };
      break;
    default:
      return { error: `Unknown Heddle mode "${String(c.mode)}": use test, debug or replay.` };
  }
  if (c.args !== undefined && (!Array.isArray(c.args) || c.args.some((a) => typeof a !== "string"))) {
    return { error: "\"args\" must be an array of strings." };
  }
  c.strategy ??= settings.strategy || defaultSettings.strategy;
  c.budget ??= settings.budget || defaultSettings.budget;
  return { config: c };
}
