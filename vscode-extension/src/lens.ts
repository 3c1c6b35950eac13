// Arguments of the commands that heddle lsp's code lenses and code actions
// invoke: heddle.explore and heddle.debugTest take [{package, test}],
// heddle.replayBug takes [{trace}], heddle.checkAtomicity takes
// [{package, func, tests}]. Nothing here depends on VS Code.

import { LaunchConfig, escapeRegExp, replayConfiguration } from "./config";
import { isTestName } from "./gotest";
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

// AtomicityRef names a //heddle:atomic function and the tests of its package
// that reach it; no tests means every test of the package.
export interface AtomicityRef {
  package: string;
  func: string;
  tests: string[];
}

export function parseTestRef(args: unknown[]): TestRef {
  const a = first(args);
  if (!isObject(a) || typeof a.package !== "string" || a.package === "" || !isTestName(a.test)) {
    throw new Error("expected {package, test} with a test function name");
  }
  return { package: a.package, test: a.test };
}

export function parseAtomicityRef(args: unknown[]): AtomicityRef {
  const a = first(args);
  // func is shown in the task's name only: "Append", "(*Buffer).Append".
  if (!isObject(a) || typeof a.package !== "string" || a.package === "" || typeof a.func !== "string" || !/^[\p{L}\p{N}_().*]+$/u.test(a.func) ||
    !Array.isArray(a.tests) || !a.tests.every(isTestName)) {
    throw new Error("expected {package, func, tests} with a function name and test function names");
  }
  return { package: a.package, func: a.func, tests: [...a.tests] };
}

export function parseTraceRef(args: unknown[]): string {
  const a = first(args);
  if (!isObject(a) || typeof a.trace !== "string" || a.trace === "") throw new Error("expected {trace}");
  return a.trace;
}

export function testRunPattern(test: string): string {
  return `^${escapeRegExp(test)}$`;
}

interface TestSettings {
  strategy?: string;
  budget?: string;
}

// testArgs is the command line of heddle test on pkg, of the tests that run
// matches if it is given.
function testArgs(pkg: string, run: string | undefined, settings: TestSettings): string[] {
  const args = ["test"];
  if (run !== undefined) args.push("-run", run);
  if (settings.strategy) args.push("-strategy", settings.strategy);
  if (settings.budget) args.push("-budget", settings.budget);
  args.push(pkg);
  return args;
}

// exploreArgs is the command line of heddle.explore: heddle test -run ^Test$ pkg.
export function exploreArgs(ref: TestRef, settings: TestSettings = {}): string[] {
  return testArgs(ref.package, testRunPattern(ref.test), settings);
}

// atomicityArgs is the command line of heddle.checkAtomicity: heddle test on
// the tests that reach the function, which heddle checks the //heddle:atomic
// functions of, or on every test of the package when none is known to reach it.
export function atomicityArgs(ref: AtomicityRef, settings: TestSettings = {}): string[] {
  const run = ref.tests.length > 0 ? `^(${ref.tests.map(escapeRegExp).join("|")})$` : undefined;
  return testArgs(ref.package, run, settings);
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
