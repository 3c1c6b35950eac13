// The web view shows a subtest that heddle cannot explore as the CLI reports it: heddle test -v
// explores cmd/heddle/testdata/subtests's clean and dial packages (real go builds), whose test
// has a subtest heddle cannot explore (it checks an allocation count, or dials outside the
// process) beside one it explores. The CLI skips that subtest with "cannot be explored" and
// the reason, and passes the test; the page, opened on the exploration files heddle wrote,
// labels each test as explored and clean with one subtest skipped, and lists the subtest with
// the CLI's line.
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { heddleTest, launchBrowser, openPage, repoDir, screenshotDir, startServer } from "./harness.mjs";

const dir = join(repoDir, "cmd", "heddle", "testdata", "subtests");

let tmp, cli, browser, server, page;
const pageErrors = [];

// parseCLI reads heddle test -v's report: per package (its last path element), its test's
// status, and the subtests skipped under it, each with the log lines printed under its
// === RUN line.
function parseCLI(text) {
  const pkgs = new Map();
  let cur = { skips: [], logs: new Map() }, sub = null;
  for (const line of text.split("\n")) {
    let m;
    if ((m = /^=== RUN\s+(\S+)$/.exec(line))) {
      if (m[1].includes("/")) {
        sub = m[1];
        cur.logs.set(sub, []);
      } else {
        cur.test = m[1];
        sub = null;
      }
    } else if ((m = /^--- (PASS|FAIL|SKIP): (\S+) /.exec(line))) {
      cur.status = m[1];
      sub = null;
    } else if ((m = /^ {4}--- SKIP: (\S+) /.exec(line))) {
      cur.skips.push(m[1]);
    } else if (sub && /^ {4}\S/.test(line)) {
      cur.logs.get(sub).push(line.trim());
    } else if ((m = /^(?:ok|FAIL)\s+(\S+)/.exec(line))) {
      cur.pkg = m[1];
      pkgs.set(m[1].split("/").pop(), cur);
      cur = { skips: [], logs: new Map() };
    }
  }
  return pkgs;
}

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  const run = heddleTest("subtests", dir, ["./clean", "./dial"]);
  tmp = run.tmp;
  const { out, stdout } = run;
  cli = parseCLI(stdout);
  assert.deepEqual(cli.get("clean")?.skips, ["TestSubtests/allocs"], stdout);
  assert.deepEqual(cli.get("dial")?.skips, ["TestSubtests/server"], stdout);
  const files = [...cli.values()].map((t) => join(out, ...t.pkg.split("/"), t.test, "exploration.json.gz"));
  server = await startServer(files, { debugger: false });
  browser = await launchBrowser({ width: 1440, height: 900 });
  page = await openPage(browser, server.url, pageErrors);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test("each test is labelled clean, with the subtest heddle could not explore counted as skipped", async () => {
  const options = await page.getByTestId("exploration-option").allInnerTexts();
  assert.equal(options.length, cli.size, `options ${options.join(" | ")}`);
  for (const [name, t] of cli) {
    assert.equal(t.status, "PASS");
    const label = `${name} ${t.test}: clean, 1 subtest skipped`;
    assert.ok(options.includes(label), `no option ${label} in ${options.join(" | ")}`);
  }
});

test("the Bugs tab lists the subtest with the CLI's cannot be explored line", async () => {
  for (const [name, t] of cli) {
    const value = await page.locator("header select option").evaluateAll((os, n) => os.find((o) => o.textContent.startsWith(`${n} TestSubtests:`))?.value, name);
    await page.getByTestId("exploration-select").selectOption(value);
    await page.getByTestId("program").getByText(`${t.pkg} · ${t.test}`, { exact: true }).waitFor();
    assert.match(await page.getByTestId("stats").innerText(), /^clean, 1 subtest skipped; /);
    await page.getByTestId("tab-bugs").click();
    await page.getByTestId("skips").waitFor();
    assert.deepEqual(await page.getByTestId("skip-test").allInnerTexts(), t.skips);
    const output = (await page.getByTestId("skip-output").innerText()).split("\n").filter(Boolean);
    assert.deepEqual(output, t.logs.get(t.skips[0]));
    assert.match(output[0], /^heddle: cannot be explored: /);
    await page.screenshot({ path: join(screenshotDir, `subtests-${name}-bugs.png`) });
  }
});

test("the page raised no errors", () => {
  assert.deepEqual(pageErrors.map((e) => e.message), []);
});
