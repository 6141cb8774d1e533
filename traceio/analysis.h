// Runs every analysis over one Trace and gathers the results, so that `torchlint trace`, the report,
// the evidence queries and the bench all see the same figures computed the same way.
#pragma once

#include <vector>

#include "traceio/analyses/bottleneck.h"
#include "traceio/analyses/breakdown.h"
#include "traceio/analyses/communication.h"
#include "traceio/analyses/copies.h"
#include "traceio/analyses/dataloader.h"
#include "traceio/analyses/gemm_shapes.h"
#include "traceio/analyses/gpu_busy.h"
#include "traceio/analyses/idle_gaps.h"
#include "traceio/analyses/kernels.h"
#include "traceio/analyses/launches.h"
#include "traceio/analyses/memory.h"
#include "traceio/analyses/ncu_handoff.h"
#include "traceio/analyses/optimizer.h"
#include "traceio/analyses/steps.h"
#include "traceio/analyses/syncs.h"
#include "traceio/analyses/top_ops.h"
#include "traceio/store.h"

namespace tl::trace {

struct AnalysisOptions {
  StepOptions steps;
  size_t top_n = 10;
  Thresholds thresholds;
};

struct TraceAnalysis {
  Steps steps;
  Breakdown breakdown;
  GpuBusy busy;
  IdleGaps idle;
  KernelSummary kernels;
  LaunchStats launches;
  Communication comm;
  SyncStats syncs;
  DataLoaderStats dataloader;
  CopyStats copies;
  OptimizerStats optimizer;
  GemmStats gemms;
  MemoryStats memory;
  TopOps top_ops;
  NcuHandoff ncu;
  std::vector<Bottleneck> bottlenecks;
};

TraceAnalysis Analyze(const Trace& trace, const AnalysisOptions& options = {});

}  // namespace tl::trace
