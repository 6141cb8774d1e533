// Which files `torchlint check PATH...` reads. A file named on the command line is always read (as in
// Ruff) unless --force-exclude is given and the config excludes it; folders are walked without
// recursion on the call stack, reading `*.py` and skipping what a Python project never wants linted:
// `.git` and other VCS folders, virtual environments (a folder holding pyvenv.cfg, `.venv`, `venv`),
// build and cache folders, `node_modules`, `__pycache__`, whatever .gitignore files exclude (from the
// enclosing repository's root down) and the config's `exclude`. Symlinks are followed once: a folder
// already visited is skipped, so a symlink loop ends the walk instead of hanging it. Problems with one
// path (missing, dangling link, not a regular file) become one-line errors and the walk goes on.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "linter/core/result.h"

namespace tl {

struct DiscoveredFile {
  std::string display_path;    // as the user will see it: the argument joined with the relative path
  std::filesystem::path path;  // absolute, for config lookup
};

struct PathError {
  std::string path;     // as the user will see it
  std::string message;  // one line that starts with the path
};

struct DiscoveryResult {
  std::vector<DiscoveredFile> files;  // per argument in argument order; inside a folder sorted by path
  std::vector<PathError> errors;
};

struct DiscoveryOptions {
  bool respect_gitignore = true;
  bool force_exclude = false;  // apply `exclude` to files named on the command line too
  // Whether the config in force excludes an absolute path; may be empty (nothing excluded).
  std::function<bool(const std::filesystem::path& path, bool is_dir)> excluded;
};

// Folder names skipped anywhere in a walk (Ruff's default excludes plus `build` and `__pycache__`).
bool IsSkippedFolderName(std::string_view name);

DiscoveryResult DiscoverFiles(const std::vector<std::string>& arguments, const DiscoveryOptions& options);

}  // namespace tl
