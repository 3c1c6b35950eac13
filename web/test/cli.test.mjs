// The web view agrees with the CLI and reads like it: heddle test -v explores bug kernels of
// testdata/kernels (real go builds), and the page, opened on the exploration files it wrote in a
// 1440×900 window, shows the same counts, bug numbers, step numbers and step texts as the
// CLI's report, the warnings it printed, and objects named as in source.
import assert from "node:assert/strict";
import { spawnSync, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, openPage, readExploration, repoDir, screenshotDir, startServer } from "./harness.mjs";

const kernels = join(repoDir, "testdata", "kernels");
// abbalock: a lock-order deadlock; lostupdate: a failed test (fatal); noeraser: a race and a
// lockset warning; atomicflag: an atomicity warning and no bug.
const packages = ["abbalock", "atomicflag", "lostupdate", "noeraser"];

let tmp, out, cli, browser, server, page;
const pageErrors = [];

// parseCLI reads heddle test -v's report: per test, its statistics line and its bugs, each with
// its runs, its interleaving table (step, whether heddle chose it, the cell) and its replay
// command; and the warnings.
function parseCLI(text) {
  const tests = new Map();
  let pending = [], cur = null, bug = null;
  for (const line of text.split("\n")) {
    let m;
    if ((m = /^=== RUN\s+(\S+)/.exec(line))) {
      cur = { test: m[1], bugs: [], warnings: [], stats: "" };
      pending.push(cur);
      bug = null;
    } else if ((m = /^(?:ok|FAIL)\s+(\S+)\s/.exec(line))) {
      // The package's line ends its tests' output.
      for (const t of pending) tests.set(`${m[1]} ${t.test}`, { ...t, pkg: m[1] });
      pending = [];
      cur = null;
    } else if (!cur) {
      continue;
    } else if ((m = /^    BUG: (\S+) \((\d+) runs?\)/.exec(line))) {
      bug = { kind: m[1], runs: Number(m[2]), steps: [] };
      cur.bugs.push(bug);
    } else if ((m = /^    heddle: (.*?); [\d.]+ runs\/s/.exec(line))) {
      cur.stats = m[1];
    } else if ((m = /^\s+warning: (\w+): /.exec(line))) {
      cur.warnings.push(m[1]);
      bug = null;
    } else if (bug && (m = /^\s+replay:\s+(.*)$/.exec(line))) {
      bug.replay = m[1];
    } else if (bug && (m = /^ {8}\s*(\d+) ([* ])\s*(.*?)\s*$/.exec(line))) {
      bug.steps.push({ step: Number(m[1]), chosen: m[2] === "*", cell: m[3] });
    }
  }
  return tests;
}

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  tmp = mkdtempSync(join(tmpdir(), "heddle-cli-"));
  const heddle = join(tmp, "heddle");
  execFileSync("go", ["build", "-o", heddle, "./cmd/heddle"], { cwd: repoDir, stdio: "inherit" });
  out = join(tmp, "out");
  const r = spawnSync(heddle, ["test", "-v", "-budget", "3s", "-out", out, ...packages.map((p) => `./${p}`)], { cwd: kernels, encoding: "utf8", timeout: 300000 });
  assert.ok(r.status === 0 || r.status === 1, `heddle test exited with ${r.status} (${r.signal}):\n${r.stderr}`);
  cli = parseCLI(r.stdout);
  assert.equal(cli.size, 2 * packages.length, `the CLI reported ${[...cli.keys()].join(", ")}:\n${r.stdout}`);
  // The clean tests first: the page must still open on a test with a bug.
  const files = [...cli.values()].sort((a, b) => a.bugs.length - b.bugs.length)
    .map((t) => join(out, ...t.pkg.split("/"), t.test, "exploration.json.gz"));
  server = await startServer(files, { debugger: false });
  browser = await launchBrowser({ width: 1440, height: 900 });
  await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.origin });
  page = await openPage(browser, server.url, pageErrors);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const shot = (name) => page.screenshot({ path: join(screenshotDir, `${name}.png`) });
const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// showTest selects a test's exploration in the header.
async function showTest(pkg, name) {
  const label = `${pkg.split("/").pop()} ${name}:`;
  const value = await page.locator("header select option").evaluateAll((os, l) => os.find((o) => o.textContent.startsWith(l))?.value, label);
  assert.ok(value, `no exploration is labelled ${label}`);
  await page.getByTestId("exploration-select").selectOption(value);
  // The header names the test once its exploration is shown.
  await page.getByTestId("program").getByText(`${pkg} · ${name}`, { exact: true }).waitFor();
  await page.waitForFunction(() => window.heddle.treeStats().nodes > 0);
  await settle();
}

