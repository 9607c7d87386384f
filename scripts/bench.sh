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
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./e2e/bench "$@"
