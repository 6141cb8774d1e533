#!/usr/bin/env bash
# The LSP fuzz target for 10 million executions (tests/fuzz/run.sh runs 20,000 in the test suite).
#   bench/lsp_fuzz.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
time tests/fuzz/run.sh "${1:-10000000}"