test("the page opens on the first test with a bug, and the Timeline on its first bug", async () => {
  const shown = await page.getByTestId("exploration-select").evaluate((s) => s.selectedOptions[0].textContent);
  const t = [...cli.values()].find((x) => shown.startsWith(`${x.pkg.split("/").pop()} ${x.test}:`));
  assert.ok(t && t.bugs.length > 0, `the page opened on ${shown}, a test without a bug`);
  // The header names the test shown, not the first file the server was given.
  assert.equal(await page.getByTestId("program").textContent(), `${t.pkg} · ${t.test}`);
  await shot("cli-open-tree");
  await page.getByTestId("tab-timeline").click();
  await page.getByTestId("timeline-title").getByText(/^Bug 1: /).waitFor();
  await shot("cli-open-timeline");
});

test("each test's verdict, runs and bugs are the CLI's", async () => {
  const options = await page.getByTestId("exploration-option").allInnerTexts();
  for (const t of cli.values()) {
    const label = `${t.pkg.split("/").pop()} ${t.test}: `;
    const verdict = t.bugs.length ? `${t.bugs.length} bug${t.bugs.length > 1 ? "s" : ""}` : "clean";
    assert.ok(options.includes(label + verdict), `no option ${label + verdict} in ${options.join(" | ")}`);
    await showTest(t.pkg, t.test);
    // The statistics line starts with the CLI's, up to its rates.
    const stats = await page.getByTestId("stats").innerText();
    assert.ok(stats.startsWith(t.stats), `${t.test}: the page says "${stats}", the CLI "${t.stats}"`);
    await page.getByTestId("tab-bugs").click();
    const rows = page.getByTestId("bug-row");
    assert.equal(await rows.count(), t.bugs.length, `${t.pkg} ${t.test}: bugs`);
    for (const [i, b] of t.bugs.entries()) {
      const row = rows.nth(i);
      // Numbered from 1, as the files are; found by as many runs as the CLI says.
      assert.equal(await row.getByTestId("bug-number").innerText(), String(i + 1));
      assert.equal(await row.getByTestId("bug-kind").innerText(), b.kind);
      assert.equal(await row.getByTestId("bug-runs").innerText(), String(b.runs), `${t.test} bug ${i + 1}: runs`);
      assert.match(await row.getByTestId("bug-where").innerText(), /\S+\.go:\d+/, `${t.test} bug ${i + 1}: where`);
      // The tree's bug label counts the runs as the CLI does.
      await page.getByTestId("tab-tree").click();
      const file = readExploration(join(out, ...t.pkg.split("/"), t.test, "exploration.json.gz"));
      await page.evaluate((id) => window.heddle.treeFocus(id), file.tree.find((n) => n.leaf?.bug === i).id);
      await settle();
      const labels = (await page.evaluate(() => window.heddle.treeDrawn())).labels.map((l) => l.text);
      const mark = labels.find((l) => l.startsWith(`${b.kind} · bug ${i + 1}`));
      assert.ok(mark, `${t.test}: no tree label for bug ${i + 1} in ${labels.join(" | ")}`);
      if (b.runs > 1) assert.ok(mark.endsWith(`· ${b.runs} runs`), `${t.test}: tree label ${mark}, the CLI says ${b.runs} runs`);
      await page.getByTestId("tab-bugs").click();
    }
    if (t.bugs.length) await shot(`cli-bugs-${t.pkg.split("/").pop()}`);
  }
});

test("warnings are shown: lockset, atomicity and lock order", async () => {
  for (const [pkg, kind] of [["noeraser", "lockset"], ["atomicflag", "atomicity"], ["abbalock", "lock order"]]) {
    const t = [...cli.values()].find((x) => x.pkg.endsWith(`/${pkg}`) && x.test === "TestBug");
    if (kind !== "lock order") assert.ok(t.warnings.includes(kind), `the CLI printed no ${kind} warning for ${pkg}: ${t.warnings}`);
    await showTest(t.pkg, t.test);
    await page.getByTestId("tab-bugs").click();
    const w = page.getByTestId("warning").filter({ has: page.locator(".warning-kind", { hasText: kind }) });
    await w.first().waitFor();
    assert.ok((await w.count()) >= 1, `${pkg}: no ${kind} warning shown`);
    await shot(`cli-warnings-${pkg}`);
  }
});

