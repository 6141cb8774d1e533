#include "traceio/analysis.h"

namespace tl::trace {

TraceAnalysis Analyze(const Trace& trace, const AnalysisOptions& options) {
  TraceAnalysis a;
  a.steps = FindSteps(trace, options.steps);
  a.breakdown = AnalyzeBreakdown(trace, a.steps);
  a.busy = AnalyzeGpuBusy(trace, a.steps);
  a.idle = AnalyzeIdleGaps(trace, a.steps);
  a.kernels = AnalyzeKernels(trace, a.steps, options.top_n);
  a.launches = AnalyzeLaunches(trace, a.steps);
  a.comm = AnalyzeCommunication(trace, a.steps);
  a.syncs = AnalyzeSyncs(trace, a.steps);
  a.dataloader = AnalyzeDataLoader(trace, a.steps);
  a.copies = AnalyzeCopies(trace, a.steps);
  a.optimizer = AnalyzeOptimizer(trace, a.steps);
  a.gemms = AnalyzeGemmShapes(trace, a.steps);
  a.memory = AnalyzeMemory(trace);
  a.top_ops = AnalyzeTopOps(trace, a.steps, options.top_n);
  a.ncu = AnalyzeNcuHandoff(trace, a.steps);
  a.bottlenecks = ClassifyBottlenecks(trace, a, options.thresholds);
  return a;
}

}  // namespace tl::trace
