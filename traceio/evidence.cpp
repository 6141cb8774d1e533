#include "traceio/evidence.h"

#include <algorithm>

#include <fmt/core.h>

#include "traceio/analyses/names.h"
#include "traceio/analyses/optimizer.h"
#include "traceio/analyses/saturating.h"
#include "traceio/analyses/window.h"

namespace tl::trace {

TraceEvidence::TraceEvidence(const Trace& trace, const TraceAnalysis& analysis)
    : trace_(trace), analysis_(analysis), index_(std::make_unique<SourceIndex>(SourceIndex::Build(trace))) {
  caps_.cuda = !trace.gpu_events().empty();
  caps_.python_stacks = index_->has_python_frames();
  caps_.call_from = index_->has_call_from();
  caps_.call_stacks = index_->has_call_stacks();
  caps_.source_ranges = index_->has_source_ranges();
  caps_.shapes = analysis.gemms.has_shapes || trace.metadata().record_shapes;
  caps_.memory = !trace.memory_events().empty();
  caps_.steps = analysis.steps.source == StepSource::kProfilerStep || analysis.steps.source == StepSource::kNamedRange;
  switch (trace.metadata().format) {
    case TraceFormat::kKinetoOld: caps_.torch_era = "1.8-1.9"; break;
    case TraceFormat::kKineto: caps_.torch_era = caps_.call_from ? ">=2.14" : ">=1.10"; break;
    case TraceFormat::kLegacyList: caps_.torch_era = "legacy (no Kineto)"; break;
    case TraceFormat::kNsys: caps_.torch_era = "nsys"; break;
    case TraceFormat::kUnknown: break;
  }
}

SourceMatch TraceEvidence::Locate(std::string_view file, int line) const { return index_->AtLine(trace_, file, line); }

SourceMatch TraceEvidence::LocateFunction(std::string_view file, std::string_view function, int def_line) const {
  return index_->Function(trace_, file, function, def_line);
}

SourceMatch TraceEvidence::LocateRange(std::string_view file, int line) const {
  return index_->InRange(trace_, file, line);
}

std::vector<std::string_view> TraceEvidence::RangeFiles() const { return index_->RangeFiles(); }

bool TraceEvidence::RanInSteps(const SourceMatch& where) const {
  return std::any_of(where.spans.begin(), where.spans.end(),
                     [&](const CodeSpan& s) { return analysis_.steps.FindHost(s.begin) >= 0; });
}

template <typename Fn>
void TraceEvidence::ForEachUnder(const SourceMatch& where, Fn&& fn) const {
  const auto& tracks = trace_.tracks();
  for (const auto& span : where.spans) {
    // Python frames normally share the ops' thread; some exporters put them on a track of their own,
    // in which case every CPU thread is searched by time.
    bool same_track_has_ops = false;
    const Track& own = tracks[span.track];
    for (uint32_t j = own.begin; j < own.end && !same_track_has_ops; ++j) {
      same_track_has_ops = trace_.kind(j) == EventKind::kCpuOp;
    }
    for (uint32_t t = 0; t < tracks.size(); ++t) {
      if (tracks[t].gpu || (same_track_has_ops && t != span.track)) continue;
      uint32_t lo = tracks[t].begin, hi = tracks[t].end;
      while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (trace_.ts(mid) < span.begin) lo = mid + 1;
        else hi = mid;
      }
      for (uint32_t j = lo; j < tracks[t].end && trace_.ts(j) < span.end; ++j) {
        if (j != span.event && trace_.end(j) <= span.end) fn(j);
      }
    }
  }
}

EventRef TraceEvidence::Ref(uint32_t e) const {
  return {e, std::string(trace_.name(e)), static_cast<double>(trace_.ts(e) - trace_.min_ts()) / 1e6,
          static_cast<double>(trace_.dur(e)) / 1e6};
}

Cost TraceEvidence::MakeCost(int64_t count, int64_t ns, std::vector<uint32_t> events) const {
  Cost c;
  const double steps = static_cast<double>(std::max<size_t>(1, analysis_.steps.count()));
  c.observed = count > 0;
  c.count = count;
  c.count_per_step = static_cast<double>(count) / steps;
  c.ms_per_step = static_cast<double>(ns) / 1e6 / steps;
  const double step_ms = analysis_.steps.mean_ms();
  c.share_of_step = step_ms > 0 ? c.ms_per_step / step_ms : 0.0;
  c.claims = events;
  std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) { return trace_.dur(a) > trace_.dur(b); });
  for (size_t i = 0; i < events.size() && i < 5; ++i) c.examples.push_back(Ref(events[i]));
  return c;
}

