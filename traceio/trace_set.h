// A trace path as the user gives it: one file, or a folder of them (one per rank or worker, as
// tensorboard_trace_handler writes). Each file is read and analysed on its own; the rank comes from
// `distributedInfo` or, failing that, the file name (rank-3, rank3, worker3). A rank may have several
// files, one per profiling cycle (worker0.<ms>.pt.trace.json for each `schedule` repeat): each is
// analysed and shown under its rank, and the most recent one stands for the rank where ranks are
// compared, so that the straggler search compares ranks, never two cycles of one rank.
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
  ReadResult read;  // read.trace is set when readable
  std::optional<TraceAnalysis> analysis;
  // This file's place among the files of its rank, oldest first (by the trace's first timestamp, then
  // by file name), and how many there are.
  size_t cycle = 0;
  size_t cycles = 1;
  // The most recent file of its rank: the one that stands for the rank when ranks are compared.
  bool representative() const { return cycle + 1 == cycles; }
};

// Why a rank was, or was not, flagged as the straggler: the figure compared, the candidate's value and
// the mean of the other ranks.
struct StragglerTest {
  std::string metric;  // "communication.share" or "steps.mean_ms"
  int rank = 0;        // the candidate: least communication, or longest step
  double value = 0.0;
  double others_mean = 0.0;
};

struct TraceSet {
  bool folder = false;
  std::string path;
  std::vector<RankTrace> ranks;                 // sorted by rank, then oldest cycle first
  std::vector<std::string> errors;              // one line each: files that could not be read
  std::optional<int> straggler;                 // index into ranks (always a representative file)
  std::optional<StragglerTest> straggler_test;  // set when two or more ranks could be compared
  bool any_readable() const;
  bool any_warnings() const;
  // Distinct ranks among the readable files.
  size_t rank_count() const;
  // True when some rank has more than one file.
  bool has_cycles() const;
};

// True for names torch.profiler writes: *.json, *.json.gz (including *.pt.trace.json[.gz]).
bool LooksLikeTraceFile(const std::string& name);
// Rank from a file name, e.g. "rank-3.Jul_15.pt.trace.json.gz" or "worker3.json"; nullopt when the
// name holds no rank or the number does not fit an int.
std::optional<int> RankFromFileName(const std::string& name);

// The straggler rule, on one figure per rank (see trace_set.cpp). Exposed for tests.
inline constexpr double kStragglerCommGap = 0.05;       // at least 5 points less communication...
inline constexpr double kStragglerCommRelative = 0.25;  // ...and 25% less than the others' mean
inline constexpr double kStragglerStepRelative = 0.10;  // without collectives: a step 10% longer

TraceSet LoadTraceSet(const std::string& path, const ReadOptions& read_options = {},
                      const AnalysisOptions& analysis_options = {});

}  // namespace tl::trace
