// Runs the built torchlint binary the way a user or CI does (a shell, a working folder, stdin from a
// file) and captures stdout, stderr and the exit code; compares them with golden files, which
// TORCHLINT_UPDATE_GOLDENS=1 rewrites after an intended change. Also makes temporary project folders.
#pragma once

#include <stdlib.h>  // NOLINT(modernize-deprecated-headers): POSIX mkdtemp
#include <sys/wait.h>

#include <doctest/doctest.h>
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/paths.h"

namespace tl::test {

inline std::string ReadText(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteText(const std::filesystem::path& file, std::string_view text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "torchlint-cli-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = std::filesystem::canonical(pattern);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path Write(std::string_view relative, std::string_view text) const {
    WriteText(path_ / relative, text);
    return path_ / relative;
  }

 private:
  std::filesystem::path path_;
};

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  // The form golden files hold.
  std::string Transcript() const { return fmt::format("exit: {}\n--- stdout\n{}--- stderr\n{}", exit_code, out, err); }
};

inline std::string ShellQuote(std::string_view arg) {
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs torchlint with `args` in `cwd`, feeding `stdin_text` on standard input. NO_COLOR is unset and
// stdout is a file, so the output is what CI sees.
inline RunResult RunTorchlint(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                              std::string_view stdin_text = "", std::string_view env = "") {
  TempFolder io;
  const auto in = io.Write("stdin", stdin_text);
  std::string command = fmt::format("cd {} && env -u NO_COLOR {} {}", ShellQuote(cwd.string()), env,
                                    ShellQuote(TorchlintExe().string()));
  for (const auto& arg : args) command += " " + ShellQuote(arg);
  command += fmt::format(" <{} >{} 2>{}", ShellQuote(in.string()), ShellQuote((io.path() / "out").string()),
                         ShellQuote((io.path() / "err").string()));
  const int status = std::system(command.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadText(io.path() / "out");
  result.err = ReadText(io.path() / "err");
  return result;
}

inline std::filesystem::path CliDir() { return SourceDir() / "tests" / "cli"; }
// The checked-in inputs of the CLI tests (tests/cli/inputs: demo/, configs, ...).
inline std::filesystem::path CliInputs() { return CliDir() / "inputs"; }

// Compares `actual` with tests/cli/golden/<name>, or rewrites it when TORCHLINT_UPDATE_GOLDENS is set.
inline void CheckGolden(const std::string& name, const std::string& actual) {
  const auto file = CliDir() / "golden" / name;
  const char* update = std::getenv("TORCHLINT_UPDATE_GOLDENS");
  if (update != nullptr && *update != '\0' && std::string_view(update) != "0") {
    WriteText(file, actual);
    MESSAGE("updated golden file " << file.string());
    return;
  }
  INFO("golden file " << file.string() << " differs; if the change is intended, rerun with TORCHLINT_UPDATE_GOLDENS=1");
  CHECK(ReadText(file) == actual);
}

}  // namespace tl::test
