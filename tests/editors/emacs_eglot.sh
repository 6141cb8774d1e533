#!/usr/bin/env bash
# Byte-compiles and loads editors/emacs/torchlint-eglot.el in a batch Emacs (emacs_eglot.el), runs Eglot
# against a fake server and checks what the server was told and the buffer after
# torchlint-eglot-fix-all (client_checks.js). Prints "skipped: ..." without emacs, Eglot, git or node.
set -euo pipefail
source "$(dirname "$0")/client_test.sh"
require_tools emacs git node
if ! emacs --batch --eval "(require 'eglot)" >/dev/null 2>&1; then
  echo "skipped: Eglot is not installed (Debian: elpa-eglot; built in from Emacs 29)"
  exit 0
fi
make_project
# Eglot's root is project.el's: a version-control root.
git -C "$project" init -q
emacs --version | head -n 1
run_client emacs_eglot emacs --batch -l "$here/emacs_eglot.el"
