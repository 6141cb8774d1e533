#!/usr/bin/env bash
# Installs what torchlint needs to build, and nothing that is already there: Debian 12 packages through
# apt-get, and the pinned tree-sitter-python grammar through `npm ci`. Safe to run any number of times.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake ninja-build pkg-config ccache git nodejs npm
          libtree-sitter-dev nlohmann-json3-dev libcli11-dev libfmt-dev doctest-dev
          libtomlplusplus-dev libsimdjson-dev zlib1g-dev libsqlite3-dev python3 python3-jsonschema)

missing=()
for p in "${packages[@]}"; do
  # node and npm may come from outside Debian's packages (a machine image's own Node.js): accept the commands.
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The grammar: reinstall only when the lock file changed since the last install.
stamp=grammars/node_modules/.torchlint-lock
if [ ! -f grammars/node_modules/tree-sitter-python/src/parser.c ] || ! cmp -s grammars/package-lock.json "$stamp"; then
  echo "setup: installing the pinned tree-sitter-python grammar"
  (cd grammars && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp grammars/package-lock.json "$stamp"
fi
