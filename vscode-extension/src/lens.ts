// Arguments of the commands that heddle lsp's code lenses and code actions
// invoke: heddle.explore and heddle.debugTest take [{package, test}],
// heddle.replayBug takes [{trace}]. Nothing here depends on VS Code.

import { LaunchConfig, escapeRegExp, replayConfiguration } from "./config";
import { isObject } from "./protocol";

export interface TestRef {
  package: string;
  test: string;
}

function first(args: unknown[]): unknown {
  // VS Code passes lens arguments spread; accept a single array as well.
  const a = args.length === 1 && Array.isArray(args[0]) ? args[0][0] : args[0];
  return a;
}

export function parseTestRef(args: unknown[]): TestRef {
  const a = first(args);
  if (!isObject(a) || typeof a.package !== "string" || a.package === "" || typeof a.test !== "string" || !/^Test[\p{L}\p{N}_]*$/u.test(a.test)) {
    throw new Error("expected {package, test} with a test function name");
  }
  return { package: a.package, test: a.test };
}

export function parseTraceRef(args: unknown[]): string {
  const a = first(args);
  if (!isObject(a) || typeof a.trace !== "string" || a.trace === "") throw new Error("expected {trace}");
  return a.trace;
}

export function testRunPattern(test: string): string {
  return `^${escapeRegExp(test)}$`;
}

// exploreArgs is the command line of heddle.explore: heddle test -run ^Test$ pkg.
export function exploreArgs(ref: TestRef, settings: { strategy?: string; budget?: string } = {}): string[] {
  const args = ["test", "-run", testRunPattern(ref.test)];
  if (settings.strategy) args.push("-strategy", settings.strategy);
  if (settings.budget) args.push("-budget", settings.budget);
  args.push(ref.package);
  return args;
}

// isDirectory tells a package given as a directory (absolute or ./relative)
// from an import path, which must be resolved with go list.
export function isDirectoryRef(pkg: string): boolean {
  return pkg.startsWith("/") || pkg === "." || pkg.startsWith("./") || pkg.startsWith("../") || /^[A-Za-z]:[\\/]/.test(pkg);
}

export function debugTestConfiguration(dir: string, test: string): LaunchConfig {
  return {
    type: "heddle",
    request: "launch",
    name: `Heddle: ${test}`,
    mode: "test",
    program: dir,
    args: ["-test.run", testRunPattern(test)],
    stopOnBug: true,
  };
}

export function replayBugConfiguration(trace: string, cwd?: string): LaunchConfig {
  return replayConfiguration(trace, cwd);
}
