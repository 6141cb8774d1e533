// The questions a cross-check asks of a trace: "what did the code at file.py:42 cost", "how many device
// syncs ran under it", "what share of the step is the DataLoader", "pageable HtoD copies", "zero_grad's
// fill_/zero_ work", "unaligned GEMMs and whether tensor cores ran". Each answer is a Cost (count, ms
// per step, share of the step, example events) plus what the trace can and cannot tell, so that a rule
// can say confirmed, refuted, not observed, or unverifiable (and which profiler option is missing).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "traceio/analyses/source_index.h"
#include "traceio/analysis.h"
#include "traceio/store.h"

namespace tl::trace {

// What the trace holds, so a rule can tell "the pattern cost nothing" from "the trace cannot say".
struct Capabilities {
  bool cuda = false;           // GPU kernels/copies present (ProfilerActivity.CUDA)
  bool python_stacks = false;  // python_function frames (with_stack=True, PyTorch >= 1.11)
  bool call_from = false;      // CallFrom call sites (PyTorch 2.14+)
  bool call_stacks = false;    // `Call stack` args (PyTorch 1.8-1.9 with_stack)
  bool shapes = false;         // Input Dims (record_shapes=True)
  bool memory = false;         // [memory] events (profile_memory=True)
  bool steps = false;          // ProfilerStep windows (schedule + prof.step())
  bool source_ranges = false;  // ranges named after the lines they hold (`instrument --template nvtx`)
  std::string torch_era;       // "1.8-1.9", ">=1.10", "legacy (no Kineto)", or ""
  bool stacks() const { return python_stacks || call_stacks; }
};

struct EventRef {
  uint32_t event = kNoIndex;
  std::string name;
  double start_ms = 0.0;  // from the first event of the trace
  double dur_ms = 0.0;
};

struct Cost {
  bool observed = false;  // something matched inside the analysed steps
  int64_t count = 0;
  double count_per_step = 0.0;
  double ms_per_step = 0.0;
  double share_of_step = 0.0;  // ms_per_step over the mean step time
  std::vector<EventRef> examples;
  std::string summary;  // one sentence with the figures
  // Every event the time was measured on (the host call for a copy), so that two findings that explain
  // the same events can share their time rather than both claim it.
  std::vector<uint32_t> claims;
};

struct SyncEvidence {
  Cost cost;               // sync calls and blocking DtoH copies
  int64_t item_calls = 0;  // .item() calls in the scope
  int64_t syncing_item_calls = 0;
  bool code_ran = false;  // the scope had any events in the steps
};

struct DataLoaderEvidence {
  Cost cost;
  IteratorKind iterator = IteratorKind::kNone;
};

struct GemmEvidence {
  Cost cost;
  int64_t gemms = 0;
  bool tensor_cores_ran = false;
  double tensor_core_share = 0.0;
  std::vector<GemmShape> shapes;
};

// Rules catalog (TL102-TL205).
// TL102: syncs of ops that read the device without a sync call.
struct ImplicitSyncEvidence {
  Cost cost;                 // the blocking calls (cudaStreamSynchronize, blocking DtoH copies) counted
  int64_t implicit_ops = 0;  // data-dependent ops and tensor truth tests run (nonzero, is_nonzero, unique...)
  bool code_ran = false;     // the scope had any events in the steps
};
// TL204: host-to-device copies from pinned memory, and those the host waited for.
struct PinnedCopyEvidence {
  Cost blocking;            // pinned HtoD copies whose op waited for them (a sync in the same op, or a
                            // synchronous cudaMemcpy); the time is the host's wait
  int64_t pinned_htod = 0;  // all pinned HtoD copies in the scope
  int64_t pageable_htod = 0;
};
// TL203: DataLoader iterators started (the `_get_iterator` frames of `DataLoader.__iter__`).
struct LoaderStartupEvidence {
  Cost cost;                                    // every start-up in the trace, in or out of the steps
  int64_t multi_process = 0;                    // of those, the ones that started worker processes
  IteratorKind iterator = IteratorKind::kNone;  // what the steps' `__next__` calls show
};

// TL103: the caching allocator giving memory back and taking it again.
struct AllocatorEvidence {
  Cost frees;    // cudaFree calls (under `where`, or in the steps)
  Cost mallocs;  // cudaMalloc calls in the steps
};

// Rules catalog (TL501-TL901): the kernels under `Optimizer.step#...`.
struct OptimizerStepEvidence {
  Cost cost;                 // the step calls; ns: their launch overhead (host time above the kernels' GPU time)
  int64_t calls = 0;         // Optimizer.step ranges in the analysed steps
  int64_t kernels = 0;       // GPU kernels/memsets launched beneath them
  int64_t kernel_ns = 0;     // their GPU time
  int64_t host_ns = 0;       // the step ranges' CPU time
  int64_t multi_tensor = 0;  // of the kernels, multi-tensor (foreach) or fused ones
};

// Rules catalog (TL501-TL901): launch-bound steps, by HTA's short-kernel test.
struct LaunchBoundEvidence {
  Cost cost;                  // the short kernels; ns: the host time of their launches
  int64_t launches = 0;       // kernel launches with a GPU event in the analysed steps
  int64_t short_kernels = 0;  // launch <= 50 us on the host and the kernel shorter than its launch
  double short_share() const {
    return launches ? static_cast<double>(short_kernels) / static_cast<double>(launches) : 0.0;
  }
};

// Rules catalog (TL501-TL901): all-reduces in profiled steps that run no optimizer step.
struct MicroStepAllReduceEvidence {
  Cost cost;                        // the all-reduce kernels of steps without an optimizer step
  int64_t all_reduces = 0;          // all-reduce kernels in the analysed steps
  size_t steps_with_optimizer = 0;  // analysed steps that run Optimizer.step
};

// Rules catalog (TL302-TL406).
// TL405: convolutions in the analysed steps and the bias adds they run (`aten::add_` inside
// `aten::_convolution`); `cost` is the adds' time (GPU time, else CPU time).
struct ConvBiasEvidence {
  Cost cost;
  int64_t convolutions = 0;
  double convolutions_per_step = 0.0;
  int64_t batch_norms = 0;
};

// TL302: the ops of the backward pass under a loop (`autograd::engine::evaluate_function` and
// `*Backward*` ops), and the loop's own cost.
struct AutogradEvidence {
  Cost cost;  // the loop's CPU time per step (CostOf)
  int64_t backward_ops = 0;
};

// TL402/TL403: fp32 GEMM and convolution kernels that ran without tensor cores (volta_sgemm, SIMT),
// and the tensor-core kernel time beside them.
struct PrecisionEvidence {
  Cost cost;  // the fp32 GEMM/conv kernels
  int64_t tensor_core_kernels = 0;
  double tensor_core_ms_per_step = 0.0;
};

class TraceEvidence {
 public:
  TraceEvidence(const Trace& trace, const TraceAnalysis& analysis);

