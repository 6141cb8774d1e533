#!/usr/bin/env bash
# Lints torchlint's own C++ sources: formatting with clang-format-14 (.clang-format) and the checks of
# .clang-tidy with clang-tidy-14, the versions Debian 12 ships. The vendored grammar (grammars/) is not ours
# and is never linted. Installs nothing: CI installs the packages clang-format-14 and clang-tidy-14.
#
# Usage: scripts/lint.sh [build-dir]
#   build-dir (default: build) is a CMake build folder of this tree; CMake writes the compile_commands.json
#   there that clang-tidy reads (CMakeLists.txt sets CMAKE_EXPORT_COMPILE_COMMANDS). Configuring is enough:
#   nothing is generated at build time, so clang-tidy needs no compiled objects.
# Environment: LINT_JOBS (default: nproc) parallel clang-tidy processes; LINT_SKIP_TIDY=1 or
#   LINT_SKIP_FORMAT=1 runs only the other half.
# Prints one line per problem (path:line:col: message [check]) and exits 1 if there was any, 2 when it
# could not run (a tool, the build folder or its compile_commands.json missing).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd -P)
build=${1:-build}
jobs=${LINT_JOBS:-$(nproc)}
clang_format=clang-format-14
clang_tidy=clang-tidy-14

die() {
  echo "lint: $*" >&2
  exit 2
}

missing=()
[ "${LINT_SKIP_FORMAT:-0}" = 1 ] || command -v "$clang_format" >/dev/null 2>&1 || missing+=("$clang_format")
[ "${LINT_SKIP_TIDY:-0}" = 1 ] || command -v "$clang_tidy" >/dev/null 2>&1 || missing+=("$clang_tidy")
if [ ${#missing[@]} -gt 0 ]; then
  die "${missing[*]} not found on PATH; on Debian 12 install the package(s) of the same name:" \
      "apt-get install --no-install-recommends ${missing[*]}"
fi
[ -f .clang-format ] || die "no .clang-format at the repository root ($root)"
[ -f .clang-tidy ] || die "no .clang-tidy at the repository root ($root)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
problems=0

# ---- clang-format: every C/C++ file git knows of, except the vendored grammar ----------------------------
if [ "${LINT_SKIP_FORMAT:-0}" != 1 ]; then
  mapfile -d '' sources < <(git ls-files -z -- '*.cpp' '*.cc' '*.h' '*.hpp' ':(exclude)grammars/')
  if [ ${#sources[@]} -gt 0 ]; then
    # --dry-run --Werror reports each place that differs and goes on with the other files.
    "$clang_format" --style=file --dry-run --Werror "${sources[@]}" >"$tmp/format.log" 2>&1 || true
    # Keep the diagnostic lines only (not the quoted source and caret lines).
    grep -E '^[^[:space:]][^:]*:[0-9]+:[0-9]+: (error|warning): ' "$tmp/format.log" |
      sed -E 's/: (error|warning): code should be clang-formatted \[-Wclang-format-violations\]$/: not formatted as .clang-format says [clang-format]/' \
        >"$tmp/format.txt" || true
    # A file clang-format could not read or parse reports something else: show it as it is.
    if [ ! -s "$tmp/format.txt" ] && grep -q . "$tmp/format.log"; then
      sed 's/^/lint: clang-format: /' "$tmp/format.log" >&2
      problems=$((problems + 1))
    fi
    n=$(wc -l <"$tmp/format.txt")
    if [ "$n" -gt 0 ]; then
      cat "$tmp/format.txt"
      files=$(cut -d: -f1 "$tmp/format.txt" | sort -u | wc -l)
      echo "lint: clang-format: $n places in $files files differ; fix with: $clang_format -i <file>..." >&2
      problems=$((problems + n))
    fi
  fi
fi

# ---- clang-tidy: our own translation units of the build folder's compile_commands.json -----------------
if [ "${LINT_SKIP_TIDY:-0}" != 1 ]; then
  [ -d "$build" ] || die "no build folder '$build': configure one first (cmake -S . -B $build -G Ninja)"
  build_abs=$(cd "$build" && pwd -P)
  db="$build_abs/compile_commands.json"
  [ -f "$db" ] || die "no $db: configure the build with CMake (it exports compile commands)"
  # CMake writes one `"file": "<absolute path>"` line per entry. Ours: .cpp files under the tree, outside
  # grammars/ and outside the build folder.
  mapfile -t units < <(sed -nE 's/^[[:space:]]*"file": "(.*)",?[[:space:]]*$/\1/p' "$db" |
    awk -v root="$root/" -v build="$build_abs/" 'index($0, root) == 1 && index($0, root "grammars/") != 1 &&
      index($0, build) != 1 && /\.(cpp|cc)$/' | sort -u)
  [ ${#units[@]} -gt 0 ] || die "$db lists none of this tree's .cpp files (is '$build' a build of $root?)"

  # One clang-tidy per translation unit, $jobs at once, each into its own log so outputs do not interleave.
  # A run that fails without a finding (a crash, an unreadable unit) leaves a .failed note.
  export clang_tidy build_abs tmp
  printf '%s\0' "${units[@]}" | xargs -0 -P "$jobs" -n 1 bash -c '
    log="$tmp/tidy.$(printf %s "$1" | tr / %).log"
    rc=0
    "$clang_tidy" -p "$build_abs" --quiet --extra-arg=-Wno-unknown-warning-option "$1" >"$log" 2>&1 || rc=$?
    if [ "$rc" != 0 ] && ! grep -qE "^/[^:]*:[0-9]+:[0-9]+: (error|warning): " "$log"; then
      { echo "lint: clang-tidy failed on $1 (exit $rc):"; tail -n 20 "$log" | sed "s/^/lint:   /"; } >"$log.failed"
    fi' _
  # A header's findings come once per translation unit that includes it: print each once, path relative
  # to the root, without clang-tidy's "error:" prefix and ",-warnings-as-errors" tag.
  cat "$tmp"/tidy.*.log |
    grep -E '^/[^:]*:[0-9]+:[0-9]+: (error|warning): .*\]$' |
    sed -E -e "s#^$root/##" -e 's/: (error|warning): /: /' -e 's/,-warnings-as-errors\]$/]/' |
    sort -u -t: -k1,1 -k2,2n -k3,3n -k4 >"$tmp/tidy.txt" || true
  n=$(wc -l <"$tmp/tidy.txt")
  cat "$tmp/tidy.txt"
  problems=$((problems + n))
  for failed in "$tmp"/tidy.*.failed; do
    [ -e "$failed" ] || continue
    cat "$failed" >&2
    problems=$((problems + 1))
  done
  if [ "$n" -gt 0 ]; then
    echo "lint: clang-tidy: $n findings in ${#units[@]} translation units (see .clang-tidy)" >&2
  fi
fi

if [ "$problems" -gt 0 ]; then
  echo "lint: FAILED: $problems problems" >&2
  exit 1
fi
echo "lint: clean"
