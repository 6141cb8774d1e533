#!/usr/bin/env bash
# Instruction counts of bare parse, parse + a bare tree walk, check and check + project on one job,
# under valgrind's callgrind: the same ratios as bench/check.sh, without the noise of a shared machine
# (a count does not change with load, though it does not see cache misses either). Slow (about 50x),
# so give it a folder of a few hundred files.
#   bench/check_instructions.sh CORPUS_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
corpus=${1:?usage: bench/check_instructions.sh CORPUS_DIR}
command -v valgrind >/dev/null || { echo "error: valgrind is not installed (apt-get install valgrind)"; exit 2; }
if [ "$build" = build ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target bench_check
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A ir
for mode in parse walk check project; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$mode" "$build/bench/bench_check" --child "$mode" "$corpus" 1 \
    >/dev/null 2>"$out/$mode.log"
  ir[$mode]=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/$mode.log")
done
files=$(find "$corpus" -name '*.py' | wc -l)
echo "corpus: $corpus ($files .py files); instructions on one job"
for mode in parse walk check project; do
  awk -v m="$mode" -v n="${ir[$mode]}" -v p="${ir[parse]}" \
    'BEGIN { printf "%-8s %15.0f instructions  %5.1f%% of parse throughput\n", m, n, 100 * p / n }'
done
