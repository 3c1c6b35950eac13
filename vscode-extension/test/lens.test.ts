import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { atomicityArgs, debugTestConfiguration, exploreArgs, isDirectoryRef, parseAtomicityRef, parseTestRef, parseTraceRef, replayBugConfiguration } from "../src/lens";

describe("code lens arguments", () => {
  test("{package, test}, spread or in an array", () => {
    assert.deepEqual(parseTestRef([{ package: "example.com/bank", test: "TestTransfer" }]), { package: "example.com/bank", test: "TestTransfer" });
    assert.deepEqual(parseTestRef([[{ package: "./bank", test: "TestX" }]]), { package: "./bank", test: "TestX" });
    for (const bad of [[], [{}], [{ package: "p" }], [{ package: "", test: "TestX" }], [{ package: "p", test: "TestX; rm -rf /" }], ["p"]]) {
      assert.throws(() => parseTestRef(bad), JSON.stringify(bad));
    }
    assert.equal(parseTraceRef([{ trace: ".heddle/x.trace.json" }]), ".heddle/x.trace.json");
    assert.throws(() => parseTraceRef([{ trace: "" }]));
  });

  test("heddle.explore runs heddle test -run ^Test$ on the package", () => {
    assert.deepEqual(exploreArgs({ package: "example.com/bank", test: "TestTransfer" }), ["test", "-run", "^TestTransfer$", "example.com/bank"]);
    assert.deepEqual(exploreArgs({ package: ".", test: "TestX" }, { strategy: "pct", budget: "30s" }), ["test", "-run", "^TestX$", "-strategy", "pct", "-budget", "30s", "."]);
  });

  test("{package, func, tests} of heddle.checkAtomicity", () => {
    const ref = { package: "/w/buffer", func: "(*Buffer).Append", tests: ["TestAppend", "TestÜber"] };
    assert.deepEqual(parseAtomicityRef([ref]), ref);
    assert.deepEqual(parseAtomicityRef([[{ ...ref, tests: [] }]]), { ...ref, tests: [] });
    for (const bad of [
      [{}],
      [{ package: "/w", func: "Append" }],
      [{ package: "", func: "Append", tests: [] }],
      [{ package: "/w", func: "", tests: [] }],
      [{ package: "/w", func: "Append; rm -rf /", tests: [] }],
      [{ package: "/w", func: "Append", tests: ["TestX|.*"] }],
      [{ package: "/w", func: "Append", tests: [7] }],
      [{ package: "/w", func: "Append", tests: "TestX" }],
    ]) {
      assert.throws(() => parseAtomicityRef(bad), JSON.stringify(bad));
    }
  });

  test("heddle.checkAtomicity runs heddle test on the tests that reach the function, or on all", () => {
    const ref = { package: ".", func: "Append", tests: ["TestAppend", "TestLen"] };
    assert.deepEqual(atomicityArgs(ref), ["test", "-run", "^(TestAppend|TestLen)$", "."]);
    assert.deepEqual(atomicityArgs({ ...ref, tests: ["TestAppend"] }, { strategy: "dpor", budget: "1000" }), ["test", "-run", "^(TestAppend)$", "-strategy", "dpor", "-budget", "1000", "."]);
    assert.deepEqual(atomicityArgs({ ...ref, tests: [] }), ["test", "."]);
  });

  test("directories and import paths", () => {
    for (const d of ["/abs/bank", ".", "./bank", "../x", "C:\\w\\bank"]) assert.equal(isDirectoryRef(d), true, d);
    for (const p of ["example.com/bank", "bank", "github.com/a/b/..."]) assert.equal(isDirectoryRef(p), false, p);
  });

  test("debug and replay configurations", () => {
    assert.deepEqual(debugTestConfiguration("/w/bank", "TestTransfer"), {
      type: "heddle",
      request: "launch",
      name: "Heddle: TestTransfer",
      mode: "test",
      program: "/w/bank",
      args: ["-test.run", "^TestTransfer$"],
      stopOnBug: true,
    });
    const r = replayBugConfiguration("/w/.heddle/deadlock-1.trace.json", "/w");
    assert.equal(r.mode, "replay");
    assert.equal(r.schedule, "/w/.heddle/deadlock-1.trace.json");
    assert.equal(r.cwd, "/w");
    assert.equal(r.name, "Heddle: replay deadlock-1.trace.json");
  });
});