SyncEvidence TraceEvidence::DeviceSyncs(const SourceMatch* where) const {
  SyncEvidence out;
  int64_t count = 0, ns = 0;
  std::vector<uint32_t> events;
  auto visit = [&](uint32_t j) {
    if (analysis_.steps.FindHost(trace_.ts(j)) < 0) return;
    out.code_ran = true;
    if (!IsLaunch(trace_.kind(j))) return;
    std::string_view n = trace_.name(j);
    bool blocking = IsSyncCall(n);
    if (!blocking && (n.starts_with("cudaMemcpy") || n.starts_with("hipMemcpy"))) {
      uint32_t g = trace_.link(j);
      CopyKind k = g != kNoIndex ? trace_.copy_kind(g) : CopyKind{};
      blocking = k.direction == CopyDirection::kDtoH && k.dst == MemoryKind::kPageable;
    }
    if (blocking) {
      ++count;
      SatAddTo(ns, trace_.dur(j));
      events.push_back(j);
    }
  };
  if (where == nullptr) {
    for (uint32_t j = 0; j < trace_.size(); ++j) visit(j);
  } else {
    ForEachUnder(*where, visit);
  }
  for (const auto& item : analysis_.syncs.items) {
    if (item.step < 0) continue;
    bool inside = where == nullptr;
    if (!inside) {
      for (const auto& s : where->spans) {
        inside = inside || (trace_.ts(item.event) >= s.begin && trace_.end(item.event) <= s.end);
      }
    }
    if (!inside) continue;
    ++out.item_calls;
    if (item.syncs()) ++out.syncing_item_calls;
  }
  out.cost = MakeCost(count, ns, std::move(events));
  out.cost.summary = fmt::format(
      "{:.1f} device syncs per step blocking the CPU {:.2f} ms/step ({:.1f}% of the step); {} of {} .item() calls "
      "synchronised",
      out.cost.count_per_step, out.cost.ms_per_step, out.cost.share_of_step * 100, out.syncing_item_calls,
      out.item_calls);
  return out;
}

DataLoaderEvidence TraceEvidence::DataLoader() const {
  DataLoaderEvidence out;
  const auto& d = analysis_.dataloader;
  out.iterator = d.iterator;
  out.cost = MakeCost(d.calls, d.total_ns, d.events);
  out.cost.share_of_step = d.share;
  out.cost.summary = fmt::format("DataLoader __next__ takes {:.1f}% of the step ({:.2f} ms/step, {} iterator)",
                                 d.share * 100, out.cost.ms_per_step,
                                 d.iterator == IteratorKind::kSingle  ? "single-process (num_workers=0)"
                                 : d.iterator == IteratorKind::kMulti ? "multi-process"
                                                                      : "no");
  return out;
}

Cost TraceEvidence::PageableHtoD(const SourceMatch* where) const {
  std::vector<uint32_t> events;
  std::vector<uint32_t> claims;
  int64_t ns = 0;
  auto take = [&](uint32_t g, uint32_t launch) {
    // The host blocks for the whole pageable copy; count the longer of the call and the copy.
    SatAddTo(ns, std::max(trace_.dur(g), launch != kNoIndex ? trace_.dur(launch) : 0));
    events.push_back(g);
    // The host-side call is what a sync finding measures too, so two findings meet on the same event.
    claims.push_back(launch != kNoIndex && trace_.dur(launch) >= trace_.dur(g) ? launch : g);
  };
  if (where == nullptr) {
    for (uint32_t g : analysis_.copies.pageable_htod_events) take(g, trace_.link(g));
  } else {
    ForEachUnder(*where, [&](uint32_t j) {
      if (!IsLaunch(trace_.kind(j)) || analysis_.steps.FindHost(trace_.ts(j)) < 0) return;
      uint32_t g = trace_.link(j);
      if (g == kNoIndex || trace_.kind(g) != EventKind::kMemcpy) return;
      CopyKind k = trace_.copy_kind(g);
      if (k.pageable() && k.direction == CopyDirection::kHtoD) take(g, j);
    });
  }
  const auto n = static_cast<int64_t>(events.size());
  Cost c = MakeCost(n, ns, std::move(events));
  c.claims = std::move(claims);
  c.summary = fmt::format("{:.1f} pageable HtoD copies per step, {:.2f} ms/step", c.count_per_step, c.ms_per_step);
  return c;
}

