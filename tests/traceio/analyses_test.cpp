// Each analysis on small hand-made traces whose answers are known exactly.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>

#include "tests/support/paths.h"
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
  return TraceJson(
      ev,
      R"("deviceProperties": [{"id": 0, "name": "Tesla V100", "totalGlobalMem": 1000, "computeMajor": 7, "computeMinor": 0}], )");
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
  auto r = ReadString(
      TraceJson({X("cpu_op", "aten::add", "0", "10"), X("user_annotation", "Optimizer.step#SGD.step", "50", "50"),
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

TEST_CASE("bottlenecks: data-bound with its evidence; fp32 GEMMs on a GPU busy 30% of the step are not compute-bound") {
  auto r = ReadString(TwoStepTrace());
  auto a = Analyze(*r.trace);
  REQUIRE(!a.bottlenecks.empty());
  CHECK(a.bottlenecks[0].kind == BottleneckKind::kData);
  CHECK(a.bottlenecks[0].severity == Severity::kHigh);
  CHECK(a.bottlenecks[0].evidence[0].metric == "dataloader.share");
  CHECK(a.bottlenecks[0].evidence[0].value == doctest::Approx(0.4));
  // fp32 GEMMs on a V100, but the GPU idles 70% of the step: bound by what keeps it idle.
  CHECK(a.busy.share == doctest::Approx(0.3));
  CHECK(a.kernels.fp32_gemm_ns == 600000);
  CHECK(HasTensorCores(*r.trace, a));
  bool compute = false;
  for (const auto& b : a.bottlenecks) compute = compute || b.kind == BottleneckKind::kCompute;
  CHECK_FALSE(compute);
}

namespace {

bool HasVerdict(const TraceAnalysis& a, BottleneckKind kind) {
  return std::any_of(a.bottlenecks.begin(), a.bottlenecks.end(), [&](const Bottleneck& b) { return b.kind == kind; });
}

}  // namespace

TEST_CASE("bottlenecks: compute-bound only on a GPU busy at least 80% of the step (real traces)") {
  struct Case {
    const char* file;
    double busy;
    bool compute;
  };
  // Busy figures as measured here; 80% is the guide's healthy GPU utilisation (§3.2).
  const Case cases[] = {
      {"real/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz", 0.459, false},  // idle 54%
      {"real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 0.559, false},
      {"real/kineto/tb_plugin/samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz", 0.710, false},
      {"real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/fp32.pt.trace.json", 0.237, false},
      {"real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz", 0.837, true},
      {"real/HolisticTraceAnalysis/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 0.974,
       true},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    auto file = tl::test::SharedTrace(c.file);
    if (!file) continue;
    auto r = ReadTraceFile(file->string());
    REQUIRE(r.ok());
    auto a = Analyze(*r.trace);
    CHECK(a.busy.share == doctest::Approx(c.busy).epsilon(0.02));
    CHECK(a.kernels.tensor_core_share() < 0.5);  // every one of them has little tensor-core time
    CHECK(HasVerdict(a, BottleneckKind::kCompute) == c.compute);
  }
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
      X("cpu_op", "aten::item", "10", "5"),
      X("cpu_op", "aten::_local_scalar_dense", "11", "3"),
      // Device scalar: memcpy DtoH + stream sync beneath.
      X("cpu_op", "aten::item", "100", "300"),
      X("cpu_op", "aten::_local_scalar_dense", "101", "298"),
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
      X("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", "20", "30", "0", "7",
        R"({"device": 0, "stream": 7, "correlation": 1, "bytes": 4096})"),
      X("cuda_runtime", "cudaMemcpyAsync", "60", "5", "1", "1", R"({"correlation": 2})"),
      X("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", "70", "10", "0", "7",
        R"({"device": 0, "stream": 7, "correlation": 2, "bytes": 4096})"),
      X("user_annotation", "Optimizer.zero_grad#SGD.zero_grad", "100", "100"),
      X("cpu_op", "aten::zero_", "110", "20"),
      X("cpu_op", "aten::fill_", "111", "18"),
      X("cuda_runtime", "cudaLaunchKernel", "112", "5", "1", "1", R"({"correlation": 3})"),
      X("kernel", "void at::native::vectorized_elementwise_kernel<FillFunctor>", "130", "4", "0", "7", Corr(3)),
      X("cpu_op", "aten::zero_", "140", "20"),
      X("cpu_op", "aten::fill_", "141", "18"),
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
    ev.push_back(X("cuda_runtime", "cudaLaunchKernel", std::to_string(t), "20", "1", "1",
                   fmt::format(R"({{"correlation": {}}})", i + 1)));
    ev.push_back(X("kernel", "void at::native::vectorized_elementwise_kernel<add>", std::to_string(t + 22), "3", "0",
                   "7", Corr(i + 1)));
  }
  ev.push_back(X("user_annotation", "ProfilerStep#2", "2000", "10"));
  auto a = Analyze(*ReadString(TraceJson(ev)).trace);
  CHECK(a.kernels.short_share() == doctest::Approx(1.0));
  CHECK(a.busy.share == doctest::Approx(150.0 / 2000.0));
  CHECK(a.launches.launches == 50);
  CHECK(a.launches.short_kernels == 50);
  // Device idle inside the step: 49 gaps of 27 µs between kernels, each waiting on its launch, plus the
  // 32 µs before the first kernel (launched at 10 µs); the 495 µs after the last one has no next launch.
  CHECK(a.idle.host_wait_ns == 49 * 27000 + 32000);
  CHECK(a.idle.kernel_wait_ns == 0);
  CHECK(a.idle.other_ns == 495000);
  CHECK(a.idle.total_ns() == a.steps.analysed_ns - a.busy.devices.at(0).busy_ns);
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
  for (const auto& b : a.bottlenecks)
    comm = comm || (b.kind == BottleneckKind::kCommunication && b.severity == Severity::kHigh);
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

TEST_CASE("tensor-core kernel names: Volta 884 forms, wgmma, TF32 xmma, AMD xdl and MIOpen gtcx") {
  // Each name is judged by both predicates: on tensor cores, and FP32 GEMM on the CUDA cores.
  auto expect = [](std::initializer_list<const char*> names, bool tensor_core, bool fp32_gemm) {
    for (const char* name : names) {
      CAPTURE(name);
      CHECK(IsTensorCoreKernel(name) == tensor_core);
      CHECK(IsFp32GemmKernel(name) == fp32_gemm);
    }
  };
  expect(
      {
          // Volta mma.sync 8x8x4: cuBLAS, cuDNN and CUTLASS spellings.
          "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn",
          "volta_h884gemm_256x128_ldg8_nn",
          "volta_fp16_s884cudnn_fp16_256x128_ldg8_relu_f2f_exp_small_nhwc2nchw_tn_v1",
          "cutlass_tensorop_f16_s884gemm_f16_256x128_32x2_nn_align8",
          // A CUTLASS Volta kernel whose name carries the mma shape as a bare 884.
          "void cutlass::Kernel<cutlass_70_tensorop_884gemm_f16_128x128_32x2_tn_align8>(...)",
          // Hopper warpgroup MMA in a hand-written kernel's name, and CUTLASS 3's tensor-op naming.
          "void gemm_bf16_wgmma_ws_kernel<128, 256>(bf16 const*, bf16 const*, bf16*)",
          "cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_bf16_bf16_128x128x64_1x2x1_0_tnn_align8",
          // TF32 math: the second type pair says tf32, and the tile says tensor16x8x8.
          "sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16_stage4_warpsize2x2x1_tensor16x8x8_kernel",
          // AMD composable_kernel XDL ops (from the MI300 ResNet18 trace, and the classic xdlops form).
          // One kernel name split in two for the line limit, not two names with a comma missing.
          // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
          "_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3INS_"
          "34GridwiseGemmMultiD_xdl_cshuffle_v3I",
          "void ck::kernel_gemm_xdlops_v2r3<ck::GridwiseGemm_k0mk1_k0nk1_mn_xdlops_v2r3<256, ck::half_t>>(...)",
          "void ck::tensor_operation::device::DeviceGemmXdl<ck::half_t>::kernel(...)",
          // MIOpen's xdlops implicit-GEMM assembly kernels (MI300 ResNet18 trace; the gfx908 spelling).
          "igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x64x32_wt32x32x8_ws1x1_wr1x2_ta1x16x1x1_1x2x4x32_tb1x8x1x1_1x4x1x64_"
          "pta",
          "igemm_wrw_gtcx_nchw_fp16_bx0_ex1_bt128x128x16_wt32x32x8_ws1x1_wr2x2_ta1x4x1x2_1x4x1x64_gkgs",
      },
      true, false);
  expect(
      {
          // FP32 on the CUDA cores.
          "volta_sgemm_128x64_nn",
          "void implicit_convolve_sgemm<float, float, 128, 6, 7, 3, 3, 5, 1, false, true, true>(...)",
          // xmma is cuBLAS's family name, not a promise of tensor cores: with the math pair f32f32 and the
          // ffma tag this kernel runs FP32 fused multiply-adds on the CUDA cores.
          "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_"
          "kernel__5x_cublas",
          // The same type pairs without the ffma tag are still f32 math, not TF32.
          "sm86_xmma_fprop_implicit_gemm_indexed_wo_smem_f32f32_f32f32_f32_nhwckrsc_nhwc_tilesize32x32x8_stage1",
      },
      false, true);
  expect(
      {
          // MIOpen pointwise kernels whose names contain "TensorOp" (1.9% of the MI300 trace's kernel time
          // was counted as tensor-core time through them).
          "SubTensorOpWithScalar1d",
          "SubTensorOpWithCastTensor1d",
          // MIOpen's non-xdlops implicit GEMM and CK's dot-product (DL) kernels use the vector ALUs.
          "igemm_fwd_gtc_nhwc_fp16_bx0_ex0_bt128x128x16_tb1x1x8x1_1x16x1x16",
          "void ck::kernel_gemm_dl_v1r3<ck::GridwiseGemmDl_km_kn_mn_v1r3<256, ck::half_t>>(...)",
          // Tensile without a matrix-instruction tile.
          "Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0_APM1_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_ASCE01_ASEM1",
          "batched_transpose_32x32_half",
      },
      false, false);
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
  // The timeline: every event's level, in time order.
  using S = MemorySample;
  CHECK(a.memory.devices[0].timeline == std::vector<S>{{1000, 1000, 2000}, {2000, 3000, 4000}, {3000, 1000, 4000}});
  CHECK(a.memory.devices[1].timeline == std::vector<S>{{4000, 64, 0}, {5000, 128, 0}, {6000, 64, 0}});
}

TEST_CASE("memory timeline: events out of file order, and thinning that keeps the peak") {
  // Written out of time order: the running sum (no totals, as on 1.8-1.9) is taken in time order.
  std::string json = TraceJson({
      R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 3, "args": {"Device Type": 1, "Device Id": 0, "Bytes": -100}})",
      R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 100}})",
      R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 2, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 50}})",
  });
  auto a = Analyze(*ReadString(json).trace);
  REQUIRE(a.memory.devices.size() == 1);
  CHECK(a.memory.devices[0].peak_allocated == 150);
  CHECK(a.memory.devices[0].timeline == std::vector<MemorySample>{{1000, 100, 0}, {2000, 150, 0}, {3000, 50, 0}});

  // 20,000 events: a saw-tooth between 0 and 4 KB with one spike of 1 MB far above it. The series is cut to the limit,
  // in time order, and the spike and the last level are in it.
  std::vector<std::string> events;
  int64_t total = 0;
  for (int i = 0; i < 20000; ++i) {
    const int64_t bytes = i == 12345 ? 1000000 : i == 12346 ? -1000000 : (i % 2 == 0 ? 4096 : -4096);
    total += bytes;
    events.push_back(fmt::format(
        R"({{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": {}, "args": {{"Device Type": 1, "Device Id": 0, "Bytes": {}, "Total Allocated": {}}}}})",
        i, bytes, total));
  }
  auto big = Analyze(*ReadString(TraceJson(events)).trace);
  REQUIRE(big.memory.devices.size() == 1);
  const auto& d = big.memory.devices[0];
  CHECK(d.timeline.size() <= kMaxMemorySamples);
  CHECK(d.timeline.size() > kMaxMemorySamples / 2);
  CHECK(std::is_sorted(d.timeline.begin(), d.timeline.end(),
                       [](const MemorySample& x, const MemorySample& y) { return x.ts < y.ts; }));
  const auto peak = std::max_element(
      d.timeline.begin(), d.timeline.end(),
      [](const MemorySample& x, const MemorySample& y) { return x.allocated < y.allocated; });
  CHECK(d.peak_allocated == 1004096);
  CHECK(peak->allocated == d.peak_allocated);
  CHECK(peak->ts == 12345 * 1000);
  CHECK(d.timeline.back().ts == 19999 * 1000);
  CHECK(d.timeline.back().allocated == total);
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
      X("Operator", "aten::to", "10", "100", "1", "1",
        R"({"Call stack": "/site/torch/tensor.py(10): to;/home/me/resnet.py(42): <module>"})"),
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
      X("cpu_op", "aten::copy_", "40", "10"),            // grandchild: counts against addmm, not linear
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

