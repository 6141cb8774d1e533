#!/usr/bin/env bash
# The real `torchlint server` under the Node client of vscode-languageserver-protocol (node/):
#   node_client.sh TORCHLINT_EXE
# Installs the pinned client library with `npm ci` when it is missing; prints "skipped: ..." where
# Node.js or the npm registry is not there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
exe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
command -v node >/dev/null || { echo "skipped: node is not installed"; exit 0; }
stamp="$here/node/node_modules/.torchlint-lock"
if [ ! -d "$here/node/node_modules/vscode-languageserver-protocol" ] || ! cmp -s "$here/node/package-lock.json" "$stamp"; then
  command -v npm >/dev/null || { echo "skipped: npm is not installed"; exit 0; }
  (cd "$here/node" && npm ci --no-audit --no-fund --loglevel=error) ||
    { echo "skipped: npm ci failed (no registry?)"; exit 0; }
  cp "$here/node/package-lock.json" "$stamp"
fi
cd "$here/node"
timeout 300 node client_test.mjs "$exe" "$repo"
