// End-to-end test of the extension in a real VS Code: code-server (the
// browser build of VS Code) driven by playwright-core and Debian's Chromium.
//
//   node test/e2e.mjs
//
// It installs the .vsix into a fresh extensions directory, opens a folder
// holding heddle's bank demo, takes screenshots into test/screenshots/ and
// checks, step by step:
//   1. the workbench loads and the Heddle view is in Run and Debug;
//   2. with a heddle binary whose `heddle lsp` answers: the code lenses on
//      the tests;
//   3. with a heddle binary whose `heddle dap` answers: a debug session on
//      TestTransfer stops at a breakpoint; "Explore from Here" in the debug toolbar
//      explores and the Heddle view lists the exploration and its deadlock;
//      "Replay in Debugger" stops at the deadlock; "Step Back" goes to the
//      line before; "Open Web View" shows the
//      web view in a panel; in a second session stopped at a breakpoint,
//      "Choose Next Goroutine" resumes the goroutine picked;
//   4. the web view panel follows the debugger: opened before or after Explore
//      from Here, it shows the schedule tree and the deadlock; after Replay in
//      Debugger, the replayed run; after a new session starts, that session,
//      live (not "offline");
//   5. with heddle lsp: "debug with heddle" on TestTransfer, whose deadlock the
//      exploration saved, offers to replay it, and the replay stops at it;
//   6. on a real module's test, pond's TestResultPoolSubmitContextCanceled
//      (the module the adapter's tests on real code fetch): a session stops
//      at the breakpoint at result_test.go:309, the second Submit; "Step
//      Over" steps over the call into pond and stops on the test's next line,
//      315; "Explore from Here" finds one of the test's failed assertions, and
//      "Replay in Debugger" stops at it.
// Steps that cannot run are reported as skipped, with the reason. Once a
// session has started, a failing step is reported and the next ones still
// run. The last line is "N passed, N failed, N skipped"; the exit code is 1
// when a step failed.
//
// Environment:
//   HEDDLE_BIN   the heddle executable (default: none, steps 2 and 3 are skipped)
//   CODE_SERVER  default ~/.cache/code-server-e2e/bin/code-server
//                (installed by shared/tools/install-code-server.sh)
//   CHROMIUM     default /usr/bin/chromium
//   VSIX         default out/heddle.vsix (bash test/run.sh builds it)
//   KEEP=1       keep the temporary directory
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const extDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoDir = join(extDir, "..");
const screenshots = join(extDir, "test", "screenshots");
const codeServer = process.env.CODE_SERVER || join(homedir(), ".cache", "code-server-e2e", "bin", "code-server");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const vsix = process.env.VSIX || join(extDir, "out", "heddle.vsix");
const heddleBin = process.env.HEDDLE_BIN || "";
const chromiumArgs = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

