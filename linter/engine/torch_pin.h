// Infers the target PyTorch version from the project's own pin, as Ruff infers target-version from
// requires-python. It reads `torch` requirements in pyproject.toml (`[project] dependencies`,
// `[project.optional-dependencies]`, `[tool.poetry.dependencies]`) and requirements*.txt, in the file's
// folder or the closest folder above that has one. The answer is the lowest version the pin allows
// (`torch==1.13.1` -> 1.13, `torch>=2.1,<3` -> 2.1, `torch~=1.12` -> 1.12), because a rule that is
// right for the oldest allowed version is right for all of them. A requirement with no lower bound
// (`torch`, `torch<2`, a URL) is not a pin, and the search goes on upwards.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "linter/engine/rule.h"

namespace tl {

struct TorchPin {
  TorchVersion version;                // the lowest version the pin allows: the target
  std::optional<TorchVersion> newest;  // the newest it allows (`<2.2` -> 2.1); nullopt: no upper bound
  std::filesystem::path source;        // the file the pin is in
  std::string requirement;             // as written, e.g. "torch>=2.1,<3"
};

// The lowest version a PEP 440 specifier set (or a Poetry constraint: ^2.1, ~2.1) allows, as
// major.minor; nullopt when it has no lower bound.
std::optional<TorchVersion> LowestAllowedVersion(std::string_view specifiers);

// The newest version a specifier set or Poetry constraint allows, as major.minor, where "any 1.x" is
// 1.999 (`<2` and `~=1.12`); nullopt when it has no upper bound (`>=1.8`).
std::optional<TorchVersion> HighestAllowedVersion(std::string_view specifiers);

// Parses one PEP 508 requirement line; a pin only when it names torch and has a lower bound.
std::optional<TorchPin> ParseTorchRequirement(std::string_view requirement);

// Makes the pin the rules' target: its floor, with the newer versions it allows (RuleOptions::Allows).
void ApplyTorchPin(const TorchPin& pin, RuleOptions& options);

// Looks for a pin in one file's text; `file` decides the syntax (pyproject.toml or requirements).
std::optional<TorchPin> FindTorchPinInText(std::string_view text, const std::filesystem::path& file);

// Finds the pin for files in a folder. Thread-safe; cached per folder.
class TorchPinResolver {
 public:
  std::optional<TorchPin> ForDirectory(const std::filesystem::path& dir);

 private:
  std::optional<TorchPin> SearchFolder(const std::filesystem::path& dir) const;
  std::mutex mutex_;
  std::map<std::filesystem::path, std::optional<TorchPin>> cache_;
};

}  // namespace tl
