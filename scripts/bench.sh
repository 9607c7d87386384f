#!/usr/bin/env bash
# Measures what a Pedelec tool call costs with the real parts (the release
# build of pedelec, pedelec serve, a headless Chromium page with the SDK),
# prints every figure of issue 15 against its target and writes them into
# docs/performance.md. Loopback only. Needs Go and Chromium
# (PEDELEC_CHROMIUM, default /usr/bin/chromium).
#
#   scripts/bench.sh            # full run, a few minutes
#   scripts/bench.sh -quick     # smoke run, about a minute
#   scripts/bench.sh -out ''    # print only
#   scripts/bench.sh -only validate-tools   # that one figure, printed, in seconds
#   scripts/bench.sh -agents [N]  # issue 25 item 5 instead: gemini, opencode, copilot
#                                 # bare, native and ACP side by side, N (3) alternating
#                                 # runs each; slow (15-30 min), needs the agent CLIs
#                                 # (e2e/testenv); prints the figures and the load average
#   scripts/bench.sh -mcp [N]     # the MCP open path against MCP-B's local relay 2.2.0,
#                                 # N (500) calls per side per round, two rounds alternating
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "-mcp" ]]; then
  # The MCP open path against MCP-B's local relay, pinned in
  # e2e/bench/relay/package.json, in the same run (issue 34 item 4).
  n="${2:-500}"
  cache="${PEDELEC_TEST_CACHE:-$HOME/.cache/pedelec-test}/bench-relay"
  mkdir -p "$cache" && cp e2e/bench/relay/package.json "$cache/package.json"
  (cd "$cache" && npm install --no-audit --no-fund --loglevel=error)
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  go test ./e2e -run '^$' -bench 'MCPRelaySideBySide' -benchtime "${n}x" -timeout 30m
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
if [[ "${1:-}" == "-agents" ]]; then
  n="${2:-3}"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  go test ./e2e -run '^$' -bench 'SideBySide' -benchtime "${n}x" -timeout 90m
  # Zed's adapters have no native form here: their ACP figures alone.
  go test ./e2e -run '^$' -bench 'ACPAgents/(claude-acp|codex-acp)' -benchtime "${n}x" -timeout 30m
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
exec go run ./e2e/bench "$@"
