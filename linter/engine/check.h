// The engine's entry point for one file: parse, build the semantic model, run the selected rules,
// apply `# noqa` suppressions, and return the diagnostics sorted by position. The parallel driver,
// --fix, the LSP server and the cross-check all call CheckSource; nothing else runs rules.
#pragma once

#include <string>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/source_file.h"
#include "linter/engine/rule.h"

namespace tl {

// Which rules run: codes or prefixes ("TL1", "TL201"); empty select means all rules.
struct RuleSelection {
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool Enabled(std::string_view code) const;
};

struct CheckOptions {
  RuleSelection selection;
  RuleOptions rule_options;
};

struct FileReport {
  std::vector<Diagnostic> diagnostics;  // sorted by range.begin, then code
  bool parse_error = false;             // a `parse-error` notice is among the diagnostics
};

FileReport CheckSource(const SourceFile& file, const CheckOptions& options);

}  // namespace tl
