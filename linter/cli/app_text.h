// What is derived from the CLI11 command tree itself rather than written by hand: the man page, the bash,
// zsh and fish completions (generated at build time with `torchlint --write-share DIR` and installed by
// `cmake --install`), and the "did you mean" suggestions for a mistyped command or flag. Reading the same
// App that parses the command line keeps them from drifting from what the binary accepts.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/result.h"

namespace tl::cli {

// torchlint.1: name, synopsis, every command with its options and help strings, exit status,
// environment and files, in man(7) macros.
std::string RenderManPage(const CLI::App& app, std::string_view version);

enum class Shell { kBash, kZsh, kFish };

// A completion script for `shell`: commands, flags, the values of enumerated options (CLI::IsMember)
// and file names for everything else that takes a value.
std::string RenderCompletion(const CLI::App& app, Shell shell);

// Writes the man page and the completions under `dir` in the layout of PREFIX/share:
// man/man1/torchlint.1, bash-completion/completions/torchlint, zsh/site-functions/_torchlint and
// fish/vendor_completions.d/torchlint.fish.
Status WriteShareFiles(const CLI::App& app, std::string_view version, const std::filesystem::path& dir);

// The optimal string alignment distance (Levenshtein plus transpositions of neighbours).
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when it is close enough to be a typo (distance at most a third of
// the word's length, and at least 1), else nothing.
std::optional<std::string> NearestName(std::string_view word, const std::vector<std::string>& candidates);

// For argv that names an unknown command, or an unknown `--flag` of the command it names, the one-line
// usage error with the nearest match ("unknown command `chek`; did you mean `check`?"); else nothing.
std::optional<std::string> UnknownNameError(const CLI::App& app, int argc, const char* const* argv);

}  // namespace tl::cli