bool TraceEvidence::Inside(const SourceMatch& where, uint32_t e) const {
  return std::any_of(where.spans.begin(), where.spans.end(),
                     [&](const CodeSpan& s) { return trace_.ts(e) >= s.begin && trace_.end(e) <= s.end; });
}

Cost TraceEvidence::ZeroGradWork(const SourceMatch* where) const {
  const auto& z = analysis_.optimizer.zero_grad;
  std::vector<uint32_t> events;
  int64_t fills = 0, ns = 0;
  for (uint32_t e : z.events) {
    if (where != nullptr && !Inside(*where, e)) continue;
    ZeroGradStats one = tl::trace::ZeroGradWork(trace_, e);
    if (one.fill_ops == 0 && one.kernels == 0) continue;
    fills += one.fill_ops;
    // Without set_to_none the cost is the annotation's CPU time (one launch per parameter) or, where the
    // kernels take longer, their GPU time.
    SatAddTo(ns, std::max(one.total_ns, one.kernel_ns));
    events.push_back(e);
  }
  Cost c = MakeCost(fills, ns, std::move(events));
  c.summary = fmt::format("zero_grad runs {:.0f} fill_/zero_ ops per step ({} kernels in total), {:.2f} ms/step",
                          c.count_per_step, z.kernels, c.ms_per_step);
  return c;
}

GemmEvidence TraceEvidence::UnalignedGemms(const SourceMatch* where) const {
  GemmEvidence out;
  const auto& g = analysis_.gemms;
  out.tensor_core_share = analysis_.kernels.tensor_core_share();
  out.tensor_cores_ran = analysis_.kernels.tensor_core_count > 0;
  std::vector<uint32_t> events;
  int64_t ns = 0;
  for (const auto& shape : g.shapes) {
    GemmShape kept = shape;
    kept.events.clear();
    kept.count = 0;
    kept.cpu_ns = kept.gpu_ns = 0;
    for (uint32_t e : shape.events) {
      if (where != nullptr && !Inside(*where, e)) continue;
      const int64_t gpu = GpuTimeUnder(trace_, e);
      ++kept.count;
      SatAddTo(kept.cpu_ns, trace_.dur(e));
      SatAddTo(kept.gpu_ns, gpu);
      kept.events.push_back(e);
      SatAddTo(ns, gpu > 0 ? gpu : trace_.dur(e));
      events.push_back(e);
    }
    if (kept.count > 0) out.shapes.push_back(std::move(kept));
  }
  out.gemms = g.gemms;
  const auto n = static_cast<int64_t>(events.size());
  out.cost = MakeCost(n, ns, std::move(events));
  out.cost.summary = fmt::format(
      "{:.1f} GEMMs per step with K or N not a multiple of 8, {:.2f} ms/step; tensor-core "
      "share of kernel time {:.1f}%",
      out.cost.count_per_step, out.cost.ms_per_step, out.tensor_core_share * 100);
  return out;
}

// Rules catalog (TL302-TL406).
ConvBiasEvidence TraceEvidence::ConvBiasAdds() const {
  ConvBiasEvidence out;
  std::vector<uint32_t> adds;
  int64_t ns = 0;
  for (uint32_t e : trace_.EventsOfKind({EventKind::kCpuOp})) {
    if (analysis_.steps.FindHost(trace_.ts(e)) < 0) continue;
    const std::string_view name = trace_.name(e);
    if (name.starts_with("aten::batch_norm")) ++out.batch_norms;
    if (name != "aten::_convolution") continue;
    ++out.convolutions;
    // The first add under the convolution is its bias (PyTorch adds it after cuDNN's kernel).
    uint32_t bias_add = kNoIndex;
    trace_.ForEachDescendant(e, [&](uint32_t d) {
      if (bias_add == kNoIndex && trace_.kind(d) == EventKind::kCpuOp && trace_.name(d) == "aten::add_") bias_add = d;
    });
    if (bias_add == kNoIndex) continue;
    const int64_t gpu = GpuTimeUnder(trace_, bias_add);
    SatAddTo(ns, gpu > 0 ? gpu : trace_.dur(bias_add));
    adds.push_back(bias_add);
  }
  const double steps = static_cast<double>(std::max<size_t>(1, analysis_.steps.count()));
  out.convolutions_per_step = static_cast<double>(out.convolutions) / steps;
  const auto n = static_cast<int64_t>(adds.size());
  out.cost = MakeCost(n, ns, std::move(adds));
  out.cost.summary = fmt::format("{:.1f} of {:.1f} convolutions per step add a bias, {:.3f} ms/step",
                                 out.cost.count_per_step, out.convolutions_per_step, out.cost.ms_per_step);
  return out;
}

