#!/usr/bin/env bash
# Builds the VS Code extension in editors/vscode, packages it as a .vsix and checks the package: the
# manifest, the compiled extension, and vscode-languageclient with what it needs inside, no sources or
# development packages. Then it activates the packaged extension outside VS Code against a fake server
# (vscode_smoke.js) to see that the client loads from the .vsix and speaks the server's contract.
# Prints "skipped: ..." and exits 0 when npm, the npm registry or a recent enough Node.js is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ext="$here/../../editors/vscode"
cd "$ext"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "skipped: node or npm is not installed"
  exit 0
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
  echo "skipped: @vscode/vsce needs Node.js 20 or newer, this is $(node --version)"
  exit 0
fi

# Install the locked packages when there are none, or when the lock file changed since.
if [ ! -d node_modules ] || ! cmp -s package-lock.json node_modules/.torchlint-lock; then
  if ! timeout 60 npm ping --fetch-retries=0 --fetch-timeout=20000 --loglevel=silent >/dev/null 2>&1; then
    echo "skipped: the npm registry cannot be reached"
    exit 0
  fi
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.torchlint-lock
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

rm -rf out
node_modules/.bin/tsc -p .
echo "ok: tsc -p . compiled the extension"

# vsce copies the production dependencies (vscode-languageclient and its own) into the package.
node_modules/.bin/vsce package --allow-missing-repository -o "$tmp/torchlint.vsix" </dev/null >"$tmp/vsce.log" 2>&1 || {
  cat "$tmp/vsce.log"
  exit 1
}
echo "ok: vsce packaged torchlint.vsix"

python3 - "$tmp/torchlint.vsix" "$tmp/unpacked" <<'PY'
import json, re, sys, zipfile

vsix, unpacked = sys.argv[1], sys.argv[2]
failures = []

def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)

with zipfile.ZipFile(vsix) as z:
    names = set(z.namelist())
    def has(name):
        return name in names
    def under(folder):
        return any(n.startswith(folder) for n in names)

    check(has("extension/package.json"), "extension/package.json is in the package")
    check(has("extension/out/extension.js"), "extension/out/extension.js is in the package")
    check(has("extension/LICENSE.txt") or has("extension/LICENSE"), "the license is in the package")
    check(has("extension/readme.md") or has("extension/README.md"), "the README is in the package")

    manifest = json.loads(z.read("extension/package.json")) if has("extension/package.json") else {}
    check(manifest.get("name") == "torchlint" and manifest.get("publisher") == "torchlint",
          "the manifest names torchlint.torchlint")
    check(manifest.get("main") == "./out/extension.js", "the manifest's main is ./out/extension.js")
    check(manifest.get("engines", {}).get("vscode") == "^1.82.0", "the manifest wants VS Code ^1.82.0")
    check("onLanguage:python" in manifest.get("activationEvents", []), "it activates on Python files")
    contributes = manifest.get("contributes", {})
    commands = {c.get("command") for c in contributes.get("commands", [])}
    check(commands == {"torchlint.pickTrace", "torchlint.restart"}, "its commands are torchlint.pickTrace and torchlint.restart"
          + ("" if commands == {"torchlint.pickTrace", "torchlint.restart"} else f": {sorted(commands)}"))
    settings = set(contributes.get("configuration", {}).get("properties", {}))
    wanted = {f"torchlint.{k}" for k in ("path", "select", "ignore", "targetTorch", "unsafeFixes", "trace")}
    check(settings == wanted, "its settings are path, select, ignore, targetTorch, unsafeFixes and trace"
          + ("" if settings == wanted else f": {sorted(settings)}"))

    if has("extension/out/extension.js"):
        code = z.read("extension/out/extension.js").decode("utf-8")
        check(re.search(r"require\(\"vscode-languageclient/node\"\)", code) is not None,
              "out/extension.js loads vscode-languageclient/node")

    client = "extension/node_modules/vscode-languageclient/"
    check(has(client + "package.json"), "vscode-languageclient is in the package")
    if has(client + "package.json"):
        version = json.loads(z.read(client + "package.json")).get("version", "")
        check(version.startswith("9."), f"vscode-languageclient is of the 9 line: {version}")
        check(has(client + "node.js") and has(client + "lib/node/main.js"), "vscode-languageclient/node is in the package")
    for dep in ("vscode-languageserver-protocol", "vscode-jsonrpc", "vscode-languageserver-types", "minimatch", "semver"):
        check(has(f"extension/node_modules/{dep}/package.json"), f"{dep}, which the client needs, is in the package")

    for left_out in ("extension/src/", "extension/tsconfig.json", "extension/node_modules/typescript/",
                     "extension/node_modules/@vscode/vsce/", "extension/node_modules/@types/", "extension/node_modules/.bin/"):
        check(not under(left_out), f"{left_out} is left out")

    z.extractall(unpacked)

if failures:
    print(f"vscode_extension: {len(failures)} check(s) failed")
    sys.exit(1)
PY

node "$here/vscode_smoke.js" "$tmp/unpacked/extension" "$tmp/smoke"
echo "vscode_extension: passed"
