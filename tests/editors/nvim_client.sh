#!/usr/bin/env bash
# Runs editors/nvim/torchlint.lua in a headless Neovim (nvim_client.lua) against a fake server and
# checks the root it found, what the server was told and the buffer after :TorchlintFixAll
# (client_checks.js). Prints "skipped: ..." without nvim or node.
set -euo pipefail
source "$(dirname "$0")/client_test.sh"
require_tools nvim node
make_project
nvim --version | head -n 1
run_client nvim_client nvim --headless --clean -n -i NONE -c "luafile $here/nvim_client.lua"
