#!/usr/bin/env bash
# Runs every Pedelec test, installing first whatever the tests need on a fresh
# machine: Debian's chromium (browser tests), the Codex and Claude Code CLIs
# (provider tests, cached in $PEDELEC_TEST_CACHE), the SDK's npm packages.
# Then: gofmt, go vet, the SDK's checks (types, unit tests, dist matches
# source), and go test ./... (unit, golden, fuzz seeds, end-to-end).
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

step "SDK packages"
npm ci --prefix sdk --no-audit --no-fund --loglevel=error

step "gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...

step "SDK: types, type tests, unit tests, dist matches source"
npm --prefix sdk test

step "go test"
go test -count=1 -timeout 60m ./...
