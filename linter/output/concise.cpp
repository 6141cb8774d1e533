// The concise format: Ruff's `--output-format concise`, one line per finding.
//
//   train.py:12:17: TL101 `.item()` waits for the GPU every step [confirmed: 12.4 ms/step (31%), ...]
//   train.py:8:10: TL202 [*] `DataLoader` without `pin_memory=True` copies batches from pageable memory
//   TRACE: trace-launch-bound Kernel launches bound the step [14.0 ms/step (18%), saves ~7.0 ms/step]
//
// `[*]` marks a finding this run's --fix would fix; --show-fixes appends the fix title.
#include <fmt/core.h>

#include "linter/engine/rule.h"  // LocalizedMessage
#include "linter/output/evidence.h"
#include "linter/output/report.h"

namespace tl {
namespace {

class ConciseReporter final : public Reporter {
 public:
  explicit ConciseReporter(const OutputOptions& options) : options_(options) {}

  void AddFile(const SourceFile& source, const std::vector<Diagnostic>& diagnostics) override {
    for (const Diagnostic& diagnostic : diagnostics) {
      const Span span = ToSpan(source, diagnostic.range);
      const bool fixable = diagnostic.fix && IsApplicable(diagnostic.fix->applicability, options_.fix_level);
      std::string line = fmt::format("{}:{}:{}: {} {}{}", source.path(), span.line, span.column, diagnostic.code,
                                     fixable ? "[*] " : "", LocalizedMessage(diagnostic, options_.lang));
      if (diagnostic.evidence) line += fmt::format(" [{}]", EvidenceHeadline(*diagnostic.evidence, options_.lang));
      if (options_.show_fixes && diagnostic.fix)
        line += fmt::format(" (fix: {})", LocalizedFixTitle(diagnostic, options_.lang));
      fmt::print(options_.out, "{}\n", line);
    }
  }

  // The command prints unreadable files on stderr.
  void AddError(std::string_view, std::string_view) override {}

  void AddTraceFinding(const TraceFinding& finding) override {
    const Lang lang = options_.lang;
    fmt::print(
        options_.out, fmt::runtime(lang == Lang::kChinese ? "TRACE: {} {}：{} [{}]\n" : "TRACE: {} {}: {} [{}]\n"),
        finding.code, LocalizedTitle(finding, lang), LocalizedMessage(finding, lang), TraceHeadline(finding, lang));
  }

  void Finish() override { std::fflush(options_.out); }

 private:
  OutputOptions options_;
};

}  // namespace

std::unique_ptr<Reporter> MakeConciseReporter(const OutputOptions& options) {
  return std::make_unique<ConciseReporter>(options);
}

}  // namespace tl
