import assert from "node:assert/strict";
import * as path from "node:path";
import { beforeEach, describe, test } from "node:test";
import { registerCommands } from "../src/commands";
import { ExploreController } from "../src/explore";
import { ExplorationsModel } from "../src/model";
import { WebViewPanel } from "../src/panel";
import { Sessions } from "../src/sessions";
import { bankModule } from "./fixtures";
import { FakeSession, Task, Uri, debug, mock, sessions as fire, workspace } from "./vscode-mock";

const bug = {
  id: 2,
  kind: "deadlock",
  message: "all goroutines are blocked",
  goroutines: [{ id: "G1.1", state: "blocked", op: "Lock G1#2", position: { file: "bank.go", line: 17 } }],
  schedule: "/w/.heddle/example.com/bank/TestTransfer/deadlock-1.trace.json",
  replay: "heddle replay /w/.heddle/example.com/bank/TestTransfer/deadlock-1.trace.json",
};

function setup() {
  const session = new FakeSession("s1", "TestTransfer", { cwd: "/w/bank" }, (cmd) => (cmd === "heddle/webview" ? { url: "http://127.0.0.1:5000/?token=t" } : {}));
  debug.activeDebugSession = session;
  workspace.workspaceFolders = [{ uri: Uri.file("/w"), name: "w", index: 0 }];
  const sessions = new Sessions();
  fire.start(session);
  const model = new ExplorationsModel();
  const explore = new ExploreController(model, sessions, () => ({ strategy: "dpor", budget: "10s" }));
  const panel = new WebViewPanel(sessions);
  registerCommands({ model, sessions, explore, panel });
  model.handleEvent("s1", "TestTransfer", "heddle/bugFound", { id: 1, bug });
  const node = { kind: "bug", key: model.explorations()[0]!.key, bugId: "2" };
  const run = (name: string, ...args: unknown[]) => mock.commands.get(name)!(...args) as Promise<void>;
  return { session, model, node, run };
}

