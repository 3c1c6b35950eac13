// Benchmark of the schedule tree view: generates an exploration with
// 148,000 tree nodes (test/bigtree.mjs), loads it through the real server in headless
// Chromium, and prints the time to first paint of the tree and frame times
// while panning, at reading zoom and zoomed out to the whole tree.
//
//   node test/bench.mjs [nodes]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exploration } from "./bigtree.mjs";
import { launchBrowser, percentile, screenshotDir, startServer } from "./harness.mjs";

const total = Number(process.argv[2] ?? 148000);

async function pan(page, frames, dx, dy) {
  // Record every animation frame while the mouse drags the tree, one move
  // per frame, as a person's drag would.
  await page.evaluate(() => {
    window.__frames = [];
    const tick = (t) => {
      window.__frames.push(t);
      if (window.__frames.length < 100000) window.__raf = requestAnimationFrame(tick);
    };
    window.__raf = requestAnimationFrame(tick);
  });
  const before = (await page.evaluate(() => window.heddle.treeDrawTimes().length));
  await page.mouse.move(700, 450);
  await page.mouse.down();
  for (let i = 1; i <= frames; i++) {
    await page.mouse.move(700 + (dx * i) / frames, 450 + (dy * i) / frames);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  }
  await page.mouse.up();
  const { frames: ts, draws } = await page.evaluate((before) => {
    cancelAnimationFrame(window.__raf);
    return { frames: window.__frames, draws: window.heddle.treeDrawTimes().slice(before) };
  }, before);
  const intervals = ts.slice(1).map((t, i) => t - ts[i]);
  return { intervals, draws };
}

const fmt = (x) => x.toFixed(1).padStart(7);

const dir = mkdtempSync(join(tmpdir(), "heddle-bench-"));
const file = join(dir, "bench.exploration.json");
const t0 = performance.now();
const data = exploration(total);
writeFileSync(file, JSON.stringify(data));
console.log(`generated ${total} nodes (${data.bugs.length} bugs) in ${(performance.now() - t0).toFixed(0)} ms`);

const server = await startServer([file]);
const browser = await launchBrowser({ width: 1400, height: 900 });
try {
  const page = await browser.context.newPage();
  await page.goto(server.url);
  await page.waitForFunction((n) => window.heddle?.treeStats().nodes === n, total, { timeout: 120000 });
  await page.waitForFunction(() => performance.getEntriesByName("heddle-tree-first-paint").length > 0, null, { timeout: 120000 });
  const firstPaint = await page.evaluate(() => performance.getEntriesByName("heddle-tree-first-paint")[0].startTime);
  console.log(`time to first paint of the tree: ${firstPaint.toFixed(0)} ms after navigation`);

  // The tree opens on its first bug at a readable scale; Fit shows it whole.
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  mkdirSync(screenshotDir, { recursive: true });
  await page.getByTestId("tree-fit").click();
  await settle();
  await page.screenshot({ path: join(screenshotDir, "bench-whole.png") });
  const rows = [];
  rows.push(["pan, whole tree in view", await pan(page, 120, 400, 200)]);
  // Go to the densest part, the last level, at full size, where labels
  // are drawn.
  await page.evaluate((id) => window.heddle.treeFocus(id), Math.floor(total * 0.8));
  await settle();
  await page.screenshot({ path: join(screenshotDir, "bench-zoomed.png") });
  rows.push(["pan, zoomed in, labels", await pan(page, 120, -900, -500)]);
  console.log("                          frame interval (ms)      draw (ms)");
  console.log("                            p50     p95     max     p50     p95");
  for (const [name, r] of rows) {
    console.log(`${name.padEnd(24)}${fmt(percentile(r.intervals, 50))} ${fmt(percentile(r.intervals, 95))} ${fmt(Math.max(...r.intervals))} ${fmt(percentile(r.draws, 50))} ${fmt(percentile(r.draws, 95))}`);
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