test("the replay command is copied whole", async () => {
  const t = [...cli.values()].find((x) => x.pkg.endsWith("/abbalock") && x.test === "TestBug");
  await showTest(t.pkg, t.test);
  await page.getByTestId("tab-bugs").click();
  const shown = await page.getByTestId("bug-replay").first().innerText();
  const file = readExploration(join(out, ...t.pkg.split("/"), t.test, "exploration.json.gz"));
  assert.equal(shown, file.bugs[0].replay);
  // The command replays the same trace the CLI's does.
  assert.equal(shown.split(" ").slice(1).join(" "), t.bugs[0].replay.split(" ").slice(1).join(" "));
  await page.getByTestId("bug-copy").first().click();
  await page.getByTestId("bug-copy").first().getByText("Copied").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown);
  // So is an atomicity warning's, which the CLI prints with it.
  const a = [...cli.values()].find((x) => x.pkg.endsWith("/atomicflag") && x.test === "TestBug");
  await showTest(a.pkg, a.test);
  await page.getByTestId("tab-bugs").click();
  const warn = await page.getByTestId("warning-replay").first().innerText();
  assert.match(warn, /replay \S+warning-atomicity-1\.schedule\.json$/);
  await page.getByTestId("warning-copy").first().click();
  await page.getByTestId("warning-copy").first().getByText("Copied").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), warn);
});

test("steps are numbered and said as in the CLI's interleaving table", async () => {
  for (const pkg of ["abbalock", "lostupdate"]) {
    const t = [...cli.values()].find((x) => x.pkg.endsWith(`/${pkg}`) && x.test === "TestBug");
    const table = t.bugs[0].steps;
    assert.ok(table.length > 0, `${pkg}: the CLI printed no interleaving`);
    await showTest(t.pkg, t.test);
    await page.getByTestId("tab-bugs").click();
    await page.getByTestId("bug-open").first().click();
    await page.getByTestId("timeline-title").getByText(/^Bug 1: /).waitFor();
    const steps = await page.locator('[data-testid^="step-box-"]').evaluateAll((gs) => gs.map((g) => Number(g.dataset.step)));
    assert.deepEqual(steps, table.map((s) => s.step), `${pkg}: step numbers`);
    await page.getByTestId("timeline-first").click();
    for (const s of table) {
      await page.waitForFunction((n) => window.heddle.selectedStep() === n, s.step);
      assert.equal(await page.getByTestId("step-index").innerText(), String(s.step));
      const cell = s.cell.replace(/ \S+\.go:\d+$/, "");
      assert.equal(await page.getByTestId("step-op").innerText(), cell, `${pkg} step ${s.step}`);
      const at = / (\S+\.go:\d+)$/.exec(s.cell);
      if (at) assert.equal(await page.getByTestId("step-pos").innerText(), at[1], `${pkg} step ${s.step}: where`);
      assert.equal(await page.getByTestId("step-decision").count() > 0, s.chosen, `${pkg} step ${s.step}: chosen among several`);
      if (s.step !== table[table.length - 1].step) await page.keyboard.press("ArrowRight");
    }
    await shot(`cli-timeline-${pkg}`);
  }
});

