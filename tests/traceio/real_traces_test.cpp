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

constexpr const char* kResNet0 = "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
constexpr const char* kResNet4 = "real/kineto/tb_plugin/samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz";
constexpr const char* kBert = "real/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz";
constexpr const char* kT4Fp32 = "real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/fp32.pt.trace.json";
constexpr const char* kT4Amp = "real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/amp.pt.trace.json";
constexpr const char* kControl = "real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz";
constexpr const char* kA100Cpu = "real/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz";

}  // namespace

TEST_CASE("ResNet50 num_workers=0: single-process DataLoader at 30-40% of the step, pageable copies") {
  auto l = Load(kResNet0);
  if (!l) return;
  const auto& a = l->analysis;
  CHECK(l->read.trace->metadata().format == TraceFormat::kKinetoOld);
  CHECK(a.steps.source == StepSource::kProfilerStep);
  CHECK(a.steps.count() == 5);  // 6 ProfilerSteps, the last left out as partial
  CHECK(a.dataloader.iterator == IteratorKind::kSingle);
  CHECK(a.dataloader.share == doctest::Approx(0.35).epsilon(0.15));  // measured 39%
  CHECK(a.dataloader.share > 0.30);
  CHECK(a.dataloader.share < 0.40);
  CHECK(a.copies.pageable_per_step == doctest::Approx(2.0));
  CHECK(a.busy.share == doctest::Approx(0.56).epsilon(0.1));
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
  CHECK(a.dataloader.share == doctest::Approx(0.01).epsilon(1.0));
  CHECK(a.dataloader.share < 0.03);
  CHECK_FALSE(Has(a, BottleneckKind::kData));
  CHECK(a.busy.share == doctest::Approx(0.72).epsilon(0.05));
}

TEST_CASE("H100 bert-small: launch-bound, most kernels under 10 us, GPU busy about 7%") {
  auto l = Load(kBert);
  if (!l) return;
  const auto& a = l->analysis;
  CHECK(a.kernels.short_share() == doctest::Approx(0.967).epsilon(0.02));
  CHECK(a.busy.share == doctest::Approx(0.07).epsilon(0.15));
  REQUIRE(!a.bottlenecks.empty());
  CHECK(a.bottlenecks[0].kind == BottleneckKind::kLaunch);
  CHECK(a.bottlenecks[0].severity == Severity::kHigh);
  // Our tensor-core patterns find the Hopper kernels the old TensorBoard list misses (32% -> 77%).
  CHECK(a.kernels.tensor_core_share() == doctest::Approx(0.765).epsilon(0.05));
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
  CHECK(amp->analysis.kernels.tensor_core_share() == doctest::Approx(0.28).epsilon(0.2));
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
  CHECK(blocked_ns / 1e6 == doctest::Approx(37.0).epsilon(0.05));
  CHECK(a.syncs.per_step == doctest::Approx(10.0).epsilon(0.05));
  CHECK(a.comm.share() == doctest::Approx(0.366).epsilon(0.05));
  CHECK(a.busy.share == doctest::Approx(0.835).epsilon(0.03));
  CHECK(a.copies.pageable_per_step == doctest::Approx(10.0));
  CHECK(Has(a, BottleneckKind::kSync, Severity::kMedium));
  CHECK(Has(a, BottleneckKind::kCommunication));
  CHECK(l->read.trace->metadata().rank == 3);
  TraceEvidence ev(*l->read.trace, a);
  SyncEvidence s = ev.DeviceSyncs();
  CHECK(s.syncing_item_calls == 20);
  CHECK(s.cost.count_per_step > 10.0);  // explicit syncs plus blocking DtoH copies
}

TEST_CASE("A100 16-rank trace: hundreds of .item() calls on CPU scalars, none syncs") {
  auto l = Load(kA100Cpu);
  if (!l) return;
  CHECK(l->analysis.syncs.items_in_steps > 500);
  CHECK(l->analysis.syncs.syncing_items == 0);
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
  CHECK(s.item_calls == 2);  // one per analysed step
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
  CHECK(c->analysis.dataloader.share == doctest::Approx(0.9).epsilon(0.05));

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
