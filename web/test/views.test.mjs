// Browser tests of how each view reads to a person, wide (1440×900), in
// VS Code's panel beside the code (800×770) and in a narrow side panel
// (450 px): the tree's bug marks and labels, the timeline's legend, words,
// width and tabs, a step's details in view with the lanes, the lock trees'
// labels, and a layout that neither wraps the tabs nor cuts columns off. The
// server attaches no debugger, as under heddle serve. Screenshots of every
// view at each size are saved in test/screenshots.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { exploration } from "./bigtree.mjs";
import { copyFixtures, launchBrowser, screenshotDir, startServer } from "./harness.mjs";

let fixtures, server, browser;
const pageErrors = [];
const gotoRequests = [];
// A generated exploration in which many runs find each of three bugs.
let repeated;

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  fixtures = copyFixtures();
  // The bank exploration again, with lock names as long as real programs have.
  const bank = JSON.parse(readFileSync(join(fixtures, "bank.exploration.json"), "utf8"));
  bank.lockTrees.names = { L1: "accounts[from].mu", L2: "s.cache.mu", L3: "mu", L4: "registry.lockForUpdate" };
  writeFileSync(join(fixtures, "longnames.exploration.json"), JSON.stringify(bank));
  repeated = exploration(15000);
  writeFileSync(join(fixtures, "repeated.exploration.json"), JSON.stringify(repeated));
  server = await startServer([join(fixtures, "bank.exploration.json"), join(fixtures, "longnames.exploration.json"), join(fixtures, "repeated.exploration.json")], { debugger: false });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function open(width, height, hash = "") {
  browser ??= await launchBrowser();
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height });
  page.on("pageerror", (err) => pageErrors.push(err));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(new Error(`${width}px: ${m.text()}`));
  });
  page.on("request", (r) => {
    if (r.url().includes("/api/goto")) gotoRequests.push(r.url());
  });
  await page.goto(server.url + hash);
  await page.waitForFunction(() => window.heddle?.ready());
  return page;
}

const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
const drawn = (page) => page.evaluate(() => window.heddle.treeDrawn());

// overlaps returns the pairs of label boxes that intersect.
function overlaps(labels) {
  const out = [];
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      const a = labels[i], b = labels[j];
      if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) out.push(`${a.text} / ${b.text}`);
    }
  }
  return out;
}

async function assertLabelsClean(page, what) {
  const d = await drawn(page);
  assert.ok(d.labels.length > 0, `${what}: no labels drawn`);
  assert.deepEqual(overlaps(d.labels), [], `${what}: labels overlap`);
  for (const l of d.labels) assert.ok(l.x0 >= 0 && l.x1 <= d.width, `${what}: label ${l.text} runs off the canvas (${l.x0}..${l.x1} of ${d.width})`);
  return d;
}

// selectExploration picks an exploration in the header's picker by the start of its label.
async function selectExploration(page, prefix, nodes) {
  // Options are named by their tests, and titled by their files.
  const value = await page.locator("header select option").evaluateAll((os, p) => os.find((o) => o.title.split("/").pop().startsWith(p))?.value, prefix);
  await page.getByTestId("exploration-select").selectOption(value);
  await page.waitForFunction((n) => window.heddle.treeStats().nodes === n, nodes);
  await settle(page);
}

