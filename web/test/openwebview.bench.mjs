// Benchmark of "Open Web View": the path the VS Code extension's command takes, from the
// heddle/webview request to heddle dap to a page that shows the session. It builds the heddle
// CLI, starts `heddle dap` on dap/testdata/bank's TestTransfer stopped at a breakpoint, and
// times, in headless Chromium (already running, as VS Code's window is):
//
//   request    heddle/webview's response (the first one starts the server)
//   ready      the page loaded and its first data shown (window.heddle.ready())
//   stop       the page showing the session's stop: the step of the checkpoint selected
//
// once while the session builds the test (the command run right after starting to debug),
// and then at a stop, opens times.
//
//   node test/openwebview.bench.mjs [opens]
//   HEDDLE_BIN=path/to/heddle node test/openwebview.bench.mjs [opens]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchBrowser, percentile, repoDir } from "./harness.mjs";

const opens = Number(process.argv[2] ?? 10);
const tmp = mkdtempSync(join(tmpdir(), "heddle-open-"));
// HEDDLE_BIN, if set, is the heddle to time (another version's, for a comparison).
const heddle = process.env.HEDDLE_BIN || join(tmp, "heddle");
if (!process.env.HEDDLE_BIN) execFileSync("go", ["build", "-o", heddle, "./cmd/heddle"], { cwd: repoDir, stdio: "inherit" });

// dap is a client of one heddle dap process on stdio.
function dap() {
  const proc = spawn(heddle, ["dap"], { cwd: tmp, stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, TMPDIR: tmp } });
  let buf = Buffer.alloc(0), seq = 0;
  const waiting = new Map(), events = [], eventWaiters = [];
  proc.stdout.on("data", (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const n = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString())[1]);
      if (buf.length < end + 4 + n) return;
      const m = JSON.parse(buf.subarray(end + 4, end + 4 + n).toString());
      buf = buf.subarray(end + 4 + n);
      if (process.env.VERBOSE) console.log(`${Math.round(performance.now())} ${m.type} ${m.command ?? m.event} ${m.success ?? ""} ${m.type === "event" ? JSON.stringify(m.body ?? {}).slice(0, 160) : ""}`);
      if (m.type === "response") {
        const w = waiting.get(m.request_seq);
        waiting.delete(m.request_seq);
        if (m.success) w?.resolve(m.body ?? {});
        else w?.reject(new Error(`${m.command}: ${m.message}`));
      } else if (m.type === "event") {
        events.push(m);
        for (const w of eventWaiters.splice(0)) w();
      }
    }
  });
  return {
    request(command, args) {
      const s = ++seq;
      const b = JSON.stringify({ seq: s, type: "request", command, arguments: args });
      proc.stdin.write(`Content-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`);
      return new Promise((resolve, reject) => waiting.set(s, { resolve, reject }));
    },
    async event(name) {
      for (;;) {
        const i = events.findIndex((e) => e.event === name);
        if (i >= 0) return events.splice(i, 1)[0];
        await new Promise((r) => eventWaiters.push(r));
      }
    },
    close() {
      proc.kill("SIGTERM");
    },
  };
}

const bank = join(repoDir, "dap", "testdata", "bank");
const c = dap();
let browser;
const ms = (d) => `${Math.round(d)} ms`;
try {
  browser = await launchBrowser({ width: 800, height: 770 });
  await c.request("initialize", { adapterID: "heddle", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  // Opened while the session builds the test, as right after starting to debug: the command
  // must not wait for the build.
  const t0 = performance.now();
  const launched = c.request("launch", { mode: "test", program: bank, args: ["-test.run", "^TestTransfer$"] }).then(() => performance.now() - t0);
  const { url } = await c.request("heddle/webview", {});
  const request = performance.now() - t0;
  const first = await browser.context.newPage();
  await first.goto(url);
  await first.waitForFunction(() => window.heddle?.ready(), null, { polling: "raf" });
  const ready = performance.now() - t0;
  const launch = await launched;
  console.log(`open during the build: request ${ms(request)}, page ready ${ms(ready)} (the launch's build took ${ms(launch)})`);
  await c.event("initialized");
  await c.request("setBreakpoints", { source: { path: join(bank, "bank.go") }, breakpoints: [{ line: 14 }] });
  await c.request("configurationDone", {});
  await c.event("stopped");
  const stopped = performance.now();
  await first.waitForFunction(() => window.heddle.selectedStep() !== null, null, { polling: "raf", timeout: 120000 });
  console.log(`launch to the first stop: ${ms(stopped - t0)}; the open page shows the stop ${ms(performance.now() - stopped)} after it`);
  await first.close();

  // Opened at a stop, each a new page, as a panel closed and opened again is.
  const rows = [];
  for (let i = 0; i < opens; i++) {
    const page = await browser.context.newPage();
    const start = performance.now();
    const { url } = await c.request("heddle/webview", {});
    const request = performance.now() - start;
    await page.goto(url);
    await page.waitForFunction(() => window.heddle?.ready(), null, { polling: "raf" });
    const ready = performance.now() - start;
    await page.waitForFunction(() => window.heddle.selectedStep() !== null, null, { polling: "raf", timeout: 120000 });
    const stop = performance.now() - start;
    rows.push({ request, ready, stop });
    await page.close();
  }
  for (const k of ["request", "ready", "stop"]) {
    const xs = rows.map((r) => r[k]);
    console.log(`open at a stop, ${k.padEnd(7)}: p50 ${ms(percentile(xs, 50))}, max ${ms(Math.max(...xs))} (${opens} opens)`);
  }
} finally {
  await browser?.close();
  c.close();
  rmSync(tmp, { recursive: true, force: true });
}
