// Data loading: the DataLoader's share of each step (the union of its `enumerate(DataLoader)#...__next__`
// ranges over the step window) and the iterator kind, which tells num_workers=0
// (`_SingleProcessDataLoaderIter`) from worker processes (`_MultiProcessingDataLoaderIter`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

enum class IteratorKind : uint8_t { kNone, kSingle, kMulti };
std::string_view IteratorName(IteratorKind k);  // "single", "multi", "" for none

struct DataLoaderStats {
  IteratorKind iterator = IteratorKind::kNone;
  int64_t calls = 0;             // __next__ calls inside the analysed steps
  int64_t total_ns = 0;          // union of their ranges inside the steps
  std::vector<double> per_step;  // share of each analysed step
  double share = 0.0;            // total_ns over the analysed steps' time
  std::vector<uint32_t> events;  // the __next__ events inside the steps
};

DataLoaderStats AnalyzeDataLoader(const Trace& trace, const Steps& steps);

}  // namespace tl::trace