TEST_CASE(".item() on integer-µs traces: a zero-length item and its _local_scalar_dense are one call") {
  // Integer-µs timestamps leave many .item() calls with dur 0, or with the scalar read starting where
  // the item ends; zero-length events never become parents, so only the item/_local_scalar_dense
  // pairing keeps them from being counted twice.
  std::string json = TraceJson({
      X("user_annotation", "ProfilerStep#1", "0", "1000"),
      // Both zero-length, at the same µs.
      X("cpu_op", "aten::item", "10", "0"),
      X("cpu_op", "aten::_local_scalar_dense", "10", "0"),
      // The scalar read starts at the item's end.
      X("cpu_op", "aten::item", "20", "1"),
      X("cpu_op", "aten::_local_scalar_dense", "21", "0"),
      // A select rounded in between the item and its scalar read.
      X("cpu_op", "aten::item", "30", "2"),
      X("cpu_op", "aten::select", "31", "1"),
      X("cpu_op", "aten::_local_scalar_dense", "32", "0"),
      // Written scalar read first: the same interval, so it sorts before its item.
      X("cpu_op", "aten::_local_scalar_dense", "40", "0"),
      X("cpu_op", "aten::item", "40", "0"),
      // A scalar read that no item contains is a call of its own.
      X("cpu_op", "aten::_local_scalar_dense", "50", "0"),
      // An item with a real child, counted once as before.
      X("cpu_op", "aten::item", "60", "5"),
      X("cpu_op", "aten::_local_scalar_dense", "61", "3"),
      // The same interval with a length, scalar read written first: it becomes the item's parent.
      X("cpu_op", "aten::_local_scalar_dense", "70", "4"),
      X("cpu_op", "aten::item", "70", "4"),
      X("user_annotation", "ProfilerStep#2", "1000", "1000"),
  });
  auto r = ReadString(json);
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  CHECK(a.syncs.items_in_steps == 7);
  REQUIRE(a.syncs.items.size() == 7);
  const int64_t starts[] = {10, 20, 30, 40, 50, 60, 70};
  const char* names[] = {"aten::item",
                         "aten::item",
                         "aten::item",
                         "aten::item",
                         "aten::_local_scalar_dense",
                         "aten::item",
                         "aten::_local_scalar_dense"};
  for (size_t k = 0; k < 7; ++k) {
    CAPTURE(k);
    CHECK(r.trace->ts(a.syncs.items[k].event) == starts[k] * 1000);
    CHECK(r.trace->name(a.syncs.items[k].event) == names[k]);
    CHECK_FALSE(a.syncs.items[k].syncs());
  }
}

