import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, beforeEach, describe, test } from "node:test";
import { findExecutable, heddlePath, readSettings } from "../src/settings";
import { mock } from "./vscode-mock";

describe("settings", () => {
  beforeEach(() => mock.reset());
  const dir = mkdtempSync(join(tmpdir(), "heddle-ext-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("findExecutable: paths as they are, names on PATH, only executable files", { skip: process.platform === "win32" }, () => {
    const exe = join(dir, "heddle");
    writeFileSync(exe, "#!/bin/sh\n");
    chmodSync(exe, 0o755);
    const plain = join(dir, "plain");
    writeFileSync(plain, "");
    assert.equal(findExecutable(exe), exe);
    assert.equal(findExecutable(plain), undefined);
    assert.equal(findExecutable(dir), undefined, "a directory");
    assert.equal(findExecutable("heddle", { PATH: `/nonexistent:${dir}` }), exe);
    assert.equal(findExecutable("heddle", { PATH: "/nonexistent" }), undefined);
    assert.equal(findExecutable("plain", { PATH: dir }), undefined);
  });

  test("heddle.path, with ~ expanded, and the defaults", () => {
    assert.equal(heddlePath(), "heddle");
    mock.settings = { "heddle.path": "~/go/bin/heddle" };
    assert.match(heddlePath(), /^\/.*\/go\/bin\/heddle$/);
    assert.doesNotMatch(heddlePath(), /~/);
    assert.deepEqual(readSettings(), { strategy: "portfolio", budget: "total=10m,time=60s" });
    mock.settings = { "heddle.strategy": "random", "heddle.budget": "5" };
    assert.deepEqual(readSettings(), { strategy: "random", budget: "5" });
  });
});