describe("commands (with the vscode mock)", () => {
  beforeEach(() => mock.reset());

  test("Replay in Debugger sends heddle/replay with the bug's id", async () => {
    const { session, node, run } = setup();
    await run("heddle.replayInDebugger", node);
    assert.deepEqual(session.requests, [{ command: "heddle/replay", args: { bug: 2 } }]);
    assert.equal(mock.messages.length, 0, JSON.stringify(mock.messages));
  });

  test("Replay in Debugger after the session ended starts a replay session", async () => {
    const { session, node, run } = setup();
    fire.terminate(session);
    await run("heddle.replayInDebugger", node);
    assert.equal(session.requests.length, 0);
    assert.equal(mock.started.length, 1);
    assert.equal(mock.started[0]!.config.mode, "replay");
    assert.equal(mock.started[0]!.config.schedule, bug.schedule);
  });

  test("Copy Replay Command copies the bug's replay line", async () => {
    const { node, run } = setup();
    await run("heddle.copyReplayCommand", node);
    assert.equal(mock.clipboard, bug.replay);
  });

  test("Open Timeline opens the web view at the bug's trace", async () => {
    const { session, node, run } = setup();
    await run("heddle.openTimeline", node);
    assert.deepEqual(session.requests.map((r) => r.command), ["heddle/webview"]);
    assert.match(mock.panels[0]!.webview.html, /#\/timeline\?path=%2Fw%2F\.heddle%2F/);
  });

  test("clicking a bug opens its position, relative to the session's cwd", async () => {
    const { node, run } = setup();
    await run("heddle.revealBug", node);
    assert.equal(mock.shown[0]!.uri.fsPath, "/w/bank/bank.go");
    assert.equal((mock.shown[0]!.options as { selection: { start: { line: number } } }).selection.start.line, 16);
  });

  test("a command on something that is not a bug shows an error", async () => {
    const { run } = setup();
    await run("heddle.replayInDebugger", { kind: "exploration", key: "x" });
    assert.equal(mock.messages[0]!.level, "error");
    assert.match(mock.messages[0]!.text, /^Heddle: Pick a bug/);
  });

  test("lens heddle.explore runs heddle test -run ^Test$ in the package's directory", async () => {
    const { run } = setup();
    mock.settings = { "heddle.path": "/opt/heddle", "heddle.strategy": "pct", "heddle.budget": "1m" };
    await run("heddle.explore", { package: "/w/bank", test: "TestTransfer" });
    const t = mock.tasks[0] as Task;
    assert.equal(t.execution.process, "/opt/heddle");
    assert.deepEqual(t.execution.args, ["test", "-run", "^TestTransfer$", "-strategy", "pct", "-budget", "1m", "."]);
    assert.equal(t.execution.options.cwd, "/w/bank");
    assert.equal(t.definition.type, "heddle");
  });

  test("lens heddle.checkAtomicity runs heddle test on the tests that reach the function", async () => {
    const { run } = setup();
    mock.settings = { "heddle.path": "/opt/heddle", "heddle.strategy": "dpor", "heddle.budget": "1m" };
    await run("heddle.checkAtomicity", { package: "/w/buffer", func: "(*Buffer).Append", tests: ["TestAppend", "TestLen"] });
    await run("heddle.checkAtomicity", { package: "./buffer", func: "Reset", tests: [] });
    assert.equal(mock.messages.length, 0, JSON.stringify(mock.messages));
    const [t, all] = mock.tasks as Task[];
    assert.equal(t!.execution.process, "/opt/heddle");
    assert.deepEqual(t!.execution.args, ["test", "-run", "^(TestAppend|TestLen)$", "-strategy", "dpor", "-budget", "1m", "."]);
    assert.equal(t!.execution.options.cwd, "/w/buffer");
    assert.equal(t!.name, "check atomicity of (*Buffer).Append");
    assert.equal(t!.definition.type, "heddle");
    assert.deepEqual(all!.execution.args, ["test", "-strategy", "dpor", "-budget", "1m", "."]);
    assert.equal(all!.execution.options.cwd, "/w/buffer");
    await run("heddle.checkAtomicity", { package: "/w/buffer", func: "Append" });
    assert.equal(mock.messages[0]!.level, "error");
    assert.equal(mock.tasks.length, 2);
  });

  test("lens heddle.debugTest and heddle.replayBug start debug sessions", async () => {
    const { run } = setup();
    await run("heddle.debugTest", { package: "/w/bank", test: "TestTransfer" });
    await run("heddle.replayBug", { trace: bug.schedule });
    assert.equal(mock.messages.length, 0, JSON.stringify(mock.messages));
    const [d, r] = mock.started;
    assert.deepEqual(d!.config, {
      type: "heddle", request: "launch", name: "Heddle: TestTransfer", mode: "test", program: "/w/bank",
      args: ["-test.run", "^TestTransfer$"], stopOnBug: true,
    });
    assert.equal(r!.config.mode, "replay");
    assert.equal(r!.config.schedule, bug.schedule);
    await run("heddle.debugTest", { package: "/w/bank" });
    assert.equal(mock.messages[0]!.level, "error");
  });

  test("lens heddle.debugTest on a test with a saved bug offers to replay it", async () => {
    const { run } = setup();
    const trace = JSON.stringify({ verdict: { kind: "deadlock", goroutines: [{ id: "G1.1", state: "blocked", op: "lock", pos: { file: "/m/bank.go", line: 15 } }] } });
    const { root, results } = bankModule({ "deadlock-1.trace.json": trace });
    mock.quickPick = async (items) => items.find((i: { label: string }) => i.label === "Replay deadlock-1 (bank.go:15)");
    await run("heddle.debugTest", { package: root, test: "TestTransfer" });
    assert.deepEqual(mock.quickPicks[0]!.items.map((i: { label: string }) => i.label), ["Replay deadlock-1 (bank.go:15)", "Run a new schedule"]);
    assert.equal(mock.started[0]!.config.mode, "replay");
    assert.equal(mock.started[0]!.config.schedule, path.join(results, "deadlock-1.trace.json"));
    assert.equal(mock.started[0]!.config.stopOnEntry, false, "the replay goes to the bug");

    mock.quickPick = async (items) => items.at(-1);
    await run("heddle.debugTest", { package: root, test: "TestTransfer" });
    assert.equal(mock.started[1]!.config.mode, "test");
    mock.quickPick = async () => undefined;
    await run("heddle.debugTest", { package: root, test: "TestTransfer" });
    assert.equal(mock.started.length, 2, "dismissing the quick pick starts nothing");
    assert.equal(mock.messages.length, 0, JSON.stringify(mock.messages));
  });
});
