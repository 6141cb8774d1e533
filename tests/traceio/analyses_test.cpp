// Each analysis on small hand-made traces whose answers are known exactly.
#include <doctest/doctest.h>

#include "tests/traceio/helpers.h"
#include "traceio/analyses/names.h"
#include "traceio/analyses/source_index.h"
#include "traceio/evidence.h"

using namespace tl::trace;
using namespace tl::trace::testing;

namespace {

std::string Corr(int c, int device = 0, int stream = 7) {
  return fmt::format(R"({{"device": {}, "stream": {}, "correlation": {}}})", device, stream, c);
}

// Two 1000 µs steps: a DataLoader __next__ of 400 µs at the top of each, a kernel of 300 µs, and a
// third step that HTA would treat as partial.
std::string TwoStepTrace(bool single_process = true) {
  std::string dl = single_process ? "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
                                  : "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
  std::vector<std::string> ev;
  for (int s = 0; s < 3; ++s) {
    int base = s * 1000;
    ev.push_back(X("user_annotation", fmt::format("ProfilerStep#{}", s), std::to_string(base), "1000"));
    ev.push_back(X("user_annotation", dl, std::to_string(base + 10), "400"));
    ev.push_back(X("cpu_op", "aten::mm", std::to_string(base + 500), "50", "1", "1",
                   R"({"Input Dims": [[256, 1000], [1000, 1001]], "Input type": ["c10::Half", "c10::Half"]})"));
    ev.push_back(X("cuda_runtime", "cudaLaunchKernel", std::to_string(base + 510), "8", "1", "1",
                   fmt::format(R"({{"correlation": {}}})", 100 + s)));
    ev.push_back(X("kernel", "volta_sgemm_128x64_nn", std::to_string(base + 600), "300", "0", "7", Corr(100 + s)));
  }
  return TraceJson(ev, R"("deviceProperties": [{"id": 0, "name": "Tesla V100", "totalGlobalMem": 1000, "computeMajor": 7, "computeMinor": 0}], )");
}

}  // namespace

TEST_CASE("steps: ProfilerStep windows with the last partial step left out") {
  auto r = ReadString(TwoStepTrace());
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  CHECK(a.steps.source == StepSource::kProfilerStep);
  CHECK(a.steps.all.size() == 3);
  CHECK(a.steps.count() == 2);
  CHECK(a.steps.last_dropped);
  CHECK(a.steps.mean_ms() == doctest::Approx(1.0));

  AnalysisOptions all;
  all.steps.include_last_step = true;
  CHECK(Analyze(*r.trace, all).steps.count() == 3);
}

TEST_CASE("steps: Optimizer.step fallback and the whole trace") {
  auto r = ReadString(TraceJson({X("cpu_op", "aten::add", "0", "10"), X("user_annotation", "Optimizer.step#SGD.step", "50", "50"),
                             X("cpu_op", "aten::add", "120", "10"), X("user_annotation", "Optimizer.step#SGD.step", "150", "50")}));
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  CHECK(a.steps.source == StepSource::kOptimizerStep);
  CHECK(a.steps.count() == 2);
  CHECK(a.steps.analysed[0].duration() == 100000);
  CHECK(a.steps.analysed[1].duration() == 100000);

  auto w = ReadString(TraceJson({X("cpu_op", "aten::add", "0", "10"), X("cpu_op", "aten::add", "90", "10")}));
  auto b = Analyze(*w.trace);
  CHECK(b.steps.source == StepSource::kWholeTrace);
  CHECK(b.steps.count() == 1);
  CHECK(b.steps.analysed_ns == 100000);
}

