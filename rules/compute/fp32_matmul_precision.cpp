// TL403 fp32-matmul-precision: fp32 CUDA training that leaves TF32 off for matrix multiplications, or
// code that turns it off explicitly, so fp32 GEMMs on Ampere and later GPUs miss the tensor cores.
#include <fmt/core.h>

#include <string>
#include <vector>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks CUDA scripts for fp32 matrix multiplications kept off TF32:
- (a) an explicit `torch.backends.cuda.matmul.allow_tf32 = False`, `torch.backends.cudnn.allow_tf32 =
  False`, or `torch.set_float32_matmul_precision("highest")`, reported where it is written;
- (b) CUDA training in fp32 (TL402's condition: no mixed precision anywhere in the project import
  component) with neither `torch.set_float32_matmul_precision("high")`/`("medium")` nor
  `torch.backends.cuda.matmul.allow_tf32 = True` in the component, reported at the training step
  loop's line (or the framework trainer's call).

Silent when the target PyTorch is below 1.12 (where `set_float32_matmul_precision` does not exist and
TF32 matmuls were on by default) and no newer version is allowed: a pin whose floor is older but
that allows 1.12 or later (`torch>=1.4`) is reported, since the project may run such a version. Silent
for scripts and projects that never use CUDA. A precision
argument torchlint cannot resolve counts as set. torchlint does not know the GPU: the advice only
helps on Ampere and later ones, which is what the trace evidence checks.

## Why is this bad?
Since PyTorch 1.12, fp32 matrix multiplications run in full fp32 on the CUDA cores by default. On
Ampere, Hopper and later GPUs, TF32 runs them on the tensor cores with a 10-bit mantissa at up to 8x
the throughput, which is accurate enough for training nearly every network (cuDNN convolutions
already use TF32 by default). Turning it off, or never turning it on for an fp32 training, leaves most
of the GPU's matmul throughput unused.

## Example
```python
model = Net().cuda()
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
```

## Use instead
```python
torch.set_float32_matmul_precision("high")  # TF32 matmuls on Ampere and later
model = Net().cuda()
```

## Fix safety
No fix is offered: TF32 lowers the precision of the products, which some workloads (scientific
computing, tests that compare against fp64) do not accept, and the choice is the user's.

## Trace evidence
fp32 (non-TF32) GEMM kernels on a GPU that has TF32.

With `check --trace`, fp32 GEMM kernels that run off the tensor cores (`ampere_sgemm_*`, SIMT
kernels) in the profiled steps on a GPU of compute capability 8.0 or later confirm the finding; half
of their GPU time is counted as saved (TF32 runs them up to 8x faster; half is the conservative end).
A GPU below 8.0 (Volta, Turing) has no TF32: `refuted`, the advice does not apply there; so is a trace
whose GEMMs all run on tensor cores. A trace with no GEMM kernel does not observe it, and one without
CUDA activity or without the GPU's properties is `unverifiable`.

## Options

