#!/usr/bin/env bash
# Checks editors/helix/languages.toml: it parses as TOML and defines the torchlint server as
# `torchlint server` with a config table, and Python's servers in Helix 23.10's syntax. Helix itself is
# not run. Prints "skipped: ..." without a python3 that has tomllib (3.11 or newer).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! python3 -c 'import tomllib' >/dev/null 2>&1; then
  echo "skipped: python3 with tomllib (3.11 or newer) is not installed"
  exit 0
fi
python3 - "$here/../../editors/helix/languages.toml" <<'PY'
import sys, tomllib

with open(sys.argv[1], "rb") as f:
    config = tomllib.load(f)
failures = 0

def check(ok, what):
    global failures
    print(("ok: " if ok else "FAILED: ") + what)
    failures += not ok

server = config.get("language-server", {}).get("torchlint", {})
check(server.get("command") == "torchlint" and server.get("args") == ["server"], "[language-server.torchlint] runs `torchlint server`")
check(isinstance(server.get("config"), dict), "it has a config table, sent as initializationOptions")
known = {"select", "ignore", "targetTorch", "unsafeFixes", "trace"}
check(set(server.get("config", {})) <= known, "the config holds only settings the server reads")
python = [l for l in config.get("language", []) if l.get("name") == "python"]
check(len(python) == 1, "one [[language]] for python")
servers = python[0].get("language-servers", []) if python else []
check("torchlint" in servers and "language-server" not in python[0], "python lists torchlint in language-servers (the 23.10 syntax)")
if failures:
    print(f"helix_languages: {failures} check(s) failed")
    sys.exit(1)
print("helix_languages: passed")
PY
