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
