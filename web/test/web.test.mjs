// Browser tests of the web view against the fixtures, served by the real
// server package, in headless Chromium.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { copyFixtures, launchBrowser, openPage, screenshotDir, startServer } from "./harness.mjs";

let server, browser, page, fixtures;
const pageErrors = [];

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  fixtures = copyFixtures();
  server = await startServer([join(fixtures, "bank.exploration.json"), join(fixtures, "bugs", "linearizability-2.trace.json")]);
  browser = await launchBrowser();
  page = await openPage(browser, server.url, pageErrors);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const shot = (name) => page.screenshot({ path: join(screenshotDir, `${name}.png`) });
const text = (id) => page.getByTestId(id).first().innerText();
const waitForStep = (n) => page.waitForFunction((n) => window.heddle.selectedStep() === n, n);

test("the schedule tree shows every node, leaf and bug", async () => {
  await page.waitForFunction(() => window.heddle.treeStats().nodes === 21);
  assert.deepEqual(await page.evaluate(() => window.heddle.treeStats()), { nodes: 21, leaves: 7, bugs: 2 });
  // The statistics line says what heddle test -v says of the search.
  assert.match(await text("stats"), /^2 bugs; dpor: 7 runs \(0 buggy, 0 cut\), search complete · 21 decisions/);
  await shot("tree");
});

