// Browser test of the timeline of a process group's trace: the dining philosophers as three
// processes (testdata/groups/philosophers), deadlocked.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { copyFixtures, launchBrowser, screenshotDir, startServer } from "./harness.mjs";

let server, browser, page, trace;
const pageErrors = [];

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  const fixtures = copyFixtures();
  trace = join(fixtures, "bugs", "group-deadlock-3.trace.json");
  server = await startServer([trace], { debugger: false });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on("pageerror", (err) => pageErrors.push(err));
  await page.goto(server.url);
  await page.waitForFunction(() => window.heddle?.ready());
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("a group's timeline shows its processes as groups of lanes", async () => {
  await page.goto(`${server.url}#/timeline?path=${encodeURIComponent(trace)}`);
  await page.getByTestId("timeline-lanes").waitFor();
  const labels = await page.locator(".lane-label:not(.ruler-label)").evaluateAll((els) => els.map((e) => e.dataset.testid));
  // Every goroutine of P1, then P2's, then P3's, each in creation order.
  assert.deepEqual(labels, [
    "lane-P1:G1", "lane-P1:G1.1", "lane-P1:G1.2",
    "lane-P2:G1", "lane-P2:G1.1", "lane-P2:G1.2",
    "lane-P3:G1", "lane-P3:G1.1", "lane-P3:G1.2",
  ]);
  for (const p of ["P1", "P2", "P3"]) assert.equal(await page.getByTestId(`process-${p}`).innerText(), p);
  assert.equal(await page.locator(".process-rule").count(), 2);
  await page.getByTestId("verdict-kind").getByText("deadlock").waitFor();
  await page.screenshot({ path: join(screenshotDir, "group.png") });
  assert.deepEqual(pageErrors, []);
});