AutogradEvidence TraceEvidence::AutogradUnder(const SourceMatch& where) const {
  AutogradEvidence out;
  out.cost = CostOf(where);
  ForEachUnder(where, [&](uint32_t e) {
    if (trace_.kind(e) != EventKind::kCpuOp || analysis_.steps.FindHost(trace_.ts(e)) < 0) return;
    const std::string_view name = trace_.name(e);
    if (name.starts_with("autograd::engine::evaluate_function") || name.find("Backward") != std::string_view::npos) {
      ++out.backward_ops;
    }
  });
  return out;
}

PrecisionEvidence TraceEvidence::Fp32Gemms() const {
  PrecisionEvidence out;
  std::vector<uint32_t> events;
  int64_t ns = 0, tc_ns = 0;
  for (uint32_t g : trace_.gpu_events()) {
    if (trace_.kind(g) != EventKind::kKernel || StepOfGpuEvent(trace_, analysis_.steps, g) < 0) continue;
    const std::string_view name = trace_.name(g);
    if (IsTensorCoreKernel(name)) {
      ++out.tensor_core_kernels;
      SatAddTo(tc_ns, trace_.dur(g));
    } else if (IsFp32GemmKernel(name)) {
      SatAddTo(ns, trace_.dur(g));
      events.push_back(g);
    }
  }
  const double steps = static_cast<double>(std::max<size_t>(1, analysis_.steps.count()));
  out.tensor_core_ms_per_step = static_cast<double>(tc_ns) / 1e6 / steps;
  const auto n = static_cast<int64_t>(events.size());
  out.cost = MakeCost(n, ns, std::move(events));
  out.cost.summary = fmt::format("{:.1f} fp32 GEMM/conv kernels per step off tensor cores, {:.2f} ms/step",
                                 out.cost.count_per_step, out.cost.ms_per_step);
  return out;
}

Cost TraceEvidence::LayoutTransposes() const {
  std::vector<uint32_t> events;
  int64_t ns = 0;
  for (uint32_t g : trace_.gpu_events()) {
    if (trace_.kind(g) != EventKind::kKernel || StepOfGpuEvent(trace_, analysis_.steps, g) < 0) continue;
    const std::string_view name = trace_.name(g);
    if (name.find("nchwToNhwc") == std::string_view::npos && name.find("nhwcToNchw") == std::string_view::npos) {
      continue;
    }
    SatAddTo(ns, trace_.dur(g));
    events.push_back(g);
  }
  const auto n = static_cast<int64_t>(events.size());
  Cost c = MakeCost(n, ns, std::move(events));
  c.summary = fmt::format("{:.1f} layout transpose kernels per step, {:.2f} ms/step", c.count_per_step, c.ms_per_step);
  return c;
}

Cost TraceEvidence::CostOf(const SourceMatch& where) const {
  int64_t ns = 0;
  int64_t count = 0;
  std::vector<uint32_t> events;
  for (const auto& s : where.spans) {
    if (analysis_.steps.FindHost(s.begin) < 0) continue;
    ++count;
    SatAddTo(ns, s.end - s.begin);
    events.push_back(s.event);
  }
  Cost c = MakeCost(count, ns, std::move(events));
  c.summary = fmt::format("{:.1f} calls per step, {:.2f} ms/step of CPU time ({:.1f}% of the step)", c.count_per_step,
                          c.ms_per_step, c.share_of_step * 100);
  return c;
}

// ---------------------------------------------------------------------------------------------------
// Rules catalog (TL102-TL205).

namespace {

// Ops that read the device to size their output or to answer a Python truth test.
bool IsImplicitSyncOp(std::string_view n) {
  static constexpr std::string_view kOps[] = {
      "aten::nonzero",  "aten::nonzero_numpy",    "aten::is_nonzero", "aten::masked_select",
      "aten::_unique",  "aten::_unique2",         "aten::unique_dim", "aten::unique_consecutive",
      "aten::argwhere", "aten::repeat_interleave"};
  for (std::string_view op : kOps) {
    if (n == op) return true;
  }
  return false;
}

}  // namespace

