#!/usr/bin/env bash
# Runs every test of the project: Go (engine, instrumenter, CLI, bug-kernel corpus, debug
# adapter, language server, web server), the web view in headless Chromium, the debug adapter
# end to end with Microsoft's DAP test client, and the VS Code extension: its unit tests, its
# package, and an end-to-end run in a real VS Code (code-server). It installs what it needs
# (npm packages; Debian's chromium and bazel-bootstrap; code-server) and works from a fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== go vet"
go vet ./...

# heddle is developed and tested on linux/amd64; these are the other systems it builds for
# (README: "Where heddle runs"). Vet type-checks the tests too, for the system's build tags.
for target in linux/arm64 darwin/amd64 darwin/arm64 windows/amd64; do
	echo "== go vet and go build, $target"
	GOOS=${target%/*} GOARCH=${target#*/} go vet ./...
	GOOS=${target%/*} GOARCH=${target#*/} go build ./...
done

echo "== Bazel, for the sharding test"
if ! command -v bazel >/dev/null; then
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq bazel-bootstrap >/dev/null
fi

echo "== go test"
go test -count=1 -timeout 80m ./...

# The race detector's view of heddle's runtime: its programs build only with -race.
echo "== go test -race, the race detector's programs"
go test -race -count=1 ./internal/racetest

echo "== web view"
bash web/test/run.sh

echo "== debug adapter, end to end"
bash dap/e2e/run.sh

echo "== VS Code extension"
bash vscode-extension/test/run.sh

echo "== VS Code, end to end"
bash scripts/install-code-server.sh
bin="$(mktemp -d)/heddle"
go build -o "$bin" ./cmd/heddle
(cd vscode-extension && HEDDLE_E2E_STRICT=1 HEDDLE_BIN="$bin" node test/e2e.mjs)