TEST_CASE("idle gaps: device-wide idle time over two streams, clipped to the step windows") {
  // Device 0, streams 7 and 20, three steps of which the last is left out. Busy (either stream):
  // [100,500) [510,600) [700,800) [850,900) [1200,1300) in the analysed windows, 740 µs of 2000.
  auto launch = [](int ts, int corr) {
    return X("cuda_runtime", "cudaLaunchKernel", std::to_string(ts), "5", "1", "1",
             fmt::format(R"({{"correlation": {}}})", corr));
  };
  auto kernel = [](int ts, int dur, int stream, int corr) {
    return X("kernel", "void at::native::vectorized_elementwise_kernel<4, add>", std::to_string(ts),
             std::to_string(dur), "0", std::to_string(stream), Corr(corr, 0, stream));
  };
  std::string json = TraceJson({
      X("user_annotation", "ProfilerStep#1", "0", "1000"), launch(50, 1), launch(60, 2), launch(70, 3), launch(90, 5),
      launch(650, 4), kernel(100, 200, 7, 1),  // stream 7  [100,300)
      kernel(200, 300, 20, 2),                 // stream 20 [200,500): the device stays busy through stream 7's gap
      kernel(510, 90, 7, 3),                   // [510,600): launched long before, 10 µs gap: kernel-wait
      kernel(700, 100, 20, 4),  // [700,800): launched at 650, after the device went idle at 600: host-wait
      kernel(850, 50, 7, 5),    // [850,900): launched at 90, a 50 µs gap: other
      X("user_annotation", "ProfilerStep#2", "1000", "1000"), launch(1100, 6),
      kernel(1200, 100, 7, 6),  // [1200,1300): the gap [900,1200) crosses into step 2, all host-wait
      X("user_annotation", "ProfilerStep#3", "2000", "10"), launch(2005, 7),
      kernel(2500, 100, 20, 7),  // in the dropped step: the gap [1300,2500) counts only up to 2000
  });
  auto r = ReadString(json);
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  REQUIRE(a.steps.count() == 2);
  CHECK(a.steps.analysed_ns == 2000000);
  REQUIRE(a.busy.devices.size() == 1);
  CHECK(a.busy.devices[0].busy_ns == 740000);
  // host-wait: [0,100) before the first kernel (launched at 50), [600,700), [900,1200), [1300,2000).
  CHECK(a.idle.host_wait_ns == (100 + 100 + 300 + 700) * 1000);
  CHECK(a.idle.kernel_wait_ns == 10000);
  CHECK(a.idle.other_ns == 50000);
  CHECK(a.idle.gaps == 6);
  // The device is either busy or idle: the split adds up to the step time not covered by busy time.
  CHECK(a.idle.total_ns() == a.steps.analysed_ns - a.busy.devices[0].busy_ns);
  CHECK(a.idle.host_wait_share() == doctest::Approx(1200.0 / 1260.0));
}

