import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import { ExploreController } from "../src/explore";
import { ExplorationsModel } from "../src/model";
import { Sessions } from "../src/sessions";
import { FakeSession, debug, mock, sessions as fire } from "./vscode-mock";

const tick = () => new Promise((r) => setImmediate(r));

function setup(config: Record<string, unknown> = {}) {
  const session = new FakeSession("s1", "TestTransfer", config, (cmd) => (cmd === "heddle/explore" ? { id: 1 } : {}));
  debug.activeDebugSession = session;
  const sessions = new Sessions();
  fire.start(session);
  const model = new ExplorationsModel();
  const ctl = new ExploreController(model, sessions, () => ({ strategy: "dpor", budget: "10s" }));
  const event = (event: string, body: unknown) => ctl.handleEvent({ session, event, body } as never);
  return { session, sessions, model, ctl, event, status: mock.statusBarItems.at(-1)! };
}

describe("Explore from Here (with the vscode mock)", () => {
  beforeEach(() => mock.reset());

  test("heddle/explore with the session's defaults, progress from events, done", async () => {
    const { session, model, ctl, event, status } = setup({ strategy: "exitblock", budget: "500" });
    const done = ctl.explore();
    await tick();
    assert.deepEqual(session.requests, [{ command: "heddle/explore", args: { strategy: "exitblock", budget: "500" } }]);
    const run = mock.progress[0]!;
    assert.equal(run.options.cancellable, true);
    assert.match(run.options.title!, /exitblock, 500/);
    assert.equal(status.visible, true);
    assert.match(status.text, /^\$\(sync~spin\) Heddle: 0 runs, 0 bugs/);

    event("heddle/progress", { id: 1, runs: 300, schedulesPerSecond: 150, bugs: 0, elapsedMs: 2000 });
    event("heddle/bugFound", { id: 1, bug: { id: "b1", kind: "deadlock", message: "m", goroutines: [] } });
    event("heddle/progress", { id: 1, runs: 480, schedulesPerSecond: 160, bugs: 1, elapsedMs: 3000 });
    assert.equal(run.done, false);
    assert.equal(run.reports.at(-1)!.message, "480 runs, 1 bug, 160 schedules/s");
    assert.equal(status.text, "$(sync~spin) Heddle: 480 runs, 1 bug, 160 schedules/s");

    event("heddle/exploreDone", { id: 1, runs: 500, bugs: 1, complete: false, cancelled: false });
    const x = await done;
    assert.equal(run.done, true);
    assert.equal(x!.state, "budget");
    assert.equal(model.explorations()[0]!.bugs.length, 1);
    assert.match(status.text, /^\$\(bug\) Heddle: 500 runs, 1 bug/);
    assert.deepEqual(mock.messages.map((m) => m.level), ["warning"]);
    assert.match(mock.messages[0]!.text, /spent its budget after 500 runs and found 1 bug/);
  });

  test("settings fill in what the launch configuration lacks", async () => {
    const { session, ctl, event } = setup();
    const done = ctl.explore();
    await tick();
    assert.deepEqual(session.requests[0]!.args, { strategy: "dpor", budget: "10s" });
    event("heddle/exploreDone", { id: 1, runs: 9, bugs: 0, complete: true, cancelled: false });
    await done;
    assert.deepEqual(mock.messages.map((m) => m.level), ["info"]);
  });

  test("cancelling the notification sends heddle/cancel", async () => {
    const { session, ctl, event } = setup();
    const done = ctl.explore();
    await tick();
    mock.progress[0]!.cancel.cancel();
    await tick();
    assert.deepEqual(session.requests[1], { command: "heddle/cancel", args: { id: 1 } }, "the id as the adapter sent it, a number");
    event("heddle/exploreDone", { id: 1, runs: 3, bugs: 0, complete: false, cancelled: true });
    assert.equal((await done)!.state, "cancelled");
  });

  test("the session ending finishes the progress and hides the status", async () => {
    const { session, ctl, status } = setup();
    const done = ctl.explore();
    await tick();
    fire.terminate(session);
    assert.equal((await done)!.state, "ended");
    assert.equal(status.visible, false);
  });

  test("events of another exploration do not end this one", async () => {
    const { ctl, event } = setup();
    const done = ctl.explore();
    await tick();
    event("heddle/exploreDone", { id: 2, runs: 3, bugs: 0, complete: true, cancelled: false });
    await tick();
    assert.equal(mock.progress[0]!.done, false);
    event("heddle/exploreDone", { id: 1, runs: 3, bugs: 0, complete: true, cancelled: false });
    await done;
    assert.equal(mock.progress[0]!.done, true);
  });

  test("a response without an id is an error", async () => {
    const { session, ctl } = setup();
    session.handler = () => ({});
    await assert.rejects(ctl.explore(), /no exploration id/);
  });
});
