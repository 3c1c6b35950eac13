// Contract test of the live stream: what the real producers publish goes through
// server.Publish and the page in headless Chromium, and the schedule tree grows on screen
// while the exploration runs. The producers are `heddle test -serve` and the debug adapter's
// "explore from here" (heddle/explore with the web view open). HEDDLE, if set, is the heddle
// binary to test instead of one built from this tree.
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { launchBrowser, repoDir, screenshotDir } from "./harness.mjs";

let tmp, heddle, browser;
const procs = [];

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  tmp = mkdtempSync(join(tmpdir(), "heddle-live-"));
  heddle = process.env.HEDDLE;
  if (!heddle) {
    heddle = join(tmp, "heddle");
    execFileSync("go", ["build", "-o", heddle, "./cmd/heddle"], { cwd: repoDir, stdio: "inherit" });
  }
  browser = await launchBrowser();
});

after(async () => {
  for (const p of procs) if (p.exitCode === null) p.kill("SIGKILL");
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// openPage opens the web view at url and collects the page's errors and warnings, among
// them the model's "names unknown parent" for a node it could not place.
async function openPage(url) {
  const page = await browser.context.newPage();
  const problems = [];
  page.on("pageerror", (err) => problems.push(err.message));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
  });
  await page.goto(url);
  await page.waitForFunction(() => window.heddle?.ready());
  return { page, problems };
}

// onScreen is what the page shows of the live tree: the tree's size, the statistics line,
// and a digest of the canvas's pixels.
async function onScreen(page) {
  return page.evaluate(async () => {
    const canvas = document.querySelector("[data-testid=tree-canvas]");
    // The digest is taken after the next frame, once pending changes are drawn.
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    return {
      ...window.heddle.treeStats(),
      stats: document.querySelector("[data-testid=stats]")?.textContent ?? "",
      pixels: canvas.toDataURL(),
    };
  }).then((s) => ({ ...s, pixels: createHash("sha256").update(s.pixels).digest("hex") }));
}

// watchGrowth asserts that the live tree grows on screen while running() holds: it reads the
// screen once the first nodes are drawn and again a while later, takes a screenshot then, and
// returns both readings.
async function watchGrowth(page, running, shot) {
  await page.getByTestId("view-tree").waitFor({ state: "visible" });
  await page.waitForFunction(() => window.heddle.treeStats().nodes > 0, null, { timeout: 60000 });
  const first = await onScreen(page);
  assert.ok(running(), "the exploration ended before the tree was first seen: make it longer");
  await page.waitForFunction((n) => window.heddle.treeStats().nodes > n, first.nodes, { timeout: 30000 });
  await page.waitForTimeout(1000);
  const second = await onScreen(page);
  await page.screenshot({ path: join(screenshotDir, shot) });
  assert.ok(running(), "the exploration ended before the second look: make it longer");
  assert.ok(second.nodes > first.nodes, `tree did not grow: ${first.nodes} then ${second.nodes} nodes`);
  assert.ok(second.leaves > first.leaves, `no new run: ${first.leaves} then ${second.leaves} leaves`);
  assert.notEqual(second.stats, first.stats, "the statistics line did not change");
  assert.match(second.stats, /\d+ runs \(\d+ buggy, \d+ cut\), search (complete|stopped by the budget) · \d+ decisions/);
  assert.notEqual(second.pixels, first.pixels, "the canvas was not redrawn");
  return { first, second };
}

