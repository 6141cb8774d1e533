#include "linter/cli/trace_reads.h"

#include "linter/core/progress.h"

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

}  // namespace tl::cli