const t0 = Date.now();
const results = [];
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;
function log(msg) {
  console.log(`[${secs(Date.now() - t0).padStart(6)}] ${msg}`);
}
let currentPage;
async function step(name, f, { soft = false } = {}) {
  const start = Date.now();
  log(`${name} ...`);
  try {
    if (soft && currentPage) await clearNotifications(currentPage);
    const detail = await f();
    results.push({ name, status: "ok", ms: Date.now() - start, detail });
    log(`ok   ${name} (${secs(Date.now() - start)})${detail ? `: ${detail}` : ""}`);
  } catch (err) {
    results.push({ name, status: "FAIL", ms: Date.now() - start, detail: err.message });
    log(`FAIL ${name} (${secs(Date.now() - start)}): ${err.stack || err}`);
    if (currentPage) {
      const file = join(screenshots, `fail-${results.length}.png`);
      await currentPage.screenshot({ path: file }).catch(() => {});
      results.at(-1).detail += ` (screenshot ${file})`;
    }
    if (!soft) throw err;
  }
}
function skip(name, why) {
  results.push({ name, status: "skipped", ms: 0, detail: why });
  log(`skip ${name}: ${why}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// probe starts `heddle <cmd>` and sends one message framed as DAP and LSP
// both are (Content-Length headers); it resolves to the first response, or
// rejects with what the process said.
function probe(cmd, message, timeoutMs = 20000) {
  return new Promise((resolve, reject) => {
    const p = spawn(heddleBin, [cmd], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "", errText = "";
    const timer = setTimeout(() => finish(new Error(`heddle ${cmd}: no response within ${timeoutMs} ms`)), timeoutMs);
    function finish(err, v) {
      clearTimeout(timer);
      p.kill("SIGKILL");
      if (err) reject(err);
      else resolve(v);
    }
    p.on("error", (e) => finish(e));
    p.stdout.on("data", (d) => {
      out += d;
      const m = /Content-Length: (\d+)\r\n\r\n/.exec(out);
      if (m && out.length >= m.index + m[0].length + Number(m[1])) finish(null, JSON.parse(out.slice(m.index + m[0].length, m.index + m[0].length + Number(m[1]))));
    });
    p.stderr.on("data", (d) => (errText += d));
    p.on("exit", (code) => setTimeout(() => finish(new Error(`heddle ${cmd} exited with ${code}: ${errText.trim()}`)), 50));
    const body = JSON.stringify(message);
    p.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

async function heddleCan(cmd) {
  if (!heddleBin) return "HEDDLE_BIN is not set";
  if (!existsSync(heddleBin)) return `HEDDLE_BIN ${heddleBin} does not exist`;
  try {
    if (cmd === "dap") {
      const r = await probe("dap", { seq: 1, type: "request", command: "initialize", arguments: { adapterID: "heddle", clientID: "e2e", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" } });
      if (r.type === "response" && r.success) return "";
      return `heddle dap answered initialize with ${JSON.stringify(r).slice(0, 200)}`;
    }
    const r = await probe("lsp", { jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } });
    if (r.result) return "";
    return `heddle lsp answered initialize with ${JSON.stringify(r).slice(0, 200)}`;
  } catch (err) {
    return err.message;
  }
}

// The real module of step 6, as the adapter's tests on real code pin it
// (dap/realcode_test.go).
const pondModule = "github.com/alitto/pond/v2@v2.7.1";
const pondTest = "TestResultPoolSubmitContextCanceled";

// copyTree copies directory src to dst, writable (the module cache's files are
// read-only).
function copyTree(src, dst) {
  mkdirSync(dst, { recursive: true });
  for (const f of readdirSync(src)) {
    const from = join(src, f), to = join(dst, f);
    if (statSync(from).isDirectory()) copyTree(from, to);
    else {
      copyFileSync(from, to);
      chmodSync(to, 0o644);
    }
  }
}

// addPond copies pond's module from the module cache, downloading it through
// the Go module proxy, into ws/pond. It returns why it could not, or "".
function addPond(ws) {
  const r = spawnSync("go", ["mod", "download", "-json", pondModule], { encoding: "utf8", timeout: 300000, env: { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin` } });
  let m = {};
  try {
    m = JSON.parse(r.stdout || "{}");
  } catch { /* reported below */ }
  if (r.status !== 0 || !m.Dir) return `go mod download ${pondModule} failed (${r.status}): ${m.Error || r.stderr || r.error}`;
  copyTree(m.Dir, join(ws, "pond"));
  return "";
}

// The workspace: heddle's bank demo as a module, pond's module in pond/, and
// a launch configuration for each.
function makeWorkspace(root) {
  const ws = join(root, "ws");
  mkdirSync(join(ws, ".vscode"), { recursive: true });
  const demo = join(repoDir, "cmd", "heddle", "demo");
  for (const f of ["bank.go", "bank_test.go", "go.mod"]) copyFileSync(join(demo, `${f}.txt`), join(ws, f));
  writeFileSync(join(ws, ".vscode", "launch.json"), JSON.stringify({
    version: "0.2.0",
    configurations: [{
      type: "heddle",
      request: "launch",
      name: "Heddle: TestTransfer",
      mode: "test",
      program: "${workspaceFolder}",
      args: ["-test.run", "^TestTransfer$"],
      stopOnEntry: true,
      strategy: "dpor",
      budget: "20s",
    }, {
      type: "heddle",
      request: "launch",
      name: `Heddle: pond ${pondTest}`,
      mode: "test",
      program: "${workspaceFolder}/pond",
      args: ["-test.run", `^${pondTest}$`],
      // No strategy: Explore from Here searches as heddle test does, with the portfolio.
      budget: "30s",
    }],
  }, null, 2));
  return ws;
}

function userSettings(dataDir) {
  mkdirSync(join(dataDir, "User"), { recursive: true });
  const s = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "security.workspace.trust.enabled": false,
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "go.toolsManagement.autoUpdate": false,
    "debug.toolBarLocation": "floating",
  };
  writeFileSync(join(dataDir, "User", "settings.json"), JSON.stringify(s, null, 2));
  // heddle.path is a machine setting: in a remote window (code-server is
  // one) it is read from the remote machine's settings, not the user's.
  mkdirSync(join(dataDir, "Machine"), { recursive: true });
  writeFileSync(join(dataDir, "Machine", "settings.json"), JSON.stringify(heddleBin ? { "heddle.path": heddleBin } : {}, null, 2));
}

