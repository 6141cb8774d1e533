// TL406 channels-last: a CUDA conv net trained under mixed precision in the default NCHW layout, so
// cuDNN's tensor-core convolutions transpose every activation to NHWC and back.
#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "crosscheck/evidence.h"
#include "linter/core/fix.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for CUDA training of a 2-D conv net (two or more `nn.Conv2d`/`nn.ConvTranspose2d` layers in a
file of the project import component, or a torchvision CV conv net such as `resnet50()`; the single
patch-embedding conv of a vision transformer does not make a conv net; with the project index, another
file counts only the layers of the classes its file names again or some file imports, so a conv stem
that a ViT module defines and never uses does not either) under mixed precision (autocast,
`GradScaler`, `.half()`, a framework precision; TL402's list) when `torch.channels_last` appears
nowhere in the component: neither the model (`model.to(memory_format=torch.channels_last)`) nor its
inputs are in the channels-last layout. Reported at the training step loop's line (or the framework
trainer's call). Scripts and projects that never use CUDA, and fp32 training, are not reported.

## Why is this bad?
Tensor-core convolutions in cuDNN work on NHWC data. With NCHW tensors (PyTorch's default layout),
fp16/bf16 convolutions either run slower kernels or transpose their inputs and outputs
(`nchwToNhwc`/`nhwcToNchw` kernels) around every convolution, forward and backward. Channels-last
memory format removes the transposes; NVIDIA and the PyTorch tuning guide report 10-30% faster CNN
training under AMP.

## Example
```python
model = torchvision.models.resnet50().cuda()
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x.cuda()), y.cuda())
```

## Use instead
```python
model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
for x, y in loader:
    x = x.cuda().to(memory_format=torch.channels_last)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y.cuda())
```

## Fix safety
The fix is unsafe. It converts the model right after the statement that builds it, in the function
of the step loop or, when the model is a parameter of that function, in the one function of the file
that calls it (`train(model, loader)`). It starts from the name the loop calls (`model(x)`,
`model.forward(x)`) and goes back through the statements that rebind the same module (`model =
DDP(model)`, `model = model.cuda()`, `model = torch.compile(model)`, `model =
nn.SyncBatchNorm.convert_sync_batchnorm(model)`), so the conversion comes before any wrapper. It adds
`model = model.to(memory_format=torch.channels_last)` on the next line. Where the loop moves the
model's first argument to the device, in the call (`model(x.cuda())`) or in a statement of its body
(`x = x.to(device, non_blocking=True)`), that move gets `memory_format=torch.channels_last` too; the
other arguments do not, since they can be targets or masks. A convolution with channels-last weights
returns a channels-last output for an NCHW input as well (checked with PyTorch 2.14 on the CPU), so
the model's conversion is the part that matters.

It is unsafe because code that assumes contiguous NCHW tensors (`.view` on activations, custom
kernels) can fail or slow down, and `memory_format=torch.channels_last` raises on an input that is
not 4-D. No fix is offered when the model is an attribute, or a parameter whose function the file
calls more than once or with something other than a name, when the statement that builds it also
wraps it (`model = DDP(Net().cuda())`) or shares its line with another, nor when the file does not
import `torch` under its own name.

## Trace evidence
`nchwToNhwc`/`nhwcToNchw` transpose kernels.

With `check --trace`, layout transpose kernels (`nchwToNhwc`, `nhwcToNchw`) in the profiled steps
confirm the finding; their GPU time is counted as saved, in full (channels-last removes them).
Convolutions that run without any transpose refute it; a trace with no convolution does not observe
it; one without CUDA activity is `unverifiable`.

## Options

## References
- [PyTorch: Channels last memory format](https://pytorch.org/tutorials/intermediate/memory_format_tutorial.html)
- [PyTorch performance tuning guide: use channels_last memory format](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#use-channels-last-memory-format-for-computer-vision-models)
- [NVIDIA: Tensor layouts in memory: NCHW vs NHWC](https://docs.nvidia.com/deeplearning/performance/dl-performance-convolutional/index.html#tensor-layout)
)md";

struct ChannelsLastFinding {
  bool framework = false;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"channels-last", "Conv net trained under mixed precision without `torch.channels_last` transposes its activations",
     "以混合精度训练的卷积网络未使用 `torch.channels_last`，会反复转置激活"},
    // Trace evidence (RuleEvidence::Say).
    {"fix-convert", "Convert `{model}` to `torch.channels_last` after it is built",
     "在 `{model}` 构建后将其转换为 `torch.channels_last`"},
    {"ev-no-payload", "The finding carries no training loop, so no step of the trace can be tied to it",
     "该问题没有携带训练循环，无法对应到 trace 中的 step"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "layout transposes", "内存布局转置"},
    {"ev-confirmed", "{count} NCHW/NHWC transpose kernels per step take {ms} ms/step ({share})",
     "每个 step 有 {count} 个 NCHW/NHWC 转置 kernel，每 step {ms} ms（{share}）"},
    {"ev-no-convolution", "No convolution ran inside the profiled steps", "分析的 step 内没有运行任何卷积"},
    {"ev-refuted", "The {convolutions} convolutions in the profiled steps run without layout transposes",
     "分析的 step 中的 {convolutions} 次卷积都没有内存布局转置"},
};

class ChannelsLast final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL406",
                               "channels-last",
                               "compute",
                               "Conv net trained under AMP in the NCHW layout",
                               kDocs,
                               FixAvailability::kSometimes,
                               Severity::kWarning,
                               /*options=*/{},
                               /*default_enabled=*/true,
                               kMessages,
                               Applicability::kUnsafe};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    if (!model.UsesCuda()) return;
    const semantic::Model::TrainingSite& training = model.Training();
    if (training.node.IsNull() || !model.CudaAt(training.node)) return;
    const uint32_t facts = model.ComponentFacts();
    if ((facts & semantic::kFactConv2d) == 0 || (facts & semantic::kFactMixedPrecision) == 0 ||
        (facts & semantic::kFactChannelsLast) != 0) {
      return;
    }
    Diagnostic diagnostic = MakeDiagnostic(training.range, "channels-last");
    diagnostic.payload = ChannelsLastFinding{training.loop < 0};
    if (training.loop >= 0) AddFix(context, training.loop, diagnostic);
    out.push_back(std::move(diagnostic));
  }

 private:
  // `model = model.to(memory_format=torch.channels_last)` after the statement that builds the model the
  // step loop calls, and `memory_format=` on the loop's move of its input (Model::StepModelSource).
  void AddFix(const CheckContext& context, int loop, Diagnostic& diagnostic) const {
    const semantic::Model& model = context.model;
    const std::string_view torch = model.LocalNameOf("torch");
    if (torch.empty()) return;
    const std::optional<semantic::Model::ModelSource> source = model.StepModelSource(loop);
    if (!source) return;
    const std::string_view text = context.file.text();
    const auto line = IndentOf(text, source->built.StartByte());  // not `if c: model = Net()`
    if (!line) return;
    // After the statement's line; a statement that shares it with another (`model = Net(); opt = ...`) is not
    // moved past.
    const size_t newline = text.find('\n', source->built_end);
    const std::string_view rest = text.substr(
        source->built_end, (newline == std::string_view::npos ? text.size() : newline) - source->built_end);
    const size_t kept = rest.find_first_not_of(" \t\r");
    if (kept != std::string_view::npos && rest[kept] != '#') return;
    if (newline == std::string_view::npos) return;  // the model's statement ends the file: no loop follows it
    const std::string_view name = model.Text(source->built);
    const std::string line_text = fmt::format("{}{} = {}.to(memory_format={}.channels_last)\n", line->indent, name,
                                              name, torch);
    std::vector<Edit> edits;
    const auto at = static_cast<uint32_t>(newline + 1);
    edits.push_back(Edit{{at, at}, line_text});
    if (source->input_move != nullptr) {
      if (auto insertion = model.AppendKeyword(*source->input_move, "memory_format",
                                               fmt::format("{}.channels_last", torch))) {
        edits.push_back(Edit{{insertion->offset, insertion->offset}, insertion->text});
      }
    }
    std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.range.begin < b.range.begin; });
    diagnostic.fix = MakeFix("fix-convert", {{"model", std::string(name), {}}}, Applicability::kUnsafe,
                             std::move(edits));
  }
};

TL_REGISTER_RULE(ChannelsLast);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL406. Model: saved = the time of the layout transpose kernels.
class ChannelsLastEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL406"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<ChannelsLastFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::Cost t = q.trace.LayoutTransposes();
    if (t.count > 0) {
      return EvidenceFromCost(
          q, Verdict::kConfirmed, t, t.ms_per_step,
          Say("ev-confirmed", {NumberArg("count", t.count_per_step, 1), NumberArg("ms", t.ms_per_step, 2),
                               ShareArg("share", t.share_of_step)}));
    }
    const trace::ConvBiasEvidence conv = q.trace.ConvBiasAdds();
    if (conv.convolutions == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-no-convolution"));
    return EvidenceFromCost(q, Verdict::kRefuted, t, 0,
                            Say("ev-refuted", {NumberArg("convolutions", static_cast<int64_t>(conv.convolutions))}));
  }
};

TL_REGISTER_EVIDENCE(ChannelsLastEvidence);

}  // namespace
}  // namespace tl