TEST_CASE("sums of hostile durations and byte counts saturate instead of overflowing") {
  // 33,280 kernels of 2^48 ns (the reader's largest duration): their sum is past 2^63. 64 streams of
  // 520 back-to-back kernels keep every timestamp inside the reader's bounds and nothing nested.
  constexpr int64_t kDur = int64_t{1} << 48;
  auto us = [](int64_t ns) { return fmt::format(R"("{}.{:03}")", ns / 1000, ns % 1000); };
  std::vector<std::string> ev;
  ev.reserve(64 * 520 + 2 * 9000);
  for (int stream = 0; stream < 64; ++stream) {
    const char* name = stream < 32 ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
                                   : "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn";
    for (int k = 0; k < 520; ++k) {
      ev.push_back(X("kernel", name, us(k * kDur), us(kDur), "0", std::to_string(stream), Corr(0, 0, stream)));
    }
  }
  // Copies and allocations with absurd byte counts: 9000 of them overflow a sum even where the reader
  // bounds each count (at 2^50, a petabyte).
  constexpr int kCopies = 9000;
  for (int k = 0; k < kCopies; ++k) {
    ev.push_back(X("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", std::to_string(k * 10), "1", "0", "99",
                   R"({"device": 0, "stream": 99, "correlation": 0, "bytes": 4000000000000000000})"));
    ev.push_back(fmt::format(
        R"({{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": {}, "args": {{"Device Type": 1, "Device Id": 0, "Bytes": 4000000000000000000}}}})",
        k + 1));
  }
  auto r = ReadString(TraceJson(ev));
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  CHECK(a.kernels.count == 64 * 520);
  CHECK(a.kernels.total_ns == kMax);
  CHECK(a.kernels.tensor_core_ns == 32 * 520 * kDur);  // still exact: below 2^63
  CHECK(a.kernels.comm_ns == 32 * 520 * kDur);
  REQUIRE_FALSE(a.kernels.top.empty());
  for (const auto& k : a.kernels.top) CHECK(k.total_ns == 32 * 520 * kDur);
  // The shares divide exact sums by the saturated total.
  const double half = static_cast<double>(32 * 520 * kDur) / static_cast<double>(kMax);
  CHECK(a.kernels.tensor_core_share() == doctest::Approx(half));
  CHECK(a.comm.kernel_ns == kMax);
  CHECK(a.comm.share() == doctest::Approx(half));
  CHECK(a.copies.count == kCopies);
  CHECK(a.copies.pageable_htod_bytes == kMax);
  REQUIRE(a.copies.groups.size() == 1);
  CHECK(a.copies.groups[0].bytes == kMax);
  REQUIRE(a.memory.devices.size() == 1);
  CHECK(a.memory.devices[0].peak_allocated == kMax);
  CHECK(a.busy.devices.at(0).busy_ns == 520 * kDur);
  CHECK(a.idle.total_ns() == 0);
}

