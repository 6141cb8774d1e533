#!/usr/bin/env bash
# The static checker's benchmark: builds the release preset, then prints bare tree-sitter parse
# throughput next to full `torchlint check` throughput (1 and 2 jobs) and peak RSS on a large real
# corpus, the machine's Python standard library unless a folder is given. Figures only; no asserts.
#   bench/check.sh [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if [ "$build" = build ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target torchlint bench_check
fi
corpus=${1:-$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')}
"$build/bench/bench_check" --corpus "$corpus"
echo
# End to end through the CLI (discovery, all CPUs, JSON rendering), as users run it.
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "torchlint check CLI, default jobs: %e s wall, peak RSS %M KB" \
    "$build/torchlint" check --exit-zero --output-format json "$corpus" >/dev/null
fi
