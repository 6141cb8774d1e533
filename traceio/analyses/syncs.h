// Host-device synchronisation: explicit sync calls (cudaStreamSynchronize, cudaDeviceSynchronize,
// cudaEventSynchronize, synchronous cudaMemcpy) per step and the CPU time they block, and every
// `.item()` (aten::item / aten::_local_scalar_dense) judged on what it encloses: a device-to-host copy
// and a sync mean it really synchronised; nothing beneath it means a CPU scalar, which costs nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct ItemCall {
  uint32_t event = kNoIndex;  // aten::item (or a lone _local_scalar_dense)
  int step = -1;              // index into Steps::analysed, -1 outside the steps
  bool dtoh_copy = false;     // encloses a memcpy whose GPU copy is device-to-host
  bool sync_call = false;     // encloses a sync runtime call
  int64_t blocked_ns = 0;     // time in the enclosed sync and copy calls
  bool syncs() const { return dtoh_copy || sync_call; }
};

struct SyncStats {
  int64_t sync_calls = 0;             // explicit sync calls inside the analysed steps
  int64_t sync_ns = 0;                // their total duration
  std::vector<uint32_t> sync_events;  // those calls, in the store's order (their ts/dur are the trace's)
  int64_t blocking_copies = 0;        // cudaMemcpyAsync calls that blocked: DtoH into pageable memory
  int64_t blocking_copy_ns = 0;
  std::vector<ItemCall> items;  // every .item() in the trace, in time order
  int64_t items_in_steps = 0;
  int64_t syncing_items = 0;  // of those inside the analysed steps
  int64_t item_blocked_ns = 0;
  double per_step = 0.0;             // sync calls per step
  double blocked_ms_per_step = 0.0;  // (sync_ns + blocking_copy_ns) per step
};

SyncStats AnalyzeSyncs(const Trace& trace, const Steps& steps);

// What a CPU range (an op, a python frame) encloses in terms of device syncs.
struct SyncUnder {
  bool dtoh_copy = false;
  bool sync_call = false;
  int64_t blocked_ns = 0;
};
SyncUnder SyncsUnder(const Trace& trace, uint32_t event);

}  // namespace tl::trace