test("heddle test -serve streams the tree of a kernel's exploration to the page", async () => {
  // spinsend's fixed twin loops on every tick of a ticker: a depth-first search of it takes
  // about 17 s on an idle machine (59,572 runs), so the tree is still growing at the second
  // look. The budget is long because on a loaded machine the page first drew the tree more
  // than 12 s after the exploration began; whether the search completes within it depends on
  // the machine, and the final check takes either ending. (pollworker's, used before, ends in
  // about 2 s.)
  const p = spawn(heddle, ["test", "-v", "-serve", "-strategy", "dfs", "-budget", "40s", "-run", "^TestFixed$", "-out", join(tmp, "out"), "./spinsend"],
    { cwd: join(repoDir, "testdata", "kernels"), stdio: ["ignore", "pipe", "pipe"] });
  procs.push(p);
  const stderr = [];
  const exited = new Promise((resolve) => p.once("exit", resolve));
  let finished = false;
  let markDone;
  const doneLine = new Promise((resolve) => { markDone = resolve; });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`heddle printed no web view URL within 3 minutes:\n${stderr.join("\n")}`)), 180000);
    createInterface({ input: p.stderr }).on("line", (line) => {
      stderr.push(line);
      if (/^heddle: done/.test(line)) {
        finished = true;
        markDone();
      }
      const m = /web view at (\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    p.once("exit", (code) => reject(new Error(`heddle test exited with ${code}:\n${stderr.join("\n")}`)));
  });
  // The CLI's statistics line under -v: "heddle: clean; dfs: 59572 runs (0 buggy, 0 cut, …),
  // search complete; …".
  let markCLI;
  const cliLine = new Promise((resolve) => { markCLI = resolve; });
  createInterface({ input: p.stdout }).on("line", (line) => {
    const m = /heddle: (\w+); dfs: (\d+) runs \((\d+) buggy, (\d+) cut[^)]*\), (search complete|search stopped by the budget)/.exec(line);
    if (m) markCLI(m);
  });
  const { page, problems } = await openPage(url);
  const { first, second } = await watchGrowth(page, () => !finished, "live-cli.png");
  // The live tree is the test's, named by it.
  assert.equal(await page.getByTestId("exploration-select").evaluate((sel) => sel.selectedOptions[0].textContent), "spinsend TestFixed (live)");
  console.log(`heddle test -serve: ${first.nodes} then ${second.nodes} nodes on screen; "${first.stats}" then "${second.stats}"`);
  // When the exploration ends the view shows the final statistics, and stays until Ctrl-C.
  await doneLine;
  // The footer's line is the CLI's final one ("clean; 59572 runs (0 buggy, 0 cut, 200 in the
  // timeout search), search complete · 54117 decisions · 24.0s"), with its verdict, runs and
  // ending.
  const [, verdict, runs, buggy, cut, ending] = await cliLine;
  const final = new RegExp(`^${verdict}; ${runs} runs \\(${buggy} buggy, ${cut} cut[^)]*\\), ${ending} · \\d+ decisions · [\\d.]+m?s$`);
  await page.getByTestId("stats").getByText(final).waitFor().catch(async (err) => {
    assert.fail(`the footer says ${JSON.stringify(await page.getByTestId("stats").innerText())}, want ${final}: ${err.message}`);
  });
  assert.ok((await onScreen(page)).nodes >= second.nodes);
  assert.equal(p.exitCode, null, "heddle test -serve exited before Ctrl-C");
  p.kill("SIGINT");
  assert.equal(await exited, 0, `heddle test failed:\n${stderr.join("\n")}`);
  assert.deepEqual(stderr.filter((l) => /warning/.test(l)), [], "heddle warned about the live stream");
  assert.deepEqual(problems, []);
  await page.close();
});

// A minimal client of the Debug Adapter Protocol over the adapter's stdin and stdout.
function dapClient(proc) {
  let buf = Buffer.alloc(0);
  let seq = 0;
  const waiting = [];
  const seen = [];
  proc.stdout.on("data", (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString())[1]);
      if (buf.length < end + 4 + len) return;
      const msg = JSON.parse(buf.subarray(end + 4, end + 4 + len).toString());
      buf = buf.subarray(end + 4 + len);
      seen.push(msg);
      for (const w of [...waiting]) {
        if (w.match(msg)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(msg);
        }
      }
    }
  });
  const wait = (match, what, ms) => new Promise((resolve, reject) => {
    const old = seen.find(match);
    if (old) return resolve(old);
    const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
    waiting.push({ match, resolve: (m) => { clearTimeout(timer); resolve(m); } });
  });
  return {
    seen,
    async request(command, args, ms = 30000) {
      const s = ++seq;
      const body = JSON.stringify({ seq: s, type: "request", command, arguments: args });
      proc.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      const r = await wait((m) => m.type === "response" && m.request_seq === s, `response to ${command}`, ms);
      assert.ok(r.success, `${command}: ${r.message}`);
      return r.body;
    },
    event(name, ms = 60000) {
      return wait((m) => m.type === "event" && m.event === name, `${name} event`, ms);
    },
  };
}

