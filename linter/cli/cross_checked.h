// Scripts checked and their findings cross-checked against a trace, as `report` and `trace diff --check`
// do it: the target PyTorch taken from the trace unless given, every file found under the paths checked
// with the facts the cross-check needs, and each rule finding given its evidence. Errors and notes go
// to stderr, one line each, as the commands print them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crosscheck/crosscheck.h"
#include "crosscheck/ranking.h"
#include "linter/core/source_file.h"
#include "linter/engine/check.h"

namespace tl::cli {

struct CrossChecked {
  std::vector<std::unique_ptr<SourceFile>> sources;  // the findings point into these
  std::vector<RankedFinding> findings;               // rule findings only (no parse-error notices), unranked
  std::vector<CheckedScript> scripts;
  // With a second trace: each finding's evidence on it (parallel to `findings`), the same finding judged
  // again, as `trace diff --check` compares BEFORE with AFTER.
  std::vector<std::optional<Evidence>> second;
};

// Sets options.rule_options.target_torch from `target_torch` ("2.1"), else from what the trace shows
// (with a note on stderr), else marks it inferred. An error message for a malformed version.
std::optional<std::string> ResolveTargetTorch(const std::string& target_torch, const CrossCheck& cc,
                                              CheckOptions& options, Lang lang = Lang::kEnglish);

// Checks every Python file under `paths` and annotates its findings with `cc`. Unreadable files are
// reported on stderr and skipped; nullopt when paths were given and no file could be found at all.
// With `second`, each file is judged again on it, under the name `second_paths` gives it (file for file,
// when not empty): the AFTER trace of `trace diff` is often the fixed twin's, and the cross-check judges
// a script only against traces recorded from a file of its name.
std::optional<CrossChecked> CheckAgainstTrace(const std::vector<std::string>& paths, const CrossCheck& cc,
                                              CheckOptions options, const CrossCheck* second = nullptr,
                                              const std::vector<std::string>& second_paths = {});

}  // namespace tl::cli
