// The project index around a set of files (the checked files of `torchlint check`, the open documents
// of the editor server): their summaries, then the project modules they import under the project
// root, transitively and bounded, level by level through the import graph with each level summarised
// in parallel, and files whose bytes did not change taken from a SummaryCache. Each folder is listed
// once rather than asked once per import.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "linter/engine/check.h"
#include "linter/semantic/project.h"

namespace tl {

struct IndexSeed {
  semantic::FileSummary summary;  // its `path` is the name the file's findings use
  std::filesystem::path path;     // where the file is (absolute or relative to the working folder)
};

struct ProjectIndexOptions {
  std::filesystem::path root;  // names modules: "util/misc.py" under it is `util.misc`
  size_t jobs = 1;
  uint64_t max_file_bytes = 10'000'000;
  // Modules followed beyond the seeds, at most: a guard against an import graph that pulls in a whole
  // monorepo for one file.
  size_t max_context_files = 2000;
  semantic::SummaryCache* cache = nullptr;  // may be null
  // Take a module whose modification time and size did not change from the cache without reading it
  // (the editor server, on every keystroke); otherwise modules are read and matched by content.
  bool trust_file_stamps = false;
};

struct BuiltIndex {
  std::shared_ptr<semantic::ProjectIndex> index;  // finished
  // Per seed: its module name in the index, or empty when it is not there (two files of one module
  // name: the second is checked alone).
  std::vector<std::string> modules;
  size_t context_files = 0;  // modules read beyond the seeds
};

BuiltIndex BuildProjectIndex(std::vector<IndexSeed> seeds, const ProjectIndexOptions& options);

// The project a path belongs to: the nearest folder at or above it with a project marker
// (pyproject.toml, setup.py, setup.cfg, torchlint.toml, .git), else the folder itself (or the file's).
// A marker in a package (a folder with `__init__.py`: `dinov2/eval/setup.py` is a module) makes the root
// the folder that holds the package's top, where its modules' names start.
std::filesystem::path FindProjectRoot(const std::filesystem::path& checked);

// The root as the builder uses it: absolute, normalised, without a trailing slash.
std::filesystem::path NormalizedRoot(const std::filesystem::path& root);
// The module name of a file under `root` (the longest importable tail of its path); empty when none.
std::string ModuleNameUnder(const std::filesystem::path& path, const std::filesystem::path& root, bool* is_package);

}  // namespace tl
