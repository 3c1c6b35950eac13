// Benchmark of the schedule tree view: generates an exploration with
// 100,000 tree nodes, loads it through the real server in headless
// Chromium, and prints the time to first paint of the tree and frame times
// while panning, at reading zoom and zoomed out to the whole tree.
//
//   node test/bench.mjs [nodes]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchBrowser, percentile, screenshotDir, startServer } from "./harness.mjs";

const total = Number(process.argv[2] ?? 100000);

// mulberry32: a small seeded generator, so every run measures the same tree.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// exploration builds a tree breadth-first, so parents precede children as
// the format requires, with two to four goroutines enabled at each
// decision point, some alternatives pruned, and verdicts at the leaves.
function exploration(n) {
  const rnd = random(1);
  const gs = ["G1", "G1.1", "G1.2", "G1.3"];
  const ops = ["lock", "unlock", "send", "recv", "wg.wait", "atomic.load", "select"];
  const reasons = ["sleep", "persistent", "delayed"];
  const tree = [{ id: 0, parent: -1, enabled: ["G1", "G1.1"] }];
  const kids = [0];
  for (let head = 0; tree.length < n; head++) {
    const width = rnd() < 0.45 ? 1 : rnd() < 0.8 ? 2 : 3;
    for (let k = 0; k < width && tree.length < n; k++) {
      const id = tree.length;
      const node = {
        id, parent: head, g: gs[Math.floor(rnd() * gs.length)], op: ops[Math.floor(rnd() * ops.length)],
        obj: `G1#${1 + Math.floor(rnd() * 5)}`, pos: { file: "/src/bench/bench.go", line: 10 + Math.floor(rnd() * 90) },
        enabled: gs.slice(0, 2 + Math.floor(rnd() * 3)),
      };
      if (rnd() < 0.25) node.pruned = [{ g: gs[Math.floor(rnd() * gs.length)], reason: reasons[Math.floor(rnd() * 3)] }];
      tree.push(node);
      kids.push(0);
      kids[head]++;
    }
  }
  const bugs = [];
  let runs = 0;
  for (const node of tree) {
    if (kids[node.id] > 0) continue;
    runs++;
    const r = rnd();
    if (r < 0.01) {
      node.leaf = { verdict: "deadlock", bug: bugs.length };
      bugs.push({ id: bugs.length, kind: "deadlock", message: "all goroutines are blocked", replay: "heddle replay …", preemptions: 1 });
    } else if (r < 0.1) node.leaf = { verdict: "aborted" };
    else node.leaf = { verdict: "ok" };
  }
  return {
    heddle: "exploration", version: 1, program: { package: "example.com/bench", test: "TestBench" }, strategy: "dpor",
    stats: { runs, decisions: n, prunedSleep: 0, prunedPersistent: 0, prunedDelayed: 0, bugs: bugs.length, elapsed: "1m0s", schedulesPerSecond: runs / 60, complete: true },
    tree, bugs,
  };
}

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

  // The tree first shows whole; Root then goes to the root at zoom 1.
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  mkdirSync(screenshotDir, { recursive: true });
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
