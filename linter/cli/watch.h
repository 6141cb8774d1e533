// `torchlint check --watch`: runs a check pass, then waits with inotify (Linux) for the checked paths to
// change and runs it again, as Ruff's `check --watch` does, without clearing the screen. Folders are
// watched recursively, skipping what discovery always skips (VCS, virtual environment, build and cache
// folders), and subfolders created later join the watch. Only Python sources (.py, .pyi) and the files
// that change a check's configuration (pyproject.toml, torchlint.toml, requirements*.txt) trigger a new
// pass; each pass runs discovery again, so .gitignore and the config's `exclude` decide what it checks.
// Bursts of events (an editor's temporary file and rename) are debounced into one pass, and the files a
// pass wrote itself (--fix) do not trigger another while their content is what it wrote.
// SIGINT ends the watch with exit 0 (during a pass, after that pass; a second SIGINT stops at once); a
// watched path that is deleted ends it with a one-line error and exit 2.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tl::cli {

// One check pass: returns its exit status and adds the files it wrote (absolute paths) to `written`.
using CheckPass = std::function<int(std::vector<std::filesystem::path>& written)>;

// Watches `paths` (files or folders; "." when empty) and runs `pass` once and after each change.
// Returns the process exit status: 0 after SIGINT, 2 when a watched path cannot be watched or goes.
int WatchAndCheck(const std::vector<std::string>& paths, const CheckPass& pass);

}  // namespace tl::cli
