#!/usr/bin/env bash
# Builds and tests the web view from a fresh clone, non-interactively:
# installs the npm dependencies and Chromium if missing, type-checks,
# rebuilds the bundle and fails if the committed web/dist differs from it,
# runs the Go tests of the server and the embedded bundle, then the
# browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
export DEBIAN_FRONTEND=noninteractive

npm ci --no-audit --no-fund

if [ ! -x /usr/bin/chromium ]; then
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update
	$sudo apt-get install -y chromium
fi

npx tsc --noEmit -p .
node build.mjs --check
(cd .. && go vet ./server/... ./web/ && go test ./server/... ./web/)
node --test test/web.test.mjs
node --test test/views.test.mjs
node --test test/bigtree.test.mjs
node --test test/real.test.mjs
node --test test/cli.test.mjs
node --test test/live.test.mjs
node --test test/group.test.mjs
node --test test/skips.test.mjs
node --test test/unexplorable.test.mjs
node --test test/subtests.test.mjs
