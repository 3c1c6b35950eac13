import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { debugChoices, findModule, importPath, parseSavedBug, readSavedBugs, testResultDir } from "../src/saved";
import { bankModule } from "./fixtures";

// The verdict of a transfer deadlock's trace, as heddle saves it: the root waits in wg.Wait,
// the two transfers in the lock cycle at bank.go:15.
const deadlock = JSON.stringify({
  heddle: "trace",
  verdict: {
    kind: "deadlock",
    message: "all goroutines are blocked",
    goroutines: [
      { id: "G1", state: "blocked", op: "wg.wait", pos: { file: "/w/bank/bank_test.go", line: 14 } },
      { id: "G1.1", state: "blocked", op: "lock", pos: { file: "/w/bank/bank.go", line: 15 } },
      { id: "G1.2", state: "blocked", op: "lock", pos: { file: "/w/bank/bank.go", line: 15 } },
    ],
  },
});

describe("saved bugs", () => {
  test("the results directory of a test is under its module's root, by import path", () => {
    const { root, results } = bankModule({});
    mkdirSync(path.join(root, "sub"));
    const m = findModule(path.join(root, "sub"));
    assert.deepEqual(m, { root, path: "example.com/bank" });
    assert.equal(importPath(m!, path.join(root, "sub")), "example.com/bank/sub");
    assert.equal(testResultDir(m!, importPath(m!, root), "TestTransfer"), results);
    assert.equal(findModule(path.parse(root).root), undefined);
  });

  test("a deadlock is placed at its lock cycle, not at the root's wg.Wait", () => {
    const b = parseSavedBug("/r/deadlock-1.trace.json", deadlock);
    assert.deepEqual(b, { file: "/r/deadlock-1.trace.json", name: "deadlock-1", kind: "deadlock", position: { file: "/w/bank/bank.go", line: 15 } });
    assert.equal(parseSavedBug("/r/deadlock-1.trace.json.gz", deadlock)!.name, "deadlock-1");
    assert.equal(parseSavedBug("/r/x.trace.json", "{not json"), undefined);
    assert.equal(parseSavedBug("/r/x.trace.json", JSON.stringify({ verdict: { kind: "ok" } })), undefined);
  });

  test("the quick pick offers each saved bug, compressed or not, then a new schedule", () => {
    const { results } = bankModule({
      "deadlock-1.trace.json.gz": deadlock, "explore-deadlock-2.trace.json": deadlock, "exploration.json": "{}", "broken.trace.json.gz": "{",
      ".deadlock-3.trace.json.gz.123": deadlock,
    });
    const items = debugChoices(readSavedBugs(results));
    assert.deepEqual(items.map((i) => i.label), ["Replay deadlock-1 (bank.go:15)", "Replay explore-deadlock-2 (bank.go:15)", "Run a new schedule"]);
    assert.equal(items[0]!.trace, path.join(results, "deadlock-1.trace.json.gz"));
    assert.equal(items[1]!.trace, path.join(results, "explore-deadlock-2.trace.json"));
    assert.equal(items[2]!.trace, undefined);
    assert.deepEqual(readSavedBugs(path.join(results, "missing")), []);
  });
});
