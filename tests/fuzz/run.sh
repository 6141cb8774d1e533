#!/usr/bin/env bash
# Builds the LSP fuzz target with clang-14's libFuzzer, ASan and UBSan, and runs it from the seed corpus:
#   tests/fuzz/run.sh [RUNS]   (default 20000 executions; the bench runs 10,000,000)
# Prints "skipped: ..." where clang-14 or its libFuzzer runtime (libclang-rt-14-dev) is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
runs="${1:-20000}"
command -v clang++-14 >/dev/null || { echo "skipped: clang++-14 is not installed"; exit 0; }
if [ -n "${TL_FUZZ_DIR:-}" ]; then
  out="$TL_FUZZ_DIR"
  mkdir -p "$out"
else
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$repo")
if ! clang++-14 "${flags[@]}" "$here/lsp_fuzz.cpp" "$repo/lsp/transport.cpp" "$repo/lsp/protocol.cpp" \
  "$repo/linter/core/line_index.cpp" -lfmt -o "$out/lsp_fuzz" 2>"$out/build.log"; then
  if grep -q "libclang_rt.fuzzer\|fuzzer.*not found\|cannot find" "$out/build.log"; then
    echo "skipped: libFuzzer's runtime is not installed (Debian: libclang-rt-14-dev)"
    exit 0
  fi
  cat "$out/build.log"
  exit 1
fi
work="$out/corpus"
mkdir -p "$work"
cp "$here"/corpus/* "$work"/
"$out/lsp_fuzz" -runs="$runs" -max_len=8192 -timeout=10 "$work" 2>&1 | tail -n 3