TEST_CASE("DataLoader share, iterator kind, GPU busy, kernels and breakdown") {
  auto r = ReadString(TwoStepTrace());
  auto a = Analyze(*r.trace);
  CHECK(a.dataloader.iterator == IteratorKind::kSingle);
  CHECK(a.dataloader.share == doctest::Approx(0.4));
  CHECK(a.dataloader.calls == 2);
  CHECK(a.busy.share == doctest::Approx(0.3));
  CHECK(a.kernels.count == 2);
  CHECK(a.kernels.short_share() == doctest::Approx(0.0));
  CHECK(a.kernels.tensor_core_share() == doctest::Approx(0.0));
  CHECK(a.kernels.fp32_gemm_ns == 600000);
  // Priority: the kernel (300) first, then runtime (8), DataLoader (400), CPU exec: mm minus its launch.
  CHECK(a.breakdown.total[static_cast<size_t>(Role::kKernel)] == 600000);
  CHECK(a.breakdown.total[static_cast<size_t>(Role::kRuntime)] == 16000);
  CHECK(a.breakdown.total[static_cast<size_t>(Role::kDataLoader)] == 800000);
  CHECK(a.breakdown.total[static_cast<size_t>(Role::kCpuExec)] == 2 * (50000 - 8000));
  int64_t sum = 0;
  for (auto v : a.breakdown.total) sum += v;
  CHECK(sum == a.steps.analysed_ns);

  auto m = Analyze(*ReadString(TwoStepTrace(false)).trace);
  CHECK(m.dataloader.iterator == IteratorKind::kMulti);
}

TEST_CASE("bottlenecks: data-bound with its evidence; compute flagged for fp32 GEMMs on a tensor-core GPU") {
  auto a = Analyze(*ReadString(TwoStepTrace()).trace);
  REQUIRE(!a.bottlenecks.empty());
  CHECK(a.bottlenecks[0].kind == BottleneckKind::kData);
  CHECK(a.bottlenecks[0].severity == Severity::kHigh);
  CHECK(a.bottlenecks[0].evidence[0].metric == "dataloader.share");
  CHECK(a.bottlenecks[0].evidence[0].value == doctest::Approx(0.4));
  bool compute = false;
  for (const auto& b : a.bottlenecks) compute = compute || b.kind == BottleneckKind::kCompute;
  CHECK(compute);
}

TEST_CASE("GEMM shapes: K or N not a multiple of 8") {
  auto a = Analyze(*ReadString(TwoStepTrace()).trace);
  CHECK(a.gemms.has_shapes);
  CHECK(a.gemms.gemms == 2);
  CHECK(a.gemms.unaligned == 2);
  REQUIRE(a.gemms.shapes.size() == 1);
  CHECK(a.gemms.shapes[0].k == 1000);
  CHECK(a.gemms.shapes[0].n == 1001);
  CHECK(a.gemms.shapes[0].dtype == "c10::Half");
  CHECK(a.gemms.unaligned_gpu_ns == 600000);

  CHECK(GemmDimsOf("aten::linear", {{257, 1000}, {1001, 1000}, {1001}}).n == 1001);
  CHECK(GemmDimsOf("aten::linear", {{257, 1000}, {1001, 1000}, {1001}}).k == 1000);
  CHECK(GemmDimsOf("aten::addmm", {{1024}, {256, 1024}, {1024, 1024}, {}, {}}).k == 1024);
  CHECK(GemmDimsOf("aten::bmm", {{8, 197, 64}, {8, 64, 197}}).n == 197);
  CHECK_FALSE(GemmDimsOf("aten::mm", {{}, {}}).known());
}

TEST_CASE(".item(): a CPU scalar is not a sync; a DtoH copy plus a stream sync is") {
  std::string json = TraceJson({
      X("user_annotation", "ProfilerStep#1", "0", "1000"),
      // CPU scalar: nothing beneath.
      X("cpu_op", "aten::item", "10", "5"), X("cpu_op", "aten::_local_scalar_dense", "11", "3"),
      // Device scalar: memcpy DtoH + stream sync beneath.
      X("cpu_op", "aten::item", "100", "300"), X("cpu_op", "aten::_local_scalar_dense", "101", "298"),
      X("cuda_runtime", "cudaMemcpyAsync", "110", "200", "1", "1", R"({"correlation": 5})"),
      X("cuda_runtime", "cudaStreamSynchronize", "320", "50", "1", "1", R"({"correlation": 6})"),
      X("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", "300", "2", "0", "7", Corr(5)),
      X("user_annotation", "ProfilerStep#2", "1000", "1000"),
  });
  auto r = ReadString(json);
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  REQUIRE(a.syncs.items.size() == 2);
  CHECK_FALSE(a.syncs.items[0].syncs());
  CHECK(a.syncs.items[1].syncs());
  CHECK(a.syncs.items[1].dtoh_copy);
  CHECK(a.syncs.items[1].sync_call);
  CHECK(a.syncs.items[1].blocked_ns == 250000);
  CHECK(a.syncs.sync_calls == 1);
  CHECK(a.syncs.blocking_copies == 1);
  CHECK(a.syncs.blocked_ms_per_step == doctest::Approx(0.25));
}

