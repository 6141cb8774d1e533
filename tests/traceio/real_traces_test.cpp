// Facts measured on real profiler traces (../shared/traces, see its INVENTORY.md). Each fact carries the
// figure measured independently and a tolerance; a missing corpus prints "skipped:".
#include <doctest/doctest.h>

#include "tests/support/paths.h"
#include "tests/traceio/helpers.h"
#include "traceio/evidence.h"

using namespace tl::trace;

namespace {

struct Loaded {
  ReadResult read;
  TraceAnalysis analysis;
};

std::optional<Loaded> Load(const std::string& relative) {
  auto path = tl::test::SharedTrace(relative);
  if (!path) return std::nullopt;
  Loaded l;
  l.read = ReadTraceFile(path->string());
  REQUIRE_MESSAGE(l.read.ok(), l.read.error);
  CHECK(l.read.warnings.empty());
  l.analysis = Analyze(*l.read.trace);
  return l;
}

bool Has(const TraceAnalysis& a, BottleneckKind kind, Severity at_least = Severity::kLow) {
  for (const auto& b : a.bottlenecks) {
    if (b.kind == kind && b.severity >= at_least) return true;
  }
  return false;
}

constexpr const char* kResNet0 =
    "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
constexpr const char* kResNet4 =
    "real/kineto/tb_plugin/samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz";
constexpr const char* kBert = "real/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz";
constexpr const char* kT4Fp32 = "real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/fp32.pt.trace.json";
constexpr const char* kT4Amp = "real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/amp.pt.trace.json";
constexpr const char* kControl = "real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz";
constexpr const char* kA100Cpu =
    "real/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz";

}  // namespace

TEST_CASE("ResNet50 num_workers=0: single-process DataLoader at 30-40% of the step, pageable copies") {
  auto l = Load(kResNet0);
  if (!l) return;
  const auto& a = l->analysis;
  CHECK(l->read.trace->metadata().format == TraceFormat::kKinetoOld);
  CHECK(a.steps.source == StepSource::kProfilerStep);
  CHECK(a.steps.count() == 5);  // 6 ProfilerSteps, the last left out as partial
  CHECK(a.dataloader.iterator == IteratorKind::kSingle);
  CHECK(a.dataloader.share > 0.385);  // measured 0.3926 (INVENTORY: 29.7-39.6% per step)
  CHECK(a.dataloader.share < 0.400);
  CHECK(a.copies.pageable_per_step == doctest::Approx(2.0));
  CHECK(a.busy.share > 0.55);  // measured 0.5592
  CHECK(a.busy.share < 0.57);
  CHECK(a.kernels.tensor_core_share() == 0.0);  // FP32 on V100
  // zero_grad without set_to_none on 1.9: one zero_ per parameter (161) and one fill kernel each.
  CHECK(a.optimizer.zero_grad.fill_ops == 161 * 5);
  CHECK(a.optimizer.zero_grad.kernels == 161 * 5);
  REQUIRE(!a.bottlenecks.empty());
  CHECK(a.bottlenecks[0].kind == BottleneckKind::kData);
  CHECK(a.bottlenecks[0].severity == Severity::kHigh);
  // 1.9 Call stack attribution: the training script's line that iterates the DataLoader.
  TraceEvidence ev(*l->read.trace, a);
  CHECK(ev.capabilities().call_stacks);
  CHECK(ev.capabilities().torch_era == "1.8-1.9");
  CHECK(ev.DataLoader().cost.share_of_step == doctest::Approx(a.dataloader.share));
  Cost pageable = ev.PageableHtoD();
  CHECK(pageable.count_per_step == doctest::Approx(2.0));
  CHECK(pageable.ms_per_step > 1.0);
  CHECK(ev.ZeroGradWork().count_per_step == doctest::Approx(161));
}

TEST_CASE("ResNet50 num_workers=4: the DataLoader is about 1% of the step") {
  auto l = Load(kResNet4);
  if (!l) return;
  const auto& a = l->analysis;
  CHECK(a.dataloader.iterator == IteratorKind::kMulti);
  CHECK(a.dataloader.share > 0.009);  // measured 0.0099
  CHECK(a.dataloader.share < 0.011);
  CHECK_FALSE(Has(a, BottleneckKind::kData));
  CHECK(a.busy.share > 0.70);  // measured 0.7096
  CHECK(a.busy.share < 0.72);
}

