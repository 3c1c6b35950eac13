// The web view lists a test that heddle cannot explore as the CLI reports it: heddle test -v
// explores cmd/heddle/testdata/mixed's ok and reexec packages (real go builds); reexec's test
// runs its own binary again, which heddle cannot control, and the CLI skips it with "cannot be
// explored" and the reason. The page, opened on the exploration files heddle wrote, counts and
// labels every test the CLI reported, and shows that reason for the skipped one.
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { heddleTest, launchBrowser, openPage, repoDir, screenshotDir, startServer } from "./harness.mjs";

const dir = join(repoDir, "cmd", "heddle", "testdata", "mixed");

let tmp, cli, browser, server, page;
const pageErrors = [];

// parseCLI reads heddle test -v's report: per test, its package's last path element, its
// status, and for a test that cannot be explored, the reason.
function parseCLI(text) {
  const tests = new Map();
  let cur = null;
  for (const line of text.split("\n")) {
    let m;
    if ((m = /^=== RUN\s+(\S+)$/.exec(line))) {
      cur = { test: m[1], status: "", reason: "" };
      tests.set(m[1], cur);
    } else if (cur && (m = /^ {4}heddle: cannot be explored: (.*)$/.exec(line))) {
      cur.reason = m[1];
    } else if ((m = /^--- (PASS|FAIL|SKIP): (\S+) /.exec(line))) {
      tests.get(m[2]).status = m[1];
    } else if ((m = /^(?:ok|FAIL)\s+(\S+)/.exec(line))) {
      for (const t of tests.values()) t.pkg ??= m[1];
    }
  }
  return tests;
}

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  const run = heddleTest("unexplorable", dir, ["./ok", "./reexec"]);
  tmp = run.tmp;
  const { out, stdout } = run;
  cli = parseCLI(stdout);
  assert.equal(cli.get("TestChild")?.status, "SKIP", stdout);
  assert.match(cli.get("TestChild").reason, /runs its own test binary again/, stdout);
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

test("the page lists every test the CLI reported, the unexplorable one as the CLI says it", async () => {
  const options = await page.getByTestId("exploration-option").allInnerTexts();
  assert.equal(options.length, cli.size, `options ${options.join(" | ")}; CLI tests ${[...cli.keys()].join(" ")}`);
  for (const t of cli.values()) {
    const verdict = t.status === "SKIP" ? "cannot be explored" : "clean";
    const label = `${t.pkg.split("/").pop()} ${t.test}: ${verdict}`;
    assert.ok(options.includes(label), `no option ${label} in ${options.join(" | ")}`);
  }
});

test("the unexplorable test shows the CLI's reason", async () => {
  const value = await page.locator("header select option").evaluateAll((os) => os.find((o) => o.textContent.startsWith("reexec TestChild:"))?.value);
  await page.getByTestId("exploration-select").selectOption(value);
  await page.getByTestId("program").getByText("example.com/mixed/reexec · TestChild", { exact: true }).waitFor();
  const reason = cli.get("TestChild").reason;
  assert.equal(await page.getByTestId("stats").innerText(), `cannot be explored: ${reason}`);
  await page.getByTestId("tab-bugs").click();
  await page.getByTestId("unexplorable").waitFor();
  assert.equal(await page.getByTestId("unexplorable-reason").innerText(), reason);
  await page.screenshot({ path: join(screenshotDir, "unexplorable-bugs.png") });
});

test("the page raised no errors", () => {
  assert.deepEqual(pageErrors.map((e) => e.message), []);
});
