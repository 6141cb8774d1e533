// TL502 no-torch-compile: CUDA training on PyTorch 2.x without `torch.compile`. Advice, off by default:
// compiling is a change of workflow (compile time, graph breaks), not a defect.
#include <fmt/core.h>

#include <algorithm>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks CUDA training (a training step loop, or framework training with Lightning's `Trainer`/`Fabric`
(or a `LightningCLI`, which builds the Trainer) or Accelerate's `Accelerator`) for a missing `torch.compile` when the target PyTorch is 2.0 or later, or when the project's pin has
an older floor but allows 2.0 or later (`torch>=1.8`: the project may run 2.x).
Any `torch.compile(...)` call, or `module.compile()`, in the file or in a file of its project import
component counts, also when it sits behind a flag (`if args.compile: model = torch.compile(model)`):
the script can already compile. It is reported at the training step loop's line (or the framework
constructor). Scripts that never use CUDA are not reported. The rule is off by default: enable it
with `select = ["TL502"]`.

## Why is this bad?
In eager mode every op is its own kernel launch. Small models, small batches and long chains of
pointwise ops (normalisation, activations, residual adds) give kernels that run shorter than the CPU
takes to launch them, and the GPU waits on Python. `torch.compile` traces the model into graphs and
TorchInductor fuses chains of ops into a few Triton kernels, and with `mode="reduce-overhead"` replays
them as CUDA graphs.

## Example
```python
model = Net().cuda()
for x, y in loader:
    loss = loss_fn(model(x.cuda()), y.cuda())
```

## Use instead
```python
model = torch.compile(Net().cuda())
```

## Fix safety
The fix is **display-only**: compiling costs start-up time, may hit graph breaks or unsupported ops,
and changes numerics slightly; where to wrap (the model, the loss, the whole step) is a choice.

## Trace evidence
Launch-bound step (short kernels > 50%).

With `check --trace`, the kernels of the profiled steps whose launch takes at most 50 µs on the host
and that run shorter than their launch (HTA's short-kernel test) are counted. More than half of the
kernels short (and at least 20 launches per step) confirms the finding; the time saved is half the
host time of those short launches, a conservative share of what fusion removes. Half or fewer short
kernels refutes it (the step is not launch-bound). A trace without CUDA activity is `unverifiable`.

## Options
- `target-torch` (`--target-torch`): nothing is reported below 2.0. A pin whose floor is older but
  that allows 2.0 or later (`torch>=1.8`) counts as allowing it.

## References
- [torch.compile](https://pytorch.org/docs/stable/generated/torch.compile.html)
- [Introduction to torch.compile](https://pytorch.org/tutorials/intermediate/torch_compile_tutorial.html)
- [HTA: kernel launch statistics](https://hta.readthedocs.io/en/latest/source/features/cuda_kernel_launch_stats.html)
)md";

// What the rule found: training without torch.compile.
struct CompileFinding {
  bool framework = false;
};

constexpr double kShortShare = 0.5;
constexpr double kMinLaunchesPerStep = 20;

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"no-compile", "Training without `torch.compile` on PyTorch {version}: every op is its own kernel launch",
     "在 PyTorch {version} 上训练却未使用 `torch.compile`：每个算子都是一次单独的 kernel 启动"},
    {"no-compile-pin",
     "Training without `torch.compile` (PyTorch 2.0+, which the pin allows above its floor {version}): every op "
     "is its own kernel launch",
     "训练未使用 `torch.compile`（PyTorch 2.0 起提供，版本约束在下限 {version} 之上允许）：每个算子都是一次单独的 "
     "kernel 启动"},
    {"compile", "Compile the model with `torch.compile`", "用 `torch.compile` 编译模型"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no training loop, so no trace event can be tied to it",
     "该问题没有携带训练循环，无法对应到 trace 中的事件"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "kernel launches", "任何 kernel 启动"},
    {"ev-figures", "{short} of {launches} kernels per step ({share}) run shorter than their launch",
     "每个 step 的 {launches} 个 kernel 中有 {short} 个（{share}）运行时间比启动时间还短"},
    {"ev-confirmed", "The step is launch-bound: {figures}, {ms} ms/step of launches",
     "step 受 kernel 启动开销限制：{figures}，启动耗时每 step {ms} ms"},
    {"ev-no-launch", "No kernel launch ran inside the profiled steps", "分析的 step 内没有任何 kernel 启动"},
    {"ev-refuted", "The step is not launch-bound: {figures}", "step 不受 kernel 启动开销限制：{figures}"},
    {"ev-refuted-few", "The step is not launch-bound: {figures}, and few kernels run",
     "step 不受 kernel 启动开销限制：{figures}，而且运行的 kernel 很少"},
};

class NoTorchCompile final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL502",
                               "no-torch-compile",
                               "launch-overhead",
                               "Training on PyTorch 2.x without `torch.compile`",
                               kDocs,
                               FixAvailability::kAlways,
                               Severity::kInfo,
                               {},
                               /*default_enabled=*/false,
                               kMessages,
                               Applicability::kDisplayOnly};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    const RuleOptions& options = context.options;
    if (!options.Allows(TorchVersion{2, 0}) || !model.UsesCuda()) return;
    if (model.HasFact(semantic::kFactCompiles)) return;
    const semantic::Model::TrainingSite& training = model.Training();
    if (training.node.IsNull() || !model.CudaAt(training.node)) return;
    // The target is a pin's floor below 2.0 (`torch>=1.8`) that allows 2.x.
    const std::string_view id = options.target_torch < TorchVersion{2, 0} ? "no-compile-pin" : "no-compile";
    const MessageArg version{"version", options.target_torch.ToString(), {}};
    Diagnostic diagnostic = MakeDiagnostic(training.range, id, {version});
    diagnostic.payload = CompileFinding{training.loop < 0};
    diagnostic.fix = MakeFix("compile", {}, Applicability::kDisplayOnly, {});
    out.push_back(std::move(diagnostic));
  }
};

TL_REGISTER_RULE(NoTorchCompile);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL502. Model: saved = half the host time of the short kernels' launches; fusion removes most of
// those launches, but not all of them, and the compiled kernels still run.
class NoTorchCompileEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL502"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<CompileFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::LaunchBoundEvidence l = q.trace.ShortKernels();
    const double steps = static_cast<double>(std::max<size_t>(1, q.steps));
    const double launches_per_step = static_cast<double>(l.launches) / steps;
    const MessageArg figures = SentenceArg("figures", Say("ev-figures", {NumberArg("short", l.cost.count_per_step, 0),
                                                                         NumberArg("launches", launches_per_step, 0),
                                                                         ShareArg("share", l.short_share())}));
    if (l.short_share() > kShortShare && launches_per_step >= kMinLaunchesPerStep) {
      return EvidenceFromCost(q, Verdict::kConfirmed, l.cost, l.cost.ms_per_step * 0.5,
                              Say("ev-confirmed", {figures, NumberArg("ms", l.cost.ms_per_step, 2)}));
    }
    if (l.launches == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-no-launch"));
    return EvidenceFromCost(q, Verdict::kRefuted, l.cost, 0,
                            Say(launches_per_step < kMinLaunchesPerStep ? "ev-refuted-few" : "ev-refuted", {figures}));
  }
};

TL_REGISTER_EVIDENCE(NoTorchCompileEvidence);

}  // namespace
}  // namespace tl
