// TL402 no-mixed-precision: CUDA training with no mixed precision anywhere in the project component, so
// every GEMM and convolution runs in fp32 off the tensor cores (or in TF32 at best).
#include <fmt/core.h>

#include <string>
#include <vector>

#include "crosscheck/evidence.h"
#include "linter/core/fix.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for CUDA training (a training step loop, or Lightning's `Trainer`, Fabric or Accelerate's
`Accelerator` where the loop is the framework's) with no mixed precision anywhere in the file's
project import component (the file, the files it imports and those that import it). Mixed precision
is any of: `torch.autocast`, `torch.cuda.amp`/`torch.amp` (autocast or `GradScaler`), an
`accelerator.autocast()`, a `.half()`/`.bfloat16()` call, a `torch.float16`/`torch.bfloat16` dtype, a
framework precision argument that is not fp32 (`Trainer(precision="bf16-mixed")`,
`Accelerator(mixed_precision=...)`, `TrainingArguments(fp16=...)`), or an option or config field that
selects precision (`--amp`, `--fp16`, `use_amp`, `precision`, `dtype`): a script that has AMP behind
a flag is not reported, and neither is a `LightningCLI`, whose `--trainer.precision` option is such a
flag. The finding is at the training step loop's line (or the framework call's).
Scripts and projects that never use CUDA are not reported.

torchlint cannot tell how a value it cannot resolve sets the precision (`Trainer(**cfg)`), nor see
precision set by a launcher or a config file: it then reports the script, and `# noqa: TL402` keeps it
quiet.

## Why is this bad?
In fp32 a GEMM or a convolution runs on the CUDA cores (or, on Ampere and later, on tensor cores in
TF32 when allowed). Under `torch.autocast` with fp16 or bf16 they run on tensor cores at several times
the throughput, and activations take half the memory and bandwidth. The PyTorch tuning guide and the
profiler's bottleneck table name mixed precision as the first fix for compute-bound training.

## Example
```python
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
```

## Use instead
```python
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
```

## Fix safety
The suggestion wraps the forward pass and the loss (the statements of the step before `backward()`)
in `torch.autocast("cuda", dtype=torch.bfloat16)`. It is **display-only**: numerics change, fp16 needs
a `GradScaler`, some operations and custom layers need care, and older GPUs have no bf16.

## Trace evidence
fp32 GEMM/conv kernels and the absence of tensor-core kernels.

With `check --trace`, fp32 GEMM and convolution kernels off the tensor cores (`volta_sgemm_*`, SIMT
kernels) in the profiled steps, with no tensor-core kernel at all, confirm the finding; half of their
GPU time is counted as saved (a conservative share of the 2-8x tensor-core speed-up). Tensor-core
kernels in the trace refute it (the run was in mixed precision, or TF32, which this rule does not
count as fp32 work); a trace with neither kind of kernel does not observe it. A trace without CUDA
activity is `unverifiable`.

## Options

