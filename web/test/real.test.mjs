// Browser tests of the web view against real explorations: the heddle CLI
// explores small Go test packages written to a temporary directory, and the
// page is opened on the exploration files it wrote.
import assert from "node:assert/strict";
import { spawnSync, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, readExploration, repoDir, screenshotDir, startServer } from "./harness.mjs";

let tmp, heddle, browser;
const servers = [];
const pageErrors = [];

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  tmp = mkdtempSync(join(tmpdir(), "heddle-real-"));
  heddle = join(tmp, "heddle");
  execFileSync("go", ["build", "-o", heddle, "./cmd/heddle"], { cwd: repoDir, stdio: "inherit" });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  for (const s of servers) await s.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// explore runs `heddle test -json` on the module in dir and returns the
// parsed events. Exit code 1 means bugs were found, which is expected here.
function explore(dir, out) {
  const r = spawnSync(heddle, ["test", "-json", "-out", out, dir], { cwd: dir, encoding: "utf8", timeout: 120000 });
  assert.ok(r.status === 0 || r.status === 1, `heddle test exited with ${r.status} (${r.signal}):\n${r.stderr}`);
  return r.stdout.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

// exploreKernel explores a kernel of testdata/kernels as module example.com/<name>, and
// returns the directory of its results and the events of its tests.
function exploreKernel(kernel, name) {
  const mod = join(tmp, name);
  mkdirSync(mod);
  writeFileSync(join(mod, "go.mod"), `module example.com/${name}\n\ngo 1.26\n`);
  copyFileSync(join(repoDir, "testdata", "kernels", kernel, `${kernel}_test.go`), join(mod, `${name}_test.go`));
  const out = join(tmp, `out-${name}`);
  return { out, events: explore(mod, out) };
}

// open starts a server on the exploration and opens the page on it.
async function open(file) {
  const server = await startServer([file]);
  servers.push(server);
  const page = await browser.context.newPage();
  page.on("pageerror", (err) => pageErrors.push(err));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(new Error(m.text()));
  });
  await page.goto(server.url);
  await page.waitForFunction(() => window.heddle?.ready());
  return page;
}

const countLeaves = (exploration) => exploration.tree.filter((n) => n.leaf !== undefined).length;

test("a real exploration of the bank demo: tree, bug timeline and stepping", async () => {
  const mod = join(tmp, "bank");
  mkdirSync(mod);
  const demo = join(repoDir, "cmd", "heddle", "demo");
  for (const f of ["bank.go", "bank_test.go", "go.mod"]) copyFileSync(join(demo, `${f}.txt`), join(mod, f));
  const out = join(tmp, "out-bank");
  const events = explore(mod, out).filter((e) => e.Test === "TestTransfer");
  const bugs = events.filter((e) => e.Action === "output" && e.Bug);
  const end = events.find((e) => e.Action === "fail" || e.Action === "pass");
  assert.ok(end, "TestTransfer finished");
  assert.equal(end.Action, "fail");
  assert.ok(end.Stats.runs >= 1, `stats: ${JSON.stringify(end.Stats)}`);
  assert.ok(bugs.length >= 1, "the deadlock is found");
  assert.equal(bugs[0].Bug.kind, "deadlock");

  const file = join(out, "example.com", "bank", "TestTransfer", "exploration.json.gz");
  const exploration = readExploration(file);
  const leaves = countLeaves(exploration);
  assert.ok(leaves >= 1);
  assert.equal(exploration.stats.runs, end.Stats.runs);

  const page = await open(file);
  await page.waitForFunction(() => window.heddle.treeStats().nodes > 0);
  const stats = await page.evaluate(() => window.heddle.treeStats());
  assert.equal(stats.bugs, bugs.length);
  assert.equal(stats.leaves, leaves);
  assert.equal(stats.nodes, exploration.tree.length);
  // The footer counts in words a person reads, as the CLI does: 1 bug, not 1 bugs.
  const plural = (n, w) => `${n} ${w}${n === 1 ? "" : "s"}`;
  await page.getByTestId("stats").getByText(`${plural(bugs.length, "bug")}; ${exploration.strategy}: ${plural(exploration.stats.runs, "run")} (`, { exact: false }).waitFor();
  assert.match(await page.getByTestId("stats").innerText(), new RegExp(` · ${plural(exploration.stats.decisions, "decision")} · `));
  // Every run that hit the deadlock is a leaf of the tree, but the deadlock is one red leaf,
  // and the tree opens with labels that do not overlap.
  const buggyLeaves = exploration.tree.filter((n) => n.leaf?.bug !== undefined && n.leaf?.bug !== null).length;
  for (const view of ["opening", "fit"]) {
    if (view === "fit") await page.getByTestId("tree-fit").click();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
    const d = await page.evaluate(() => window.heddle.treeDrawn());
    assert.equal(d.bugMarks, bugs.length, `${view}: red leaves, for ${buggyLeaves} runs that found ${bugs.length} bugs`);
    const labels = d.labels;
    assert.ok(labels.length > 0, `${view}: no labels`);
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i], b = labels[j];
        assert.ok(!(a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1), `${view}: labels ${a.text} and ${b.text} overlap`);
      }
    }
    await page.screenshot({ path: join(screenshotDir, `real-tree-${view}.png`) });
  }

  await page.getByTestId("tab-bugs").click();
  const rows = page.getByTestId("bug-row");
  await rows.first().waitFor();
  assert.equal(await rows.count(), bugs.length);
  assert.equal(await rows.nth(0).getByTestId("bug-kind").innerText(), "deadlock");
  await rows.nth(0).getByTestId("bug-open").click();
  await page.waitForURL(/#\/timeline\?exploration=\d+&bug=0$/);
  await page.getByTestId("verdict-kind").getByText("deadlock").waitFor();
  for (const g of ["G1.1", "G1.2"]) await page.getByTestId(`lane-${g}`).waitFor();

  await page.locator("body").click({ position: { x: 5, y: 5 } });
  const before = await page.evaluate(() => window.heddle.selectedStep());
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction((b) => window.heddle.selectedStep() !== b, before);
  const first = await page.evaluate(() => window.heddle.selectedStep());
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction((b) => window.heddle.selectedStep() !== b, first);
  await page.screenshot({ path: join(screenshotDir, "real-timeline.png") });
  await page.close();
});

