#!/usr/bin/env bash
# Runs every fuzz target in the module (or those matching a pattern) for a
# while each, a few side by side, and prints one row per target: its
# package, executions, new interesting inputs and the verdict. A target
# that fails leaves its input under the package's testdata/fuzz/<Target>/,
# where `go test` then replays it as a regression case: commit it with the
# fix. Shrinking a failing input is capped at 10 s: the default minute
# stalls a run on long inputs and looks like a hang.
#
#	scripts/fuzz.sh                 # every target, 10 minutes each, 2 at a time
#	scripts/fuzz.sh -t 30s -j 1 Journal
set -uo pipefail
cd "$(dirname "$0")/.."

fuzztime=10m
jobs=2
while getopts "t:j:" opt; do
  case $opt in
    t) fuzztime=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) echo "usage: $0 [-t fuzztime] [-j parallel targets] [name pattern]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
pattern=${1:-.}

logs=${PEDELEC_FUZZ_LOGS:-$(mktemp -d)}
mkdir -p "$logs"
# "dir target" lines, one per fuzz target.
targets=$(git ls-files '*_test.go' | xargs grep -H -o '^func Fuzz[A-Za-z0-9_]*' |
  sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz.*)$#\1 \2#' | grep -E " .*${pattern}" | sort -u)
if [ -z "$targets" ]; then
  echo "no fuzz target matches $pattern" >&2; exit 2
fi
echo "fuzzing $(echo "$targets" | wc -l) targets for $fuzztime each, $jobs at a time; logs in $logs"

fuzz_one() {
  local dir=$1 name=$2
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 10s -parallel 1 "./$dir" >"$logs/$name.log" 2>&1
  echo $? >"$logs/$name.rc"
  printf '  [%s] %s done (exit %s)\n' "$(date -u +%H:%M:%S)" "$name" "$(cat "$logs/$name.rc")"
}

while read -r dir name; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  fuzz_one "$dir" "$name" &
done <<<"$targets"
wait

printf '\n%-34s %-22s %14s %12s  %s\n' target package execs interesting verdict
bad=0
while read -r dir name; do
  log="$logs/$name.log"
  last=$(grep -E '^fuzz: elapsed' "$log" | tail -1)
  execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
  inter=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
  if [ "$(cat "$logs/$name.rc")" = 0 ]; then verdict=ok; else
    verdict="FAILED: $(grep -m1 -E 'Failing input written to|panic:|--- FAIL' "$log" | cut -c1-120)"
    bad=$((bad + 1))
  fi
  printf '%-34s %-22s %14s %12s  %s\n' "$name" "$dir" "${execs:-?}" "${inter:-?}" "$verdict"
done <<<"$targets"
echo
if [ "$bad" -gt 0 ]; then echo "FAILED: $bad fuzz targets found something (inputs under testdata/fuzz/)"; exit 1; fi
echo "all fuzz targets passed"
