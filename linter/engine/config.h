// Configuration, as Ruff users expect it: `[tool.torchlint]` in pyproject.toml or the top level of
// torchlint.toml (which wins when both sit in one folder; a pyproject.toml without the table is not a
// config). The closest config to a file applies, with no merging between files; `--config` makes one
// file apply to everything, and command-line flags override whatever the file says. Keys: `select`,
// `ignore`, `per-file-ignores`, `target-torch`, `exclude`, `unsafe-fixes`, and the options the rules declare
// (`min-dim`). Patterns
// (`exclude`, the keys of `per-file-ignores`) use .gitignore syntax relative to the config's folder. Unknown keys and
// bad values are errors naming the file and key, since a silently ignored typo disables a check.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/result.h"
#include "linter/engine/check.h"
#include "linter/engine/path_pattern.h"
#include "linter/engine/rule.h"
#include "linter/engine/torch_pin.h"

namespace tl {

struct PerFileIgnore {
  PathPattern pattern;
  std::vector<std::string> codes;
};

struct Config {
  std::filesystem::path path;  // the file it came from; empty for the built-in defaults
  std::filesystem::path root;  // its folder: patterns are relative to it
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> ignore;
  std::vector<PerFileIgnore> per_file_ignores;
  std::optional<TorchVersion> target_torch;
  std::map<std::string, int64_t, std::less<>> rule_options;  // declared options of the rules (`min-dim`)
  std::vector<PathPattern> exclude;
  // `unsafe-fixes = true`: --fix and --diff apply unsafe fixes too. A run-wide setting, as in Ruff: the
  // command reads it from the config of the working folder (or --config), not file by file.
  std::optional<bool> unsafe_fixes;

  // `path` is absolute. True when an `exclude` pattern matches it or one of its parent folders.
  bool Excludes(const std::filesystem::path& path, bool is_dir) const;
  // Codes that `per-file-ignores` switches off for `path` (absolute).
  std::vector<std::string> IgnoresFor(const std::filesystem::path& path) const;
};

// Parses a config from TOML text. `file` names it in errors and gives the root folder. For a
// pyproject.toml without [tool.torchlint] the result is nullopt.
Result<std::optional<Config>> ParseConfig(std::string_view toml_text, const std::filesystem::path& file);
Result<std::optional<Config>> LoadConfigFile(const std::filesystem::path& file);

// Checks a rule selector ("TL1", "TL201", "ALL"); the error says what to do instead. Selectors are
// upper-cased first, so "tl1" works.
Result<std::string> NormalizeSelector(std::string_view selector);

// What the command line says; it overrides every config file.
struct CliOverrides {
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> ignore;
  std::optional<TorchVersion> target_torch;
  std::map<std::string, int64_t, std::less<>> rule_options;  // `--min-dim 32`: the rules' declared options
};

// Ruff's layering for two levels: a `select` on the command line replaces the config's select and its
// ignores; otherwise the config's select applies and both ignore lists are switched off.
RuleSelection ResolveSelection(const Config& config, const CliOverrides& cli, const std::filesystem::path& file);

// Where a file's target PyTorch came from, for the note that says so.
struct TargetTorchSource {
  enum Kind { kCli, kConfig, kTrace, kPin, kUnknown } kind = kUnknown;
  std::optional<TorchPin> pin;  // kPin
};

// Fills `options` for the file at `absolute`: the rule selection (ResolveSelection), the target
// PyTorch (the command line, else the config, else the trace's, else a pin beside the file, else
// unknown and inferred), and the rules' options (the config's, then the command line's).
TargetTorchSource ConfigureOptions(const Config& config, const CliOverrides& cli, const std::filesystem::path& absolute,
                                   const std::optional<TorchVersion>& trace_torch, TorchPinResolver& pins,
                                   CheckOptions& options);

// One line of `check --show-settings FILE`: a setting's resolved value for that file and where it came
// from ("default", the config file, "the command line", a torch pin or the trace).
struct ResolvedSetting {
  std::string key;     // "select", "target-torch", "min-dim"
  std::string value;   // as TOML would write it: ["TL1"], "2.1", 64
  std::string source;  // `show_path` renders the paths in it
};

// The settings in force for the file at `absolute`, in a fixed order: select, ignore, per-file-ignores
// (the codes they switch off for this file), target-torch, exclude, then each rule option in rule order.
// Resolved the way ConfigureOptions resolves them, so the two cannot disagree.
std::vector<ResolvedSetting> ExplainSettings(const Config& config, const CliOverrides& cli,
                                             const std::filesystem::path& absolute,
                                             const std::optional<TorchVersion>& trace_torch, TorchPinResolver& pins,
                                             const std::function<std::string(const std::filesystem::path&)>& show_path);

// Finds the config in force for a folder. Thread-safe; results are cached per folder.
class ConfigResolver {
 public:
  // `forced` is the --config file, which then applies everywhere.
  explicit ConfigResolver(std::optional<Config> forced = std::nullopt);

  // The config in force for files in `dir` (absolute): the closest torchlint.toml, or pyproject.toml
  // with [tool.torchlint], in `dir` or above; the defaults when there is none. An unreadable or
  // invalid config is an error.
  Result<std::shared_ptr<const Config>> ForDirectory(const std::filesystem::path& dir);

 private:
  std::shared_ptr<const Config> forced_;
  std::shared_ptr<const Config> defaults_;
  std::mutex mutex_;
  std::map<std::filesystem::path, Result<std::shared_ptr<const Config>>> cache_;
};

}  // namespace tl
