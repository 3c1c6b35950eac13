import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import { scheduleNext } from "../src/commands";
import { compareIds, runnableItems } from "../src/runnable";
import { Sessions } from "../src/sessions";
import { FakeSession, debug, mock } from "./vscode-mock";

const body = {
  goroutines: [
    { id: "G1.10", op: "send G1#3", position: { file: "/src/bank/bank.go", line: 40 }, current: true },
    { id: "G1.2", op: "Lock G1#1", position: { file: "/src/bank/bank.go", line: 17 }, current: false },
    { id: "G1", op: "Wait G1#4", position: { file: "/src/bank/bank_test.go", line: 12 }, current: false },
    { id: "G1.9", op: "", current: false },
  ],
};

describe("runnableItems", () => {
  test("the current goroutine first, then by logical id; op and position shown", () => {
    const items = runnableItems(body);
    assert.deepEqual(items.map((i) => i.goroutine), ["G1.10", "G1", "G1.2", "G1.9"]);
    assert.deepEqual(items[0], {
      label: "$(debug-stackframe) G1.10",
      description: "send G1#3 · current",
      detail: "/src/bank/bank.go:40",
      goroutine: "G1.10",
      picked: true,
    });
    assert.deepEqual(items[2], { label: "G1.2", description: "Lock G1#1", detail: "/src/bank/bank.go:17", goroutine: "G1.2", picked: false });
    assert.equal(items[3]!.description, "(no operation)");
    assert.equal(items[3]!.detail, "");
  });

  test("malformed bodies", () => {
    assert.throws(() => runnableItems(undefined), /no goroutines/);
    assert.throws(() => runnableItems({ goroutines: "G1" }), /no goroutines/);
    assert.deepEqual(runnableItems({ goroutines: [null, 3, { op: "x" }, { id: "G2", op: "recv" }] }).map((i) => i.goroutine), ["G2"]);
  });

  test("compareIds orders by the numbers", () => {
    const ids = ["G1.10", "G1.2.1", "G2", "G1", "G1.2", "G1.9"];
    assert.deepEqual(ids.sort(compareIds), ["G1", "G1.2", "G1.2.1", "G1.9", "G1.10", "G2"]);
  });
});

describe("Choose Next Goroutine (with the vscode mock)", () => {
  beforeEach(() => mock.reset());

  test("heddle/runnable, a quick pick, then heddle/scheduleNext with the choice", async () => {
    const s = new FakeSession("s1", "T", {}, (cmd) => (cmd === "heddle/runnable" ? body : {}));
    debug.activeDebugSession = s;
    mock.quickPick = async (items) => items.find((i: { goroutine: string }) => i.goroutine === "G1.2");
    const chosen = await scheduleNext(new Sessions());
    assert.equal(chosen, "G1.2");
    assert.deepEqual(s.requests, [
      { command: "heddle/runnable", args: {} },
      { command: "heddle/scheduleNext", args: { goroutine: "G1.2" } },
    ]);
    assert.equal(mock.quickPicks[0]!.items.length, 4);
  });

  test("dismissing the quick pick schedules nothing", async () => {
    const s = new FakeSession("s1", "T", {}, () => body);
    debug.activeDebugSession = s;
    assert.equal(await scheduleNext(new Sessions()), undefined);
    assert.deepEqual(s.requests.map((r) => r.command), ["heddle/runnable"]);
  });

  test("no heddle session is an error", async () => {
    await assert.rejects(scheduleNext(new Sessions()), /no Heddle debug session/);
  });
});
