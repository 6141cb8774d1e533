#include "traceio/analyses/steps.h"

#include <algorithm>
#include <charconv>

namespace tl::trace {

std::string_view StepSourceName(StepSource s) {
  switch (s) {
    case StepSource::kProfilerStep: return "ProfilerStep";
    case StepSource::kNamedRange: return "named range";
    case StepSource::kOptimizerStep: return "Optimizer.step";
    case StepSource::kWholeTrace: return "whole trace";
  }
  return "whole trace";
}

int Steps::Find(int64_t ts) const {
  auto it = std::upper_bound(analysed.begin(), analysed.end(), ts,
                             [](int64_t t, const Step& s) { return t < s.begin; });
  if (it == analysed.begin()) return -1;
  --it;
  if (ts >= it->end) return -1;
  return static_cast<int>(it - analysed.begin());
}

int Steps::FindHost(int64_t ts) const {
  auto it = std::upper_bound(analysed.begin(), analysed.end(), ts,
                             [](int64_t t, const Step& s) { return t < s.cpu_begin; });
  if (it == analysed.begin()) return -1;
  --it;
  if (ts >= it->cpu_end) return -1;
  return static_cast<int>(it - analysed.begin());
}

namespace {

bool IsHostRange(EventKind k) { return k == EventKind::kCpuOp || k == EventKind::kUserAnnotation; }

}  // namespace

Steps FindSteps(const Trace& trace, const StepOptions& options) {
  Steps steps;
  std::vector<uint32_t> marks;
  for (uint32_t i = 0; i < trace.size(); ++i) {
    if (!IsHostRange(trace.kind(i))) continue;
    if (trace.name(i).starts_with("ProfilerStep#")) marks.push_back(i);
  }
  if (!marks.empty()) {
    steps.source = StepSource::kProfilerStep;
    std::sort(marks.begin(), marks.end(), [&](uint32_t a, uint32_t b) { return trace.ts(a) < trace.ts(b); });
    for (uint32_t i : marks) {
      Step s;
      std::string_view n = trace.name(i).substr(13);
      std::from_chars(n.data(), n.data() + n.size(), s.number);
      s.cpu_begin = trace.ts(i);
      s.cpu_end = trace.end(i);
      s.event = i;
      steps.all.push_back(s);
    }
  }
  if (marks.empty()) {
    const std::string_view wanted = options.step_range.empty() ? std::string_view("train_step") : options.step_range;
    for (uint32_t i = 0; i < trace.size(); ++i) {
      if (!IsHostRange(trace.kind(i))) continue;
      const std::string_view n = trace.name(i);
      if (n == wanted || (n.size() > wanted.size() && n.starts_with(wanted) && n[wanted.size()] == ' ')) {
        marks.push_back(i);
      }
    }
    std::sort(marks.begin(), marks.end(), [&](uint32_t a, uint32_t b) { return trace.ts(a) < trace.ts(b); });
    int64_t number = 0;
    int64_t last_end = INT64_MIN;
    for (uint32_t i : marks) {
      // A range inside the previous one (a nested or repeated marker) is not a new step.
      if (trace.ts(i) < last_end) continue;
      Step s;
      s.number = number++;
      s.cpu_begin = trace.ts(i);
      s.cpu_end = trace.end(i);
      s.event = i;
      last_end = s.cpu_end;
      steps.all.push_back(s);
    }
    if (!steps.all.empty()) steps.source = StepSource::kNamedRange;
  }
  if (steps.all.empty()) {
    std::vector<uint32_t> opt;
    for (uint32_t i = 0; i < trace.size(); ++i) {
      if (IsHostRange(trace.kind(i)) && trace.name(i).starts_with("Optimizer.step#")) opt.push_back(i);
    }
    std::sort(opt.begin(), opt.end(), [&](uint32_t a, uint32_t b) { return trace.ts(a) < trace.ts(b); });
    int64_t cpu_min = INT64_MAX;
    for (uint32_t i = 0; i < trace.size(); ++i) {
      if (IsCpuRange(trace.kind(i))) cpu_min = std::min(cpu_min, trace.ts(i));
    }
    if (cpu_min == INT64_MAX) cpu_min = trace.min_ts();
    if (!opt.empty()) {
      steps.source = StepSource::kOptimizerStep;
      int64_t prev = cpu_min;
      int64_t number = 0;
      for (uint32_t i : opt) {
        Step s;
        s.number = number++;
        s.cpu_begin = prev;
        s.cpu_end = trace.end(i);
        s.event = i;
        prev = s.cpu_end;
        steps.all.push_back(s);
      }
    } else if (trace.size() > 0) {
      Step s;
      s.cpu_begin = cpu_min;
      s.cpu_end = trace.max_end();
      steps.all.push_back(s);
    }
  }

  // Extend each step to the end of the GPU work launched inside it.
  for (auto& s : steps.all) {
    s.begin = s.cpu_begin;
    s.end = s.cpu_end;
  }
  if (steps.all.size() > 0) {
    for (uint32_t g : trace.gpu_events()) {
      uint32_t launch = trace.link(g);
      if (launch == kNoIndex) continue;
      int64_t t = trace.ts(launch);
      auto it = std::upper_bound(steps.all.begin(), steps.all.end(), t,
                                 [](int64_t v, const Step& s) { return v < s.cpu_begin; });
      if (it == steps.all.begin()) continue;
      --it;
      if (t >= it->cpu_end) continue;
      it->end = std::max(it->end, trace.end(g));
    }
    for (size_t k = 1; k < steps.all.size(); ++k) {
      steps.all[k].begin = std::max(steps.all[k].begin, steps.all[k - 1].end);
      steps.all[k].end = std::max(steps.all[k].end, steps.all[k].begin);
    }
  }
  if (steps.source == StepSource::kProfilerStep && steps.all.size() >= 2 && !options.include_last_step) {
    steps.all.back().analysed = false;
    steps.last_dropped = true;
  }
  for (const auto& s : steps.all) {
    if (!s.analysed) continue;
    steps.analysed.push_back(s);
    steps.analysed_ns += s.duration();
  }
  return steps;
}

}  // namespace tl::trace
