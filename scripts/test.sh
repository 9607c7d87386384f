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

# Three jobs run side by side, because the slow ones mostly wait: the SDK's
# checks (one core for a few seconds); the agent-CLI tests (each CLI turn
# waits on a scripted model server and on node start-up); everything else
# (the in-process tier, the core and browser end-to-end tests). Every test
# runs in exactly one job: the CLI job takes the tests whose names say
# Gemini, Opencode, Copilot, Claude or Codex, the other job skips them.
step "SDK checks, the agent-CLI tests and all other tests (go test -race), in parallel"
cli_tests='Gemini|Opencode|Copilot|Claude|Codex'
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
npm --prefix sdk test >"$logs/sdk" 2>&1 &
sdk_pid=$!
PEDELEC_TEST_RACE=1 go test -race -count=1 -timeout 60m -run "$cli_tests" ./e2e ./runtime/provider >"$logs/cli" 2>&1 &
cli_pid=$!
core_rc=0
PEDELEC_TEST_RACE=1 go test -race -count=1 -timeout 60m -skip "$cli_tests" ./... || core_rc=$?
cli_rc=0
wait "$cli_pid" || cli_rc=$?
sdk_rc=0
wait "$sdk_pid" || sdk_rc=$?
echo "--- agent-CLI tests (exit $cli_rc):"
cat "$logs/cli"
echo "--- SDK checks (exit $sdk_rc):"
cat "$logs/sdk"
if [ "$core_rc" != 0 ] || [ "$cli_rc" != 0 ] || [ "$sdk_rc" != 0 ]; then
  echo "FAILED: go test exit $core_rc, agent-CLI tests exit $cli_rc, SDK checks exit $sdk_rc"
  exit 1
fi
