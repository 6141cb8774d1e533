#include "traceio/analyses/idle_gaps.h"

#include <algorithm>
#include <map>
#include <vector>

#include "traceio/analyses/intervals.h"
#include "traceio/analyses/saturating.h"

namespace tl::trace {

namespace {

// One idle stretch of a device: [begin, end), closed by GPU event `next` (kNoIndex after the device's
// last event). `bounded` is false for the stretches before the first and after the last event.
struct Gap {
  int64_t begin = 0;
  int64_t end = 0;
  uint32_t next = kNoIndex;
  bool bounded = true;
};

}  // namespace

IdleGaps AnalyzeIdleGaps(const Trace& trace, const Steps& steps) {
  IdleGaps out;
  std::vector<Interval> windows;
  for (const auto& s : steps.analysed) windows.push_back({s.begin, s.end});
  MergeIntervals(windows);
  if (windows.empty()) return out;

  std::map<int, std::vector<uint32_t>> by_device;  // gpu_events() is already in start order
  for (uint32_t g : trace.gpu_events()) by_device[trace.track_of(g).device].push_back(g);

  auto account = [&](const Gap& gap) {
    bool counted = false;
    auto w = std::lower_bound(windows.begin(), windows.end(), gap.begin,
                              [](const Interval& i, int64_t t) { return i.end <= t; });
    for (; w != windows.end() && w->begin < gap.end; ++w) {
      const int64_t lo = std::max(gap.begin, w->begin);
      const int64_t hi = std::min(gap.end, w->end);
      if (lo >= hi) continue;
      counted = true;
      // Host-wait is judged for each clipped piece from where the piece starts: where a gap crosses
      // into the next step after the kernel was already launched, that part was not waiting on the host.
      const uint32_t launch = gap.next != kNoIndex ? trace.link(gap.next) : kNoIndex;
      if (launch != kNoIndex && trace.ts(launch) > lo) {
        SatAddTo(out.host_wait_ns, hi - lo);
      } else if (gap.bounded && gap.end - gap.begin < kConsecutiveKernelDelayNs) {
        SatAddTo(out.kernel_wait_ns, hi - lo);
      } else {
        SatAddTo(out.other_ns, hi - lo);
      }
    }
    if (counted) ++out.gaps;
  };

  for (const auto& [device, events] : by_device) {
    // The device is busy while any of its streams is: sweep the events in start order, keeping the
    // latest end seen, so only time when every stream is idle becomes a gap.
    int64_t busy_until = INT64_MIN;
    for (uint32_t g : events) {
      const int64_t start = trace.ts(g);
      if (busy_until == INT64_MIN) {
        account({windows.front().begin, start, g, false});
      } else if (start > busy_until) {
        account({busy_until, start, g, true});
      }
      busy_until = std::max(busy_until, trace.end(g));
    }
    account({busy_until, windows.back().end, kNoIndex, false});
  }
  return out;
}

}  // namespace tl::trace
