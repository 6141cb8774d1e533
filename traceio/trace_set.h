// A trace path as the user gives it: one file, or a folder of them (one per rank or worker, as
// tensorboard_trace_handler writes). Each file is read and analysed on its own; the rank comes from
// `distributedInfo` or, failing that, the file name (rank-3, rank3, worker3).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "traceio/analysis.h"
#include "traceio/reader.h"

namespace tl::trace {

struct RankTrace {
  std::string path;
  int rank = 0;
  ReadResult read;          // read.trace is set when readable
  std::optional<TraceAnalysis> analysis;
};

struct TraceSet {
  bool folder = false;
  std::string path;
  std::vector<RankTrace> ranks;      // sorted by rank
  std::vector<std::string> errors;   // one line each: files that could not be read
  std::optional<int> straggler;      // index into ranks
  bool any_readable() const;
  bool any_warnings() const;
};

// True for names torch.profiler writes: *.json, *.json.gz (including *.pt.trace.json[.gz]).
bool LooksLikeTraceFile(const std::string& name);
// Rank from a file name, e.g. "rank-3.Jul_15.pt.trace.json.gz" or "worker3.json".
std::optional<int> RankFromFileName(const std::string& name);

TraceSet LoadTraceSet(const std::string& path, const ReadOptions& read_options = {},
                      const AnalysisOptions& analysis_options = {});

}  // namespace tl::trace