  const Capabilities& capabilities() const { return caps_; }
  const Trace& trace() const { return trace_; }
  const TraceAnalysis& analysis() const { return analysis_; }

  // Where the code at `file:line` ran (CallFrom, then 1.8-1.9 Call stack).
  SourceMatch Locate(std::string_view file, int line) const;
  // Frames of a function, for traces without CallFrom.
  SourceMatch LocateFunction(std::string_view file, std::string_view function, int def_line = 0) const;
  // The narrowest source range that holds `file:line` (SourceIndex::InRange), and the files they name.
  SourceMatch LocateRange(std::string_view file, int line) const;
  std::vector<std::string_view> RangeFiles() const;
  // Whether a match ran inside the analysed steps.
  bool RanInSteps(const SourceMatch& where) const;

  // TL101: device syncs (explicit sync calls, blocking DtoH copies, syncing .item()) under `where`, or in
  // the whole of the analysed steps when `where` is null.
  SyncEvidence DeviceSyncs(const SourceMatch* where = nullptr) const;
  // TL201: the DataLoader's share of the step.
  DataLoaderEvidence DataLoader() const;
  // TL202: pageable host-to-device copies (under `where`, or all).
  Cost PageableHtoD(const SourceMatch* where = nullptr) const;
  // TL301: fill_/zero_ work under Optimizer.zero_grad (the calls inside `where`, or all).
  Cost ZeroGradWork(const SourceMatch* where = nullptr) const;
  // TL401: GEMMs with K or N not a multiple of 8 (under `where`, or all), and whether tensor cores ran.
  GemmEvidence UnalignedGemms(const SourceMatch* where = nullptr) const;
  // Rules catalog (TL302-TL406).
  // TL405: the bias adds inside convolutions, and how many convolutions and batch norms ran.
  ConvBiasEvidence ConvBiasAdds() const;
  // TL302: backward ops under `where` (in the analysed steps), with the cost of `where`.
  AutogradEvidence AutogradUnder(const SourceMatch& where) const;
  // TL402/TL403: fp32 GEMM/conv kernels off tensor cores in the analysed steps, and tensor-core time.
  PrecisionEvidence Fp32Gemms() const;
  // TL406: NCHW/NHWC layout transpose kernels (`nchwToNhwc`, `nhwcToNchw`) in the analysed steps.
  Cost LayoutTransposes() const;