ImplicitSyncEvidence TraceEvidence::ImplicitSyncs(const SourceMatch* where) const {
  ImplicitSyncEvidence out;
  int64_t count = 0, ns = 0;
  std::vector<uint32_t> events;
  auto blocking = [&](uint32_t j) {
    std::string_view n = trace_.name(j);
    if (IsSyncCall(n)) return true;
    if (n.starts_with("cudaMemcpy") || n.starts_with("hipMemcpy")) {
      uint32_t g = trace_.link(j);
      CopyKind k = g != kNoIndex ? trace_.copy_kind(g) : CopyKind{};
      return k.direction == CopyDirection::kDtoH && k.dst == MemoryKind::kPageable;
    }
    return false;
  };
  auto visit = [&](uint32_t j) {
    if (analysis_.steps.FindHost(trace_.ts(j)) < 0) return;
    out.code_ran = true;
    const EventKind kind = trace_.kind(j);
    if (kind == EventKind::kCpuOp && IsImplicitSyncOp(trace_.name(j))) ++out.implicit_ops;
    if (!IsLaunch(kind) || !blocking(j)) return;
    bool implicit = where != nullptr;  // under the line: every blocking call is the line's
    for (uint32_t p = trace_.parent(j), depth = 0; !implicit && p != kNoIndex && depth < kMaxNestingDepth;
         p = trace_.parent(p), ++depth) {
      implicit = IsImplicitSyncOp(trace_.name(p));
    }
    if (!implicit) return;
    ++count;
    SatAddTo(ns, trace_.dur(j));
    events.push_back(j);
  };
  if (where == nullptr) {
    for (uint32_t j = 0; j < trace_.size(); ++j) visit(j);
  } else {
    ForEachUnder(*where, visit);
  }
  out.cost = MakeCost(count, ns, std::move(events));
  out.cost.summary = fmt::format(
      "{:.1f} implicit device syncs per step blocking the CPU {:.2f} ms/step; {} "
      "data-dependent ops or truth tests ran",
      out.cost.count_per_step, out.cost.ms_per_step, out.implicit_ops);
  return out;
}

PinnedCopyEvidence TraceEvidence::PinnedHtoD(const SourceMatch* where) const {
  PinnedCopyEvidence out;
  int64_t count = 0, ns = 0;
  std::vector<uint32_t> events;
  auto visit = [&](uint32_t j) {
    if (!IsLaunch(trace_.kind(j)) || analysis_.steps.FindHost(trace_.ts(j)) < 0) return;
    const uint32_t g = trace_.link(j);
    if (g == kNoIndex || trace_.kind(g) != EventKind::kMemcpy) return;
    const CopyKind k = trace_.copy_kind(g);
    if (k.direction != CopyDirection::kHtoD) return;
    if (k.src == MemoryKind::kPageable) ++out.pageable_htod;
    if (k.src != MemoryKind::kPinned) return;
    ++out.pinned_htod;
    // The host waited when the copy call itself is synchronous, or when the op that issued it (aten::copy_
    // of a `.to()` without non_blocking) synchronises the stream after it.
    int64_t wait = 0;
    if (IsSyncMemcpyCall(trace_.name(j))) {
      wait = trace_.dur(j);
    } else {
      uint32_t op = trace_.parent(j);
      while (op != kNoIndex && trace_.kind(op) != EventKind::kCpuOp) op = trace_.parent(op);
      if (op != kNoIndex) {
        const Track& track = trace_.tracks()[trace_.track_index(j)];
        for (uint32_t e = j + 1; e < track.end && trace_.ts(e) < trace_.end(op); ++e) {
          if (IsLaunch(trace_.kind(e)) && IsSyncCall(trace_.name(e)) && !IsSyncMemcpyCall(trace_.name(e))) {
            SatAddTo(wait, trace_.dur(e));
          }
        }
      }
    }
    if (wait <= 0) return;
    ++count;
    SatAddTo(ns, wait);
    events.push_back(j);
  };
  if (where == nullptr) {
    for (uint32_t j = 0; j < trace_.size(); ++j) visit(j);
  } else {
    ForEachUnder(*where, visit);
  }
  out.blocking = MakeCost(count, ns, std::move(events));
  out.blocking.summary = fmt::format("{:.1f} blocking pinned HtoD copies per step, the host waiting {:.2f} ms/step",
                                     out.blocking.count_per_step, out.blocking.ms_per_step);
  return out;
}