## References
- [PyTorch: Automatic mixed precision](https://pytorch.org/docs/stable/amp.html)
- [PyTorch performance tuning guide: use mixed precision and AMP](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#use-mixed-precision-and-amp)
- [NVIDIA: Train with mixed precision](https://docs.nvidia.com/deeplearning/performance/mixed-precision-training/index.html)
)md";

// What the rule found: whether the training is a loop of the file or a framework's.
struct NoAmpFinding {
  bool framework = false;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"no-amp", "CUDA training without mixed precision (`torch.autocast`) runs GEMMs and convolutions in fp32",
     "CUDA 训练未使用混合精度（`torch.autocast`），GEMM 和卷积都以 fp32 运行"},
    {"autocast", "Run the forward pass and the loss under `torch.autocast`",
     "在 `torch.autocast` 下运行前向传播和损失计算"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no training loop, so no step of the trace can be tied to it",
     "该问题没有携带训练循环，无法对应到 trace 中的 step"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "GEMM kernels", "任何 GEMM kernel"},
    {"ev-tensor-cores-used",
     "Tensor-core kernels run {ms} ms/step in the profiled steps: the run uses mixed precision (or TF32)",
     "分析的 step 中使用 Tensor Core 的 kernel 每 step 运行 {ms} ms：这次运行已使用混合精度（或 TF32）"},
    {"ev-no-gemm", "No GEMM or convolution kernel ran inside the profiled steps",
     "分析的 step 内没有运行任何 GEMM 或卷积 kernel"},
    {"ev-confirmed",
     "{count} fp32 GEMM/conv kernels per step run off the tensor cores, {ms} ms/step ({share}), and no tensor-core "
     "kernel runs",
     "每个 step 有 {count} 个 FP32 GEMM/卷积 kernel 没有使用 Tensor Core，每 step {ms} ms（{share}），"
     "且没有任何使用 Tensor Core 的 kernel 运行"},
};

class NoMixedPrecision final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL402",
                               "no-mixed-precision",
                               "compute",
                               "CUDA training runs in fp32 without mixed precision",
                               kDocs,
                               FixAvailability::kSometimes,
                               Severity::kWarning,
                               /*options=*/{},
                               /*default_enabled=*/true,
                               kMessages,
                               Applicability::kDisplayOnly};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    if (!model.UsesCuda()) return;
    const semantic::Model::TrainingSite& training = model.Training();
    if (training.node.IsNull() || !model.CudaAt(training.node) ||
        (model.ComponentFacts() & semantic::kFactMixedPrecision) != 0) {
      return;
    }
    Diagnostic diagnostic = MakeDiagnostic(training.range, "no-amp");
    diagnostic.payload = NoAmpFinding{training.loop < 0};
    if (training.loop >= 0) AddSuggestion(context, training.loop, diagnostic);
    out.push_back(std::move(diagnostic));
  }

 private:
  // Display-only: the statements of the step before its backward pass, under autocast.
  void AddSuggestion(const CheckContext& context, int loop, Diagnostic& diagnostic) const {
    const semantic::Model& model = context.model;
    const std::string_view torch = model.LocalNameOf("torch");
    if (torch.empty()) return;
    const std::vector<ts::Node> statements = model.BodyStatements(loop);
    size_t first = statements.size(), end = statements.size();
    for (size_t i = 0; i < statements.size(); ++i) {
      const semantic::Phase phase = model.PhaseOf(statements[i]);
      if (phase == semantic::Phase::kBackward || phase == semantic::Phase::kOptimizer) {
        end = i;
        break;
      }
      if (first == statements.size() && (phase == semantic::Phase::kForward || phase == semantic::Phase::kLoss)) {
        first = i;
      }
    }
    if (first >= end || end == statements.size()) return;
    const std::string_view source = context.file.text();
    const auto line = IndentOf(source, statements[first].StartByte());
    if (!line) return;
    const uint32_t at = line->line_start;
    const std::string& indent = line->indent;
    const uint32_t stop = statements[end - 1].EndByte();
    const std::string_view text = source.substr(at, stop - at);
    if (text.find("\"\"\"") != std::string_view::npos || text.find("'''") != std::string_view::npos) return;
    std::vector<Edit> edits;
    edits.push_back(
        Edit{{at, at}, fmt::format("{}with {}.autocast(\"cuda\", dtype={}.bfloat16):\n    ", indent, torch, torch)});
    for (uint32_t i = at + 1; i < stop; ++i) {
      if (source[i - 1] == '\n' && source[i] != '\n' && source[i] != '\r') edits.push_back(Edit{{i, i}, "    "});
    }
    diagnostic.fix = MakeFix("autocast", {}, Applicability::kDisplayOnly, std::move(edits));
  }
};

TL_REGISTER_RULE(NoMixedPrecision);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL402. Model: saved = fp32 GEMM/conv kernel time x 0.5 (tensor cores run them 2-8x faster; half is
// the conservative end).
class NoMixedPrecisionEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL402"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<NoAmpFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::PrecisionEvidence p = q.trace.Fp32Gemms();
    if (p.tensor_core_kernels > 0) {
      return EvidenceFromCost(q, Verdict::kRefuted, p.cost, 0,
                              Say("ev-tensor-cores-used", {NumberArg("ms", p.tensor_core_ms_per_step, 2)}));
    }
    if (p.cost.count == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-no-gemm"));
    return EvidenceFromCost(
        q, Verdict::kConfirmed, p.cost, p.cost.ms_per_step * 0.5,
        Say("ev-confirmed", {NumberArg("count", p.cost.count_per_step, 1), NumberArg("ms", p.cost.ms_per_step, 2),
                             ShareArg("share", p.cost.share_of_step)}));
  }
};

TL_REGISTER_EVIDENCE(NoMixedPrecisionEvidence);

}  // namespace
}  // namespace tl
