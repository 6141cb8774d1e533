#include "linter/output/report.h"

#include <fmt/core.h>

#include <map>

#include "linter/engine/rule.h"  // LocalizedRelated

namespace tl {

std::unique_ptr<Reporter> MakeTextReporter(const OutputOptions& options);
std::unique_ptr<Reporter> MakeJsonReporter(const OutputOptions& options);
std::unique_ptr<Reporter> MakeSarifReporter(const OutputOptions& options);
std::unique_ptr<Reporter> MakeGithubReporter(const OutputOptions& options);
std::unique_ptr<Reporter> MakeConciseReporter(const OutputOptions& options);

namespace {

class NullReporter final : public Reporter {
 public:
  void AddFile(const SourceFile&, const std::vector<Diagnostic>&) override {}
  void AddError(std::string_view, std::string_view) override {}
  void Finish() override {}
};

std::string Errors(size_t n) { return fmt::format("{} error{}", n, n == 1 ? "" : "s"); }

}  // namespace

std::unique_ptr<Reporter> MakeNullReporter() { return std::make_unique<NullReporter>(); }

std::optional<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "text" || name == "full") return OutputFormat::kText;
  if (name == "concise") return OutputFormat::kConcise;
  if (name == "json") return OutputFormat::kJson;
  if (name == "sarif") return OutputFormat::kSarif;
  if (name == "github") return OutputFormat::kGithub;
  return std::nullopt;
}

std::unique_ptr<Reporter> MakeReporter(OutputFormat format, const OutputOptions& options) {
  switch (format) {
    case OutputFormat::kText: return MakeTextReporter(options);
    case OutputFormat::kConcise: return MakeConciseReporter(options);
    case OutputFormat::kJson: return MakeJsonReporter(options);
    case OutputFormat::kSarif: return MakeSarifReporter(options);
    case OutputFormat::kGithub: return MakeGithubReporter(options);
  }
  return MakeTextReporter(options);
}

namespace {

std::string FormatCounts(const ReportSummary& summary, Lang lang) {
  if (lang == Lang::kChinese) {
    if (summary.diff_mode) {
      if (summary.fixed == 0) return summary.findings == 0 ? "全部检查通过！" : "没有可用的修复。";
      return fmt::format("将修复 {} 个问题。", summary.fixed);
    }
    if (summary.fix_mode && summary.fixed > 0) {
      return fmt::format("发现 {} 个问题（已修复 {} 个，剩余 {} 个）。", summary.findings + summary.fixed,
                         summary.fixed, summary.findings);
    }
    if (summary.findings == 0) return "全部检查通过！";
    if (summary.fixable == 0) return fmt::format("发现 {} 个问题。", summary.findings);
    return fmt::format("发现 {} 个问题（{} 个可用 --fix 修复）。", summary.findings, summary.fixable);
  }
  if (summary.diff_mode) {
    if (summary.fixed == 0) return summary.findings == 0 ? "All checks passed!" : "No fixes available.";
    return fmt::format("Would fix {}.", Errors(summary.fixed));
  }
  if (summary.fix_mode && summary.fixed > 0) {
    return fmt::format("Found {} ({} fixed, {} remaining).", Errors(summary.findings + summary.fixed), summary.fixed,
                       summary.findings);
  }
  if (summary.findings == 0) return "All checks passed!";
  if (summary.fixable == 0) return fmt::format("Found {}.", Errors(summary.findings));
  return fmt::format("Found {} ({} fixable with --fix).", Errors(summary.findings), summary.fixable);
}

}  // namespace

std::string FormatSummary(const ReportSummary& summary, Lang lang) {
  std::string out = FormatCounts(summary, lang);
  if (summary.hidden_fixes > 0 && lang == Lang::kChinese) {
    out += fmt::format("另有 {} 个修复需用 `--unsafe-fixes` 选项启用。", summary.hidden_fixes);
  } else if (summary.hidden_fixes > 0) {
    out += fmt::format(" {} hidden fix{} can be enabled with the `--unsafe-fixes` option.", summary.hidden_fixes,
                       summary.hidden_fixes == 1 ? "" : "es");
  }
  return out;
}

std::string FormatFixed(const std::vector<FixedFile>& files) {
  size_t total = 0;
  for (const FixedFile& file : files) total += file.fixes.size();
  if (total == 0) return "";
  std::string out = fmt::format("Fixed {}:\n", Errors(total));
  for (const FixedFile& file : files) {
    if (file.fixes.empty()) continue;
    // Per code, in the order each code was first fixed.
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::string, size_t> counts;
    for (const auto& fix : file.fixes) {
      if (counts[fix.first]++ == 0) order.push_back(fix);
    }
    size_t widest = 0;
    for (const auto& [code, count] : counts) widest = std::max(widest, std::to_string(count).size());
    out += fmt::format("- {}:\n", file.path);
    for (const auto& [code, name] : order)
      out += fmt::format("    {:>{}} × {} ({})\n", counts[code], widest, code, name);
  }
  return out;
}

Span ToSpan(const SourceFile& source, TextRange range) {
  const LineColumn begin = source.lines().Locate(range.begin);
  const LineColumn end = source.lines().Locate(range.end);
  return {begin.line, begin.column, end.line, end.column};
}

std::vector<RelatedSpan> RelatedSpans(const SourceFile& source, const Diagnostic& diagnostic, Lang lang) {
  std::vector<RelatedSpan> out;
  out.reserve(diagnostic.related.size());
  for (const RelatedLocation& r : diagnostic.related) {
    if (r.path.empty()) {
      const LineColumn at = source.lines().Locate(r.range.begin);
      out.push_back({std::string(source.path()), at.line, at.column, LocalizedRelated(diagnostic, r, lang)});
    } else {
      out.push_back({r.path, std::max<uint32_t>(1, r.line), std::max<uint32_t>(1, r.column),
                     LocalizedRelated(diagnostic, r, lang)});
    }
  }
  return out;
}

std::string PathToUri(std::string_view path) {
  std::string text(path);
  while (text.starts_with("./")) text.erase(0, 2);
  std::string out;
  if (text.starts_with('/')) out = "file://";
  for (unsigned char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '_' || c == '.' || c == '~' || c == '/';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace tl