TEST_CASE("syncs: cudaDeviceSynchronize, cudaEventSynchronize and a synchronous cudaMemcpy block the host") {
  struct Case {
    const char* call;
    int dur_us;
  };
  for (Case c : {Case{"cudaDeviceSynchronize", 120}, Case{"cudaEventSynchronize", 45}, Case{"cudaMemcpy", 30},
                 Case{"hipDeviceSynchronize", 70}}) {
    CAPTURE(c.call);
    std::string json = TraceJson({
        X("user_annotation", "ProfilerStep#1", "0", "1000"),
        X("cpu_op", "aten::copy_", "90", "200"),
        X("cuda_runtime", c.call, "100", std::to_string(c.dur_us), "1", "1", R"({"correlation": 1})"),
        // Neither of these blocks: an async copy into pinned memory, and a stream-side wait.
        X("cuda_runtime", "cudaMemcpyAsync", "400", "5", "1", "1", R"({"correlation": 2})"),
        X("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", "405", "2", "0", "7", Corr(2)),
        X("cuda_runtime", "cudaStreamWaitEvent", "500", "3", "1", "1", R"({"correlation": 3})"),
        X("user_annotation", "ProfilerStep#2", "1000", "1000"),
    });
    auto r = ReadString(json);
    REQUIRE(r.ok());
    auto a = Analyze(*r.trace);
    CHECK(a.syncs.sync_calls == 1);
    CHECK(a.syncs.sync_ns == c.dur_us * 1000);
    CHECK(a.syncs.blocking_copies == 0);
    CHECK(a.syncs.per_step == doctest::Approx(1.0));
    CHECK(a.syncs.blocked_ms_per_step == doctest::Approx(c.dur_us / 1000.0));
    // The op that made the call is judged by what it encloses.
    SyncUnder under = SyncsUnder(*r.trace, Find(*r.trace, "aten::copy_"));
    CHECK(under.sync_call);
    CHECK(under.blocked_ns == c.dur_us * 1000);
  }
}