LoaderStartupEvidence TraceEvidence::LoaderStartups() const {
  LoaderStartupEvidence out;
  out.iterator = analysis_.dataloader.iterator;
  int64_t ns = 0;
  std::vector<uint32_t> events;
  for (uint32_t j = 0; j < trace_.size(); ++j) {
    if (trace_.kind(j) != EventKind::kPythonFunction) continue;
    const std::string_view n = trace_.name(j);
    // `torch/utils/data/dataloader.py(LINE): _get_iterator`: DataLoader.__iter__ making a new iterator.
    if (!n.ends_with(": _get_iterator") || n.find("dataloader.py(") == std::string_view::npos) continue;
    SatAddTo(ns, trace_.dur(j));
    events.push_back(j);
    // A multi-process iterator's __init__ runs under it and starts the workers.
    const Track& track = trace_.tracks()[trace_.track_index(j)];
    for (uint32_t e = j + 1; e < track.end && trace_.ts(e) < trace_.end(j); ++e) {
      if (trace_.kind(e) == EventKind::kPythonFunction && trace_.name(e).ends_with(": __init__") &&
          trace_.name(e).find("dataloader.py(") != std::string_view::npos) {
        // _MultiProcessingDataLoaderIter.__init__ is the long one; the single-process one starts nothing.
        if (trace_.dur(e) > 0 && trace_.name(e) != trace_.name(j)) {
          bool workers = false;
          for (uint32_t w = e + 1; w < track.end && trace_.ts(w) < trace_.end(e) && !workers; ++w) {
            workers = trace_.name(w).find("multiprocessing") != std::string_view::npos ||
                      trace_.name(w).find("Process") != std::string_view::npos;
          }
          if (workers) {
            ++out.multi_process;
            break;
          }
        }
      }
    }
  }
  const auto n = static_cast<int64_t>(events.size());
  out.cost = MakeCost(n, ns, std::move(events));
  out.cost.summary = fmt::format("{} DataLoader iterator start-ups ({} with worker processes), {:.2f} ms in all", n,
                                 out.multi_process, static_cast<double>(ns) / 1e6);
  return out;
}

namespace {

bool IsFactoryOp(std::string_view n) {
  static constexpr std::string_view kOps[] = {
      "aten::zeros",     "aten::ones",       "aten::empty",        "aten::full",       "aten::rand",
      "aten::randn",     "aten::randint",    "aten::randperm",     "aten::arange",     "aten::linspace",
      "aten::eye",       "aten::zeros_like", "aten::ones_like",    "aten::empty_like", "aten::full_like",
      "aten::rand_like", "aten::randn_like", "aten::randint_like", "aten::logspace"};
  for (std::string_view op : kOps) {
    if (n == op) return true;
  }
  return false;
}

}  // namespace

Cost TraceEvidence::FactoryCopies(const SourceMatch* where) const {
  std::vector<uint32_t> moves;
  int64_t ns = 0;
  auto visit = [&](uint32_t j) {
    if (!IsLaunch(trace_.kind(j)) || analysis_.steps.FindHost(trace_.ts(j)) < 0) return;
    const uint32_t g = trace_.link(j);
    if (g == kNoIndex || trace_.kind(g) != EventKind::kMemcpy) return;
    if (trace_.copy_kind(g).direction != CopyDirection::kHtoD) return;
    // The outermost aten::to / aten::_to_copy above the copy call: the move the script wrote.
    uint32_t move = kNoIndex;
    for (uint32_t p = trace_.parent(j), depth = 0; p != kNoIndex && depth < kMaxNestingDepth;
         p = trace_.parent(p), ++depth) {
      const std::string_view n = trace_.name(p);
      if (n == "aten::to" || n == "aten::_to_copy") move = p;
    }
    if (move == kNoIndex || std::find(moves.begin(), moves.end(), move) != moves.end()) return;
    // Its previous sibling: the op that made the tensor it moves, when the two are written together.
    const uint32_t parent = trace_.parent(move);
    const Track& track = trace_.tracks()[trace_.track_index(move)];
    uint32_t previous = kNoIndex;
    for (uint32_t e = move, scanned = 0; e > track.begin && scanned < 4096; ++scanned) {
      --e;
      if (trace_.parent(e) == parent && trace_.kind(e) == EventKind::kCpuOp) {
        previous = e;
        break;
      }
    }
    if (previous == kNoIndex || !IsFactoryOp(trace_.name(previous))) return;
    moves.push_back(move);
    SatAddTo(ns, trace_.dur(move));
  };
  if (where == nullptr) {
    for (uint32_t j = 0; j < trace_.size(); ++j) visit(j);
  } else {
    ForEachUnder(*where, visit);
  }
  const auto n = static_cast<int64_t>(moves.size());
  Cost c = MakeCost(n, ns, std::move(moves));
  c.summary = fmt::format("{:.1f} moves of freshly made tensors to the device per step, {:.2f} ms/step of host time",
                          c.count_per_step, c.ms_per_step);
  return c;
}

