#!/usr/bin/env bash
# Builds and tests the VS Code extension from a fresh clone, non-interactively:
# installs the npm dependencies from the lockfile, type-checks, runs the unit
# tests, bundles the extension and packages it. The last line printed is the
# path of the .vsix.
set -euo pipefail
cd "$(dirname "$0")/.."

# Install scripts are not needed (esbuild finds its platform package without
# its postinstall) and some would try to download binaries.
if [ -f package-lock.json ]; then
	npm ci --ignore-scripts --no-audit --no-fund
else
	npm install --ignore-scripts --no-audit --no-fund
fi

npx tsc --noEmit -p .
node build.mjs --tests
node --test out/test/*.test.cjs
node build.mjs
mkdir -p out
rm -f out/heddle.vsix
npx vsce package --no-dependencies --skip-license --allow-missing-repository --out out/heddle.vsix
echo "$(pwd)/out/heddle.vsix"
