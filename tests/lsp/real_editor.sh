#!/usr/bin/env bash
# The real `torchlint server` under a real editor's own LSP client, configured by editors/:
#   real_editor.sh nvim|emacs TORCHLINT_EXE
# It opens a CUDA training script, waits for torchlint's diagnostics (TL101 and TL202 among them),
# deletes the `.item()` line in the buffer, and waits for the TL101 to go while the TL202 stays.
# Prints "skipped: ..." where the editor (or Eglot) is not installed.
set -euo pipefail
editor="$1"
exe="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
case "$editor" in
  nvim) command -v nvim >/dev/null || { echo "skipped: nvim is not installed (Debian: neovim)"; exit 0; } ;;
  emacs)
    command -v emacs >/dev/null || { echo "skipped: emacs is not installed (Debian: emacs-nox)"; exit 0; }
    emacs --batch --eval "(require 'eglot)" >/dev/null 2>&1 ||
      { echo "skipped: Eglot is not installed (Debian: elpa-eglot)"; exit 0; } ;;
  *) echo "usage: real_editor.sh nvim|emacs TORCHLINT_EXE" >&2; exit 2 ;;
esac
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
project="$tmp/project"
mkdir -p "$project"
printf '[project]\nname = "demo"\n' >"$project/pyproject.toml"
git -C "$project" init -q 2>/dev/null || true  # Eglot's root is a version-control root
cp "$here/data/train_cuda.py" "$project/train.py"
result="$tmp/result.txt"
export TL_REPO="$repo" TL_SERVER="$exe" TL_FILE="$project/train.py" TL_RESULT="$result"
if [ "$editor" = nvim ]; then
  nvim --version | head -n 1
  timeout 120 nvim --headless --clean -n -i NONE -c "luafile $here/real_nvim.lua" >"$tmp/editor.log" 2>&1 || true
else
  emacs --version | head -n 1
  timeout 120 emacs --batch -l "$here/real_emacs.el" >"$tmp/editor.log" 2>&1 || true
fi
if [ ! -f "$result" ]; then
  cat "$tmp/editor.log"
  echo "FAILED: $editor wrote no result"
  exit 1
fi
cat "$result"
# Line 1: the codes before the edit; line 2: after it.
before="$(sed -n 1p "$result")"
after="$(sed -n 2p "$result")"
fail=0
[[ " $before " == *" TL101 "* && " $before " == *" TL202 "* ]] || { echo "FAILED: before the edit: '$before'"; fail=1; }
[[ " $after " != *" TL101 "* && " $after " == *" TL202 "* ]] || { echo "FAILED: after the edit: '$after'"; fail=1; }
[ $fail = 0 ] || { cat "$tmp/editor.log"; exit 1; }
echo "$editor: torchlint's diagnostics shown, and the TL101 dropped after the edit"
