#!/usr/bin/env bash
# Runs every Pedelec test, installing first whatever the tests need on a fresh
# machine: Debian's chromium (browser tests), the agent CLIs (Codex, Claude
# Code, Gemini CLI, opencode, Copilot CLI: provider tests, cached in
# $PEDELEC_TEST_CACHE), the SDK's npm packages.
# Then: gofmt, go vet, staticcheck, go mod tidy -diff, and, in parallel, the
# SDK's checks (types, unit tests, dist matches source) and go test -race
# ./... (the in-process tier and the end-to-end tier: unit, golden, fuzz
# seeds, the real binary built with -race, Chromium, the agent CLIs).
set -euo pipefail
cd "$(dirname "$0")/.."

export PEDELEC_TEST_CACHE="${PEDELEC_TEST_CACHE:-$HOME/.cache/pedelec-test}"
step() { printf '\n==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

step "chromium"
if ! command -v chromium >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
chromium --version

step "provider CLIs into $PEDELEC_TEST_CACHE/npm"
mkdir -p "$PEDELEC_TEST_CACHE/npm"
cp e2e/npm/package.json "$PEDELEC_TEST_CACHE/npm/package.json"
(cd "$PEDELEC_TEST_CACHE/npm" && npm install --no-audit --no-fund --loglevel=error)
"$PEDELEC_TEST_CACHE/npm/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex" --version
"$PEDELEC_TEST_CACHE/npm/node_modules/.bin/claude" --version
"$PEDELEC_TEST_CACHE/npm/node_modules/.bin/gemini" --version
"$PEDELEC_TEST_CACHE/npm/node_modules/.bin/opencode" --version
"$PEDELEC_TEST_CACHE/npm/node_modules/.bin/copilot" --version
"$PEDELEC_TEST_CACHE/npm/node_modules/.bin/mcp-inspector" --version

step "SDK packages"
npm ci --prefix sdk --no-audit --no-fund --loglevel=error

step "gofmt, go vet, staticcheck, go mod tidy"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
go tool staticcheck ./...
go mod tidy -diff

# The SDK's checks run beside go test: they need one core for a few seconds
# while go test mostly waits on Chromium and the agent CLIs.
step "SDK (types, type tests, unit tests, dist matches source) and go test -race, in parallel"
sdk_log=$(mktemp)
trap 'rm -f "$sdk_log"' EXIT
npm --prefix sdk test >"$sdk_log" 2>&1 &
sdk_pid=$!
go_rc=0
PEDELEC_TEST_RACE=1 go test -race -count=1 -timeout 60m ./... || go_rc=$?
sdk_rc=0
wait "$sdk_pid" || sdk_rc=$?
echo "--- SDK checks (exit $sdk_rc):"
cat "$sdk_log"
if [ "$go_rc" != 0 ] || [ "$sdk_rc" != 0 ]; then
  echo "FAILED: go test exit $go_rc, SDK checks exit $sdk_rc"
  exit 1
fi
