// The engine's entry point for one file: parse, build the semantic model, run the selected rules,
// apply `# noqa` suppressions, and return the diagnostics sorted by position. The parallel driver,
// --fix, the LSP server and the cross-check all call CheckSource; nothing else runs rules.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/source_file.h"
#include "linter/engine/rule.h"
#include "linter/semantic/project.h"

namespace tl::ts {
class Tree;
}

namespace tl {

// The project a file is checked in: an index and the file's module name in it.
struct ProjectView {
  std::shared_ptr<const semantic::ProjectIndex> index;
  std::string module;
};

// Which rules run: codes or prefixes ("TL1", "TL201", "ALL"); an empty select means every rule that is
// enabled by default (RuleMeta::default_enabled). An ignore wins over any select.
struct RuleSelection {
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool Enabled(std::string_view code, bool default_enabled = true) const;
  bool Enabled(const RuleMeta& meta) const { return Enabled(meta.code, meta.default_enabled); }
};

struct CheckOptions {
  RuleSelection selection;
  RuleOptions rule_options;
  bool collect_facts = false;    // fill FileReport::facts (the cross-check asks for them)
  bool collect_summary = false;  // fill FileReport::summary (the project index is built from them)
  // Whether that summary carries its text's hash (FileSummary::content_hash, a summary cache's key). A
  // project pass that keeps no summary cache (the command line's) hashes only the texts it may read again.
  bool hash_summary = true;
  // The project index the file's checks read (cross-file helpers, a device set in another file), and
  // the file's module name in it. Null: the file is checked alone.
  const semantic::ProjectIndex* project = nullptr;
  std::string module;
  // Asked, when set, with the file's own summary (from the same parse) before the rules run, for the
  // project to check it in; overrides `project`. The editor server builds the index around the open
  // documents this way, so that the file's current imports are the ones resolved.
  std::function<ProjectView(const semantic::FileSummary&)> project_for;
  // With `project_for`: the summary to ask it with instead of the one this parse gives, which is then
  // not made (the editor server's last summary of the file, so that the file's own summary is made after
  // its diagnostics are published, not before). Null: the summary of this parse.
  const semantic::FileSummary* own_summary = nullptr;
};

// What the semantic model knows about a file that the cross-check needs to decide whether a trace was
// recorded from it and where its step loop is, so that nothing is parsed twice.
struct FileFacts {
  std::vector<std::string> functions;  // names of the file's functions and methods
  uint32_t step_loop_line = 0;         // 1-based line of the first step loop; 0 when there is none
  // What the step loops do every step, which a profiler trace shows by op name even without stacks.
  bool loops_over_loader = false;                   // iterates a DataLoader (or calls next() on one)
  bool calls_backward = false;                      // loss.backward()
  bool calls_optimizer_step = false;                // optimizer.step()
  bool calls_zero_grad = false;                     // optimizer.zero_grad() / model.zero_grad()
  bool calls_item = false;                          // .item() on a value the model takes for a tensor
  std::vector<std::string> optimizer_classes;       // "SGD", "AdamW": torch.optim classes constructed
  std::vector<std::string> record_function_labels;  // record_function("label") literals
};

struct FileReport {
  std::vector<Diagnostic> diagnostics;           // sorted by range.begin, then code
  bool parse_error = false;                      // a `parse-error` notice is among the diagnostics
  FileFacts facts;                               // when CheckOptions::collect_facts
  std::optional<semantic::FileSummary> summary;  // when CheckOptions::collect_summary
  // What the file's star imports of project modules bind, as the project gave it (with `project_for`):
  // the model was built with it, and so is the file's summary (SummarizeParsed).
  std::vector<semantic::ImportSummary> star;
};

FileReport CheckSource(const SourceFile& file, const CheckOptions& options);
// The same on a tree already parsed from `file`'s text (the editor server parses incrementally).
FileReport CheckParsed(const SourceFile& file, const ts::Tree& tree, const CheckOptions& options);

// The project summary of a file that is not checked itself (a module the checked files import), or of a
// checked one again with what its star imports bring (Model::Build); nullopt when it cannot be parsed.
std::optional<semantic::FileSummary> SummarizeSource(const SourceFile& file,
                                                     std::span<const semantic::ImportSummary> star = {});
// The same on a tree already parsed from `file`'s text: the summary CheckParsed gives with
// `collect_summary` and `project_for` when `star` is its FileReport::star (none for a file whose
// `# noqa` covers all of it, as there).
std::optional<semantic::FileSummary> SummarizeParsed(const SourceFile& file, const ts::Tree& tree,
                                                     std::span<const semantic::ImportSummary> star = {});

}  // namespace tl
