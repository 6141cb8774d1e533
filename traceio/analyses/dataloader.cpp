#include "traceio/analyses/dataloader.h"

#include "traceio/analyses/intervals.h"
#include "traceio/analyses/names.h"
#include "traceio/analyses/saturating.h"

namespace tl::trace {

std::string_view IteratorName(IteratorKind k) {
  switch (k) {
    case IteratorKind::kSingle: return "single";
    case IteratorKind::kMulti: return "multi";
    case IteratorKind::kNone: return "";
  }
  return "";
}

DataLoaderStats AnalyzeDataLoader(const Trace& trace, const Steps& steps) {
  DataLoaderStats out;
  std::vector<std::vector<Interval>> per_step(steps.count());
  int64_t single_ns = 0, multi_ns = 0;
  for (uint32_t i = 0; i < trace.size(); ++i) {
    const EventKind k = trace.kind(i);
    if (k != EventKind::kCpuOp && k != EventKind::kUserAnnotation) continue;
    std::string_view n = trace.name(i);
    if (!IsDataLoaderName(n)) continue;
    if (n.find("_SingleProcessDataLoaderIter") != std::string_view::npos) SatAddTo(single_ns, trace.dur(i) + 1);
    else if (n.find("_MultiProcessingDataLoaderIter") != std::string_view::npos) SatAddTo(multi_ns, trace.dur(i) + 1);
    // Each __next__ belongs to the step it starts in (the one that consumes the batch), even when the
    // previous step's window was extended over it by trailing GPU work.
    const int s = steps.FindHost(trace.ts(i));
    if (s < 0) continue;
    per_step[static_cast<size_t>(s)].push_back({trace.ts(i), trace.end(i)});
    ++out.calls;
    out.events.push_back(i);
  }
  if (single_ns > 0 || multi_ns > 0)
    out.iterator = single_ns >= multi_ns ? IteratorKind::kSingle : IteratorKind::kMulti;
  for (size_t s = 0; s < per_step.size(); ++s) {
    MergeIntervals(per_step[s]);
    int64_t t = TotalLength(per_step[s]);
    SatAddTo(out.total_ns, t);
    const int64_t d = steps.analysed[s].duration();
    out.per_step.push_back(d > 0 ? static_cast<double>(t) / static_cast<double>(d) : 0.0);
  }
  if (steps.analysed_ns > 0) out.share = static_cast<double>(out.total_ns) / static_cast<double>(steps.analysed_ns);
  return out;
}

}  // namespace tl::trace