TEST_CASE("copies: pageable versus pinned, and zero_grad fill work") {
  std::string json = TraceJson({
      X("user_annotation", "ProfilerStep#1", "0", "1000"),
      X("cuda_runtime", "cudaMemcpyAsync", "10", "40", "1", "1", R"({"correlation": 1})"),
      X("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", "20", "30", "0", "7", R"({"device": 0, "stream": 7, "correlation": 1, "bytes": 4096})"),
      X("cuda_runtime", "cudaMemcpyAsync", "60", "5", "1", "1", R"({"correlation": 2})"),
      X("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", "70", "10", "0", "7", R"({"device": 0, "stream": 7, "correlation": 2, "bytes": 4096})"),
      X("user_annotation", "Optimizer.zero_grad#SGD.zero_grad", "100", "100"),
      X("cpu_op", "aten::zero_", "110", "20"), X("cpu_op", "aten::fill_", "111", "18"),
      X("cuda_runtime", "cudaLaunchKernel", "112", "5", "1", "1", R"({"correlation": 3})"),
      X("kernel", "void at::native::vectorized_elementwise_kernel<FillFunctor>", "130", "4", "0", "7", Corr(3)),
      X("cpu_op", "aten::zero_", "140", "20"), X("cpu_op", "aten::fill_", "141", "18"),
      X("user_annotation", "ProfilerStep#2", "1000", "10"),
  });
  auto a = Analyze(*ReadString(json).trace);
  CHECK(a.copies.count == 2);
  CHECK(a.copies.pageable == 1);
  CHECK(a.copies.pageable_htod == 1);
  CHECK(a.copies.pageable_htod_bytes == 4096);
  CHECK(a.copies.pageable_per_step == doctest::Approx(1.0));
  CHECK(a.optimizer.zero_grad.calls == 1);
  CHECK(a.optimizer.zero_grad.fill_ops == 2);
  CHECK(a.optimizer.zero_grad.kernels == 1);
  CHECK(a.optimizer.zero_grad.kernel_ns == 4000);
}

TEST_CASE("launch-bound: tiny kernels and an idle GPU waiting on the host") {
  std::vector<std::string> ev{X("user_annotation", "ProfilerStep#1", "0", "2000")};
  for (int i = 0; i < 50; ++i) {
    int t = 10 + i * 30;
    ev.push_back(X("cuda_runtime", "cudaLaunchKernel", std::to_string(t), "20", "1", "1", fmt::format(R"({{"correlation": {}}})", i + 1)));
    ev.push_back(X("kernel", "void at::native::vectorized_elementwise_kernel<add>", std::to_string(t + 22), "3", "0", "7", Corr(i + 1)));
  }
  ev.push_back(X("user_annotation", "ProfilerStep#2", "2000", "10"));
  auto a = Analyze(*ReadString(TraceJson(ev)).trace);
  CHECK(a.kernels.short_share() == doctest::Approx(1.0));
  CHECK(a.busy.share == doctest::Approx(150.0 / 2000.0));
  CHECK(a.launches.launches == 50);
  CHECK(a.launches.short_kernels == 50);
  CHECK(a.idle.host_wait_ns == 49 * 27000);
  REQUIRE(!a.bottlenecks.empty());
  CHECK(a.bottlenecks[0].kind == BottleneckKind::kLaunch);
  CHECK(a.bottlenecks[0].severity == Severity::kHigh);
}

TEST_CASE("communication share and overlap") {
  std::string json = TraceJson({
      X("user_annotation", "ProfilerStep#1", "0", "1000"),
      X("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", "100", "400", "0", "20", Corr(0, 0, 20)),
      X("kernel", "sm90_xmma_gemm_bf16bf16_bf16f32", "100", "200", "0", "7", Corr(0)),
      X("kernel", "void at::native::vectorized_elementwise_kernel<mul>", "600", "200", "0", "7", Corr(0)),
      X("user_annotation", "ProfilerStep#2", "1000", "10"),
  });
  auto a = Analyze(*ReadString(json).trace);
  CHECK(a.comm.share() == doctest::Approx(0.5));
  CHECK(a.comm.overlap() == doctest::Approx(0.5));
  CHECK(a.kernels.tensor_core_share() == doctest::Approx(0.25));
  bool comm = false;
  for (const auto& b : a.bottlenecks) comm = comm || (b.kind == BottleneckKind::kCommunication && b.severity == Severity::kHigh);
  CHECK(comm);
}

