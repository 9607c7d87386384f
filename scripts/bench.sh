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
#                                 # runs each, then every ACP agent's first turn after
#                                 # a pause and warm turn (BenchmarkACPFirstPrompt, N
#                                 # runs each and their medians); slow (20-40 min), needs the agent CLIs
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
  go test ./e2e -run '^$' -bench '^BenchmarkSideBySide$' -benchtime "${n}x" -timeout 90m
  # Zed's adapters have no native form here: their ACP figures alone.
  go test ./e2e -run '^$' -bench 'ACPAgents/(claude-acp|codex-acp)' -benchtime "${n}x" -timeout 30m
  # Every ACP agent, qwen included: the first turn after a pause split at
  # the agent's first model request, and the warm turn; each run's figures
  # and their medians (issue 34 item 6).
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  go test ./e2e -run '^$' -bench 'ACPFirstPrompt' -benchtime "${n}x" -timeout 60m -v | grep -E 'ACPFirstPrompt|#[0-9]+:'
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
exec go run ./e2e/bench "$@"
