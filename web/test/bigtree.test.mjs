// Browser test of a schedule tree as large as real explorations get
// (148,000 decisions, test/bigtree.mjs): it must show an overview, bands for
// subtrees too thin to draw, one mark per bug and details on hover, never a
// solid block. It prints how long layout and drawing took; it asserts no
// time, since the machine is shared (test/bench.mjs measures frames).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { exploration } from "./bigtree.mjs";
import { launchBrowser, percentile, screenshotDir, startServer } from "./harness.mjs";

const total = 148000;
let dir, data, server, browser, page;
const pageErrors = [];

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), "heddle-bigtree-"));
  data = exploration(total);
  writeFileSync(join(dir, "big.exploration.json"), JSON.stringify(data));
  server = await startServer([join(dir, "big.exploration.json")]);
  browser = await launchBrowser({ width: 1400, height: 900 });
  page = await browser.context.newPage();
  page.on("pageerror", (err) => pageErrors.push(err));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(new Error(m.text()));
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
const drawn = () => page.evaluate(() => window.heddle.treeDrawn());
const shot = (name) => page.screenshot({ path: join(screenshotDir, `bigtree-${name}.png`) });

// inked returns the fraction of a canvas's pixels darker than level in
// some channel: 245 counts anything drawn, 200 leaves out the light bands.
const inked = (id, level = 245) => page.getByTestId(id).evaluate((c, level) => {
  const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i] < level || d[i + 1] < level || d[i + 2] < level) n++;
  return n / (d.length / 4);
}, level);

// frames redraws the tree n times, panning a pixel each time, and returns
// the draw times.
async function frames(n) {
  const before = (await page.evaluate(() => window.heddle.treeDrawTimes())).length;
  const box = await page.getByTestId("tree-canvas").boundingBox();
  await page.mouse.move(box.x + 300, box.y + 300);
  await page.mouse.down();
  for (let i = 1; i <= n; i++) {
    await page.mouse.move(box.x + 300 + (i % 2 ? 6 : 0), box.y + 300);
    await settle();
  }
  await page.mouse.up();
  return (await page.evaluate(() => window.heddle.treeDrawTimes())).slice(before);
}

test("a 148,000-node tree opens with an overview and bands, not a solid block", async () => {
  await page.goto(server.url);
  await page.waitForFunction((n) => window.heddle?.treeStats().nodes === n, total, { timeout: 120000 });
  await page.waitForFunction(() => performance.getEntriesByName("heddle-tree-first-paint").length > 0, null, { timeout: 120000 });
  await settle();
  const firstPaint = await page.evaluate(() => performance.getEntriesByName("heddle-tree-first-paint")[0].startTime);
  const layout = await page.evaluate(() => window.heddle.treeLayoutMs());
  const opening = await drawn();
  // The opening view is readable: labels, and the overview's brush marks where it is.
  await shot("opening");
  assert.ok(opening.labels.length > 10, `${opening.labels.length} labels at the opening view`);
  const openingDraws = await frames(20);

  await page.getByTestId("tree-fit").click();
  await settle();
  const fit = await drawn();
  const fitDraws = await frames(20);
  console.log(`# ${total} decisions, ${data.stats.runs} runs, ${data.bugs.length} bugs: layout ${layout.toFixed(0)} ms; first paint ${firstPaint.toFixed(0)} ms after navigation`);
  console.log(`# draw at the opening view: p50 ${percentile(openingDraws, 50).toFixed(1)} ms, max ${Math.max(...openingDraws).toFixed(1)} ms (${opening.nodes} nodes, ${opening.bands.length} bands, ${opening.labels.length} labels)`);
  console.log(`# draw of the whole tree (Fit): p50 ${percentile(fitDraws, 50).toFixed(1)} ms, max ${Math.max(...fitDraws).toFixed(1)} ms (${fit.nodes} nodes, ${fit.bands.length} bands)`);

  // The frame visits a small part of the tree and draws the rest as bands.
  assert.ok(fit.bands.length > 50, `${fit.bands.length} bands at Fit`);
  assert.ok(fit.nodes < total / 20, `${fit.nodes} nodes drawn one by one at Fit`);
  assert.ok(fit.bands.reduce((n, b) => n + b.size, 0) + fit.nodes >= total * 0.95, "the bands and nodes at Fit hold the tree");
  // One red mark per bug, though hundreds of runs found them.
  const buggyRuns = data.tree.filter((n) => n.leaf?.bug !== undefined).length;
  assert.ok(buggyRuns > 100 * data.bugs.length);
  assert.equal(fit.bugMarks, data.bugs.length);
  await shot("fit");
  // Not a solid block: the bands are light, and little of the canvas is dark.
  const ink = await inked("tree-canvas"), dark = await inked("tree-canvas", 200);
  console.log(`# ink at Fit: ${(ink * 100).toFixed(0)}% of the canvas, ${(dark * 100).toFixed(0)}% dark`);
  assert.ok(ink < 0.75, `${(ink * 100).toFixed(0)}% of the canvas is inked`);
  assert.ok(dark < 0.15, `${(dark * 100).toFixed(0)}% of the canvas is dark`);
  assert.ok(await inked("tree-overview") > 0.05, "the overview shows the tree");
});

test("hovering a band tells what it holds, and clicking it zooms in", async () => {
  const d = await drawn();
  const box = await page.getByTestId("tree-canvas").boundingBox();
  const band = d.bands.filter((b) => b.y1 - b.y0 >= 3 && b.x1 - b.x0 > 40).sort((a, b) => b.size - a.size)[0];
  assert.ok(band, "a band to point at");
  const x = box.x + (band.x0 + band.x1) / 2, y = box.y + (band.y0 + band.y1) / 2;
  await page.mouse.move(x, y);
  const tip = page.getByTestId("tree-tip");
  await tip.waitFor();
  const text = await tip.innerText();
  assert.match(text, new RegExp(`^${band.size.toLocaleString("en-US")} decisions · [\\d,]+ runs?`), text);
  assert.match(text, /click to zoom in/);
  await shot("hover");
  await page.mouse.click(x, y);
  await settle();
  const zoomed = await drawn();
  await shot("zoomed");
  assert.ok(zoomed.labels.length > d.labels.length + 10, `${zoomed.labels.length} labels after zooming into the band, ${d.labels.length} before`);
  assert.deepEqual(zoomedOverlaps(zoomed.labels), []);
});

test("dragging across the overview zooms the detail view to that part", async () => {
  await page.getByTestId("tree-fit").click();
  await settle();
  const before = await drawn();
  const o = await page.getByTestId("tree-overview").boundingBox();
  await page.mouse.move(o.x + o.width * 0.6, o.y + o.height * 0.4);
  await page.mouse.down();
  await page.mouse.move(o.x + o.width * 0.8, o.y + o.height * 0.405, { steps: 4 });
  await page.mouse.up();
  await settle();
  const after = await drawn();
  // The part selected is drawn node by node, with labels.
  assert.ok(after.labels.length > before.labels.length + 10, `labels ${before.labels.length} → ${after.labels.length}`);
  assert.ok(after.bands.length < before.bands.length / 2, `bands ${before.bands.length} → ${after.bands.length}`);
  await shot("overview-zoom");
});

test("the page raised no errors", () => {
  assert.deepEqual(pageErrors.map((e) => e.message), []);
});

function zoomedOverlaps(labels) {
  const out = [];
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      const a = labels[i], b = labels[j];
      if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) out.push(`${a.text} / ${b.text}`);
    }
  }
  return out;
}
