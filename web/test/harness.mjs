// Shared set-up for the browser tests and the benchmark: a real heddle
// server (server/cmd/servefixture) on a random loopback port, and Debian's
// headless Chromium driven by playwright-core.
import assert from "node:assert/strict";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { chromium } from "playwright-core";

export const webDir = join(dirname(fileURLToPath(import.meta.url)), "..");
export const repoDir = join(webDir, "..");
export const fixturesDir = join(webDir, "test", "fixtures");
export const screenshotDir = join(webDir, "test", "screenshots");

// The fixtures name their sources under /src/ (/src/bank/, /src/kernels/),
// as a trace recorded elsewhere would; the copies the server gets point at the
// sources shipped in testdata/ (the kernels' at the corpus itself) so that
// source snippets can be served.
const fixtureSourceRoot = "/src/";
const fixtureKernelRoot = "/src/kernels/";
const fixtureGroupRoot = "/src/groups/";

let binary = "";

function buildServer() {
  if (binary) return binary;
  binary = join(webDir, ".cache", "servefixture");
  execFileSync("go", ["build", "-o", binary, "./server/cmd/servefixture"], { cwd: repoDir, stdio: "inherit" });
  return binary;
}

// copyFixtures copies the fixtures to a fresh directory, pointing their
// source positions at the shipped sources, and returns the directory.
// readExploration parses the exploration file that heddle test writes for a test
// (exploration.json.gz), compressed or not.
export function readExploration(file) {
  const b = readFileSync(file);
  return JSON.parse((b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b).toString("utf8"));
}

export function copyFixtures() {
  const dir = mkdtempSync(join(tmpdir(), "heddle-fixtures-"));
  cpSync(fixturesDir, dir, { recursive: true });
  const src = join(fixturesDir, "testdata") + "/";
  const walk = (d) => readdirSync(d).flatMap((f) => {
    const p = join(d, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
  for (const f of walk(dir).filter((p) => p.endsWith(".json"))) {
    const kernels = join(repoDir, "testdata", "kernels") + "/";
    const groups = join(repoDir, "testdata", "groups") + "/";
    writeFileSync(f, readFileSync(f, "utf8").replaceAll(fixtureKernelRoot, kernels).replaceAll(fixtureGroupRoot, groups).replaceAll(fixtureSourceRoot, src));
  }
  return dir;
}

// startServer runs servefixture on the given files and resolves once it
// prints its URL. publish() sends a stream message through its stdin;
// gotos collects the steps the page asked the debugger to go to. With
// debugger false, no debugger is attached, as under heddle serve.
export async function startServer(files, { debugger: attached = true } = {}) {
  const proc = spawn(buildServer(), [...(attached ? [] : ["-nodebugger"]), ...files], { stdio: ["pipe", "pipe", "inherit"] });
  const gotos = [];
  const lines = createInterface({ input: proc.stdout });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("servefixture printed no URL within 30s")), 30000);
    proc.once("exit", (code) => reject(new Error(`servefixture exited with ${code}`)));
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve(line.trim());
    });
  });
  lines.on("line", (line) => {
    const m = /^goto (\d+)$/.exec(line.trim());
    if (m) gotos.push(Number(m[1]));
  });
  const u = new URL(url);
  return {
    url,
    origin: u.origin,
    token: u.searchParams.get("token"),
    gotos,
    publish(msg) {
      proc.stdin.write(JSON.stringify(msg) + "\n");
    },
    async close() {
      if (proc.exitCode !== null) return;
      const done = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGTERM");
      await done;
    },
  };
}

export const chromiumArgs = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

// launchBrowser starts Chromium with a fresh profile and returns its
// context; close() also removes the profile.
export async function launchBrowser(viewport = { width: 1400, height: 900 }) {
  const profile = mkdtempSync(join(tmpdir(), "heddle-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: chromiumArgs,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// openPage opens url in a new page of browser, waits until the web view is ready, and records
// in errors every error the page throws or logs.
export async function openPage(browser, url, errors) {
  const page = await browser.context.newPage();
  page.on("pageerror", (err) => errors.push(err));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(new Error(m.text()));
  });
  await page.goto(url);
  await page.waitForFunction(() => window.heddle?.ready());
  return page;
}

// heddleTest builds heddle into a new temporary directory and runs heddle test -v with args
// in dir, writing its results under that directory's out. It returns the directory (for the
// caller to remove), the out directory and heddle's standard output; heddle must exit 0.
export function heddleTest(name, dir, args) {
  const tmp = mkdtempSync(join(tmpdir(), `heddle-${name}-`));
  const heddle = join(tmp, "heddle");
  execFileSync("go", ["build", "-o", heddle, "./cmd/heddle"], { cwd: repoDir, stdio: "inherit" });
  const out = join(tmp, "out");
  const r = spawnSync(heddle, ["test", "-v", "-out", out, ...args], { cwd: dir, encoding: "utf8", timeout: 300000 });
  assert.equal(r.status, 0, `heddle test exited with ${r.status} (${r.signal}):\n${r.stdout}\n${r.stderr}`);
  return { tmp, out, stdout: r.stdout };
}
