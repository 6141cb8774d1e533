# Sourced by nvim_client.sh and emacs_eglot.sh, which run an editor's client against the fake server
# (fake_server.js) in a throwaway project, then hand what the editor saw and what the server got to
# client_checks.js.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

# Says "skipped: ..." and ends the test where a tool is missing.
require_tools() {
  local tool
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "skipped: $tool is not installed"
      exit 0
    fi
  done
}

# A project in a new temporary folder: $project holds pyproject.toml and pkg/train.py, pkg/model.py;
# $server is the fake server's command, which logs to $tmp/server.log.
make_project() {
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  project="$tmp/project"
  mkdir -p "$project/pkg"
  touch "$project/pyproject.toml"
  printf 'import torch\n' >"$project/pkg/train.py"
  printf 'import torch\n' >"$project/pkg/model.py"
  server="$tmp/fake-torchlint"
  printf '#!/bin/sh\nexec node "%s" "%s" "$@"\n' "$here/fake_server.js" "$tmp/server.log" >"$server"
  chmod +x "$server"
}

# run_client NAME COMMAND...: runs the editor, which writes $tmp/result.json, then checks it.
run_client() {
  local name="$1"
  shift
  TL_REPO="$repo" TL_SERVER="$server" TL_PROJECT="$project" TL_RESULT="$tmp/result.json" TL_TMP="$tmp" \
    timeout 120 "$@" >"$tmp/editor.log" 2>&1 || {
    cat "$tmp/editor.log"
    echo "FAILED: $name did not finish"
    exit 1
  }
  [ -f "$tmp/result.json" ] || { cat "$tmp/editor.log"; echo "FAILED: $name wrote no result"; exit 1; }
  node "$here/client_checks.js" "$name" "$tmp/result.json" "$tmp/server.log" "$project"
}
