// The extension's commands.

import { execFile } from "node:child_process";
import * as path from "node:path";
import * as vscode from "vscode";
import { replayConfiguration } from "./config";
import { ExploreController } from "./explore";
import { atomicityArgs, debugTestConfiguration, exploreArgs, isDirectoryRef, parseAtomicityRef, parseTestRef, parseTraceRef, replayBugConfiguration } from "./lens";
import { ExplorationsModel, bugPosition } from "./model";
import { WebViewPanel } from "./panel";
import { requests } from "./protocol";
import { runnableItems } from "./runnable";
import { debugChoices, findModule, importPath, readSavedBugs, testResultDir } from "./saved";
import { Sessions } from "./sessions";
import { errorText, heddlePath, readSettings } from "./settings";
import { isBugNode, isExplorationNode } from "./tree";

export interface Deps {
  model: ExplorationsModel;
  sessions: Sessions;
  explore: ExploreController;
  panel: WebViewPanel;
}

// scheduleNext asks which goroutines may run next and lets the user pick
// the one to resume. It returns the goroutine chosen.
export async function scheduleNext(sessions: Sessions): Promise<string | undefined> {
  const s = sessions.require();
  const body: unknown = await s.customRequest(requests.runnable, {});
  const items = runnableItems(body);
  if (items.length === 0) {
    void vscode.window.showInformationMessage("Heddle: no goroutine can run next.");
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(items, {
    title: "Heddle: choose the goroutine that runs next",
    placeHolder: "goroutine · next operation",
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!pick) return undefined;
  await s.customRequest(requests.scheduleNext, { goroutine: pick.goroutine });
  return pick.goroutine;
}

function bugOf(deps: Deps, node: unknown) {
  if (!isBugNode(node)) throw new Error("Pick a bug in the Heddle view.");
  const x = deps.model.get(node.key);
  const bug = deps.model.findBug(node.key, node.bugId);
  if (!x || !bug) throw new Error("This bug is no longer in the Heddle view.");
  return { x, bug, session: deps.sessions.get(x.sessionId) };
}

function folderFor(file?: string): vscode.WorkspaceFolder | undefined {
  if (file) {
    const f = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
    if (f) return f;
  }
  const active = vscode.window.activeTextEditor?.document.uri;
  return (active && vscode.workspace.getWorkspaceFolder(active)) || vscode.workspace.workspaceFolders?.[0];
}

function resolveIn(base: string | undefined, p: string): string {
  return path.isAbsolute(p) || !base ? p : path.resolve(base, p);
}

// goListDir finds the directory of a package given by import path.
function goListDir(pkg: string, cwd: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("go", ["list", "-f", "{{.Dir}}", "--", pkg], { cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`go list ${pkg}: ${(stderr || err.message).trim()}`));
      else resolve(stdout.trim().split("\n")[0] ?? "");
    });
  });
}

async function replayInDebugger(deps: Deps, node: unknown): Promise<void> {
  const { x, bug, session } = bugOf(deps, node);
  if (session) {
    await session.customRequest(requests.replay, { bug: bug.wireId });
    return;
  }
  if (!bug.schedule) throw new Error(`The session of ${x.sessionName} has ended and the bug has no schedule file.`);
  await vscode.debug.startDebugging(folderFor(bug.schedule), replayConfiguration(bug.schedule));
}

async function openTimeline(deps: Deps, node: unknown): Promise<void> {
  const { bug, session } = bugOf(deps, node);
  if (!session) throw new Error("The debug session that found this bug has ended: replay the bug to open its timeline.");
  await deps.panel.open(session, bug.schedule ?? "");
}

async function copyReplayCommand(deps: Deps, node: unknown): Promise<void> {
  const { bug } = bugOf(deps, node);
  const text = bug.replay ?? (bug.schedule ? `heddle replay ${bug.schedule}` : "");
  if (!text) throw new Error("This bug has no replay command.");
  await vscode.env.clipboard.writeText(text);
  void vscode.window.setStatusBarMessage("Heddle: replay command copied", 3000);
}

async function revealBug(deps: Deps, node: unknown): Promise<void> {
  const { bug, session } = bugOf(deps, node);
  const pos = bugPosition(bug);
  if (!pos) return;
  const conf = session?.configuration as { cwd?: unknown } | undefined;
  const base = typeof conf?.cwd === "string" ? conf.cwd : session?.workspaceFolder?.uri.fsPath ?? folderFor()?.uri.fsPath;
  const uri = vscode.Uri.file(resolveIn(base, pos.file));
  const line = Math.max(0, pos.line - 1);
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(line, 0, line, 0), preview: true });
}

// The commands of heddle lsp's code lenses and code actions.