TEST_CASE("H100 bert-small: launch-bound, most kernels under 10 us, GPU busy about 7%") {
  auto l = Load(kBert);
  if (!l) return;
  const auto& a = l->analysis;
  CHECK(a.kernels.count == 60);
  CHECK(a.kernels.short_count == 58);  // 96.7%
  CHECK(a.busy.share > 0.065);         // measured 0.0699
  CHECK(a.busy.share < 0.075);
  REQUIRE(!a.bottlenecks.empty());
  CHECK(a.bottlenecks[0].kind == BottleneckKind::kLaunch);
  CHECK(a.bottlenecks[0].severity == Severity::kHigh);
  // Our tensor-core patterns find the Hopper kernels the old TensorBoard list misses (32% -> 77%).
  CHECK(a.kernels.tensor_core_share() > 0.76);  // measured 0.7650
  CHECK(a.kernels.tensor_core_share() < 0.77);
  CHECK(l->read.trace->metadata().devices.at(0).compute_major == 9);
  CHECK(l->read.trace->metadata().cuda_runtime_version == "12.4");
}

TEST_CASE("T4 fp32 uses no tensor cores; its AMP twin does") {
  auto fp32 = Load(kT4Fp32);
  auto amp = Load(kT4Amp);
  if (!fp32 || !amp) return;
  CHECK(fp32->analysis.kernels.tensor_core_count == 0);
  CHECK(fp32->analysis.kernels.tensor_core_share() == 0.0);
  CHECK(fp32->analysis.kernels.fp32_gemm_ns > 0);
  CHECK(amp->analysis.kernels.tensor_core_count > 0);
  CHECK(amp->analysis.kernels.tensor_core_share() > 0.28);  // measured 0.2843
  CHECK(amp->analysis.kernels.tensor_core_share() < 0.29);
  CHECK(fp32->read.trace->metadata().cuda_runtime_version == "12.8");
  CHECK(fp32->read.trace->metadata().devices.at(0).name == "Tesla T4");
}

TEST_CASE("A100 control trace: .item() calls that really sync") {
  auto l = Load(kControl);
  if (!l) return;
  const auto& a = l->analysis;
  // 24 of 30 item() calls sync over 6 steps (37 ms); 5 steps are analysed here: 20 of 25.
  CHECK(a.syncs.items_in_steps == 25);
  CHECK(a.syncs.syncing_items == 20);
  double total_items = 0, syncing = 0, blocked_ns = 0;
  for (const auto& item : a.syncs.items) {
    ++total_items;
    if (item.syncs()) {
      ++syncing;
      blocked_ns += static_cast<double>(item.blocked_ns);
    }
  }
  CHECK(total_items == 30);
  CHECK(syncing == 24);
  CHECK(blocked_ns / 1e6 > 36.5);  // measured 36.80 ms
  CHECK(blocked_ns / 1e6 < 37.1);
  CHECK(a.syncs.sync_calls == 50);  // 10 per step
  CHECK(a.comm.share() > 0.355);    // measured 0.3596
  CHECK(a.comm.share() < 0.365);
  CHECK(a.busy.share > 0.83);  // measured 0.8369
  CHECK(a.busy.share < 0.845);
  CHECK(a.copies.pageable_per_step == doctest::Approx(10.0));
  CHECK(Has(a, BottleneckKind::kSync, Severity::kMedium));
  CHECK(Has(a, BottleneckKind::kCommunication));
  CHECK(l->read.trace->metadata().rank == 3);
  TraceEvidence ev(*l->read.trace, a);
  SyncEvidence s = ev.DeviceSyncs();
  CHECK(s.syncing_item_calls == 20);
  CHECK(s.cost.count_per_step > 10.0);  // explicit syncs plus blocking DtoH copies
}

TEST_CASE("A100 16-rank trace: 189 .item() calls per step on CPU scalars, none syncs") {
  auto l = Load(kA100Cpu);
  if (!l) return;
  const auto& a = l->analysis;
  // Integer-µs timestamps: most item / _local_scalar_dense pairs are zero-length and must still count
  // once (INVENTORY: 189 per step; 945 in the 5 steps, 4 of them analysed).
  REQUIRE(a.steps.count() == 4);
  CHECK(a.syncs.items_in_steps >= 754);
  CHECK(a.syncs.items_in_steps <= 758);
  int per_step[4] = {0, 0, 0, 0};
  for (const auto& item : a.syncs.items) {
    if (item.step >= 0 && item.step < 4) ++per_step[item.step];
  }
  for (int count : per_step) {
    CHECK(count >= 188);
    CHECK(count <= 190);
  }
  CHECK(a.syncs.items.size() == 945);
  CHECK(a.syncs.syncing_items == 0);
}

TEST_CASE("128-rank sampled trace: GPU idle split stays within the step it is measured against") {
  auto l = Load("real/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-1.json.gz");
  if (!l) return;
  const auto& a = l->analysis;
  REQUIRE(a.steps.count() == 1);
  REQUIRE(a.busy.devices.size() == 1);
  // Device-wide idle time clipped to the 608 ms step: busy 272 ms, idle 336 ms (summed per stream and
  // left unclipped it read 2325 ms of host-wait alone).
  CHECK(a.idle.total_ns() == a.steps.analysed_ns - a.busy.devices[0].busy_ns);
  CHECK(static_cast<double>(a.idle.host_wait_ns) / 1e6 > 185.0);  // measured 187.3 ms
  CHECK(static_cast<double>(a.idle.host_wait_ns) / 1e6 < 190.0);
  CHECK(static_cast<double>(a.idle.other_ns) / 1e6 > 146.0);  // measured 147.8 ms
  CHECK(static_cast<double>(a.idle.other_ns) / 1e6 < 150.0);
  CHECK(static_cast<double>(a.idle.kernel_wait_ns) / 1e6 < 1.0);  // measured 0.74 ms
}