namespace {

// One 1000 µs step with an elementwise kernel and a GEMM, and optionally [memory] totals against a
// 1000-byte device.
std::string MemoryVerdictTrace(int elementwise_us, int gemm_us, int64_t peak_allocated) {
  std::vector<std::string> ev{
      X("user_annotation", "ProfilerStep#1", "0", "1000"),
      X("kernel", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", "100",
        std::to_string(elementwise_us), "0", "7", Corr(0)),
      X("kernel", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn", std::to_string(100 + elementwise_us),
        std::to_string(gemm_us), "0", "7", Corr(0)),
      X("user_annotation", "ProfilerStep#2", "1000", "10"),
  };
  if (peak_allocated > 0) {
    ev.push_back(fmt::format(
        R"({{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5, "args": {{"Total Allocated": {}, "Total Reserved": 1000, "Bytes": {}, "Device Id": 0, "Device Type": 1}}}})",
        peak_allocated, peak_allocated));
  }
  return TraceJson(
      ev,
      R"("deviceProperties": [{"id": 0, "name": "H100", "totalGlobalMem": 1000, "computeMajor": 9, "computeMinor": 0}], )");
}

const Bottleneck* FindVerdict(const TraceAnalysis& a, BottleneckKind kind) {
  for (const auto& b : a.bottlenecks) {
    if (b.kind == kind) return &b;
  }
  return nullptr;
}

double Figure(const Bottleneck& b, std::string_view metric) {
  for (const auto& e : b.evidence) {
    if (e.metric == metric) return e.value;
  }
  return -1.0;
}

}  // namespace

