// Bundles the extension with esbuild.
//
//   node build.mjs            dist/extension.js (vscode-languageclient bundled in)
//   node build.mjs --tests    out/test/*.test.cjs, with "vscode" replaced by test/vscode-mock.ts
import * as esbuild from "esbuild";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

const common = {
  absWorkingDir: here,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: ["node18"],
  charset: "utf8",
  logLevel: "warning",
};

async function buildExtension() {
  const out = join(here, "dist");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await esbuild.build({
    ...common,
    entryPoints: ["src/extension.ts"],
    outfile: join(out, "extension.js"),
    external: ["vscode"],
    minify: true,
    sourcemap: false,
    legalComments: "eof",
  });
  console.log(`built ${relative(process.cwd(), join(out, "extension.js")) || "dist/extension.js"}`);
}

// The tests import the extension's modules; "vscode" resolves to the mock.
const mockVscode = {
  name: "mock-vscode",
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, () => ({ path: join(here, "test", "vscode-mock.ts") }));
  },
};

async function buildTests() {
  const out = join(here, "out", "test");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const tests = readdirSync(join(here, "test")).filter((f) => f.endsWith(".test.ts"));
  await esbuild.build({
    ...common,
    entryPoints: tests.map((f) => ({ in: join("test", f), out: f.replace(/\.ts$/, "") })),
    outdir: out,
    outExtension: { ".js": ".cjs" },
    external: ["node:*"],
    plugins: [mockVscode],
    sourcemap: "inline",
  });
  console.log(`built ${tests.length} test files into ${relative(process.cwd(), out) || "out/test"}`);
}

if (process.argv.includes("--tests")) await buildTests();
else await buildExtension();
