// Memory copies by kind (HtoD, DtoH, DtoD; pageable or pinned), with count, bytes and GPU time per step.
// Pageable host-to-device copies are the missing-pin_memory signal: the copy cannot overlap compute and
// its cudaMemcpyAsync blocks the host.
#pragma once

#include <cstdint>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct CopyGroup {
  CopyKind kind;
  int64_t count = 0;
  int64_t bytes = 0;
  int64_t gpu_ns = 0;
  int64_t host_ns = 0;  // duration of the launching cudaMemcpy* calls
};

struct CopyStats {
  std::vector<CopyGroup> groups;  // by count, largest first
  int64_t count = 0;
  int64_t pageable = 0;
  int64_t pageable_htod = 0;
  int64_t pageable_htod_bytes = 0;
  int64_t pageable_htod_gpu_ns = 0;
  int64_t pageable_htod_host_ns = 0;
  double pageable_per_step = 0.0;
  std::vector<uint32_t> pageable_htod_events;  // the GPU copies, inside the steps
};

CopyStats AnalyzeCopies(const Trace& trace, const Steps& steps);

}  // namespace tl::trace