// Wide: a 1440×900 browser window. 800×770: the panel VS Code gives the web view beside the code
// in a 1440×900 window. 450: a narrow side panel.
for (const [width, height] of [[1440, 900], [800, 770], [450, 800]]) {
  describe(`at ${width} px`, () => {
    let page;
    before(async () => {
      page = await open(width, height);
    });
    after(() => page?.close());
    const shot = (name) => page.screenshot({ path: join(screenshotDir, `views-${name}-${width}.png`) });

    test("the tree opens with labels, none overlapping, and Fit keeps them apart", async () => {
      await page.waitForFunction(() => window.heddle.treeStats().nodes === 21);
      await settle(page);
      const d = await assertLabelsClean(page, "opening view");
      assert.ok(d.labels.some((l) => /^G1\.\d (receive|Lock)/.test(l.text)), `no edge label among ${d.labels.map((l) => l.text)}`);
      await shot("tree");
      await page.getByTestId("tree-fit").click();
      await settle(page);
      if (width >= 1000) {
        const fit = await assertLabelsClean(page, "Fit");
        // The whole width is used: the deepest labels reach the canvas's last third.
        assert.ok(Math.max(...fit.labels.map((l) => l.x1)) > fit.width * 0.66, "Fit leaves the right of the canvas empty");
      } else {
        assert.deepEqual(overlaps((await drawn(page)).labels), []);
      }
    });

    test("one red leaf per bug, labelled with how many runs found it", async () => {
      await selectExploration(page, "repeated", 15000);
      const bugRuns = repeated.tree.filter((n) => n.leaf?.bug !== undefined);
      assert.ok(bugRuns.length > 2 * repeated.bugs.length, `the generated tree repeats its bugs (${bugRuns.length} runs)`);
      await page.getByTestId("tree-fit").click();
      await settle(page);
      const d = await drawn(page);
      assert.equal(d.bugMarks, repeated.bugs.length, "red leaves");
      assert.deepEqual(await page.evaluate(() => window.heddle.treeStats().bugs), repeated.bugs.length);
      assert.deepEqual(overlaps(d.labels), []);
      if (width >= 1000) {
        // Each bug's label, numbered from 1 as its file is, counts its runs (the generated
        // bugs carry no hits: the leaves are the runs).
        for (const b of repeated.bugs) {
          const runs = bugRuns.filter((n) => n.leaf.bug === b.id).length;
          assert.ok(d.labels.some((l) => l.text === `${b.kind} · bug ${b.id + 1} · ${runs} runs`), `no label for bug ${b.id} with ${runs} runs among ${d.labels.map((l) => l.text)}`);
        }
      }
      await shot("tree-repeated");
      await selectExploration(page, "bank", 21);
    });

    test("the timeline names operations in full, fills the width, and has a legend", async () => {
      await page.getByTestId("tab-timeline").click();
      await page.goto(server.url + "#/timeline?exploration=1&bug=0");
      await page.getByTestId("lane-G1.1").waitFor();
      const ops = await page.locator('[data-testid^="step-box-"] text').allTextContents();
      // Named as Go names them: the method, not heddle's internal op.
      assert.ok(ops.includes("Unlock"), `step boxes: ${ops}`);
      assert.ok(ops.includes("Add"), `step boxes: ${ops}`);
      for (const short of ["unl", "bcast", "cwait", "ld", "st"]) assert.ok(!ops.includes(short), `abbreviation ${short}`);
      // Every box holds its word.
      const tight = await page.locator('[data-testid^="step-box-"]').evaluateAll((gs) => gs.filter((g) => g.querySelector("text").getBBox().width > g.querySelector("rect").getBBox().width).map((g) => g.textContent));
      assert.deepEqual(tight, []);
      const fill = await page.getByTestId("timeline-lanes").evaluate((el) => ({ svg: el.querySelector("svg").getBoundingClientRect().width, room: el.clientWidth }));
      assert.ok(fill.svg >= fill.room - 4, `lanes ${fill.svg} px wide in ${fill.room} px`);
      const legend = page.getByTestId("timeline-legend");
      assert.ok(await legend.isVisible());
      for (const [id, text] of [["blocked", /blocked/], ["end", /stuck when the run ended/], ["spawn", /started a goroutine/], ["hb", /happens before/], ["decision", /decision/]]) {
        const item = legend.getByTestId(`legend-${id}`);
        assert.ok(await item.isVisible(), `legend item ${id}`);
        assert.match(await item.innerText(), text);
      }
      // The legend's hatch is the lanes' hatch.
      assert.equal(await legend.getByTestId("legend-blocked").locator("rect").evaluate((r) => getComputedStyle(r).fill), await page.getByTestId("blocked-G1").first().evaluate((r) => getComputedStyle(r).fill));
    });

    test("the source pane indents with tabs, four columns wide", async () => {
      await page.locator("body").click({ position: { x: 5, y: 5 } });
      // Step 7, G1.2 <-start in transfer, whose body gofmt indents with one tab.
      for (let i = 0; i < 8; i++) await page.keyboard.press("ArrowRight");
      await page.getByTestId("source-current").getByText("<-start").waitFor();
      const m = await page.getByTestId("source-current").evaluate((line) => {
        const code = line.querySelector(".code");
        const text = code.firstChild;
        const tab = text.textContent.indexOf("\t");
        const r = document.createRange();
        r.setStart(text, tab);
        r.setEnd(text, tab + 1);
        const probe = document.createElement("span");
        probe.textContent = "    ";
        code.append(probe);
        const four = probe.getBoundingClientRect().width;
        probe.remove();
        return { tab: tab === 0 ? r.getBoundingClientRect().width : -1, four };
      });
      assert.ok(m.tab > 0, "the line starts with a tab");
      assert.ok(Math.abs(m.tab - m.four) < 1, `a leading tab is ${m.tab} px, four spaces ${m.four} px`);
      await shot("timeline");
    });

    test("the selected step's details are in view with the lanes, whole, and no panel overlaps another", async () => {
      // Step 7 is still selected: its details are on the first screen, under the lanes,
      // without scrolling, and none of them is cut off at the right.
      await page.getByTestId("step-detail").getByText("G1.2", { exact: true }).waitFor();
      await settle(page);
      const m = await page.evaluate(() => {
        const box = (e) => {
          const r = e.getBoundingClientRect();
          return { x0: r.left, x1: r.right, y0: r.top, y1: r.bottom };
        };
        const view = document.querySelector("[data-testid=view-timeline]");
        const q = (id) => document.querySelector(`[data-testid=${id}]`);
        return {
          room: { x0: 0, x1: innerWidth, y0: box(view).y0, y1: box(document.querySelector("footer")).y0 },
          scrolled: view.scrollTop,
          lanes: box(q("timeline-lanes")),
          rows: [...q("step-detail").querySelectorAll("dt, dd")].map((e) => ({ text: e.textContent, ...box(e), over: e.scrollWidth - e.clientWidth })),
          panels: ["step-panel", "source-panel", "verdict-panel"].map((id) => ({ id, ...box(q(id)) })),
        };
      });
      const inside = (b, r) => b.x0 >= r.x0 - 1 && b.x1 <= r.x1 + 1 && b.y0 >= r.y0 - 1 && b.y1 <= r.y1 + 1;
      const meet = (a, b) => a.x0 < b.x1 - 1 && b.x0 < a.x1 - 1 && a.y0 < b.y1 - 1 && b.y0 < a.y1 - 1;
      assert.equal(m.scrolled, 0, "the timeline scrolled to show the step");
      assert.ok(inside(m.lanes, m.room), `the lanes ${JSON.stringify(m.lanes)} are not all in view ${JSON.stringify(m.room)}`);
      assert.ok(m.rows.length >= 10, `step details: ${m.rows.map((r) => r.text)}`);
      for (const r of m.rows) {
        assert.ok(inside(r, m.room), `${width}x${height}: step detail "${r.text}" ${JSON.stringify(r)} is out of view ${JSON.stringify(m.room)}`);
        assert.ok(r.over <= 0, `step detail "${r.text}" is cut off (${r.over} px)`);
      }
      for (const [i, a] of m.rows.entries()) for (const b of m.rows.slice(i + 1)) assert.ok(!meet(a, b), `step details overlap: ${a.text} / ${b.text}`);
      for (const p of m.panels) assert.ok(p.x0 >= -1 && p.x1 <= width + 1, `the ${p.id} runs off the page (${p.x0}..${p.x1} of ${width})`);
      for (const [i, a] of m.panels.entries()) for (const b of m.panels.slice(i + 1)) assert.ok(!meet(a, b), `${a.id} and ${b.id} overlap`);
      await page.screenshot({ path: join(screenshotDir, `views-step-${width}x${height}.png`) });
    });

    test("stepping without a debugger asks nothing of the server", async () => {
      await page.keyboard.press("End");
      await page.keyboard.press("Home");
      await new Promise((r) => setTimeout(r, 600));
      assert.deepEqual(gotoRequests, []);
      assert.equal(await page.getByTestId("goto-status").innerText(), "");
    });

    test("locks are named whole, as in source, each name inside its node", async () => {
      await page.goto(server.url + "#/locks");
      await selectExploration(page, "longnames", 21);
      await page.getByTestId("view-locks").waitFor();
      // The view of the exploration shown before may still be on the page: wait for this one's.
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="lock-node"] title')]
        .some((t) => /registry\.lockForUpdate/.test(t.textContent ?? "")));
      const nodes = await page.locator('[data-testid="lock-node"], [data-testid="lock-graph-node"]').evaluateAll((gs) => gs.map((g) => ({
        label: g.querySelector("[data-testid=lock-label]").textContent,
        width: g.querySelector("[data-testid=lock-label]").getBBox().width,
        shape: Number(g.querySelector(".lock-shape").getAttribute("width")),
        title: g.querySelector("title").textContent,
      })));
      assert.equal(nodes.length, 13 + 4);
      for (const n of nodes) assert.ok(n.width <= n.shape - 2, `label ${n.label} is ${n.width} px in a ${n.shape} px node`);
      assert.ok(nodes.some((n) => n.label === "registry.lockForUpdate"), "a long name is shown whole");
      assert.ok(nodes.some((n) => n.label === "accounts[from].mu"));
      assert.ok(!nodes.some((n) => n.label.includes("…")), "no name is cut");
      // Sibling nodes do not overlap.
      const boxes = await page.locator('[data-testid="lock-node"] .lock-shape').evaluateAll((rs) => rs.map((r) => {
        const b = r.getBoundingClientRect();
        return { x0: b.left, x1: b.right, y0: b.top, y1: b.bottom };
      }));
      for (const [i, a] of boxes.entries()) for (const b of boxes.slice(i + 1)) {
        assert.ok(!(a.x0 < b.x1 - 1 && b.x0 < a.x1 - 1 && a.y0 < b.y1 - 1 && b.y0 < a.y1 - 1), `lock nodes overlap: ${JSON.stringify([a, b])}`);
      }
      await shot("locks-longnames");
      await selectExploration(page, "bank", 21);
    });

    test("the header's tabs stay on one line and no view is cut off", async () => {
      for (const view of ["tree", "timeline", "locks", "bugs"]) {
        await page.getByTestId(`tab-${view}`).click();
        await page.getByTestId(`view-${view}`).waitFor();
        await settle(page);
        const tabs = await page.locator("header nav a").evaluateAll((as) => as.map((a) => ({ text: a.textContent, lines: a.getClientRects().length, top: Math.round(a.getBoundingClientRect().top), height: a.getBoundingClientRect().height, right: a.getBoundingClientRect().right })));
        for (const t of tabs) {
          assert.ok(t.height < 30, `${view}: tab ${t.text} wraps (${t.height} px tall)`);
          assert.ok(t.right <= width, `${view}: tab ${t.text} is cut off at ${t.right}`);
        }
        assert.equal(new Set(tabs.map((t) => t.top)).size, 1, `${view}: tabs on several rows`);
        const over = await page.evaluate((view) => {
          const doc = document.documentElement;
          const el = document.querySelector(`[data-testid=view-${view}]`);
          // Whatever sticks out of the viewport, outside boxes that scroll on purpose.
          const out = [...el.querySelectorAll("*")].filter((e) => {
            if (e.closest(".lanes-scroll, .source pre")) return false;
            const r = e.getBoundingClientRect();
            return r.width > 0 && r.right > innerWidth + 1;
          }).map((e) => `${e.tagName.toLowerCase()}.${e.getAttribute("class") ?? ""}[${e.dataset.testid ?? ""}]`);
          return { page: doc.scrollWidth - doc.clientWidth, view: el.scrollWidth - el.clientWidth, out: out.slice(0, 5) };
        }, view);
        assert.equal(over.page, 0, `${view}: the page scrolls sideways`);
        assert.equal(over.view, 0, `${view}: the view scrolls sideways`);
        assert.deepEqual(over.out, [], `${view}: cut off`);
        const buttons = await page.locator(`[data-testid=view-${view}] .toolbar button`).evaluateAll((bs) => bs.filter((b) => b.offsetParent && b.getClientRects()[0].height > 30).map((b) => b.textContent));
        assert.deepEqual(buttons, [], `${view}: buttons wrap`);
        if (view !== "timeline") await shot(view === "tree" ? "tree-tabs" : view);
      }
    });
  });
}

test("the pages raised no errors", () => {
  assert.deepEqual(pageErrors.map((e) => e.message), []);
});