test("the debug adapter's explore streams the tree to the page", async () => {
  const p = spawn(heddle, ["dap"], { stdio: ["pipe", "pipe", "pipe"] });
  procs.push(p);
  const stderr = [];
  createInterface({ input: p.stderr }).on("line", (l) => stderr.push(l));
  const dap = dapClient(p);
  const dir = join(repoDir, "dap", "testdata", "bank");
  await dap.request("initialize", { adapterID: "heddle", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  // TestBusy makes hundreds of decisions: exploring it from a breakpoint outlasts the budget.
  await dap.request("launch", { mode: "test", program: dir, args: ["-test.run", "^TestBusy$"] }, 180000);
  await dap.event("initialized");
  await dap.request("setBreakpoints", { source: { path: join(dir, "bank_test.go") }, breakpoints: [{ line: 51 }] });
  await dap.request("configurationDone", {});
  await dap.event("stopped", 120000);
  const { url } = await dap.request("heddle/webview", {});
  const { page, problems } = await openPage(url);
  // The view follows the debugger to its stop in the timeline; the user turns to the tree.
  await page.waitForURL(/#\/timeline/);
  await page.getByTestId("tab-tree").click();
  await page.waitForURL(/#\/tree$/);
  const { id } = await dap.request("heddle/explore", { strategy: "dfs", budget: "40s" });
  let done = null;
  const finished = dap.event("heddle/exploreDone", 120000).then((m) => { done = m; return m; });
  finished.catch(() => {});
  const { first, second } = await watchGrowth(page, () => done === null, "live-dap.png");
  console.log(`heddle/explore: ${first.nodes} then ${second.nodes} nodes on screen; "${first.stats}" then "${second.stats}"`);
  const end = await finished;
  assert.equal(end.body.id, id);
  assert.equal(end.body.error, undefined, `explore failed: ${end.body.error}`);
  const refused = dap.seen.filter((m) => m.type === "event" && m.event === "output" && /web view/.test(m.body.output));
  assert.deepEqual(refused.map((m) => m.body.output), [], "the adapter reported messages the web view refused");
  assert.deepEqual(problems, []);
  await page.close();
  await dap.request("disconnect", { terminateDebuggee: true }).catch(() => {});
  const exited = p.exitCode !== null || await Promise.race([
    new Promise((resolve) => p.once("exit", () => resolve(true))),
    new Promise((resolve) => setTimeout(() => resolve(false), 20000)),
  ]);
  assert.ok(exited, `the adapter did not exit after disconnect:\n${stderr.join("\n")}`);
});

test("a bug found by the debug adapter's explore opens its trace from the Bugs tab", async () => {
  const p = spawn(heddle, ["dap"], { stdio: ["pipe", "pipe", "pipe"] });
  procs.push(p);
  const dap = dapClient(p);
  const dir = join(repoDir, "dap", "testdata", "bank");
  await dap.request("initialize", { adapterID: "heddle", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  await dap.request("launch", { mode: "test", program: dir, args: ["-test.run", "^TestTransfer$"] }, 180000);
  await dap.event("initialized");
  await dap.request("setBreakpoints", { source: { path: join(dir, "bank_test.go") }, breakpoints: [{ line: 11 }] });
  await dap.request("configurationDone", {});
  await dap.event("stopped", 120000);
  const { url } = await dap.request("heddle/webview", {});
  const { page, problems } = await openPage(url);
  await page.waitForURL(/#\/timeline/);
  const finished = dap.event("heddle/exploreDone", 120000);
  await dap.request("heddle/explore", { strategy: "dpor", budget: "30s" });
  const end = await finished;
  assert.equal(end.body.error, undefined, `explore failed: ${end.body.error}`);
  assert.ok(end.body.bugs >= 1, `the exploration found no bug: ${JSON.stringify(end.body)}`);
  await page.getByTestId("tab-bugs").click();
  const row = page.getByTestId("bug-row").filter({ hasText: "deadlock" }).first();
  // The goroutines come from the bug's trace, which the server now holds.
  await row.getByTestId("bug-goroutines").getByText(/G1\.1 blocked/).waitFor({ timeout: 30000 });
  await page.screenshot({ path: join(screenshotDir, "live-dap-bugs.png") });
  await row.getByTestId("bug-open").click();
  await page.getByTestId("verdict-kind").getByText("deadlock").waitFor({ timeout: 30000 });
  assert.ok(await page.getByTestId("lane-G1.2").isVisible(), "the bug's timeline has no lane for G1.2");
  assert.deepEqual(problems, []);
  await page.close();
  await dap.request("disconnect", { terminateDebuggee: true }).catch(() => {});
});
