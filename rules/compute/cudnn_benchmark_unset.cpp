// TL404 cudnn-benchmark-unset: CUDA training of a convolutional model without
// `torch.backends.cudnn.benchmark = True`, so cuDNN picks its convolution algorithms by heuristics
// instead of timing them once for the shapes the model runs.
#include <fmt/core.h>

#include <string>
#include <vector>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for CUDA training (a training step loop, or a framework trainer) of a model with convolutions
(`nn.Conv1d`/`2d`/`3d`, `nn.ConvTranspose*`, or a torchvision conv net such as `resnet50()`) anywhere in
the project import component (the files that import each other, through `import m`, `from m import X`,
a package's `__init__` re-exporting `from .model import Net`, and `from .parts import *`), when nothing
in the component writes `torch.backends.cudnn.benchmark`. A layer counts wherever the component builds
it, whether or not the trained model uses it; a model whose modules build `nn.Linear` layers only is not
reported. A write of `False` (usually beside `deterministic = True`, for
reproducibility) is a choice and is not reported, nor is any value torchlint cannot resolve. Reported
at the training step loop's line. Scripts and projects that never use CUDA are not reported.

torchlint cannot tell whether the input shapes are fixed: detection and segmentation code with
variable input sizes, where benchmarking every new shape costs more than it saves, should set
`benchmark = False` to say so (then it is not reported) or use `# noqa: TL404`.

## Why is this bad?
With `benchmark = False` (the default) cuDNN chooses a convolution algorithm by heuristics. With
`benchmark = True` it times the candidate algorithms on the first call with each input shape and
keeps the fastest, which for fixed-size inputs is often markedly faster for the rest of the
training.

## Example
```python
model = torchvision.models.resnet50().cuda()
for x, y in loader:
    ...
```

## Use instead
```python
torch.backends.cudnn.benchmark = True
model = torchvision.models.resnet50().cuda()
```

## Fix safety
No fix is offered: benchmarking makes the algorithm choice, and so the results' last bits, vary from
run to run, and it costs time on every new input shape.

## Trace evidence
Convolution kernel time.

A trace does not record whether cuDNN benchmarked (the timing runs happen in the first iterations,
usually outside the profiled steps). With `check --trace`, convolutions that ran in the profiled steps
make the finding `unverifiable` with their measured GPU time (none counted as saved); a trace with no
convolution does not observe it; one without CUDA activity is `unverifiable`.

## Options

## References
- [PyTorch performance tuning guide: enable cuDNN auto-tuner](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#enable-cudnn-auto-tuner)
- [PyTorch: Reproducibility](https://pytorch.org/docs/stable/notes/randomness.html)
)md";

struct BenchmarkFinding {
  bool framework = false;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"benchmark",
     "Convolutional training without `torch.backends.cudnn.benchmark = True` leaves cuDNN's algorithm choice to "
     "heuristics",
     "卷积训练未设置 `torch.backends.cudnn.benchmark = True`，cuDNN 只能凭启发式选择卷积算法"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no training loop, so no step of the trace can be tied to it",
     "该问题没有携带训练循环，无法对应到 trace 中的 step"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "convolution kernels", "卷积 kernel"},
    {"ev-no-convolution", "No convolution ran inside the profiled steps", "分析的 step 内没有运行任何卷积"},
    {"ev-cannot-tell",
     "{convolutions} convolutions per step ran, but a trace does not show whether cuDNN benchmarked their algorithms",
     "每个 step 运行了 {convolutions} 次卷积，但 trace 无法显示 cuDNN 是否为它们做过算法基准测试"},
};

class CudnnBenchmarkUnset final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL404",
                               "cudnn-benchmark-unset",
                               "compute",
                               "Convolutional training without `torch.backends.cudnn.benchmark = True`",
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
    if (!model.UsesCuda()) return;
    const semantic::Model::TrainingSite& training = model.Training();
    if (training.node.IsNull() || !model.CudaAt(training.node)) return;
    const uint32_t facts = model.ComponentFacts();
    if ((facts & semantic::kFactConv) == 0 || (facts & semantic::kFactCudnnBenchmark) != 0) return;
    Diagnostic diagnostic = MakeDiagnostic(training.range, "benchmark");
    diagnostic.payload = BenchmarkFinding{training.loop < 0};
    out.push_back(std::move(diagnostic));
  }
};

TL_REGISTER_RULE(CudnnBenchmarkUnset);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL404. Model: nothing is counted as saved; the trace cannot show which algorithm cuDNN would pick.
class CudnnBenchmarkUnsetEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL404"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<BenchmarkFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::ConvBiasEvidence conv = q.trace.ConvBiasAdds();
    if (conv.convolutions == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-no-convolution"));
    return Unverifiable(Say("ev-cannot-tell", {NumberArg("convolutions", conv.convolutions_per_step, 1)}));
  }
};

TL_REGISTER_EVIDENCE(CudnnBenchmarkUnsetEvidence);

}  // namespace
}  // namespace tl
