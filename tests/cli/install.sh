#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then checks what it put there: the binary runs, the man page
# renders without warnings and documents every command, and the completions load and complete. The
# shells and groff that are not installed are reported on a "skipped:" line; the rest still runs.
set -euo pipefail
build="$1"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
bash_file="$prefix/share/bash-completion/completions/torchlint"
zsh_file="$prefix/share/zsh/site-functions/_torchlint"
fish_file="$prefix/share/fish/vendor_completions.d/torchlint.fish"
man_file="$prefix/share/man/man1/torchlint.1"
for f in "$prefix/bin/torchlint" "$man_file" "$bash_file" "$zsh_file" "$fish_file"; do
  [[ -s "$f" ]] || fail "cmake --install did not write ${f#"$prefix"/}"
done
[[ "$("$prefix/bin/torchlint" --version)" == "torchlint "* ]] || fail "the installed binary does not run"

# The man page: groff must render it without a warning, and it must name every command.
if command -v groff >/dev/null 2>&1; then
  warnings="$(groff -man -Tutf8 -ww -z "$man_file" 2>&1)"
  [[ -z "$warnings" ]] || fail "groff warns on torchlint.1: $warnings"
  page="$(groff -man -Tutf8 "$man_file" 2>/dev/null | sed 's/.\x08//g')"
  for word in "torchlint check" "torchlint trace diff" "torchlint instrument" "--output-format" "EXIT STATUS" \
    "NO_COLOR" "pyproject.toml" "torchlint.toml"; do
    grep -qF -- "$word" <<<"$page" || fail "the rendered man page lacks \`$word\`"
  done
  if command -v man >/dev/null 2>&1; then
    MANWIDTH=100 man -l "$man_file" 2>/dev/null | grep -q "torchlint check" || fail "man -l does not render torchlint.1"
  fi
  echo "man page: renders, $(wc -l <<<"$page") lines"
else
  echo "skipped: groff is not installed, so torchlint.1 is not rendered"
fi

# bash: the script registers the function, and completes commands, flags and enumerated values.
complete_bash() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _torchlint; echo "${COMPREPLY[*]}"' \
    _ "$bash_file" "$@"
}
bash -c 'source "$1"; complete -p torchlint' _ "$bash_file" | grep -q "_torchlint" || fail "complete -p torchlint"
expect() {
  local want="$1"
  shift
  local got
  got="$(complete_bash "$@")"
  [[ "$got" == "$want" ]] || fail "bash completion of \`$*\`: got \`$got\`, want \`$want\`"
}
expect "check" torchlint ch
expect "rule rules" torchlint rul
expect "--output-format" torchlint check --output-f
expect "json" torchlint check --output-format j
expect "diff" torchlint trace di
expect "markdown" torchlint trace diff --format mark
expect "" torchlint check --config ""
echo "bash completion: 7 completions as expected"

if command -v zsh >/dev/null 2>&1; then
  zsh -n "$zsh_file" || fail "zsh -n _torchlint"
  echo "zsh completion: zsh -n passes"
else
  echo "skipped: zsh is not installed, so _torchlint is not syntax-checked"
fi
if command -v fish >/dev/null 2>&1; then
  fish -n "$fish_file" || fail "fish -n torchlint.fish"
  got="$(fish -c "source '$fish_file'; complete -C 'torchlint ch'" | cut -f1)"
  [[ "$got" == "check" ]] || fail "fish completion of \`torchlint ch\`: got \`$got\`"
  echo "fish completion: fish -n passes, \`torchlint ch\` completes to check"
else
  echo "skipped: fish is not installed, so torchlint.fish is not checked"
fi
echo "install: ok"