async function startCodeServer(root, ws, extensions, data) {
  const port = await freePort();
  const logFile = join(root, "code-server.log");
  // heddle dap writes its messages, errors and timings here, shown when a step fails.
  const env = { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin`, HEDDLE_DAP_LOG: join(root, "heddle-dap.log"), HEDDLE_DAP_TRACE: "1" };
  const p = spawn(codeServer, [
    "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry", "--disable-update-check",
    "--disable-workspace-trust", "--disable-getting-started-override", "--config", join(root, "config.yaml"),
    "--extensions-dir", extensions, "--user-data-dir", data, ws,
  ], { stdio: ["ignore", "pipe", "pipe"], env, detached: false });
  let text = "";
  p.stdout.on("data", (d) => (text += d));
  p.stderr.on("data", (d) => (text += d));
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`;
  const deadline = Date.now() + 60000;
  for (;;) {
    if (p.exitCode !== null) throw new Error(`code-server exited with ${p.exitCode}:\n${text}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`code-server did not answer within 60s:\n${text}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    log: () => text,
    async stop() {
      writeFileSync(logFile, text);
      if (p.exitCode !== null) return;
      const done = new Promise((r) => p.once("exit", r));
      p.kill("SIGTERM");
      await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
      if (p.exitCode === null) p.kill("SIGKILL");
    },
  };
}

// visible waits for a locator to be visible, failing early with the text of
// a dialog (VS Code shows launch errors in a modal dialog) or of an error
// notification.
async function visible(page, locator, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await locator.first().isVisible().catch(() => false)) return;
    const dialog = page.locator(".monaco-dialog-box");
    if (await dialog.isVisible().catch(() => false)) throw new Error(`dialog: ${(await dialog.innerText()).replace(/\s+/g, " ")}`);
    const toast = page.locator(".notifications-toasts .notification-list-item.error, .notifications-toasts .notification-list-item:has(.codicon-error)");
    if (await toast.first().isVisible().catch(() => false)) throw new Error(`error notification: ${(await toast.first().innerText()).replace(/\s+/g, " ")}`);
    if (Date.now() > deadline) throw new Error(`not visible within ${timeout} ms: ${locator}`);
    await page.waitForTimeout(500);
  }
}

// clearNotifications closes the notifications of earlier steps.
async function clearNotifications(page) {
  await runCommand(page, "Notifications: Clear All Notifications").catch(() => {});
  await page.keyboard.press("Escape");
}

// runCommand runs a command through the command palette.
async function runCommand(page, title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 10000 });
  await input.fill(`>${title}`);
  const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
  const row = page.locator(".quick-input-list .monaco-list-row").filter({ has: page.locator(".label-name", { hasText: exact }) }).first();
  await row.waitFor({ state: "visible", timeout: 10000 });
  await row.click();
}

function findFiles(dir, pred) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? findFiles(p, pred) : pred(p) ? [p] : [];
  });
}

