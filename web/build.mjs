// Builds the web view into dist/ and records the hash of its sources in
// dist/source.sha256, which a Go test compares with the sources.
//
//   node build.mjs            build into dist/
//   node build.mjs --check    build elsewhere and fail if dist/ differs
import * as esbuild from "esbuild";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
// The files outside src/ that change the bundle; web/sourcehash.go lists
// the same ones.
const inputs = ["build.mjs", "package.json", "package-lock.json", "tsconfig.json"];
const placeholder = "{{HEDDLE_TOKEN}}";

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]);
}

// sourceHash matches SourceHash in web/sourcehash.go.
export function sourceHash() {
  const paths = [...inputs, ...walk(join(here, "src")).map((p) => relative(here, p).split(sep).join("/"))];
  paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = paths.map((p) => `${p} ${createHash("sha256").update(readFileSync(join(here, p))).digest("hex")}\n`).join("");
  return createHash("sha256").update(lines).digest("hex");
}

async function build(out) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await esbuild.build({
    absWorkingDir: here,
    entryPoints: [{ in: "src/main.ts", out: "app" }, { in: "src/style.css", out: "app" }],
    outdir: out,
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2022"],
    charset: "utf8",
    legalComments: "eof",
    logLevel: "warning",
  });
  const index = readFileSync(join(here, "src/index.html"), "utf8");
  if (!index.includes(placeholder)) throw new Error(`src/index.html: no ${placeholder} placeholder`);
  copyFileSync(join(here, "src/index.html"), join(out, "index.html"));
  writeFileSync(join(out, "source.sha256"), sourceHash() + "\n");
}

function same(a, b) {
  const list = (d) => walk(d).map((p) => relative(d, p)).sort();
  const fa = list(a), fb = list(b);
  if (fa.join("\n") !== fb.join("\n")) return `files differ: built ${fa.join(", ")}; committed ${fb.join(", ")}`;
  for (const f of fa) {
    if (!readFileSync(join(a, f)).equals(readFileSync(join(b, f)))) return `${f} differs`;
  }
  return "";
}

const dist = join(here, "dist");
if (process.argv.includes("--check")) {
  const tmp = join(here, ".cache", "check");
  await build(tmp);
  const diff = existsSync(dist) ? same(tmp, dist) : "dist/ is missing";
  if (diff) {
    console.error(`web/dist is not what the sources build: ${diff}. Run npm run build in web/.`);
    process.exit(1);
  }
  console.log("web/dist is current");
} else {
  await build(dist);
  console.log(`built ${relative(process.cwd(), dist) || "."}`);
}
