#include "linter/output/report.h"

#include <fmt/core.h>

#include "linter/engine/rule.h"  // LocalizedRelated

namespace tl {

std::unique_ptr<Reporter> MakeTextReporter(const OutputOptions& options);
std::unique_ptr<Reporter> MakeJsonReporter(const OutputOptions& options);
std::unique_ptr<Reporter> MakeSarifReporter(const OutputOptions& options);
std::unique_ptr<Reporter> MakeGithubReporter(const OutputOptions& options);

std::optional<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "text" || name == "full" || name == "concise") return OutputFormat::kText;
  if (name == "json") return OutputFormat::kJson;
  if (name == "sarif") return OutputFormat::kSarif;
  if (name == "github") return OutputFormat::kGithub;
  return std::nullopt;
}

std::unique_ptr<Reporter> MakeReporter(OutputFormat format, const OutputOptions& options) {
  switch (format) {
    case OutputFormat::kText: return MakeTextReporter(options);
    case OutputFormat::kJson: return MakeJsonReporter(options);
    case OutputFormat::kSarif: return MakeSarifReporter(options);
    case OutputFormat::kGithub: return MakeGithubReporter(options);
  }
  return MakeTextReporter(options);
}

std::string FormatSummary(const ReportSummary& summary, Lang lang) {
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
  auto errors = [](size_t n) { return fmt::format("{} error{}", n, n == 1 ? "" : "s"); };
  if (summary.diff_mode) {
    if (summary.fixed == 0) return summary.findings == 0 ? "All checks passed!" : "No fixes available.";
    return fmt::format("Would fix {}.", errors(summary.fixed));
  }
  if (summary.fix_mode && summary.fixed > 0) {
    return fmt::format("Found {} ({} fixed, {} remaining).", errors(summary.findings + summary.fixed), summary.fixed,
                       summary.findings);
  }
  if (summary.findings == 0) return "All checks passed!";
  if (summary.fixable == 0) return fmt::format("Found {}.", errors(summary.findings));
  return fmt::format("Found {} ({} fixable with --fix).", errors(summary.findings), summary.fixable);
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
