import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ExplorationsModel,
  bugDescription,
  bugTooltip,
  doneMessage,
  explorationDescription,
  explorationLabel,
} from "../src/model";
import { HeddleTree, Node } from "../src/tree";
import { TreeItem, TreeItemCollapsibleState } from "./vscode-mock";

const bug1 = {
  id: "b1",
  kind: "deadlock",
  message: "all goroutines are blocked: G1.1 waits for G1#2 held by G1.2",
  goroutines: [
    { id: "G1.1", state: "blocked", op: "Lock G1#2", position: { file: "/src/bank/bank.go", line: 17 } },
    { id: "G1.2", state: "blocked", op: "Lock G1#1", position: { file: "/src/bank/bank.go", line: 21 } },
  ],
  schedule: "/src/bank/.heddle/deadlock-1.trace.json",
  replay: "heddle replay /src/bank/.heddle/deadlock-1.trace.json",
};
const bug2 = { id: "b2", kind: "panic", message: "negative balance", goroutines: [{ id: "G1", state: "panicked", position: "/src/bank/bank.go:30" }] };

// feed replays an event sequence of one session into a fresh model.
function feed(seq: Array<[string, unknown]>, session = "s1"): ExplorationsModel {
  const m = new ExplorationsModel();
  for (const [event, body] of seq) m.handleEvent(session, "TestTransfer", event, body);
  return m;
}

