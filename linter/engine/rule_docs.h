// Rule documentation rendered from RuleMeta, so the docs cannot drift from the code: `torchlint rule`
// prints it, `torchlint rules --write-docs docs/rules` writes docs/rules/<CODE>.md and an index, and a
// unit test fails when the committed files differ from what this renders (Ruff's generate_docs).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "linter/core/result.h"
#include "linter/engine/rule.h"

namespace tl {

std::string_view FixAvailabilityText(FixAvailability fix);  // "Fix is always available."

// How far the rule's fixes go: "safe" (applied by --fix), "unsafe", "display" (a suggestion only), or
// "-" when it has none. The `fix` column of `torchlint rules` and the README's rule table.
std::string_view FixSafetyText(const RuleMeta& meta);

// docs/rules/<CODE>.md for one rule: RenderRuleText under the "generated, do not edit" note.
std::string RenderRuleDoc(const RuleMeta& meta);

// What `torchlint rule CODE` prints: the same docs without the note, which is for people editing the files.
std::string RenderRuleText(const RuleMeta& meta);

// docs/rules/index.md: a table of every rule.
std::string RenderRulesIndex();

// Every generated file by name ("TL101.md", "index.md").
std::map<std::string, std::string> RenderAllRuleDocs();

// Writes RenderAllRuleDocs() into `dir` (created when missing) and removes stale <CODE>.md files.
Status WriteRuleDocs(const std::filesystem::path& dir);

// The README's rule table (the lines between `<!-- rules:begin -->` and `<!-- rules:end -->`), rendered
// from the metadata, and the README text with that block replaced; an error when the markers are missing.
std::string RenderReadmeRuleTable();
Result<std::string> WithReadmeRuleTable(std::string_view readme);
// Rewrites the README's rule table in place when it differs.
Status WriteReadmeRuleTable(const std::filesystem::path& readme);

// The names of files in `dir` that differ from what would be generated (missing, changed or stale).
std::vector<std::string> StaleRuleDocs(const std::filesystem::path& dir);

}  // namespace tl
