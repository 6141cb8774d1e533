// The evidence questions of TL102, TL103, TL203, TL204 and TL205 on one small hand-made trace whose
// answers are known exactly: what each counts, and what each must leave out.
#include <doctest/doctest.h>

#include <string>

#include "tests/traceio/helpers.h"
#include "traceio/evidence.h"

using namespace tl::trace;
using namespace tl::trace::testing;

namespace {

std::string Corr(int c) { return fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}}})", c); }
std::string Launch(int c) { return fmt::format(R"({{"correlation": {}}})", c); }

// One analysed step (the second, 10 µs long, is the dropped last one).
std::string CatalogTrace() {
  return TraceJson({
      X("user_annotation", "ProfilerStep#1", "0", "1000"),
      // A mask: aten::nonzero copies the count back and waits for the stream (60 µs).
      X("cpu_op", "aten::nonzero", "10", "100"),
      X("cuda_runtime", "cudaMemcpyAsync", "20", "10", "1", "1", Launch(1)),
      X("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", "25", "2", "0", "7", Corr(1)),
      X("cuda_runtime", "cudaStreamSynchronize", "35", "60", "1", "1", Launch(2)),
      // An explicit .item(): a sync, but not an implicit one.
      X("cpu_op", "aten::item", "120", "50"),
      X("cpu_op", "aten::_local_scalar_dense", "121", "48"),
      X("cuda_runtime", "cudaStreamSynchronize", "130", "30", "1", "1", Launch(6)),
      // A blocking pinned copy: `.to(device)` without non_blocking (the host waits 65 µs).
      X("cpu_op", "aten::to", "200", "100"),
      X("cpu_op", "aten::_to_copy", "201", "98"),
      X("cpu_op", "aten::copy_", "202", "96"),
      X("cuda_runtime", "cudaMemcpyAsync", "210", "10", "1", "1", Launch(3)),
      X("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", "215", "60", "0", "7", Corr(3)),
      X("cuda_runtime", "cudaStreamSynchronize", "225", "65", "1", "1", Launch(7)),
      // An asynchronous pinned copy.
      X("cpu_op", "aten::to", "310", "30"),
      X("cpu_op", "aten::_to_copy", "311", "28"),
      X("cpu_op", "aten::copy_", "312", "26"),
      X("cuda_runtime", "cudaMemcpyAsync", "320", "5", "1", "1", Launch(4)),
      X("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", "330", "20", "0", "7", Corr(4)),
      // torch.arange(n).to(device): the factory, then its move (38 µs of host time).
      X("cpu_op", "aten::arange", "400", "10"),
      X("cpu_op", "aten::to", "412", "38"),
      X("cpu_op", "aten::_to_copy", "413", "36"),
      X("cpu_op", "aten::copy_", "414", "34"),
      X("cuda_runtime", "cudaMemcpyAsync", "420", "20", "1", "1", Launch(5)),
      X("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", "425", "10", "0", "7", Corr(5)),
      // empty_cache(): the cache is freed, then allocated again.
      X("cuda_runtime", "cudaFree", "500", "40", "1", "1", Launch(8)),
      X("cuda_runtime", "cudaMalloc", "600", "20", "1", "1", Launch(9)),
      // Two iterators started: one with worker processes, one without.
      X("python_function", "torch/utils/data/dataloader.py(493): _get_iterator", "700", "200"),
      X("python_function", "torch/utils/data/dataloader.py(1040): __init__", "710", "180"),
      X("python_function", "multiprocessing/process.py(110): start", "720", "80"),
      X("python_function", "torch/utils/data/dataloader.py(493): _get_iterator", "910", "40"),
      X("python_function", "torch/utils/data/dataloader.py(660): __init__", "915", "30"),
      X("user_annotation", "ProfilerStep#2", "1000", "10"),
  });
}

TEST_CASE("catalog evidence: implicit syncs, pinned copies, factory moves, allocator and iterator start-ups") {
  auto r = ReadString(CatalogTrace());
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  REQUIRE(a.steps.count() == 1);
  TraceEvidence ev(*r.trace, a);
  REQUIRE(ev.capabilities().cuda);

  // TL102: the DtoH copy to pageable memory (10 µs) and the stream sync (60 µs) under aten::nonzero, as
  // TL101 counts blocking calls; the .item()'s sync is TL101's, not an implicit one.
  const ImplicitSyncEvidence s = ev.ImplicitSyncs();
  CHECK(s.cost.count == 2);
  CHECK(s.cost.ms_per_step == doctest::Approx(0.070));
  CHECK(s.implicit_ops == 1);
  CHECK(s.code_ran);

  // TL204: two pinned copies, one of which the host waited for; the pageable one is TL202's.
  const PinnedCopyEvidence p = ev.PinnedHtoD();
  CHECK(p.pinned_htod == 2);
  CHECK(p.pageable_htod == 1);
  CHECK(p.blocking.count == 1);
  CHECK(p.blocking.ms_per_step == doctest::Approx(0.065));

  // TL205: only the aten::to right after aten::arange; the other moves follow an .item() and a move.
  const Cost f = ev.FactoryCopies();
  CHECK(f.count == 1);
  CHECK(f.ms_per_step == doctest::Approx(0.038));
  REQUIRE(f.examples.size() == 1);
  CHECK(f.examples[0].name == "aten::to");
  CHECK(f.examples[0].start_ms == doctest::Approx(0.412));

  // TL103: one cudaFree and one cudaMalloc in the step.
  const AllocatorEvidence m = ev.AllocatorRoundTrips();
  CHECK(m.frees.count == 1);
  CHECK(m.frees.ms_per_step == doctest::Approx(0.040));
  CHECK(m.mallocs.count == 1);
  CHECK(m.mallocs.ms_per_step == doctest::Approx(0.020));

  // TL203: two start-ups, one of them with worker processes.
  const LoaderStartupEvidence l = ev.LoaderStartups();
  CHECK(l.cost.count == 2);
  CHECK(l.multi_process == 1);
  CHECK(l.cost.ms_per_step == doctest::Approx(0.240));
}

TEST_CASE("catalog evidence: a trace with none of the patterns answers zero everywhere") {
  auto r = ReadString(TraceJson({
      X("user_annotation", "ProfilerStep#1", "0", "1000"),
      X("cpu_op", "aten::mm", "10", "100"),
      X("cuda_runtime", "cudaLaunchKernel", "20", "10", "1", "1", Launch(1)),
      X("kernel", "volta_sgemm_128x64_nn", "40", "300", "0", "7", Corr(1)),
      X("user_annotation", "ProfilerStep#2", "1000", "10"),
  }));
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  TraceEvidence ev(*r.trace, a);
  CHECK(ev.ImplicitSyncs().cost.count == 0);
  CHECK(ev.ImplicitSyncs().implicit_ops == 0);
  CHECK(ev.PinnedHtoD().pinned_htod == 0);
  CHECK(ev.FactoryCopies().count == 0);
  CHECK(ev.AllocatorRoundTrips().frees.count == 0);
  CHECK(ev.LoaderStartups().cost.count == 0);
}

}  // namespace