  // Rules catalog (TL501-TL901).
  // TL501: the optimizer step's kernels and whether they were multi-tensor or fused.
  OptimizerStepEvidence OptimizerStepKernels() const;
  // TL502: kernels shorter than their own launch (the step is bound by launching them).
  LaunchBoundEvidence ShortKernels() const;
  // TL601: all-reduce kernels in the analysed steps that run no `Optimizer.step` (micro-steps, when
  // `prof.step()` is called per micro-batch).
  MicroStepAllReduceEvidence MicroStepAllReduces() const;
  // TL602: DataParallel's replicate/scatter/gather work: the outermost ops named Broadcast*,
  // ReduceAddCoalesced*, Scatter*, Gather* (and their autograd nodes) and peer-to-peer copies.
  Cost DataParallelWork() const;

  // Rules catalog (TL102-TL205).
  // TL102: blocking calls under ops that read the device implicitly (aten::nonzero, aten::is_nonzero,
  // masked_select, unique, repeat_interleave) in the steps, or every blocking call under `where`.
  ImplicitSyncEvidence ImplicitSyncs(const SourceMatch* where = nullptr) const;
  // TL204: pinned HtoD copies in the steps (under `where`, or all), and the ones the host waited for.
  PinnedCopyEvidence PinnedHtoD(const SourceMatch* where = nullptr) const;
  // TL203: DataLoader iterator start-ups anywhere in the trace (needs Python frames, with_stack=True).
  LoaderStartupEvidence LoaderStartups() const;
  // TL205: HtoD copies made by `aten::to` right after a data-free factory op (aten::zeros, randn, arange...)
  // of the same parent, in the steps (under `where`, or all); the time is the host time of those moves.
  Cost FactoryCopies(const SourceMatch* where = nullptr) const;
  // TL103: cudaFree calls (under `where`, or in the steps) and the cudaMalloc calls of the steps.
  AllocatorEvidence AllocatorRoundTrips(const SourceMatch* where = nullptr) const;

  // CPU and GPU time under `where` per step: "what did this line cost".
  Cost CostOf(const SourceMatch& where) const;
  // Whether event `e` lies wholly inside one of `where`'s spans.
  bool Inside(const SourceMatch& where, uint32_t e) const;

 private:
  template <typename Fn>
  void ForEachUnder(const SourceMatch& where, Fn&& fn) const;
  Cost MakeCost(int64_t count, int64_t ns, std::vector<uint32_t> events) const;
  EventRef Ref(uint32_t event) const;

  const Trace& trace_;
  const TraceAnalysis& analysis_;
  Capabilities caps_;
  std::unique_ptr<SourceIndex> index_;
};

}  // namespace tl::trace
