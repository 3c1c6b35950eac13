// The web view counts skips as the CLI reports them: heddle test -v explores
// cmd/heddle/testdata/skips (real go builds), whose tests skip themselves (t.Skip, t.Skipf,
// t.SkipNow) or have a subtest that does, and the page, opened on the exploration files it
// wrote, labels each test as the CLI's --- SKIP lines do, and lists the skipped subtests with
// their messages.
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { heddleTest, launchBrowser, openPage, repoDir, screenshotDir, startServer } from "./harness.mjs";

const dir = join(repoDir, "cmd", "heddle", "testdata", "skips");
const pkg = "example.com/skips";

let tmp, cli, browser, server, page;
const pageErrors = [];

// parseCLI reads heddle test -v's report: per top-level test, whether it was skipped, and the
// subtests skipped under it, each with the log lines printed under its === RUN line.
function parseCLI(text) {
  const tests = new Map();
  let cur = null, sub = null;
  for (const line of text.split("\n")) {
    let m;
    if ((m = /^=== RUN\s+(\S+)$/.exec(line))) {
      const [top, ...rest] = m[1].split("/");
      if (rest.length === 0) {
        cur = { test: top, skipped: false, skips: [], logs: new Map() };
        tests.set(top, cur);
        sub = null;
      } else {
        sub = m[1];
        cur.logs.set(sub, []);
      }
    } else if ((m = /^--- (PASS|FAIL|SKIP): (\S+) /.exec(line))) {
      tests.get(m[2]).skipped = m[1] === "SKIP";
      sub = null;
    } else if ((m = /^ {4}--- SKIP: (\S+) /.exec(line))) {
      tests.get(m[1].split("/")[0]).skips.push(m[1]);
    } else if (sub && /^ {4}\S/.test(line)) {
      cur.logs.get(sub).push(line.trim());
    }
  }
  return tests;
}

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  const run = heddleTest("skips", dir, ["."]);
  tmp = run.tmp;
  const { out, stdout } = run;
  cli = parseCLI(stdout);
  assert.deepEqual([...cli.keys()].sort(), ["TestRuns", "TestSkip", "TestSkipNow", "TestSkipf", "TestSubtestSkips"], stdout);
  assert.deepEqual(cli.get("TestSubtestSkips").skips, ["TestSubtestSkips/windows"], `the CLI reports the subtest's skip:\n${stdout}`);
  const files = [...cli.keys()].map((t) => join(out, ...pkg.split("/"), t, "exploration.json.gz"));
  server = await startServer(files, { debugger: false });
  browser = await launchBrowser({ width: 1440, height: 900 });
  page = await openPage(browser, server.url, pageErrors);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test("each test's label counts its skips as the CLI's --- SKIP lines do", async () => {
  const options = await page.getByTestId("exploration-option").allInnerTexts();
  for (const t of cli.values()) {
    let verdict = t.skipped ? "skipped" : "clean";
    if (t.skips.length) verdict += `, ${t.skips.length} subtest${t.skips.length > 1 ? "s" : ""} skipped`;
    const label = `skips ${t.test}: ${verdict}`;
    assert.ok(options.includes(label), `no option ${label} in ${options.join(" | ")}`);
  }
});

test("the Bugs tab lists the skipped subtests with their messages, as the CLI prints them", async () => {
  const value = await page.locator("header select option").evaluateAll((os) => os.find((o) => o.textContent.startsWith("skips TestSubtestSkips:"))?.value);
  await page.getByTestId("exploration-select").selectOption(value);
  await page.getByTestId("program").getByText(`${pkg} · TestSubtestSkips`, { exact: true }).waitFor();
  assert.match(await page.getByTestId("stats").innerText(), /^clean, 1 subtest skipped; /);
  await page.getByTestId("tab-bugs").click();
  await page.getByTestId("skips").waitFor();
  const t = cli.get("TestSubtestSkips");
  assert.equal(await page.getByTestId("skip-count").innerText(), String(t.skips.length));
  assert.deepEqual(await page.getByTestId("skip-test").allInnerTexts(), t.skips);
  const output = (await page.getByTestId("skip-output").innerText()).split("\n").filter(Boolean);
  assert.deepEqual(output, t.logs.get("TestSubtestSkips/windows"));
  assert.match(output.at(-1), /not on this system/);
  await page.screenshot({ path: join(screenshotDir, "skips-bugs.png") });
});

test("the page raised no errors", () => {
  assert.deepEqual(pageErrors.map((e) => e.message), []);
});