test("the tree's edges say the steps as the CLI does, on objects named as in source", async () => {
  const t = [...cli.values()].find((x) => x.pkg.endsWith("/abbalock") && x.test === "TestBug");
  await showTest(t.pkg, t.test);
  await page.getByTestId("tab-tree").click();
  await page.getByTestId("tree-fit").click();
  await settle();
  const labels = (await page.evaluate(() => window.heddle.treeDrawn())).labels.map((l) => l.text);
  // The steps heddle chose in the bug's run, as G1.1 ac.mu.Lock(), are edges of the tree.
  for (const s of t.bugs[0].steps.filter((x) => x.chosen)) {
    const cell = s.cell.replace(/ \S+\.go:\d+$/, "");
    assert.ok(labels.some((l) => l.endsWith(` ${cell}`)), `no edge says ${cell}: ${labels.join(" | ")}`);
  }
  assert.ok(labels.includes("G1.1 ac.mu.Lock()") && labels.includes("G1 cc.mu.Lock()"), labels.join(" | "));
  assert.ok(!labels.some((l) => / (Lock|Unlock|Add|Done|Wait)$/.test(l)), `an edge names an operation without its object: ${labels.join(" | ")}`);
  // The timeline and the lock trees name the locks as the source does.
  await page.getByTestId("tab-timeline").click();
  await page.getByTestId("timeline-last").click();
  assert.match(await page.getByTestId("step-obj").innerText(), /^(ac|cc)\.mu \(mutex /);
  const wf = await page.getByTestId("waitfor-graph").locator(".wf-obj").evaluateAll((gs) => gs.map((g) => g.querySelector("text").textContent));
  assert.deepEqual(wf.sort(), ["ac.mu", "cc.mu"]);
  await page.getByTestId("tab-locks").click();
  const locks = await page.getByTestId("lock-label").evaluateAll((ts) => ts.map((t) => t.textContent));
  assert.ok(locks.includes("ac.mu") && locks.includes("cc.mu"), locks.join(" | "));
  await shot("cli-locks-abbalock");
});

test("the legends name what is drawn, in plain words", async () => {
  const t = [...cli.values()].find((x) => x.pkg.endsWith("/lostupdate") && x.test === "TestBug");
  await showTest(t.pkg, t.test);
  await page.getByTestId("tab-tree").click();
  await page.getByTestId("tree-fit").click();
  await settle();
  const file = readExploration(join(out, ...t.pkg.split("/"), t.test, "exploration.json.gz"));
  // What the tree draws, from the file: how runs ended and why alternatives were not run.
  const want = new Set();
  const firsts = new Set();
  for (const n of file.tree) {
    for (const p of n.pruned ?? []) want.add(p.reason);
    if (!n.leaf) continue;
    if (n.leaf.bug !== undefined) want.add(firsts.has(n.leaf.bug) ? "again" : "bug"), firsts.add(n.leaf.bug);
    else want.add(n.leaf.verdict === "ok" ? "ok" : n.leaf.verdict === "aborted" ? "aborted" : "other");
  }
  if ((await page.evaluate(() => window.heddle.treeDrawn())).bands.length) want.add("band");
  assert.deepEqual((await page.evaluate(() => window.heddle.treeLegend())).sort(), [...want].sort());
  const words = await page.getByTestId("tree-legend").innerText();
  assert.doesNotMatch(words, /\b(sleep|persistent|dpor|backtrack)\b/i, `the legend uses jargon: ${words}`);
  // The bug's swatch is the colour its leaf is drawn in.
  const leaf = file.tree.find((n) => n.leaf?.bug === 0);
  await page.evaluate((id) => window.heddle.treeFocus(id), leaf.id);
  await settle();
  const at = await page.evaluate((id) => window.heddle.treeNodeAt(id), leaf.id);
  const pixel = await page.evaluate(({ x, y }) => {
    const c = document.querySelector("[data-testid=tree-canvas]");
    const r = c.getBoundingClientRect();
    const k = c.width / r.width;
    return [...c.getContext("2d").getImageData(Math.round((x - r.left) * k), Math.round((y - r.top) * k), 1, 1).data.slice(0, 3)];
  }, at);
  const swatch = await page.getByTestId("tree-legend-bug").getByTestId("tree-legend-swatch").evaluate((e) => getComputedStyle(e).backgroundColor);
  assert.equal(`rgb(${pixel.join(", ")})`, swatch, "the bug's leaf and its legend swatch differ");
  await shot("cli-legend-tree");
  // The timeline's legend shows what its lanes draw, and nothing else.
  await page.getByTestId("tab-timeline").click();
  await page.getByTestId("timeline-title").getByText(/^Bug 1: /).waitFor();
  const shown = await page.getByTestId("timeline-legend").locator(".lg-item:visible").evaluateAll((es) => es.map((e) => e.dataset.testid.replace(/^legend-/, "")));
  const drawn = await page.getByTestId("timeline-lanes").evaluate((el) => {
    const d = new Set(["cursor"]);
    for (const r of el.querySelectorAll("[data-testid^=step-box-] rect")) d.add(r.getAttribute("fill"));
    for (const [sel, id] of [[".blocked", "blocked"], [".end-state", "end"], [".spawn", "spawn"], [".hb", "hb"], [".decision-mark", "decision"]]) if (el.querySelector(sel)) d.add(id);
    return [...d];
  });
  const colours = await page.getByTestId("timeline-legend").locator(".lg-item:visible rect[fill]").evaluateAll((rs) => rs.map((r) => r.getAttribute("fill")));
  assert.deepEqual(colours.sort(), drawn.filter((d) => d.startsWith("#")).sort(), "the legend's colours are the boxes'");
  assert.deepEqual(shown.filter((s) => !s.startsWith("op-")).sort(), drawn.filter((d) => !d.startsWith("#")).sort());
});

test("at 1440×900 the step's details stay in view", async () => {
  const t = [...cli.values()].find((x) => x.pkg.endsWith("/lostupdate") && x.test === "TestBug");
  await showTest(t.pkg, t.test);
  await page.getByTestId("tab-timeline").click();
  await page.getByTestId("timeline-title").getByText(/^Bug 1: /).waitFor();
  await page.getByTestId("timeline-last").click();
  const vp = page.viewportSize();
  for (const id of ["step-index", "step-op", "step-pos", "source-current"]) {
    const b = await page.getByTestId(id).boundingBox();
    assert.ok(b && b.y >= 0 && b.y + b.height <= vp.height && b.x + b.width <= vp.width, `${id} is out of the ${vp.width}×${vp.height} window: ${JSON.stringify(b)}`);
  }
  assert.equal(await page.evaluate(() => document.scrollingElement.scrollHeight <= innerHeight), true, "the page scrolls");
  await shot("cli-timeline-1440x900");
});

test("the page raised no errors", () => {
  assert.deepEqual(pageErrors.map((e) => e.message), []);
});