TEST_CASE("MI300X ResNet18: composable_kernel xdl and MIOpen gtcx convolutions run on matrix cores") {
  auto l = Load("real/TraceLens/tests/traces/mi300/ddp_resnet18_no_pool/train_resnet18.json.gz");
  if (!l) return;
  const auto& k = l->analysis.kernels;
  // Batch norm dominates the kernel time; the convolutions (igemm_*_gtcx3_*, ck ..._xdl_cshuffle) and
  // the Tensile GEMMs are 26.6% of it. MIOpen's SubTensorOp* pointwise kernels are not tensor-core work.
  CHECK(k.tensor_core_share() > 0.26);  // measured 0.2657
  CHECK(k.tensor_core_share() < 0.27);
  CHECK(k.tensor_core_count == 310);
}

TEST_CASE("PyTorch 2.14 CPU traces: python_function / CallFrom attribution") {
  auto b = Load("cpu/torch2.14.1/b_sync_item.pt.trace.json");
  if (!b) return;
  TraceEvidence ev(*b->read.trace, b->analysis);
  CHECK(ev.capabilities().call_from);
  CHECK_FALSE(ev.capabilities().cuda);
  SourceMatch item = ev.Locate("/somewhere/else/b_sync_item.py", 49);
  REQUIRE(item.found());
  CHECK(item.method == MatchMethod::kCallFrom);
  CHECK(ev.RanInSteps(item));
  SyncEvidence s = ev.DeviceSyncs(&item);
  CHECK(s.item_calls == 2);          // one per analysed step
  CHECK(s.syncing_item_calls == 0);  // CPU scalars: refuted, not confirmed
  CHECK(s.cost.count == 0);
  // print(f"{loss}") on line 50 reaches .item() through Tensor.__format__.
  SourceMatch print_line = ev.Locate("b_sync_item.py", 50);
  REQUIRE(print_line.found());
  CHECK(ev.DeviceSyncs(&print_line).item_calls == 2);
  CHECK_FALSE(ev.Locate("b_sync_item.py", 10).found());

  auto d = Load("cpu/torch2.14.1/d_zero_grad_false.pt.trace.json");
  if (!d) return;
  TraceEvidence dev(*d->read.trace, d->analysis);
  SourceMatch zero_grad = dev.Locate("d_zero_grad_false.py", 27);
  REQUIRE(zero_grad.found());
  int zeros = 0;
  for (const auto& span : zero_grad.spans) {
    d->read.trace->ForEachDescendant(span.event, [&](uint32_t j) { zeros += d->read.trace->name(j) == "aten::zero_"; });
  }
  CHECK(zeros == 14 * 3);  // 14 parameters, every profiled step (the match is not limited to analysed steps)
  CHECK(d->analysis.optimizer.zero_grad.fill_ops == 14 * 2);
  CHECK(dev.ZeroGradWork().count_per_step == doctest::Approx(14));

  auto c = Load("cpu/torch2.14.1/c_workers0.pt.trace.json");
  if (!c) return;
  CHECK(c->analysis.dataloader.iterator == IteratorKind::kSingle);
  CHECK(c->analysis.dataloader.share > 0.885);  // measured 0.8925
  CHECK(c->analysis.dataloader.share < 0.900);

  auto e = Load("cpu/torch2.14.1/e_unaligned.pt.trace.json");
  if (!e) return;
  TraceEvidence eev(*e->read.trace, e->analysis);
  GemmEvidence g = eev.UnalignedGemms();
  REQUIRE(!g.shapes.empty());
  bool saw_1001 = false;
  for (const auto& shape : g.shapes) saw_1001 = saw_1001 || shape.n == 1001 || shape.k == 1001;
  CHECK(saw_1001);
  CHECK_FALSE(g.tensor_cores_ran);
}

TEST_CASE("PyTorch 1.13 legacy export: names and times only") {
  auto l = Load("cpu/torch1.13-legacy/c_workers0.pt.trace.json");
  if (!l) return;
  CHECK(l->read.trace->metadata().format == TraceFormat::kLegacyList);
  CHECK(l->analysis.steps.source == StepSource::kProfilerStep);
  CHECK(l->analysis.dataloader.iterator == IteratorKind::kSingle);
  CHECK(l->analysis.dataloader.share > 0.8);
  TraceEvidence ev(*l->read.trace, l->analysis);
  CHECK_FALSE(ev.capabilities().stacks());
  CHECK_FALSE(ev.capabilities().shapes);
}
