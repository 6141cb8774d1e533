// `check --statistics`: how many findings of each code, as Ruff prints them, most frequent first:
//
//   5  TL101  [ ] sync-in-step-loop
//   2  TL202  [*] dataloader-pin-memory
//
// (tab-separated, counts right-aligned and codes left-aligned to a common width). `[*]` marks a code
// of which at least one finding has a fix this run can apply.
#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "linter/output/report.h"

namespace tl {
namespace {

struct CodeCount {
  std::string name;
  size_t count = 0;
  bool fixable = false;
};

class StatisticsReporter final : public Reporter {
 public:
  explicit StatisticsReporter(const OutputOptions& options) : options_(options) {}

  void AddFile(const SourceFile& /*source*/, const std::vector<Diagnostic>& diagnostics) override {
    for (const Diagnostic& diagnostic : diagnostics) Count(diagnostic.code, diagnostic.name, diagnostic.fix);
  }

  void AddError(std::string_view, std::string_view) override {}

  void AddTraceFinding(const TraceFinding& finding) override {
    Count(finding.code, LocalizedTitle(finding, options_.lang), std::nullopt);
  }

  void Finish() override {
    std::vector<std::pair<std::string, CodeCount>> rows(counts_.begin(), counts_.end());
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
    size_t count_width = 0;
    size_t code_width = 0;
    for (const auto& [code, row] : rows) {
      count_width = std::max(count_width, std::to_string(row.count).size());
      code_width = std::max(code_width, code.size());
    }
    for (const auto& [code, row] : rows) {
      fmt::print(options_.out, "{:>{}}\t{:<{}}\t{} {}\n", row.count, count_width, code, code_width,
                 row.fixable ? "[*]" : "[ ]", row.name);
    }
    std::fflush(options_.out);
  }

 private:
  void Count(const std::string& code, const std::string& name, const std::optional<Fix>& fix) {
    CodeCount& row = counts_[code];
    row.name = name;
    ++row.count;
    if (fix && IsApplicable(fix->applicability, options_.fix_level)) row.fixable = true;
  }

  OutputOptions options_;
  std::map<std::string, CodeCount> counts_;  // by code, so that equal counts come out in code order
};

}  // namespace

std::unique_ptr<Reporter> MakeStatisticsReporter(const OutputOptions& options) {
  return std::make_unique<StatisticsReporter>(options);
}

}  // namespace tl