TEST_CASE("tensor-core kernel names from Volta to Blackwell and AMD; fp32 ones are not") {
  for (const char* name : {"volta_h884gemm_64x64_ldg8_nn", "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn",
                           "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_tn",
                           "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(...)",
                           "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
                           "nvjet_hsh_128x256_64x4_1x2_h_bz_coopA_NTN", "sm100_xmma_gemm_f16f16", "flash_fwd_kernel",
                           "Cijk_Ailk_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_1LDSB0"}) {
    CAPTURE(name);
    CHECK(IsTensorCoreKernel(name));
  }
  for (const char* name : {"volta_sgemm_128x64_nn", "ampere_sgemm_64x32_sliced1x4_tn",
                           "void cutlass::Kernel<cutlass_80_simt_sgemm_128x128_8x4_nn_align1>(...)",
                           "void at::native::vectorized_elementwise_kernel<4, add>", "ncclKernel_AllReduce"}) {
    CAPTURE(name);
    CHECK_FALSE(IsTensorCoreKernel(name));
  }
}

TEST_CASE("memory peaks from totals, and from a running sum on 1.8-1.9") {
  std::string json = TraceJson({
      R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1, "args": {"Total Reserved": 2000, "Total Allocated": 1000, "Bytes": 1000, "Device Id": 0, "Device Type": 1}})",
      R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 2, "args": {"Total Reserved": 4000, "Total Allocated": 3000, "Bytes": 2000, "Device Id": 0, "Device Type": 1}})",
      R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 3, "args": {"Total Reserved": 4000, "Total Allocated": 1000, "Bytes": -2000, "Device Id": 0, "Device Type": 1}})",
      R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 4, "args": {"Device Type": 0, "Device Id": -1, "Bytes": 64}})",
      R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5, "args": {"Device Type": 0, "Device Id": -1, "Bytes": 64}})",
      R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 6, "args": {"Device Type": 0, "Device Id": -1, "Bytes": -64}})",
  });
  auto a = Analyze(*ReadString(json).trace);
  REQUIRE(a.memory.devices.size() == 2);
  CHECK(a.memory.devices[0].device_type == 1);
  CHECK(a.memory.devices[0].peak_allocated == 3000);
  CHECK(a.memory.devices[0].peak_reserved == 4000);
  CHECK(a.memory.devices[1].peak_allocated == 128);
}

TEST_CASE("source index: CallFrom call sites, 1.8-1.9 Call stack, and path matching") {
  CHECK(PathMatchScore("/home/u/proj/train.py", "train.py") == 1);
  CHECK(PathMatchScore("/home/u/proj/train.py", "proj/train.py") == 2);
  CHECK(PathMatchScore("C:\\work\\proj\\train.py", "/ci/checkout/proj/train.py") == 2);
  CHECK(PathMatchScore("train.py", "eval.py") == 0);
  FrameName f = ParseFrameName("torch/nn/modules/module.py(1501): _call_impl");
  CHECK(f.ok);
  CHECK(f.file == "torch/nn/modules/module.py");
  CHECK(f.line == 1501);
  CHECK(f.function == "_call_impl");

  std::string json = TraceJson({
      X("user_annotation", "ProfilerStep#1", "0", "1000"),
      X("python_function", "train.py(40): main", "1", "900", "1", "1", R"({"Python id": 1})"),
      X("python_function", "<built-in method item of Tensor object at 0x7f>", "100", "300", "1", "1",
        R"({"Python id": 2, "Python parent id": 1, "CallFrom": "train.py:49"})"),
      X("cpu_op", "aten::item", "101", "298"),
      X("cuda_runtime", "cudaStreamSynchronize", "120", "250", "1", "1", R"({"correlation": 9})"),
      X("user_annotation", "ProfilerStep#2", "1000", "10"),
  });
  auto r = ReadString(json);
  auto a = Analyze(*r.trace);
  TraceEvidence ev(*r.trace, a);
  CHECK(ev.capabilities().call_from);
  CHECK(ev.capabilities().python_stacks);
  SourceMatch at49 = ev.Locate("/abs/path/to/train.py", 49);
  REQUIRE(at49.found());
  CHECK(at49.method == MatchMethod::kCallFrom);
  SyncEvidence s = ev.DeviceSyncs(&at49);
  CHECK(s.cost.count == 1);
  CHECK(s.cost.ms_per_step == doctest::Approx(0.25));
  CHECK(s.syncing_item_calls == 1);
  CHECK_FALSE(ev.Locate("train.py", 50).found());
  CHECK(ev.LocateFunction("train.py", "main").found());

  std::string old = TraceJson({
      X("Operator", "ProfilerStep#1", "0", "1000"),
      X("Operator", "aten::to", "10", "100", "1", "1", R"({"Call stack": "/site/torch/tensor.py(10): to;/home/me/resnet.py(42): <module>"})"),
      X("Operator", "aten::copy_", "11", "90", "1", "1", R"({"Call stack": "/home/me/resnet.py(42): <module>"})"),
      X("Operator", "ProfilerStep#2", "1000", "10"),
  });
  auto r2 = ReadString(old);
  auto a2 = Analyze(*r2.trace);
  TraceEvidence ev2(*r2.trace, a2);
  CHECK(ev2.capabilities().call_stacks);
  SourceMatch m = ev2.Locate("resnet.py", 42);
  REQUIRE(m.found());
  CHECK(m.method == MatchMethod::kCallStack);
  CHECK(m.spans.size() == 1);  // the nested copy_ is inside aten::to
  CHECK(ev2.CostOf(m).ms_per_step == doctest::Approx(0.1));
}