AllocatorEvidence TraceEvidence::AllocatorRoundTrips(const SourceMatch* where) const {
  std::vector<uint32_t> frees, mallocs;
  int64_t free_ns = 0, malloc_ns = 0;
  auto is_free = [](std::string_view n) { return n == "cudaFree" || n == "hipFree"; };
  auto is_malloc = [](std::string_view n) { return n == "cudaMalloc" || n == "hipMalloc"; };
  auto visit_free = [&](uint32_t j) {
    if (!IsLaunch(trace_.kind(j)) || analysis_.steps.FindHost(trace_.ts(j)) < 0 || !is_free(trace_.name(j))) return;
    frees.push_back(j);
    SatAddTo(free_ns, trace_.dur(j));
  };
  if (where == nullptr) {
    for (uint32_t j = 0; j < trace_.size(); ++j) visit_free(j);
  } else {
    ForEachUnder(*where, visit_free);
  }
  for (uint32_t j = 0; j < trace_.size(); ++j) {
    if (!IsLaunch(trace_.kind(j)) || analysis_.steps.FindHost(trace_.ts(j)) < 0 || !is_malloc(trace_.name(j))) continue;
    mallocs.push_back(j);
    SatAddTo(malloc_ns, trace_.dur(j));
  }
  AllocatorEvidence out;
  const auto nf = static_cast<int64_t>(frees.size());
  const auto nm = static_cast<int64_t>(mallocs.size());
  out.frees = MakeCost(nf, free_ns, std::move(frees));
  out.frees.summary = fmt::format("{:.1f} cudaFree calls per step, {:.2f} ms/step", out.frees.count_per_step,
                                  out.frees.ms_per_step);
  out.mallocs = MakeCost(nm, malloc_ns, std::move(mallocs));
  out.mallocs.summary = fmt::format("{:.1f} cudaMalloc calls per step, {:.2f} ms/step", out.mallocs.count_per_step,
                                    out.mallocs.ms_per_step);
  return out;
}

// Rules catalog (TL501-TL901).

OptimizerStepEvidence TraceEvidence::OptimizerStepKernels() const {
  OptimizerStepEvidence out;
  std::vector<uint32_t> events;
  for (uint32_t i = 0; i < trace_.size(); ++i) {
    const EventKind k = trace_.kind(i);
    if (k != EventKind::kUserAnnotation && k != EventKind::kCpuOp) continue;
    if (!trace_.name(i).starts_with("Optimizer.step#")) continue;
    if (analysis_.steps.FindHost(trace_.ts(i)) < 0) continue;
    bool nested = false;
    for (uint32_t p = trace_.parent(i); p != kNoIndex && !nested; p = trace_.parent(p)) {
      nested = trace_.name(p).starts_with("Optimizer.step#");
    }
    if (nested) continue;
    ++out.calls;
    SatAddTo(out.host_ns, trace_.dur(i));
    events.push_back(i);
    trace_.ForEachDescendant(i, [&](uint32_t j) {
      if (!IsLaunch(trace_.kind(j))) return;
      const uint32_t g = trace_.link(j);
      if (g == kNoIndex || (trace_.kind(g) != EventKind::kKernel && trace_.kind(g) != EventKind::kMemset)) return;
      ++out.kernels;
      SatAddTo(out.kernel_ns, trace_.dur(g));
      const std::string_view n = trace_.name(g);
      if (n.find("multi_tensor_apply") != std::string_view::npos || n.find("fused") != std::string_view::npos ||
          n.find("Fused") != std::string_view::npos) {
        ++out.multi_tensor;
      }
    });
  }
  // What fusing saves is the launch overhead: the host time of the step above the GPU time of its kernels
  // (the arithmetic stays); none when the kernels already take longer than the launches.
  const int64_t overhead = out.host_ns > out.kernel_ns ? out.host_ns - out.kernel_ns : 0;
  out.cost = MakeCost(out.kernels, overhead, std::move(events));
  out.cost.summary = fmt::format("Optimizer.step launches {:.0f} kernels per step, {:.2f} ms/step of launch overhead",
                                 out.cost.count_per_step, out.cost.ms_per_step);
  return out;
}