test("clicking an inner node shows it, double-clicking folds it", async () => {
  const at = await page.evaluate(() => window.heddle.treeNodeAt(3));
  await page.mouse.click(at.x, at.y);
  assert.match(await text("tree-detail-edge"), /^G1\.2 chan receive on chan G1#3 bank\.go:16$/);
  await page.mouse.dblclick(at.x, at.y);
  await page.getByTestId("tree-toggle").getByText("Unfold 9 nodes").waitFor();
  await page.getByTestId("tree-toggle").click();
  await page.getByTestId("tree-toggle").getByText("Fold subtree").waitFor();
});

test("clicking a bug leaf opens that bug's timeline", async () => {
  // Unfolding in the previous test re-lays the tree out after a delay: wait until leaf 7
  // stays where it is before clicking it.
  let at = null;
  for (let i = 0; i < 40; i++) {
    const before = await page.evaluate(() => window.heddle.treeNodeAt(7));
    await page.waitForTimeout(150);
    at = await page.evaluate(() => window.heddle.treeNodeAt(7));
    if (before && at && before.x === at.x && before.y === at.y) break;
  }
  assert.ok(at, "leaf 7 is laid out");
  await page.mouse.click(at.x, at.y);
  await page.waitForURL(/#\/timeline\?exploration=1&bug=0$/);
  // Bugs are numbered from 1, as their files are.
  await page.getByTestId("timeline-title").getByText("Bug 1: deadlock").waitFor();
  assert.equal(await page.getByTestId("verdict-kind").innerText(), "deadlock");
  assert.equal(await page.evaluate(() => window.heddle.selectedStep()), null);
});

test("the deadlock timeline has lanes, arrows, blocked spans and a wait-for graph", async () => {
  for (const g of ["G1", "G1.1", "G1.2"]) await page.getByTestId(`lane-${g}`).waitFor();
  assert.equal(await page.locator('[data-testid^="step-box-"]').count(), 10);
  const arrows = await page.getByTestId("hb-arrow").evaluateAll((els) => els.map((e) => `${e.dataset.from}->${e.dataset.to}`));
  assert.deepEqual(arrows.sort(), ["1->8", "5->6", "5->7"]);
  assert.ok(await page.getByTestId("blocked-G1").count() >= 1, "G1 is shaded while blocked in Wait");
  assert.ok(await page.getByTestId("blocked-G1.1").count() >= 1, "G1.1 is shaded while blocked on start");
  const edges = await page.getByTestId("waitfor-edge").evaluateAll((els) => els.map((e) => `${e.dataset.from}->${e.dataset.to}`));
  assert.deepEqual(edges.sort(), ["G1#1->G1.1", "G1->G1#2", "G1.1->G1.2#1", "G1.2#1->G1.2", "G1.2->G1#1"].sort());
  assert.equal(await page.locator(".wf-cycle").count(), 4);
});

test("the keyboard steps through the trace and the debugger is told", async () => {
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  const expect = async (step, g, op, line, source) => {
    await waitForStep(step);
    assert.equal(await text("step-index"), String(step));
    assert.equal(await text("step-goroutine"), g);
    assert.equal(await text("step-op"), op);
    assert.equal(await text("step-line"), String(line));
    await page.getByTestId("source-current").getByText(source).waitFor();
  };
  await page.keyboard.press("ArrowRight");
  await expect(0, "G1", "Lock on mutex G1#1", 10, "a.mu.Lock()");
  await page.keyboard.press("j");
  await expect(1, "G1", "Unlock on mutex G1#1", 11, "a.mu.Unlock()");
  await page.keyboard.press("End");
  await expect(9, "G1.2", "Lock on mutex G1.2#1", 17, "from.mu.Lock()");
  await page.keyboard.press("ArrowLeft");
  await expect(8, "G1.1", "Lock on mutex G1#1", 17, "from.mu.Lock()");
  assert.match(await text("step-after"), /step 1/);
  assert.match(await text("step-decision"), /goroutine: picked G1\.1 of G1\.1, G1\.2/);
  await page.keyboard.press("k");
  await expect(7, "G1.2", "chan receive on chan G1#3", 16, "<-start");
  await shot("timeline");
  await page.keyboard.press("Home");
  await expect(0, "G1", "Lock on mutex G1#1", 10, "a.mu.Lock()");
  // Stepping quickly sends only where the user stopped.
  await waitFor(() => server.gotos.at(-1) === 0);
  assert.ok(!server.gotos.includes(9), `rapid steps were each sent: ${server.gotos}`);
  // Play runs to the end on its own; Space pauses.
  await page.keyboard.press("Space");
  await waitForStep(2);
  await page.keyboard.press("Space");
  const paused = await page.evaluate(() => window.heddle.selectedStep());
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(await page.evaluate(() => window.heddle.selectedStep()), paused);
});

test("a checkpoint from the debugger selects its step without echoing it", async () => {
  const trace = join(fixtures, "bugs", "panic-1.trace.json");
  await new Promise((r) => setTimeout(r, 400)); // let the last step's goto land
  const before = server.gotos.length;
  server.publish({ type: "checkpoint", index: 2, step: 11, trace });
  await waitForStep(11);
  await page.getByTestId("verdict-kind").getByText("panic").waitFor();
  assert.equal(await text("step-op"), "Unlock on mutex G1.2#1");
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(server.gotos.length, before, "the checkpoint's step went back to the debugger");
  server.publish({ type: "checkpoint", index: 3, step: 12, trace });
  await waitForStep(12);
  assert.equal(await text("step-op"), "panics");
});

test("the lock trees show exactly one warning, L3/L4, and the gates", async () => {
  await page.getByTestId("tab-locks").click();
  await page.getByTestId("view-locks").waitFor();
  assert.equal(await page.evaluate(() => window.heddle.warnings()), 1);
  const warnings = page.getByTestId("lock-warning");
  assert.equal(await warnings.count(), 1);
  assert.equal(await warnings.first().getAttribute("data-locks"), "L3,L4");
  assert.match(await warnings.first().innerText(), /L3 ↔ L4/);
  const suppressed = await page.getByTestId("lock-suppressed-item").allInnerTexts();
  assert.deepEqual(suppressed, ["L2 ↔ L3: suppressed by gate lock L1", "L2 ↔ L3: suppressed by gate lock L4"]);
  assert.equal(await page.getByTestId("lock-node").count(), 13);
  // The warning's nodes are 2 and 4 in the first tree and 11 and 12 in the
  // second, as in the paper's Figure 6.
  const inverted = await page.locator(".lt-inverted").evaluateAll((els) => els.map((e) => Number(e.dataset.number)));
  assert.deepEqual(inverted.sort((a, b) => a - b), [2, 4, 11, 12]);
  assert.equal(await page.getByTestId("lock-cycle").count(), 3);
  assert.ok(await page.getByTestId("lock-graph-cycle-edge").count() >= 4);
  await shot("locks");
});

test("the bugs list links each bug to its timeline", async () => {
  await page.getByTestId("tab-bugs").click();
  const rows = page.getByTestId("bug-row");
  await rows.first().waitFor();
  assert.equal(await rows.count(), 2);
  assert.equal(await rows.nth(0).getByTestId("bug-kind").innerText(), "deadlock");
  assert.deepEqual(await rows.getByTestId("bug-number").allInnerTexts(), ["1", "2"]);
  assert.match(await rows.nth(0).getByTestId("bug-goroutines").innerText(), /G1\.1 blocked in Lock on G1\.2#1/);
  assert.match(await rows.nth(0).getByTestId("bug-where").innerText(), /bank\.go:18/);
  assert.equal(await rows.nth(0).getByTestId("bug-replay").innerText(), "heddle replay .heddle/bank/TestTransfer/bugs/deadlock-0.trace.json");
  await shot("bugs");
  await rows.nth(1).getByTestId("bug-open").click();
  await page.waitForURL(/#\/timeline\?exploration=1&bug=1$/);
  await page.getByTestId("timeline-title").getByText("Bug 2: panic").waitFor();
});

test("a live exploration grows as nodes arrive", async () => {
  const status = () => page.getByTestId("ws-status").innerText();
  server.publish({ type: "node", id: 0, parent: -1, enabled: ["G1", "G1.1"] });
  server.publish({ type: "node", id: 1, parent: 0, g: "G1", op: "send", obj: "G1#1", enabled: ["G1.1"], pruned: [{ g: "G1.1", reason: "sleep" }] });
  await page.getByTestId("live-option").waitFor({ state: "attached" });
  await page.getByTestId("tab-tree").click();
  await page.getByTestId("exploration-select").selectOption("live");
  await page.waitForFunction(() => window.heddle.treeStats().nodes === 2);
  server.publish({ type: "node", id: 2, parent: 1, g: "G1.1", op: "recv", obj: "G1#1", enabled: [], leaf: { verdict: "deadlock", bug: 0 } });
  server.publish({ type: "node", id: 3, parent: 0, g: "G1.1", op: "recv", obj: "G1#1", enabled: [], leaf: { verdict: "ok" } });
  server.publish({ type: "bug", id: 0, kind: "deadlock", message: "all goroutines are blocked" });
  server.publish({ type: "progress", stats: { runs: 2, decisions: 4, prunedSleep: 1, prunedPersistent: 0, prunedDelayed: 0, bugs: 1, schedulesPerSecond: 10, complete: false } });
  await page.waitForFunction(() => window.heddle.treeStats().nodes === 4);
  assert.deepEqual(await page.evaluate(() => window.heddle.treeStats()), { nodes: 4, leaves: 2, bugs: 1 });
  await page.getByTestId("stats").getByText(/2 runs/).waitFor();
  assert.equal(await status(), "live");
  await shot("live-tree");
});

test("a live exploration is one tree per test, named by the test", async () => {
  // heddle test -serve sends a start message as each test's exploration begins; node ids
  // stay unique across the stream.
  server.publish({ type: "start", program: { package: "example.com/kernels/abbalock", test: "TestBug" } });
  server.publish({ type: "node", id: 100, parent: -1, enabled: ["G1", "G1.1"] });
  server.publish({ type: "node", id: 101, parent: 100, g: "G1.1", op: "lock", obj: "G1#2", enabled: [], leaf: { verdict: "ok" } });
  server.publish({ type: "start", program: { package: "example.com/kernels/abbalock", test: "TestFixed" } });
  server.publish({ type: "node", id: 102, parent: -1, enabled: ["G1"] });
  await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=live-option]")].some((o) => o.textContent === "abbalock TestFixed (live)"));
  const live = await page.getByTestId("live-option").allInnerTexts();
  assert.deepEqual(live.slice(-2), ["abbalock TestBug (live)", "abbalock TestFixed (live)"]);
  // Each holds its own test's nodes, and only those.
  const value = (label) => page.getByTestId("live-option").evaluateAll((os, l) => os.find((o) => o.textContent === l).value, label);
  await page.getByTestId("exploration-select").selectOption(await value("abbalock TestBug (live)"));
  await page.waitForFunction(() => window.heddle.treeStats().nodes === 2);
  assert.equal(await page.getByTestId("program").innerText(), "example.com/kernels/abbalock · TestBug");
  await page.getByTestId("exploration-select").selectOption(await value("abbalock TestFixed (live)"));
  await page.waitForFunction(() => window.heddle.treeStats().nodes === 1);
  assert.equal(await page.getByTestId("program").innerText(), "example.com/kernels/abbalock · TestFixed");
  await shot("live-per-test");
});

test("requests from another origin are refused", async () => {
  // A page on another loopback port tries the API and the stream.
  const evil = createServer((req, res) => {
    res.setHeader("Content-Type", "text/html");
    res.end("<!doctype html><title>elsewhere</title>");
  });
  evil.listen(0, "127.0.0.1");
  await once(evil, "listening");
  try {
    const other = await browser.context.newPage();
    // A refused cross-origin response is hidden from the page and from
    // playwright's events; the DevTools protocol still sees its status.
    const statuses = [];
    const cdp = await browser.context.newCDPSession(other);
    await cdp.send("Network.enable");
    cdp.on("Network.responseReceivedExtraInfo", (e) => statuses.push(e.statusCode));
    await other.goto(`http://127.0.0.1:${evil.address().port}/`);
    const result = await other.evaluate(async ({ origin, token }) => {
      const fetched = await fetch(`${origin}/api/session?token=${token}`).then(() => "read", (e) => `failed: ${e}`);
      const ws = await new Promise((resolve) => {
        const s = new WebSocket(`${origin.replace("http", "ws")}/ws?token=${token}`);
        s.onopen = () => resolve("open");
        s.onerror = () => resolve("refused");
      });
      return { fetched, ws };
    }, { origin: server.origin, token: server.token });
    assert.match(result.fetched, /^failed/);
    assert.equal(result.ws, "refused");
    await waitFor(() => statuses.includes(403));
    await other.close();
  } finally {
    evil.close();
  }
  // Without the page, the checks hold for any client.
  const foreign = await fetch(`${server.origin}/api/session`, { headers: { Origin: "http://evil.example", Authorization: `Bearer ${server.token}` } });
  assert.equal(foreign.status, 403);
  const noToken = await fetch(`${server.origin}/api/session`);
  assert.equal(noToken.status, 401);
});

test("a linearizability bug's timeline draws its history of overlapping calls", async () => {
  await page.getByTestId("tab-bugs").click();
  await page.getByTestId("trace-open").getByText("linearizability-2.trace.json").click();
  await page.getByTestId("verdict-kind").getByText("linearizability").waitFor();
  await page.getByTestId("history-graph").waitFor();
  const ops = await page.getByTestId("history-op").evaluateAll((els) => els.map((e) => `${e.dataset.g} ${e.dataset.label}`));
  assert.deepEqual(ops, ["G1.1 push(1) → ok", "G1.2 push(2) → ok", "G1 pop() → 1", "G1 pop() → empty", "G1 pop() → empty"]);
  // push(2) lies inside push(1): its bar starts after push(1)'s and ends before it.
  const box = async (i) => page.getByTestId("history-op").nth(i).locator("rect").boundingBox();
  const [p1, p2, pop] = [await box(0), await box(1), await box(2)];
  assert.ok(p2.x > p1.x && p2.x + p2.width < p1.x + p1.width, `push(2) ${JSON.stringify(p2)} inside push(1) ${JSON.stringify(p1)}`);
  assert.ok(pop.x > p1.x + p1.width, "the pops come after both pushes returned");
  assert.ok(p2.y > p1.y && pop.y > p2.y, "one row per goroutine");
  // Clicking push(2) goes to its call's step; the operations in progress there are marked.
  await page.getByTestId("history-op").nth(1).click();
  await waitForStep(6);
  assert.match(await text("step-detail"), /call push\(2\)/);
  const active = await page.locator('[data-testid="history-op"].active').evaluateAll((els) => els.map((e) => e.dataset.label));
  assert.deepEqual(active, ["push(1) → ok", "push(2) → ok"]);
  await page.getByTestId("history").scrollIntoViewIfNeeded();
  await shot("history");
});

test("the page raised no errors", () => {
  assert.deepEqual(pageErrors.map((e) => e.message), []);
});

async function waitFor(cond, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${cond}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
