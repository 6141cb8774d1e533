// Running the torchlint executable (and other commands) from tests: the exit code and both output
// streams, captured through files in a scratch folder that is removed afterwards.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "linter/core/fs.h"

namespace tl::test {

// A fresh folder under the system temp folder, removed with the object.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("torchlint-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct RunResult {
  int rc = -1;
  std::string out;
  std::string err;
};

inline std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs `command` with /bin/sh, its streams captured into files in `scratch`.
inline RunResult RunShell(const std::string& command, const std::filesystem::path& scratch) {
  const auto out = scratch / ".stdout", err = scratch / ".stderr";
  const std::string full = command + " >" + ShellQuote(out.string()) + " 2>" + ShellQuote(err.string());
  const int status = std::system(full.c_str());
  RunResult result;
  result.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (auto text = ReadFile(out)) result.out = *text;
  if (auto text = ReadFile(err)) result.err = *text;
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return result;
}

}  // namespace tl::test