## References
- [PyTorch: TensorFloat-32 (TF32) on Ampere and later devices](https://pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices)
- [PyTorch: torch.set_float32_matmul_precision](https://pytorch.org/docs/stable/generated/torch.set_float32_matmul_precision.html)
)md";

// What the rule found: an explicit TF32 switch-off, or fp32 training without TF32.
struct Tf32Finding {
  bool explicit_off = false;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"tf32-off", "TF32 is turned off: fp32 matmuls run without tensor cores on Ampere and later",
     "TF32 被关闭：在 Ampere 及更新的 GPU 上，fp32 矩阵乘法不使用张量核心"},
    {"precision-unset", "fp32 training without `torch.set_float32_matmul_precision(\"high\")` keeps matmuls off TF32",
     "fp32 训练未调用 `torch.set_float32_matmul_precision(\"high\")`，矩阵乘法不会使用 TF32"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no precision setting, so no kernel of the trace can be tied to it",
     "该问题没有携带精度设置，无法对应到 trace 中的 kernel"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "GEMM kernels", "任何 GEMM kernel"},
    {"ev-no-capability", "The trace does not name its GPU's compute capability, so whether TF32 exists is unknown",
     "trace 没有记录 GPU 的 compute capability，无法确定是否支持 TF32"},
    {"ev-no-tf32", "The {gpu} (compute {major}.x) has no TF32: the setting changes nothing there",
     "{gpu}（compute {major}.x）不支持 TF32：这个设置在它上面不起作用"},
    {"ev-all-tensor-cores", "Every GEMM in the profiled steps already runs on tensor cores",
     "分析的 step 中的所有 GEMM 都已经在 Tensor Core 上运行"},
    {"ev-no-gemm", "No GEMM kernel ran inside the profiled steps", "分析的 step 内没有运行任何 GEMM kernel"},
    {"ev-confirmed", "{count} fp32 GEMM kernels per step run off the tensor cores on the {gpu}, {ms} ms/step ({share})",
     "在 {gpu} 上，每个 step 有 {count} 个 FP32 GEMM kernel 没有使用 Tensor Core，每 step {ms} ms（{share}）"},
};

class Fp32MatmulPrecision final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL403",
                               "fp32-matmul-precision",
                               "compute",
                               "fp32 matmuls are kept off TF32 tensor cores",
                               kDocs,
                               FixAvailability::kNone,
                               Severity::kWarning,
                               {},
                               true,
                               kMessages};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    if (!context.options.Allows(TorchVersion{1, 12}) || !model.UsesCuda()) return;
    for (ts::Node node : model.Tf32Disables()) {
      Diagnostic diagnostic = MakeDiagnostic(node.Range(), "tf32-off");
      diagnostic.payload = Tf32Finding{true};
      out.push_back(std::move(diagnostic));
    }
    const uint32_t facts = model.ComponentFacts();
    if ((facts & (semantic::kFactMixedPrecision | semantic::kFactTf32)) != 0) return;
    if (!model.Tf32Disables().empty()) return;  // reported where it is written
    if (model.Training().node.IsNull() || !model.CudaAt(model.Training().node)) return;
    Diagnostic diagnostic = MakeDiagnostic(model.Training().range, "precision-unset");
    diagnostic.payload = Tf32Finding{false};
    out.push_back(std::move(diagnostic));
  }
};

TL_REGISTER_RULE(Fp32MatmulPrecision);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL403. Model: saved = fp32 (non-TF32) GEMM kernel time x 0.5 on a GPU with TF32 (compute >= 8.0).
class Fp32MatmulPrecisionEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL403"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<Tf32Finding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    int major = 0;
    std::string gpu;
    for (const auto& device : q.trace.trace().metadata().devices) {
      if (device.compute_major > major) {
        major = device.compute_major;
        gpu = device.name;
      }
    }
    const trace::PrecisionEvidence p = q.trace.Fp32Gemms();
    if (major == 0) return Unverifiable(Say("ev-no-capability"));
    if (major < 8) {
      return EvidenceFromCost(q, Verdict::kRefuted, p.cost, 0,
                              Say("ev-no-tf32", {{"gpu", gpu, {}}, NumberArg("major", int64_t{major})}));
    }
    if (p.cost.count == 0) {
      if (p.tensor_core_kernels > 0)
        return EvidenceFromCost(q, Verdict::kRefuted, p.cost, 0, Say("ev-all-tensor-cores"));
      return VerdictOnly(Verdict::kNotObserved, Say("ev-no-gemm"));
    }
    return EvidenceFromCost(q, Verdict::kConfirmed, p.cost, p.cost.ms_per_step * 0.5,
                            Say("ev-confirmed", {NumberArg("count", p.cost.count_per_step, 1),
                                                 {"gpu", gpu, {}},
                                                 NumberArg("ms", p.cost.ms_per_step, 2),
                                                 ShareArg("share", p.cost.share_of_step)}));
  }
};

TL_REGISTER_EVIDENCE(Fp32MatmulPrecisionEvidence);

}  // namespace
}  // namespace tl