// runHeddleTest runs heddle test as a task on a package given by directory or
// import path; args makes its command line from the package as heddle test
// should name it, run in the task's directory, and the settings.
async function runHeddleTest(
  name: string,
  definition: vscode.TaskDefinition,
  pkgRef: string,
  args: (pkg: string, settings: { strategy?: string; budget?: string }) => string[],
): Promise<void> {
  const folder = folderFor(isDirectoryRef(pkgRef) ? pkgRef : undefined);
  let cwd = folder?.uri.fsPath;
  let pkg = pkgRef;
  if (isDirectoryRef(pkg)) {
    cwd = resolveIn(cwd, pkg);
    pkg = ".";
  }
  const task = new vscode.Task(
    definition,
    folder ?? vscode.TaskScope.Workspace,
    name,
    "heddle",
    new vscode.ProcessExecution(heddlePath(folder?.uri), args(pkg, readSettings(folder?.uri)), cwd ? { cwd } : {}),
    [],
  );
  task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, panel: vscode.TaskPanelKind.Dedicated, clear: true };
  await vscode.tasks.executeTask(task);
}

async function lensExplore(args: unknown[]): Promise<void> {
  const ref = parseTestRef(args);
  await runHeddleTest(`explore ${ref.test}`, { type: "heddle", package: ref.package, test: ref.test }, ref.package, (pkg, settings) =>
    exploreArgs({ package: pkg, test: ref.test }, settings),
  );
}

// lensCheckAtomicity explores the tests that reach a //heddle:atomic function;
// heddle checks the function in every run, and the language server shows what
// it found on the function's declaration.
async function lensCheckAtomicity(args: unknown[]): Promise<void> {
  const ref = parseAtomicityRef(args);
  await runHeddleTest(`check atomicity of ${ref.func}`, { type: "heddle", package: ref.package, func: ref.func, tests: ref.tests }, ref.package, (pkg, settings) =>
    atomicityArgs({ ...ref, package: pkg }, settings),
  );
}

// lensDebugTest debugs a test; when heddle has saved bugs of the test, it offers to replay
// one of them instead of running a new schedule, which may well pass.
async function lensDebugTest(args: unknown[]): Promise<void> {
  const ref = parseTestRef(args);
  const folder = folderFor(isDirectoryRef(ref.package) ? ref.package : undefined);
  const base = folder?.uri.fsPath;
  const dir = isDirectoryRef(ref.package) ? resolveIn(base, ref.package) : await goListDir(ref.package, base);
  const mod = findModule(dir);
  const bugs = mod ? readSavedBugs(testResultDir(mod, importPath(mod, dir), ref.test)) : [];
  let config = debugTestConfiguration(dir, ref.test);
  if (bugs.length > 0) {
    const pick = await vscode.window.showQuickPick(debugChoices(bugs), {
      title: `Heddle: ${ref.test} has ${bugs.length === 1 ? "a known bug" : `${bugs.length} known bugs`}`,
      placeHolder: "Replay a bug, or run a new schedule",
    });
    if (!pick) return;
    if (pick.trace) config = { ...replayBugConfiguration(pick.trace, base), stopOnEntry: false };
  }
  const ok = await vscode.debug.startDebugging(folder, config);
  if (!ok) throw new Error(`could not start debugging ${ref.test}`);
}

async function lensReplayBug(args: unknown[]): Promise<void> {
  const trace = parseTraceRef(args);
  const folder = folderFor(path.isAbsolute(trace) ? trace : undefined);
  const file = resolveIn(folder?.uri.fsPath, trace);
  const ok = await vscode.debug.startDebugging(folder, replayBugConfiguration(file, folder?.uri.fsPath));
  if (!ok) throw new Error(`could not start replaying ${trace}`);
}

// guarded shows a command's failure as an error message.
function guarded(name: string, f: (...args: unknown[]) => Promise<unknown>): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    try {
      await f(...args);
    } catch (err) {
      void vscode.window.showErrorMessage(`Heddle: ${errorText(err)}`);
      console.error(`${name}:`, err);
    }
  };
}

export function registerCommands(deps: Deps): vscode.Disposable[] {
  const reg = (name: string, f: (...args: unknown[]) => Promise<unknown>) => vscode.commands.registerCommand(name, guarded(name, f));
  return [
    reg("heddle.exploreFromHere", () => deps.explore.explore()),
    reg("heddle.scheduleNext", () => scheduleNext(deps.sessions)),
    reg("heddle.openWebView", () => deps.panel.open(deps.sessions.require())),
    reg("heddle.cancelExploration", async (node) => {
      if (isExplorationNode(node)) await deps.explore.cancel(node.key);
      else for (const x of deps.model.running()) await deps.explore.cancel(x.key);
    }),
    reg("heddle.replayInDebugger", (node) => replayInDebugger(deps, node)),
    reg("heddle.openTimeline", (node) => openTimeline(deps, node)),
    reg("heddle.copyReplayCommand", (node) => copyReplayCommand(deps, node)),
    reg("heddle.revealBug", (node) => revealBug(deps, node)),
    reg("heddle.clearExplorations", async () => deps.model.clear()),
    reg("heddle.explore", (...args) => lensExplore(args)),
    reg("heddle.debugTest", (...args) => lensDebugTest(args)),
    reg("heddle.replayBug", (...args) => lensReplayBug(args)),
    reg("heddle.checkAtomicity", (...args) => lensCheckAtomicity(args)),
  ];
}