async function main() {
  for (const [what, p] of [["code-server", codeServer], ["Chromium", chromiumPath], ["the .vsix", vsix]]) {
    if (!existsSync(p)) {
      console.error(`e2e: ${what} not found at ${p}`);
      console.error("install code-server with shared/tools/install-code-server.sh and build the .vsix with test/run.sh");
      process.exit(2);
    }
  }
  rmSync(screenshots, { recursive: true, force: true });
  mkdirSync(screenshots, { recursive: true });
  const root = mkdtempSync(join(tmpdir(), "heddle-e2e-"));
  const extensions = join(root, "extensions"), data = join(root, "data"), profile = join(root, "chromium");
  const ws = makeWorkspace(root);
  const noPond = addPond(ws);
  userSettings(data);
  let server, context, page;
  const shot = async (name) => {
    const file = join(screenshots, `${name}.png`);
    await page.screenshot({ path: file });
    return file;
  };

  try {
    await step("install the .vsix into code-server", async () => {
      const r = spawnSync(codeServer, ["--extensions-dir", extensions, "--user-data-dir", data, "--config", join(root, "config.yaml"), "--install-extension", vsix], { encoding: "utf8", timeout: 120000 });
      assert.equal(r.status, 0, `code-server --install-extension exited with ${r.status}:\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /successfully installed/);
      assert.ok(readdirSync(extensions).some((d) => d.startsWith("heddledbg.heddle-")), "heddledbg.heddle-* in the extensions directory");
    });

    await step("start code-server on 127.0.0.1", async () => {
      server = await startCodeServer(root, ws, extensions, data);
      return server.url;
    });

    await step("load the workbench in headless Chromium", async () => {
      context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, headless: true, args: chromiumArgs, viewport: { width: 1440, height: 900 } });
      page = context.pages()[0] ?? (await context.newPage());
      // No wait may hang the test: every Playwright action gives up after a minute.
      page.setDefaultTimeout(60000);
      currentPage = page;
      await page.goto(server.url);
      await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 60000 });
      await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: 60000 });
      await page.waitForTimeout(2000);
      return await shot("01-workbench");
    });

    await step("the Heddle view is in Run and Debug", async () => {
      await runCommand(page, "View: Show Run and Debug");
      const header = page.locator(".pane-header", { has: page.locator("h3.title", { hasText: /^Heddle$/ }) });
      await header.waitFor({ state: "visible", timeout: 30000 });
      // Collapse the other views of Run and Debug so that Heddle's has room.
      const others = page.locator(".debug-viewlet .pane-header[aria-expanded=true]", { hasNot: page.locator("h3.title", { hasText: /^Heddle$/ }) });
      for (let i = await others.count(); i > 0; i--) await others.first().click();
      if ((await header.getAttribute("aria-expanded")) === "false") await header.click();
      await page.locator(".welcome-view-content", { hasText: "Explorations of a Heddle debug session" }).waitFor({ state: "visible", timeout: 30000 });
      // Its extension is the one that contributed it: the view exists only if activation parsed package.json.
      return await shot("02-run-and-debug");
    });

    const noLsp = await heddleCan("lsp");
    if (noLsp) {
      skip("code lenses of heddle lsp on bank_test.go", noLsp);
    } else {
      await step("code lenses of heddle lsp on bank_test.go", async () => {
        await page.keyboard.press("Control+P");
        const input = page.locator(".quick-input-widget input");
        await input.waitFor({ state: "visible", timeout: 10000 });
        await input.fill("bank_test.go");
        const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "bank_test.go" }).first();
        await row.waitFor({ timeout: 10000 });
        await row.click();
        await page.locator(".codelens-decoration", { hasText: /explore/i }).first().waitFor({ state: "visible", timeout: 60000 });
        return await shot("03-code-lenses");
      });
    }

    const noDap = await heddleCan("dap");
    if (noDap) {
      skip("debug TestTransfer, Explore from Here, bugs in the Heddle view", noDap);
    } else {
      const toolbar = page.locator(".debug-toolbar");
      const stopped = () => visible(page, toolbar.locator('.action-label[aria-label^="Continue"]'), 180000);
      // The Call Stack pane may start collapsed when the Heddle view takes the room.
      const expandCallStack = async () => {
        const stack = page.locator(".pane-header", { has: page.locator("h3.title", { hasText: /^Call Stack$/i }) });
        if ((await stack.getAttribute("aria-expanded")) === "false") await stack.click();
      };
      // The web view panel: the page served by heddle dap, two iframes deep.
      const app = () => page.frameLocator("iframe.webview.ready").frameLocator("#active-frame").frameLocator("#heddle-frame");
      const openWebView = async () => {
        await runCommand(page, "Heddle: Open Web View");
        await visible(page, page.locator("iframe.webview.ready"), 30000);
        await app().locator("header .brand").waitFor({ state: "visible", timeout: 30000 });
      };
      const closeWebView = async () => {
        const tab = page.locator(".tab", { hasText: /^Heddle: / }).first();
        await tab.hover();
        await tab.locator(".codicon-close").click();
        await page.locator("iframe.webview.ready").waitFor({ state: "detached", timeout: 10000 }).catch(() => {});
      };
      // treeAndBugs checks that the panel shows the exploration's tree and its deadlock, and
      // returns what it shows.
      const treeAndBugs = async (name) => {
        await app().locator("[data-testid=tab-tree]").click();
        let stats;
        for (const deadline = Date.now() + 60000; ; await page.waitForTimeout(500)) {
          stats = await app().locator("body").evaluate(() => window.heddle.treeStats()).catch((err) => ({ error: err.message }));
          if (stats.nodes > 0 && stats.bugs > 0) break;
          if (Date.now() > deadline) throw new Error(`the panel's schedule tree has ${JSON.stringify(stats)}, want nodes and the bug; see ${await shot(`fail-${name}`)}`);
        }
        await page.waitForTimeout(1000);
        const tree = await shot(`${name}-tree`);
        await app().locator("[data-testid=tab-bugs]").click();
        await visible(page, app().locator("main", { hasText: /deadlock/ }), 30000);
        const bugs = await shot(`${name}-bugs`);
        return `tree ${JSON.stringify(stats)}; ${tree}; ${bugs}`;
      };
      const status = () => app().locator("[data-testid=ws-status]").innerText().catch((err) => `(${err.message})`);
      const startDebugging = async () => {
        // The start button of Run and Debug, with "Heddle: TestTransfer" selected.
        await page.locator(".start-debug-action-item .codicon-debug-start").first().click();
        await visible(page, toolbar, 60000);
        await stopped();
      };

      await step("start debugging TestTransfer and stop at a breakpoint in Transfer (bank.go:14)", async () => {
        // A breakpoint after Transfer's first Lock, where both transfer goroutines exist.
        await page.keyboard.press("Control+P");
        await page.locator(".quick-input-widget input").fill("bank.go:14");
        const row = page.locator(".quick-input-list .monaco-list-row", { hasText: /^bank\.go/ }).first();
        await row.waitFor({ timeout: 10000 });
        await row.click();
        await page.waitForTimeout(500);
        await runCommand(page, "Debug: Toggle Breakpoint");
        await visible(page, page.locator(".codicon-debug-breakpoint"), 10000);
        await startDebugging();
        // The launch configuration stops on entry first.
        await toolbar.locator('.action-label[aria-label^="Continue"]').click();
        await expandCallStack();
        await visible(page, page.locator(".debug-call-stack .monaco-list-row", { hasText: /Paused on breakpoint|breakpoint$/i }), 120000);
        return await shot("04-stopped");
      });

      await step("Open Web View before exploring: the panel follows the stop", async () => {
        await openWebView();
        await visible(page, app().locator("[data-testid=ws-status]", { hasText: /^(live|connected)$/ }), 30000);
        return await shot("05-webview-before");
      }, { soft: true });

      await step("Explore from Here in the debug toolbar", async () => {
        const button = toolbar.locator('.action-label[aria-label^="Explore from Here"]');
        await visible(page, button, 10000);
        await button.click();
        await visible(page, page.locator(".monaco-list-row", { hasText: "Exploration 1" }), 30000);
        return await shot("05-exploring");
      }, { soft: true });

      await step("the exploration ends and its deadlock is in the Heddle view", async () => {
        await visible(page, page.locator(".monaco-list-row", { hasText: "deadlock" }), 180000);
        await visible(page, page.locator(".monaco-list-row", { hasText: /Exploration 1.*(complete|budget spent)/ }), 180000);
        return await shot("06-bugs");
      }, { soft: true });

      await step("the panel opened before the exploration shows its tree and its deadlock", async () => {
        return await treeAndBugs("06a-panel-opened-before");
      }, { soft: true });

      await step("the panel opened after the exploration shows its tree and its deadlock", async () => {
        await closeWebView();
        await openWebView();
        return await treeAndBugs("06b-panel-opened-after");
      }, { soft: true });

      await step("Replay in Debugger on the deadlock stops at the bug", async () => {
        const bug = page.locator(".monaco-list-row", { hasText: "deadlock" }).first();
        await bug.hover();
        await bug.locator('.action-label[aria-label="Replay in Debugger"]').click();
        await expandCallStack();
        // The stopped event's description, or VS Code's "Paused on exception".
        await visible(page, page.locator(".exception-widget").or(page.locator(".debug-call-stack .monaco-list-row", { hasText: /Paused on exception|deadlock/i })), 120000);
        return await shot("07-replayed");
      }, { soft: true });

      await step("after Replay in Debugger the panel shows the replayed run", async () => {
        // The page follows the debugger to the replayed run's timeline, whose run ends in the
        // deadlock (the run the session stopped in before ended well).
        await visible(page, app().locator("[data-testid=verdict-kind]", { hasText: /^deadlock$/ }), 60000);
        return await shot("07a-panel-replayed");
      }, { soft: true });

      await step("Step Back from the deadlock goes to the previous line", async () => {
        await expandCallStack();
        // The stopped goroutine's frames are listed under it: at the deadlock, Transfer on
        // bank.go line 15; one line back, line 14.
        const frame = (line) => page.locator(".debug-call-stack .monaco-list-row", { hasText: new RegExp(`Transfer\\s*bank\\.go\\s*${line}\\b`) });
        await visible(page, frame(15), 30000);
        const button = toolbar.locator('.action-label[aria-label^="Step Back"]');
        await visible(page, button, 10000);
        await button.click({ timeout: 10000 });
        await stopped();
        await expandCallStack();
        try {
          await visible(page, frame(14), 30000);
        } catch (err) {
          const rows = (await page.locator(".debug-call-stack .monaco-list-row").allInnerTexts().catch(() => [])).map((t) => t.replace(/\s+/g, " "));
          throw new Error(`after Step Back no frame of Transfer is on bank.go line 14; the call stack shows: ${rows.join(" | ")}; see ${await shot("fail-step-back")}`);
        }
        return await shot("08-stepped-back");
      }, { soft: true });

      await step("Open Web View shows the session's web view in a panel", async () => {
        await runCommand(page, "Heddle: Open Web View");
        await visible(page, page.locator("iframe.webview.ready"), 30000);
        const inner = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
        await inner.locator("#heddle-frame").waitFor({ state: "attached", timeout: 30000 });
        const src = await inner.locator("#heddle-frame").getAttribute("src");
        const app = inner.frameLocator("#heddle-frame");
        await app.locator("header .brand").waitFor({ state: "visible", timeout: 30000 }).catch(() => {});
        await page.waitForTimeout(3000);
        const file = await shot("09-webview");
        const brand = await app.locator("header .brand").isVisible().catch(() => false);
        // innerText waits for an element to appear: the page has an error element only when it
        // shows an error, and waiting for one took the default 60 s.
        const errorEl = app.locator("[data-testid=error]");
        const error = (await errorEl.count()) > 0 ? await errorEl.innerText() : "";
        const body = brand ? "" : await app.locator("body").innerText().catch(() => "(no body)");
        if (!brand || error) throw new Error(`the iframe (${src}) does not show the web view: ${error || body.slice(0, 200)}; see ${file}`);
        // Its live stream is connected: the page follows the debugger.
        await app.locator("[data-testid=ws-status]", { hasText: /^(live|connected)$/ }).waitFor({ state: "visible", timeout: 30000 });
        return `${src}; ${file}`;
      }, { soft: true });

      await step("a new session to a breakpoint in Transfer; Choose Next Goroutine resumes the one picked", async () => {
        // A new session, continued from entry to the breakpoint at bank.go:14.
        await toolbar.locator('.action-label[aria-label^="Stop"]').click();
        await toolbar.waitFor({ state: "hidden", timeout: 30000 });
        await startDebugging();
        await toolbar.locator('.action-label[aria-label^="Continue"]').click();
        await expandCallStack();
        await visible(page, page.locator(".debug-call-stack .monaco-list-row", { hasText: /Paused on breakpoint|breakpoint$/i }), 120000);
        // The panel, still open, follows the new session: its footer is not "offline".
        await visible(page, app().locator("[data-testid=ws-status]", { hasText: /^(live|connected)$/ }), 30000).catch(async (err) => {
          throw new Error(`the panel does not follow the new session: its footer says ${await status()}; ${err.message}; see ${await shot("fail-new-session")}`);
        });
        await shot("09a-new-session");
        await runCommand(page, "Heddle: Choose Next Goroutine");
        const rows = page.locator(".quick-input-list .monaco-list-row", { hasText: /G\d/ });
        await visible(page, rows, 30000);
        const labels = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
        await shot("10-runnable");
        // Pick a goroutine that is not the current one when there is one.
        const other = rows.filter({ hasNotText: "current" }).first();
        const pick = (await other.count()) > 0 ? other : rows.first();
        const id = /G[\d.]+/.exec(await pick.innerText())[0];
        await pick.click();
        await visible(page, page.locator(".debug-call-stack .monaco-list-row", { hasText: /Paused on step|step$/i }), 60000);
        await visible(page, page.locator(".debug-call-stack .monaco-list-row", { hasText: id }), 10000);
        await shot("11-scheduled");
        return `quick pick: ${labels.join("; ")}; picked ${id}`;
      }, { soft: true });

      if (noLsp) {
        skip("debug with heddle on a test with a saved bug offers to replay it", noLsp);
      } else {
        await step("debug with heddle on a test with a saved bug offers to replay it", async () => {
          await toolbar.locator('.action-label[aria-label^="Stop"]').click();
          await toolbar.waitFor({ state: "hidden", timeout: 30000 });
          const saved = findFiles(join(ws, ".heddle"), (p) => p.endsWith(".trace.json.gz") || p.endsWith(".trace.json"));
          assert.ok(saved.length > 0, `the exploration saved no trace under ${join(ws, ".heddle")}`);
          // Without the breakpoint on the way (bank.go:14), the replay stops at the bug.
          await page.keyboard.press("Control+P");
          await page.locator(".quick-input-widget input").fill("bank.go:14");
          await page.locator(".quick-input-list .monaco-list-row", { hasText: /^bank\.go/ }).first().click();
          await page.waitForTimeout(500);
          await runCommand(page, "Debug: Toggle Breakpoint");
          await page.locator(".codicon-debug-breakpoint").first().waitFor({ state: "hidden", timeout: 10000 });
          await page.keyboard.press("Control+P");
          await page.locator(".quick-input-widget input").fill("bank_test.go");
          await page.locator(".quick-input-list .monaco-list-row", { hasText: "bank_test.go" }).first().click();
          // The lens of TestTransfer, the first test of the file.
          await page.locator(".codelens-decoration a", { hasText: /debug with heddle/i }).first().click();
          const rows = page.locator(".quick-input-list .monaco-list-row");
          await visible(page, rows.filter({ hasText: /^Replay .*deadlock-\d+ \(bank\.go:15\)/ }), 30000);
          const labels = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
          await shot("12-debug-known-bug");
          assert.ok(labels.some((l) => l.startsWith("Run a new schedule")), `the quick pick offers ${labels.join("; ")}, want a new schedule too`);
          await rows.filter({ hasText: /^Replay / }).first().click();
          await visible(page, toolbar, 60000);
          await expandCallStack();
          await visible(page, page.locator(".exception-widget").or(page.locator(".debug-call-stack .monaco-list-row", { hasText: /Paused on exception|deadlock/i })), 120000);
          // The panel, still open, follows the replay's session to its deadlock.
          await visible(page, app().locator("[data-testid=ws-status]", { hasText: /^(live|connected)$/ }), 30000).catch(async (err) => {
            throw new Error(`the panel does not follow the replay's session: its footer says ${await status()}; ${err.message}; see ${await shot("fail-replay-session")}`);
          });
          await visible(page, app().locator("[data-testid=verdict-kind]", { hasText: /^deadlock$/ }), 30000);
          await shot("13-replayed-known-bug");
          return `quick pick: ${labels.join("; ")}`;
        }, { soft: true });
      }

      if (noPond) {
        skip(`${pondTest}: next over a call into pond, Explore from Here, Replay in Debugger`, noPond);
      } else {
        // The stopped goroutine's frame of the test, on line of result_test.go.
        const testFrame = (line) => page.locator(".debug-call-stack .monaco-list-row", { hasText: new RegExp(`${pondTest}\\s*result_test\\.go\\s*${line}\\b`) });
        const callStack = async () => (await page.locator(".debug-call-stack .monaco-list-row").allInnerTexts().catch(() => [])).map((t) => t.replace(/\s+/g, " ")).join(" | ");

        await step(`${pondTest}: a session stops at the breakpoint at result_test.go:309 (the second Submit)`, async () => {
          if (await toolbar.isVisible().catch(() => false)) {
            await toolbar.locator('.action-label[aria-label^="Stop"]').click();
            await toolbar.waitFor({ state: "hidden", timeout: 30000 });
          }
          await page.keyboard.press("Control+P");
          await page.locator(".quick-input-widget input").fill("pond/result_test.go:309");
          await page.locator(".quick-input-list .monaco-list-row", { hasText: /^result_test\.go/ }).first().click();
          await page.waitForTimeout(500);
          await runCommand(page, "Debug: Toggle Breakpoint");
          await visible(page, page.locator(".codicon-debug-breakpoint"), 10000);
          await runCommand(page, "Debug: Select and Start Debugging");
          const config = page.locator(".quick-input-list .monaco-list-row", { hasText: `Heddle: pond ${pondTest}` }).first();
          await config.waitFor({ state: "visible", timeout: 10000 });
          await config.click();
          // Building pond for debugging takes a while.
          await visible(page, toolbar, 180000);
          await stopped();
          await expandCallStack();
          await visible(page, page.locator(".debug-call-stack .monaco-list-row", { hasText: /Paused on breakpoint|breakpoint$/i }), 60000);
          await visible(page, testFrame(309), 30000).catch(async (err) => {
            throw new Error(`no frame of ${pondTest} on result_test.go line 309; the call stack shows: ${await callStack()}; ${err.message}; see ${await shot("fail-pond-breakpoint")}`);
          });
          return await shot("20-pond-breakpoint");
        }, { soft: true });

        await step(`${pondTest}: Step Over the call into pond stops on the test's next line, result_test.go:315`, async () => {
          await toolbar.locator('.action-label[aria-label^="Step Over"]').click();
          await stopped();
          await expandCallStack();
          await visible(page, page.locator(".debug-call-stack .monaco-list-row", { hasText: /Paused on step|step$/i }), 60000);
          await visible(page, testFrame(315), 30000).catch(async (err) => {
            throw new Error(`after Step Over no frame of ${pondTest} is on result_test.go line 315; the call stack shows: ${await callStack()}; ${err.message}; see ${await shot("fail-pond-next")}`);
          });
          // The editor shows the test's file, not one of pond's.
          const tab = (await page.locator(".tab.active").first().innerText().catch(() => "")).trim();
          assert.match(tab, /^result_test\.go/, `the active editor is ${tab}, want result_test.go`);
          return await shot("21-pond-next");
        }, { soft: true });

        await step(`${pondTest}: Explore from Here finds a failed assertion of the test`, async () => {
          const button = toolbar.locator('.action-label[aria-label^="Explore from Here"]');
          await visible(page, button, 10000);
          await button.click();
          const exploration = page.locator(".monaco-list-row", { hasText: /Exploration \d+ \(portfolio, 30s\)/ }).last();
          // The extension host may be slow to refresh the view on a loaded machine.
          await visible(page, exploration, 120000);
          await shot("22-pond-exploring");
          await visible(page, page.locator(".monaco-list-row", { hasText: /^fatal/ }), 120000);
          await visible(page, page.locator(".monaco-list-row", { hasText: /Exploration \d+ \(portfolio, 30s\).*(complete|budget spent)/ }), 120000);
          const rows = (await page.locator(".monaco-list-row", { hasText: /^fatal/ }).allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
          const file = await shot("23-pond-bugs");
          return `${rows.length} bugs (${rows.slice(0, 3).join("; ")}); ${file}`;
        }, { soft: true });

        await step(`${pondTest}: Replay in Debugger on the bug stops at it`, async () => {
          const bug = page.locator(".monaco-list-row", { hasText: /^fatal/ }).first();
          await bug.hover();
          await bug.locator('.action-label[aria-label="Replay in Debugger"]').click();
          await expandCallStack();
          // The test's goroutine stops labelled by the bug's kind. The failure is found when
          // the test has returned: the goroutine has no frame of the user's left to show.
          await visible(page, page.locator(".debug-call-stack .monaco-list-row", { hasText: /^G1(?![.\d]).*fatal/i }), 120000);
          // The panel follows the replayed run, which ends in the failed test.
          await visible(page, app().locator("[data-testid=verdict-kind]", { hasText: /^fatal$/ }), 60000).catch(async (err) => {
            throw new Error(`the panel does not show the replayed run's fatal verdict; its footer says ${await status()}; ${err.message}; see ${await shot("fail-pond-replayed")}`);
          });
          await page.waitForTimeout(1000);
          const stack = await callStack();
          return `${stack}; ${await shot("24-pond-replayed")}`;
        }, { soft: true });
      }
    }
  } finally {
    if (page) await shot("99-last").catch(() => {});
    await context?.close().catch(() => {});
    await server?.stop();
    const exthost = findFiles(data, (p) => /exthost\.log$|Heddle\.log$|\d-Heddle\.log$/.test(p));
    for (const f of exthost) {
      const text = readFileSync(f, "utf8");
      const lines = text.split("\n").filter((l) => /heddle/i.test(l)).slice(-20);
      if (lines.length) console.log(`--- ${f} (heddle lines)\n${lines.join("\n")}`);
    }
    const dapLog = join(root, "heddle-dap.log");
    if (results.some((r) => r.status === "FAIL") && existsSync(dapLog)) {
      console.log(`--- ${dapLog} (last 60 lines)\n${readFileSync(dapLog, "utf8").split("\n").slice(-60).join("\n")}`);
    }
    if (process.env.KEEP) console.log(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
    console.log("\nsummary:");
    for (const r of results) console.log(`  ${r.status.padEnd(7)} ${secs(r.ms).padStart(6)}  ${r.name}${r.status !== "ok" && r.detail ? ` — ${r.detail}` : ""}`);
    console.log(`  total ${secs(Date.now() - t0)}`);
  }
}

// HEDDLE_E2E_STRICT=1 (the project's test command) counts a skipped step as a failure.
const strict = process.env.HEDDLE_E2E_STRICT === "1";

main().then(
  () => {
    const failed = results.filter((r) => r.status === "FAIL" || (strict && r.status === "skipped")).length;
    const passed = results.filter((r) => r.status === "ok").length;
    console.log(`${passed} passed, ${failed} failed, ${results.length - passed - failed} skipped`);
    process.exit(failed ? 1 : 0);
  },
  () => {
    const failed = results.filter((r) => r.status === "FAIL").length;
    const passed = results.filter((r) => r.status === "ok").length;
    console.log(`${passed} passed, ${failed} failed, ${results.length - passed - failed} skipped`);
    process.exit(1);
  },
);
