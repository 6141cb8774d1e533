#include "linter/cli/trace_reads.h"

#include <fmt/core.h>

#include "linter/core/progress.h"
#include "report/memory_report.h"

namespace tl::cli {

trace::TraceSet LoadTraceSetShowingProgress(const std::string& path, trace::ReadOptions read,
                                            const trace::AnalysisOptions& analysis, bool quiet) {
  ProgressBar bar = ProgressBar::ForStderr(quiet);
  bar.Start("reading " + path, ProgressUnit::kBytes);
  read.progress = bar.Callback();
  return trace::LoadTraceSet(path, read, analysis);  // the bar erases its line on the way out
}

Result<CrossCheck> LoadCrossCheckShowingProgress(const std::string& path, bool quiet, trace::ReadOptions read,
                                                 const trace::AnalysisOptions& analysis) {
  ProgressBar bar = ProgressBar::ForStderr(quiet);
  bar.Start("reading " + path, ProgressUnit::kBytes);
  read.progress = bar.Callback();
  return CrossCheck::Load(path, read, analysis);
}

void PrintReadWarnings(const std::vector<std::string>& warnings, Lang lang) {
  for (const auto& warning : warnings) {
    fmt::print(stderr, fmt::runtime(lang == Lang::kChinese ? "torchlint：警告：{}\n" : "torchlint: warning: {}\n"),
               warning);
  }
}

void PrintReadWarnings(const trace::ReadResult& read, Lang lang) {
  for (size_t i = 0; i < read.warnings.size(); ++i) {
    PrintReadWarnings({trace::WarningIn(read, i, lang == Lang::kChinese)}, lang);
  }
}

std::optional<trace::MemorySnapshot> ReadSnapshotReporting(const std::string& path, Lang lang, size_t top) {
  trace::SnapshotResult read = trace::ReadMemorySnapshot(path, top);
  if (!read.ok()) {
    fmt::print(stderr, "torchlint: error: {}\n", read.error);
    return std::nullopt;
  }
  // The notes the report renders, in its language, rather than traceio's English warnings.
  const auto language = lang == Lang::kChinese ? trace::Language::kChinese : trace::Language::kEnglish;
  for (const auto& note : trace::SnapshotNotes(read.snapshot, language)) {
    PrintReadWarnings({fmt::format(fmt::runtime(lang == Lang::kChinese ? "{}：{}" : "{}: {}"), path, note)}, lang);
  }
  return std::move(read.snapshot);
}

void PrintTraceTorchNote(const CrossCheck& cross_check, const TorchVersion& version, Lang lang) {
  const bool zh = lang == Lang::kChinese;
  fmt::print(stderr,
             fmt::runtime(zh ? "注：目标 PyTorch 版本 {} 取自 {}；可用 --target-torch 覆盖\n"
                             : "note: target PyTorch {} taken from {}; pass --target-torch to override\n"),
             version.ToString(), cross_check.TraceTorchReason().In(lang));
}

}  // namespace tl::cli
