#!/usr/bin/env bash
# End-to-end test of `heddle dap` with @vscode/debugadapter-testsupport's DebugClient.
#
# From a fresh clone: bash dap/e2e/run.sh
# Needs go, node (>= 18.18) and npm. Builds the heddle CLI into a temporary directory,
# installs the pinned npm packages (npm ci), and runs test/heddle-dap.test.js with mocha.
# Extra arguments go to mocha. HEDDLE_E2E_VERBOSE=1 logs every DAP message.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

for tool in go node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "dap/e2e/run.sh: $tool is not installed" >&2
    exit 2
  fi
done

TMP="$(mktemp -d "${TMPDIR:-/tmp}/heddle-e2e-run.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

echo "== building heddle"
(cd "$root" && go build -o "$TMP/heddle" ./cmd/heddle)

echo "== installing the test's npm packages"
cd "$here"
if [[ -f package-lock.json ]]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi

echo "== running the end-to-end test"
HEDDLE_BIN="$TMP/heddle" npx --no-install mocha --timeout 600000 --slow 60000 'test/*.test.js' "$@"
