#include "linter/engine/rule_docs.h"

#include <fmt/core.h>

#include <regex>
#include <set>
#include <vector>

#include "linter/core/fs.h"

namespace tl {
namespace {

constexpr std::string_view kGeneratedNote =
    "<!-- Generated from the rule's metadata by `torchlint rules --write-docs docs/rules`; do not edit. -->\n";

bool IsRuleDocName(const std::string& name) {
  static const std::regex kPattern("TL[0-9]{3}\\.md");
  return std::regex_match(name, kPattern);
}

std::string TrimmedDocs(std::string_view docs) {
  while (!docs.empty() && (docs.front() == '\n' || docs.front() == ' ')) docs.remove_prefix(1);
  while (!docs.empty() && (docs.back() == '\n' || docs.back() == ' ')) docs.remove_suffix(1);
  return std::string(docs);
}

// The Options section from the options the rule declares, so that the docs, the configuration, the
// command line and the fixtures cannot disagree about them.
std::string OptionsText(const RuleMeta& meta, std::string_view written) {
  while (!written.empty() && written.front() == '\n') written.remove_prefix(1);
  if (meta.options.empty() && written.empty()) return "None.\n";
  std::string out;
  for (const RuleOptionSpec& spec : meta.options) {
    out += fmt::format(
        "- `{}` (default {}, from {} to {}): {}. Set it as `{} = N` under `[tool.torchlint]`, or "
        "with `--{} N`.\n",
        spec.key, spec.default_value, spec.min, spec.max, spec.help, spec.key, spec.key);
  }
  // What the docs say beyond the declared options (the global settings a rule reads, such as
  // `target-torch`) follows them.
  return out + std::string(written);
}

// The rule's docs with the generated Options section in place of the heading's (empty) body.
std::string WithOptions(const RuleMeta& meta, std::string docs) {
  const std::string heading = "## Options\n";
  const size_t at = docs.find(heading);
  if (at == std::string::npos) return docs;
  const size_t body = at + heading.size();
  size_t next = docs.find("\n## ", body);
  next = next == std::string::npos ? docs.size() : next + 1;
  std::string_view written = std::string_view(docs).substr(body, next - body);
  while (!written.empty() && written.back() == '\n') written.remove_suffix(1);
  if (!written.empty()) written = std::string_view(docs).substr(body, written.size() + 1);
  return docs.substr(0, body) + OptionsText(meta, written) + (next < docs.size() ? "\n" : "") + docs.substr(next);
}

}  // namespace

std::string_view FixAvailabilityText(FixAvailability fix) {
  switch (fix) {
    case FixAvailability::kAlways: return "Fix is always available.";
    case FixAvailability::kSometimes: return "Fix is sometimes available.";
    case FixAvailability::kNone: return "Fix is not available.";
  }
  return "Fix is not available.";
}

std::string_view FixSafetyText(const RuleMeta& meta) {
  if (meta.fix == FixAvailability::kNone) return "-";
  switch (meta.fix_safety) {
    case Applicability::kSafe: return "safe";
    case Applicability::kUnsafe: return "unsafe";
    case Applicability::kDisplayOnly: return "display";
  }
  return "-";
}

namespace {

std::string DefaultOffText(const RuleMeta& meta) {
  return fmt::format(" Off by default: enable it with `select = [\"{}\"]` (or a prefix of it, or `ALL`).", meta.code);
}

}  // namespace

std::string RenderRuleText(const RuleMeta& meta) {
  return fmt::format("# {} ({})\n\nFamily: `{}`. Default severity: {}. {}{}\n\n{}\n", meta.name, meta.code, meta.family,
                     ToString(meta.severity), FixAvailabilityText(meta.fix),
                     meta.default_enabled ? std::string() : DefaultOffText(meta),
                     WithOptions(meta, TrimmedDocs(meta.docs)));
}

std::string RenderRuleDoc(const RuleMeta& meta) { return std::string(kGeneratedNote) + RenderRuleText(meta); }

std::string RenderRulesIndex() {
  std::string out = fmt::format("{}# Rules\n\n| Code | Name | Summary | Fix |\n| --- | --- | --- | --- |\n",
                                kGeneratedNote);
  for (const Rule* rule : AllRules()) {
    const RuleMeta& meta = rule->Meta();
    const std::string_view fix = meta.fix == FixAvailability::kAlways      ? "always"
                                 : meta.fix == FixAvailability::kSometimes ? "sometimes"
                                                                           : "no";
    out += fmt::format("| [{}]({}.md) | `{}` | {}{} | {} |\n", meta.code, meta.code, meta.name, meta.summary,
                       meta.default_enabled ? "" : " (off by default)", fix);
  }
  return out;
}

std::string RenderReadmeRuleTable() {
  std::string out = "| Code | Name | What it finds | Fix |\n| --- | --- | --- | --- |\n";
  for (const Rule* rule : AllRules()) {
    const RuleMeta& meta = rule->Meta();
    const std::string_view fix = meta.fix == FixAvailability::kNone ? "" : FixSafetyText(meta);
    out += fmt::format("| [{}](docs/rules/{}.md) | `{}` | {} | {} |\n", meta.code, meta.code, meta.name, meta.summary,
                       fix);
  }
  return out;
}

Result<std::string> WithReadmeRuleTable(std::string_view readme) {
  constexpr std::string_view kBegin = "<!-- rules:begin -->\n";
  constexpr std::string_view kEnd = "<!-- rules:end -->";
  const size_t begin = readme.find(kBegin);
  const size_t end = begin == std::string_view::npos ? begin : readme.find(kEnd, begin);
  if (begin == std::string_view::npos || end == std::string_view::npos) {
    return Error{"the README has no `<!-- rules:begin -->` ... `<!-- rules:end -->` block for the rule table"};
  }
  const size_t body = begin + kBegin.size();
  return std::string(readme.substr(0, body)) + RenderReadmeRuleTable() + std::string(readme.substr(end));
}

Status WriteReadmeRuleTable(const std::filesystem::path& readme) {
  auto text = ReadFile(readme);
  if (!text.ok()) return Error{fmt::format("{}: {}", readme.string(), text.error().message)};
  auto updated = WithReadmeRuleTable(*text);
  if (!updated.ok()) return Error{fmt::format("{}: {}", readme.string(), updated.error().message)};
  if (*updated == *text) return Ok{};
  return WriteFileAtomically(readme, *updated);
}

std::map<std::string, std::string> RenderAllRuleDocs() {
  std::map<std::string, std::string> files;
  for (const Rule* rule : AllRules()) {
    files[fmt::format("{}.md", rule->Meta().code)] = RenderRuleDoc(rule->Meta());
  }
  files["index.md"] = RenderRulesIndex();
  return files;
}

Status WriteRuleDocs(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{fmt::format("{}: cannot create the folder: {}", dir.string(), ec.message())};
  const auto files = RenderAllRuleDocs();
  for (const auto& [name, text] : files) {
    auto existing = ReadFile(dir / name);
    if (existing.ok() && *existing == text) continue;
    Status written = WriteFileAtomically(dir / name, text);
    if (!written.ok()) return written;
  }
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (IsRuleDocName(name) && !files.contains(name)) std::filesystem::remove(it->path(), ec);
  }
  return Ok{};
}

std::vector<std::string> StaleRuleDocs(const std::filesystem::path& dir) {
  std::vector<std::string> stale;
  const auto files = RenderAllRuleDocs();
  for (const auto& [name, text] : files) {
    auto existing = ReadFile(dir / name);
    if (!existing.ok() || *existing != text) stale.push_back(name);
  }
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (IsRuleDocName(name) && !files.contains(name)) stale.push_back(name);
  }
  return stale;
}

}  // namespace tl
