// Where tests find their inputs: the source tree, the built binary, and the shared real traces.
// Shared traces are other projects' data, read in place through TORCHLINT_SHARED_TRACES (default
// ../shared/traces beside the checkout); when they are absent a test prints a visible "skipped:" line.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

namespace tl::test {

inline std::filesystem::path SourceDir() { return TL_SOURCE_DIR; }
inline std::filesystem::path TorchlintExe() { return TL_TORCHLINT_EXE; }

// The shared trace folder, or nullopt after printing "skipped: <why>" for `what`.
inline std::optional<std::filesystem::path> SharedTraces(const std::string& what) {
  std::filesystem::path dir;
  if (const char* env = std::getenv("TORCHLINT_SHARED_TRACES"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
    dir = SourceDir() / ".." / "shared" / "traces";
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::cout << "skipped: " << what << " (no shared traces at " << dir.string() << "; set TORCHLINT_SHARED_TRACES)\n";
    return std::nullopt;
  }
  return std::filesystem::weakly_canonical(dir, ec);
}

// A file under the shared traces, or nullopt after printing "skipped:".
inline std::optional<std::filesystem::path> SharedTrace(const std::string& relative) {
  auto dir = SharedTraces(relative);
  if (!dir) return std::nullopt;
  auto file = *dir / relative;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    std::cout << "skipped: " << relative << " is not in the shared traces\n";
    return std::nullopt;
  }
  return file;
}

}  // namespace tl::test
