// What several subcommands share on their command lines: the rule selectors (`--select`, `--ignore`),
// read the same way by `check` and `report`, `--color`, `-o/--output`, and the one-line usage error (exit 2).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "linter/core/result.h"

namespace tl::cli {

// Prints "error: MESSAGE" and returns 2, the exit status of a usage or input error.
int UsageError(const std::string& message);

// `-o/--output`: writes `text` to `path`, or to stdout when `path` is empty. Returns false after one
// line on stderr when the file cannot be written.
bool WriteOutput(const std::string& path, std::string_view text);

// `--color auto|always|never`: whether the text output is coloured. auto colours a terminal, unless
// NO_COLOR is set (and not empty) or TERM is dumb. AddColorOption declares the flag the same way for
// every command that has it.
bool UseColor(const std::string& mode);
CLI::Option* AddColorOption(CLI::App* app, std::string& color);

// --select and --ignore take one value per occurrence, split at commas, so that `--select TL1 train.py`
// leaves train.py an argument of its own.
void AddSelectorOptions(CLI::App* app, std::vector<std::string>& select, std::vector<std::string>& ignore,
                        const std::string& select_help, const std::string& ignore_help);

// The selectors as written, normalised (TL1, TL201, ...); empty ones are skipped. The error names `flag`.
Result<std::vector<std::string>> NormalizeSelectors(const std::vector<std::string>& raw, std::string_view flag);

}  // namespace tl::cli