Cost TraceEvidence::DataParallelWork() const {
  auto is_dp = [](std::string_view n) {
    for (std::string_view prefix : {"autograd::engine::evaluate_function: ", "torch::autograd::"}) {
      if (n.starts_with(prefix)) n.remove_prefix(prefix.size());
    }
    return n.starts_with("Broadcast") || n.starts_with("ReduceAddCoalesced") || n.starts_with("Scatter") ||
           n.starts_with("Gather");
  };
  std::vector<uint32_t> events;
  int64_t ns = 0;
  for (uint32_t i = 0; i < trace_.size(); ++i) {
    const EventKind k = trace_.kind(i);
    if (k == EventKind::kMemcpy) {
      if (trace_.copy_kind(i).direction != CopyDirection::kPtoP) continue;
      if (analysis_.steps.Find(trace_.ts(i)) < 0) continue;
      SatAddTo(ns, trace_.dur(i));
      events.push_back(i);
      continue;
    }
    if (k != EventKind::kCpuOp && k != EventKind::kPythonFunction) continue;
    if (!is_dp(trace_.name(i)) || analysis_.steps.FindHost(trace_.ts(i)) < 0) continue;
    bool nested = false;
    for (uint32_t p = trace_.parent(i); p != kNoIndex && !nested; p = trace_.parent(p)) nested = is_dp(trace_.name(p));
    if (nested) continue;
    SatAddTo(ns, trace_.dur(i));
    events.push_back(i);
  }
  const auto n = static_cast<int64_t>(events.size());
  Cost c = MakeCost(n, ns, std::move(events));
  c.summary = fmt::format("{:.1f} replicate/scatter/gather ops and peer copies per step, {:.2f} ms/step",
                          c.count_per_step, c.ms_per_step);
  return c;
}

LaunchBoundEvidence TraceEvidence::ShortKernels() const {
  constexpr int64_t kShortLaunchNs = 50'000;  // HTA's get_cuda_kernel_launch_stats threshold
  LaunchBoundEvidence out;
  std::vector<uint32_t> events;
  int64_t ns = 0;
  for (uint32_t j = 0; j < trace_.size(); ++j) {
    if (!IsLaunch(trace_.kind(j)) || analysis_.steps.FindHost(trace_.ts(j)) < 0) continue;
    const uint32_t g = trace_.link(j);
    if (g == kNoIndex || trace_.kind(g) != EventKind::kKernel) continue;
    ++out.launches;
    if (trace_.dur(j) > kShortLaunchNs || trace_.dur(g) >= trace_.dur(j)) continue;
    ++out.short_kernels;
    SatAddTo(ns, trace_.dur(j));
    events.push_back(j);
  }
  out.cost = MakeCost(out.short_kernels, ns, std::move(events));
  out.cost.summary = fmt::format(
      "{:.0f} of the kernels per step are shorter than their launch, {:.2f} ms/step of launches",
      out.cost.count_per_step, out.cost.ms_per_step);
  return out;
}

MicroStepAllReduceEvidence TraceEvidence::MicroStepAllReduces() const {
  MicroStepAllReduceEvidence out;
  std::vector<bool> optimizer(analysis_.steps.count(), false);
  for (uint32_t i = 0; i < trace_.size(); ++i) {
    const EventKind k = trace_.kind(i);
    if ((k != EventKind::kUserAnnotation && k != EventKind::kCpuOp) || !trace_.name(i).starts_with("Optimizer.step#")) {
      continue;
    }
    const int s = analysis_.steps.FindHost(trace_.ts(i));
    if (s >= 0 && static_cast<size_t>(s) < optimizer.size()) optimizer[static_cast<size_t>(s)] = true;
  }
  for (bool b : optimizer) {
    if (b) ++out.steps_with_optimizer;
  }
  std::vector<uint32_t> events;
  int64_t ns = 0;
  for (uint32_t g = 0; g < trace_.size(); ++g) {
    if (trace_.kind(g) != EventKind::kKernel) continue;
    const std::string_view n = trace_.name(g);
    if (n.find("AllReduce") == std::string_view::npos && n.find("allreduce") == std::string_view::npos) continue;
    const int s = analysis_.steps.Find(trace_.ts(g));
    if (s < 0 || static_cast<size_t>(s) >= optimizer.size()) continue;
    ++out.all_reduces;
    if (optimizer[static_cast<size_t>(s)]) continue;
    SatAddTo(ns, trace_.dur(g));
    events.push_back(g);
  }
  const auto n = static_cast<int64_t>(events.size());
  out.cost = MakeCost(n, ns, std::move(events));
  out.cost.summary = fmt::format(
      "{:.1f} all-reduce kernels per step in steps without an optimizer step, {:.2f} ms/step", out.cost.count_per_step,
      out.cost.ms_per_step);
  return out;
}

}  // namespace tl::trace
