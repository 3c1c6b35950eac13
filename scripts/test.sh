#!/usr/bin/env bash
# Runs every test of the project: Go (engine, instrumenter, CLI, bug-kernel corpus, server)
# and the web view in headless Chromium. It installs what it needs (npm packages; Debian's
# chromium for the browser tests) and works from a fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 -timeout 45m ./...

echo "== web view"
if [[ -x web/test/run.sh ]]; then
	bash web/test/run.sh
else
	echo "web/test/run.sh missing" >&2
	exit 1
fi