TEST_CASE("bottlenecks: memory-bound when pointwise kernels dominate a busy GPU, or the allocator is full") {
  // 600 µs elementwise + 200 µs GEMM: busy 0.8, elementwise share 0.75 (> 0.7: high).
  auto busy = Analyze(*ReadString(MemoryVerdictTrace(600, 200, 0)).trace);
  CHECK(busy.busy.share == doctest::Approx(0.8));
  const Bottleneck* m = FindVerdict(busy, BottleneckKind::kMemory);
  REQUIRE(m != nullptr);
  CHECK(m->severity == Severity::kHigh);
  CHECK(Figure(*m, "gpu.elementwise_share") == doctest::Approx(0.75));

  // 550 + 350: elementwise share 0.61 (medium).
  auto medium = Analyze(*ReadString(MemoryVerdictTrace(550, 350, 0)).trace);
  m = FindVerdict(medium, BottleneckKind::kMemory);
  REQUIRE(m != nullptr);
  CHECK(m->severity == Severity::kMedium);

  // Peak allocated 950 of 1000 bytes fires on capacity alone, whatever the kernels.
  auto full = Analyze(*ReadString(MemoryVerdictTrace(100, 600, 950)).trace);
  m = FindVerdict(full, BottleneckKind::kMemory);
  REQUIRE(m != nullptr);
  CHECK(m->severity == Severity::kHigh);
  CHECK(Figure(*m, "memory.peak_share_of_device") == doctest::Approx(0.95));
}

TEST_CASE("bottlenecks: no memory verdict for pointwise kernels on an idle GPU, GEMM-heavy work, or room to spare") {
  // The same 3:1 pointwise mix on a GPU busy 40% of the step: the GPU is starved, not memory-bound.
  auto idle = Analyze(*ReadString(MemoryVerdictTrace(300, 100, 0)).trace);
  CHECK(idle.busy.share == doctest::Approx(0.4));
  CHECK(idle.kernels.elementwise_share() == doctest::Approx(0.75));
  CHECK(FindVerdict(idle, BottleneckKind::kMemory) == nullptr);
  // Busy, but mostly GEMM (elementwise share 0.25), with the allocator at 85% of the device.
  auto gemm = Analyze(*ReadString(MemoryVerdictTrace(200, 600, 850)).trace);
  CHECK(gemm.busy.share == doctest::Approx(0.8));
  CHECK(FindVerdict(gemm, BottleneckKind::kMemory) == nullptr);
}

TEST_CASE("launch stats: HTA's short kernels need a launch of at most 50 µs that outlasts the kernel") {
  std::vector<std::string> ev{X("user_annotation", "ProfilerStep#1", "0", "1000")};
  struct Launch {
    int cpu_us;
    int gpu_us;
  };
  // short; a runtime outlier (cpu > 50) although gpu < cpu; a kernel longer than its launch; exactly 50.
  const Launch launches[] = {{20, 3}, {60, 5}, {10, 12}, {50, 49}};
  int t = 10;
  for (int i = 0; i < 4; ++i) {
    ev.push_back(X("cuda_runtime", "cudaLaunchKernel", std::to_string(t), std::to_string(launches[i].cpu_us), "1", "1",
                   fmt::format(R"({{"correlation": {}}})", i + 1)));
    ev.push_back(X("kernel", "void at::native::vectorized_elementwise_kernel<4, add>", std::to_string(t + 100),
                   std::to_string(launches[i].gpu_us), "0", "7", Corr(i + 1)));
    t += 200;
  }
  ev.push_back(X("user_annotation", "ProfilerStep#2", "1000", "10"));
  auto a = Analyze(*ReadString(TraceJson(ev)).trace);
  CHECK(a.launches.launches == 4);
  CHECK(a.launches.short_kernels == 2);  // the 20/3 and the 50/49 ones
  CHECK(a.launches.runtime_outliers == 1);
  CHECK(a.launches.cpu_ns == (20 + 60 + 10 + 50) * 1000);
}