describe("ExplorationsModel", () => {
  test("an exploration with progress, two bugs and its end", () => {
    const m = new ExplorationsModel();
    let changes = 0;
    m.onDidChange(() => changes++);
    m.start("s1", "TestTransfer", "1", { strategy: "dpor", budget: "10s" });
    m.handleEvent("s1", "TestTransfer", "heddle/progress", { id: "1", runs: 120, schedulesPerSecond: 400.4, bugs: 0, elapsedMs: 300 });
    m.handleEvent("s1", "TestTransfer", "heddle/bugFound", { id: "1", bug: bug1 });
    m.handleEvent("s1", "TestTransfer", "heddle/bugFound", { id: "1", bug: bug1 }); // repeated: one bug
    m.handleEvent("s1", "TestTransfer", "heddle/progress", { id: "1", runs: 900, schedulesPerSecond: 450, bugs: 1, elapsedMs: 2000 });
    const running = m.explorations()[0]!;
    assert.equal(running.state, "running");
    assert.equal(explorationLabel(running), "Exploration 1 (dpor, 10s)");
    assert.equal(explorationDescription(running), "900 runs · 1 bug · 450/s · running");
    m.handleEvent("s1", "TestTransfer", "heddle/bugFound", { id: "1", bug: bug2 });
    m.handleEvent("s1", "TestTransfer", "heddle/exploreDone", { id: "1", runs: 1234, bugs: 2, complete: true, cancelled: false });
    const xs = m.explorations();
    assert.equal(xs.length, 1);
    const x = xs[0]!;
    assert.equal(x.state, "complete");
    assert.equal(x.runs, 1234);
    assert.deepEqual(x.bugs.map((b) => b.id), ["b1", "b2"]);
    assert.equal(explorationDescription(x), "1,234 runs · 2 bugs · complete");
    assert.equal(doneMessage(x), "Heddle explored every interleaving in 1,234 runs and found 2 bugs.");
    assert.equal(changes, 7);
  });

  test("a bug sent again with its schedule replaces the first report", () => {
    const m = new ExplorationsModel();
    m.handleEvent("s1", "T", "heddle/bugFound", { id: 1, bug: { id: 1, kind: "deadlock", message: "m", goroutines: [] } });
    m.handleEvent("s1", "T", "heddle/bugFound", { id: 1, bug: { id: 1, kind: "deadlock", message: "m", goroutines: [], schedule: "/t/d.trace.json", replay: "heddle replay /t/d.trace.json" } });
    const x = m.find("s1", "1")!;
    assert.equal(x.wireId, 1);
    assert.equal(x.bugs.length, 1);
    assert.equal(x.bugs[0]!.wireId, 1);
    assert.equal(x.bugs[0]!.schedule, "/t/d.trace.json");
    assert.equal(x.bugs[0]!.replay, "heddle replay /t/d.trace.json");
  });

  test("bug labels: kind, file:line, message", () => {
    const m = feed([["heddle/bugFound", { id: 7, bug: bug1 }], ["heddle/bugFound", { id: 7, bug: bug2 }]]);
    const [b1, b2] = m.explorations()[0]!.bugs;
    assert.equal(b1!.kind, "deadlock");
    assert.equal(bugDescription(b1!), "bank.go:17");
    assert.equal(bugDescription(b2!), "bank.go:30", "a position given as file:line");
    const tip = bugTooltip(b1!);
    assert.match(tip, /^all goroutines are blocked/);
    assert.match(tip, /G1\.2 \[blocked: Lock G1#1\] at \/src\/bank\/bank\.go:21/);
    assert.match(tip, /replay: heddle replay/);
  });

  test("a lock-order deadlock is placed at the lock cycle, not at the root's wg.Wait", () => {
    // The goroutines in the order the adapter sends them for the demo's transfer deadlock.
    const bug = {
      id: 1,
      kind: "deadlock",
      message: "all goroutines are blocked",
      goroutines: [
        { id: "G1", state: "blocked", op: "wg.wait", position: { file: "/src/bank/bank_test.go", line: 14 } },
        { id: "G1.1", state: "blocked", op: "lock", position: { file: "/src/bank/bank.go", line: 15 } },
        { id: "G1.2", state: "blocked", op: "lock", position: { file: "/src/bank/bank.go", line: 15 } },
      ],
    };
    const m = feed([["heddle/bugFound", { id: 1, bug }]]);
    assert.equal(bugDescription(m.explorations()[0]!.bugs[0]!), "bank.go:15");
  });

  test("events before the response to heddle/explore are kept", () => {
    const m = new ExplorationsModel();
    m.handleEvent("s1", "T", "heddle/progress", { id: "3", runs: 5, schedulesPerSecond: 1, bugs: 0, elapsedMs: 1 });
    m.handleEvent("s1", "T", "heddle/exploreDone", { id: "3", runs: 8, bugs: 0, complete: false, cancelled: false });
    const x = m.start("s1", "T", "3", { strategy: "pct", budget: "8" });
    assert.equal(m.explorations().length, 1);
    assert.equal(x.state, "budget");
    assert.equal(x.runs, 8);
    assert.equal(x.strategy, "pct");
    assert.equal(explorationDescription(x), "8 runs · 0 bugs · budget spent");
  });

  test("cancelled, failed and session-ended explorations", () => {
    const m = feed([
      ["heddle/progress", { id: "1", runs: 1, schedulesPerSecond: 1, bugs: 0, elapsedMs: 1 }],
      ["heddle/exploreDone", { id: "1", runs: 10, bugs: 0, complete: false, cancelled: true }],
      ["heddle/exploreDone", { id: "2", runs: 0, bugs: 0, complete: false, cancelled: false, error: "build failed" }],
      ["heddle/progress", { id: "3", runs: 1, schedulesPerSecond: 1, bugs: 0, elapsedMs: 1 }],
    ]);
    const [a, b, c] = m.explorations();
    assert.equal(a!.state, "cancelled");
    assert.equal(b!.state, "failed");
    assert.equal(explorationDescription(b!), "0 runs · 0 bugs · failed: build failed");
    assert.equal(c!.state, "running");
    m.sessionEnded("other");
    assert.equal(c!.state, "running");
    m.sessionEnded("s1");
    assert.equal(c!.state, "ended");
    m.clear();
    assert.equal(m.explorations().length, 0);
  });

  test("the same exploration id in two sessions is two explorations", () => {
    const m = new ExplorationsModel();
    m.handleEvent("s1", "A", "heddle/bugFound", { id: "1", bug: bug1 });
    m.handleEvent("s2", "B", "heddle/bugFound", { id: "1", bug: bug2 });
    assert.equal(m.explorations().length, 2);
    assert.equal(m.find("s1", "1")!.bugs[0]!.id, "b1");
    assert.equal(m.find("s2", "1")!.bugs[0]!.id, "b2");
  });

  test("malformed and foreign events change nothing", () => {
    const m = new ExplorationsModel();
    let changes = 0;
    m.onDidChange(() => changes++);
    const bad: Array<[string, unknown]> = [
      ["heddle/progress", undefined],
      ["heddle/progress", { runs: 3 }],
      ["heddle/bugFound", { id: "1" }],
      ["heddle/bugFound", { id: "1", bug: { id: "x" } }],
      ["heddle/bugFound", { id: "1", bug: "deadlock" }],
      ["heddle/exploreDone", [1, 2]],
      ["heddle/checkpoint", { index: 3 }],
      ["output", { id: "1" }],
    ];
    for (const [e, b] of bad) assert.equal(m.handleEvent("s", "n", e, b), undefined, e);
    assert.equal(m.explorations().length, 0);
    assert.equal(changes, 0);
  });
});

describe("HeddleTree (with the vscode mock)", () => {
  test("explorations newest first, bugs under them, context values for the actions", () => {
    const m = feed([
      ["heddle/exploreDone", { id: "1", runs: 50, bugs: 0, complete: true, cancelled: false }],
      ["heddle/progress", { id: "2", runs: 10, schedulesPerSecond: 5, bugs: 1, elapsedMs: 100 }],
      ["heddle/bugFound", { id: "2", bug: bug1 }],
    ]);
    const tree = new HeddleTree(m);
    let fired = 0;
    tree.onDidChangeTreeData(() => fired++);
    const roots = tree.getChildren();
    assert.equal(roots.length, 2);
    const newest = tree.getTreeItem(roots[0]!) as unknown as TreeItem;
    assert.equal(newest.label, "Exploration 2");
    assert.equal(newest.contextValue, "heddleExplorationRunning");
    assert.equal(newest.collapsibleState, TreeItemCollapsibleState.Expanded);
    const oldest = tree.getTreeItem(roots[1]!) as unknown as TreeItem;
    assert.equal(oldest.contextValue, "heddleExploration");
    assert.equal(oldest.collapsibleState, TreeItemCollapsibleState.None);
    assert.deepEqual(tree.getChildren(roots[1]), []);

    const bugs = tree.getChildren(roots[0]);
    assert.equal(bugs.length, 1);
    const item = tree.getTreeItem(bugs[0]!) as unknown as TreeItem;
    assert.equal(item.label, "deadlock");
    assert.equal(item.description, "bank.go:17");
    assert.equal(item.tooltip, bugTooltip(bug1 as never));
    assert.equal(item.contextValue, "heddleBug");
    assert.equal(item.command?.command, "heddle.revealBug");
    assert.deepEqual(tree.getParent(bugs[0]!), roots[0]);

    m.handleEvent("s1", "TestTransfer", "heddle/bugFound", { id: "2", bug: bug2 });
    assert.equal(fired, 1);
    assert.equal(tree.getChildren(roots[0] as Node).length, 2);
    // A refresh drops the handles a row's inline action is given, so what shows nothing new
    // refreshes nothing.
    m.handleEvent("s1", "TestTransfer", "heddle/bugFound", { id: "2", bug: bug2 });
    assert.equal(fired, 1, "the same bug again refreshed the tree");
    m.handleEvent("s1", "TestTransfer", "heddle/progress", { id: "2", runs: 20, schedulesPerSecond: 5, bugs: 2, elapsedMs: 200 });
    assert.equal(fired, 2, "more runs did not refresh the exploration's row");
  });
});