TEST_CASE("top ops: self CPU time is the op's time less its direct op children, clipped to the op") {
  std::string json = TraceJson({
      X("user_annotation", "ProfilerStep#1", "0", "1000"),
      X("cpu_op", "aten::linear", "10", "100"),
      X("cpu_op", "aten::t", "12", "8"),
      X("cpu_op", "aten::addmm", "30", "60"),
      X("cpu_op", "aten::copy_", "40", "10"),  // grandchild: counts against addmm, not linear
      X("cuda_runtime", "cudaLaunchKernel", "60", "5"),  // not an op: part of addmm's self time
      X("user_annotation", "ProfilerStep#2", "1000", "1000"),
  });
  auto r = ReadString(json);
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  auto self_of = [&](std::string_view name) -> int64_t {
    for (const auto& op : a.top_ops.ops) {
      if (op.name == name) return op.self_cpu_ns;
    }
    return -1;
  };
  CHECK(self_of("aten::linear") == 32000);
  CHECK(self_of("aten::addmm") == 50000);
  CHECK(self_of("aten::copy_") == 10000);
  CHECK(self_of("aten::t") == 8000);
}

TEST_CASE("nesting deeper than any profiler's is capped, and a file of identical nested events stays linear") {
  // 3000 copies of one .item() event: each starts inside the one before, so each would nest in the
  // previous one. The walks over descendants and parents must not become quadratic.
  std::vector<std::string> ev{X("user_annotation", "ProfilerStep#1", "0", "1000")};
  for (int i = 0; i < 3000; ++i) ev.push_back(X("cpu_op", "aten::item", "10", "5"));
  ev.push_back(X("user_annotation", "ProfilerStep#2", "1000", "1000"));
  auto r = ReadString(TraceJson(ev));
  REQUIRE(r.ok());
  const Trace& t = *r.trace;
  CHECK(t.nesting_capped() == 3000 - (kMaxNestingDepth - 1));  // the step holds the first level
  size_t deepest = 0;
  for (uint32_t i = 0; i < t.size(); ++i) {
    size_t depth = 0;
    for (uint32_t p = t.parent(i); p != kNoIndex; p = t.parent(p)) ++depth;
    deepest = std::max(deepest, depth);
  }
  CHECK(deepest == kMaxNestingDepth);
  bool warned = false;
  for (const auto& w : r.warnings) warned |= w.find("nested more than 256 levels deep") != std::string::npos;
  CHECK(warned);
  auto a = Analyze(t);
  // The outermost .item() is the call; the ones inside it are part of it.
  CHECK(a.syncs.items.size() == 1);
  REQUIRE_FALSE(a.top_ops.ops.empty());
  CHECK(a.top_ops.ops.front().calls == 3000);
}
