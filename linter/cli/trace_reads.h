// Trace reads as the subcommands do them: with a progress bar on stderr (linter/core/progress.h) while the
// files are read, for `trace`, `report` and `check --trace`. The bar shows the bytes of the file read (of
// all files, for a folder of ranks) and is gone before anything else is printed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "crosscheck/crosscheck.h"
#include "linter/core/result.h"
#include "traceio/trace_set.h"

namespace tl::cli {

// trace::LoadTraceSet with the bar (never with `quiet`).
trace::TraceSet LoadTraceSetShowingProgress(const std::string& path, trace::ReadOptions read,
                                            const trace::AnalysisOptions& analysis, bool quiet = false);

// CrossCheck::Load with the bar.
Result<CrossCheck> LoadCrossCheckShowingProgress(const std::string& path, bool quiet = false,
                                                 trace::ReadOptions read = {},
                                                 const trace::AnalysisOptions& analysis = {});

// A reader's warnings on stderr, one line each, in `lang` ("torchlint: warning: ..." / "torchlint：警告：...").
void PrintReadWarnings(const std::vector<std::string>& warnings, Lang lang);
void PrintReadWarnings(const trace::ReadResult& read, Lang lang);

// A CUDA memory snapshot as `memory` and `--memory` read it (traceio's restricted pickle reader), what
// to know about its figures printed on stderr in `lang` (a report in Chinese is Chinese on stderr too);
// nullopt after the one-line error of a file that is not a readable snapshot.
std::optional<trace::MemorySnapshot> ReadSnapshotReporting(const std::string& path, Lang lang = Lang::kEnglish,
                                                           size_t top = 10);

// The note on stderr that the target PyTorch version was read from the trace, in `lang`.
void PrintTraceTorchNote(const CrossCheck& cross_check, const TorchVersion& version, Lang lang);

}  // namespace tl::cli