test("a real exploration of JPF Figure 5 shows one lock-tree warning", async () => {
  // The kernel of the corpus, with its locks named L1 to L4 as in the paper; its TestBug has
  // the unprotected L3/L4 inversion.
  const { out, events: all } = exploreKernel("jpffigure5", "figure5");
  const events = all.filter((e) => e.Test === "TestBug");
  assert.ok(events.some((e) => e.Action === "fail" || e.Action === "pass"), "TestBug finished");

  const file = join(out, "example.com", "figure5", "TestBug", "exploration.json.gz");
  const exploration = readExploration(file);
  assert.equal(exploration.lockTrees.warnings.length, 1);

  const page = await open(file);
  // Saved files alone are not a live exploration.
  await page.waitForFunction(() => document.querySelector("[data-testid=ws-status]")?.textContent === "connected");
  // The picker names the exploration by its test, not by its file name.
  assert.equal(await page.locator("header select option").first().innerText(), "figure5 TestBug: 1 bug");
  await page.getByTestId("tab-locks").click();
  await page.getByTestId("view-locks").waitFor();
  assert.equal(await page.evaluate(() => window.heddle.warnings()), 1);
  assert.equal(await page.getByTestId("lock-warning").count(), 1);
  // As in the paper's Figure 6: the L2/L3 inversions are gated by L1 and L4,
  // and the two threads' trees have 13 nodes.
  assert.equal(await page.getByTestId("lock-suppressed-item").count(), 2);
  assert.equal(await page.getByTestId("lock-node").count(), 13);
  // The locks go by the program's names for them, not by logical ids.
  assert.match(await page.getByTestId("lock-warning").innerText(), /^(L3 ↔ L4|L4 ↔ L3):/);
  const suppressed = await page.getByTestId("lock-suppressed").innerText();
  assert.match(suppressed, /L2 ↔ L3|L3 ↔ L2/);
  assert.match(suppressed, /L1/);
  assert.match(suppressed, /L4/);
  const labels = await page.getByTestId("lock-node").evaluateAll((els) => els.map((e) => e.querySelector("text").textContent));
  assert.deepEqual([...new Set(labels)].sort(), ["L1", "L2", "L3", "L4"]);
  await page.screenshot({ path: join(screenshotDir, "real-locks.png") });
  await page.close();
});

test("an inversion whose nestings happens-before orders is shown as suppressed, not warned", async () => {
  const { out, events: all } = exploreKernel("closewait", "closewait");
  const events = all.filter((e) => e.Test === "TestFixed");
  assert.ok(events.some((e) => e.Action === "pass"), "TestFixed passed");

  const file = join(out, "example.com", "closewait", "TestFixed", "exploration.json.gz");
  const exploration = readExploration(file);
  assert.equal(exploration.lockTrees.warnings.length, 0);
  assert.deepEqual(exploration.lockTrees.suppressed.map((sp) => sp.ordered), [true]);

  const page = await open(file);
  await page.getByTestId("tab-locks").click();
  await page.getByTestId("view-locks").waitFor();
  assert.equal(await page.getByTestId("lock-warning").count(), 0);
  assert.match(await page.getByTestId("lock-suppressed-item").innerText(),
    /^(s\.streamLock ↔ st\.stateLock|st\.stateLock ↔ s\.streamLock): suppressed, the two nestings are ordered by happens-before$/);
  await page.screenshot({ path: join(screenshotDir, "real-locks-ordered.png") });
  await page.close();
});

test("the pages raised no errors", () => {
  assert.deepEqual(pageErrors.map((e) => e.message), []);
});
