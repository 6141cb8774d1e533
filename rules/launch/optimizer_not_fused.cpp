// TL501 optimizer-not-fused: `Adam`/`AdamW`/`SGD` with `foreach=False`, or a hand-written update loop
// over the parameters (`for p in model.parameters():` in the step loop, or a method of an optimizer
// class the training step calls: `step`, SAM's `first_step`), where the target PyTorch has a fused optimizer that
// updates them all in a few kernels.
#include <fmt/core.h>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks, in scripts that run on CUDA, for `torch.optim.Adam`, `AdamW` and `SGD` constructed with
`foreach=False` (a value that resolves to false: a literal, a constant, an argparse default), and for
loops that update the parameters by hand on every training step: `for p in model.parameters():` whose
body changes `p` or `p.data` in place from a gradient (`p.data.add_(p.grad, alpha=-lr)`,
`p -= lr * p.grad`, or through names that carry the gradient: `d_p = p.grad`, `buf.mul_(m).add_(d_p)`,
`p.add_(buf, alpha=-lr)`). The same loop in a method of a hand-written optimizer, a subclass of
`torch.optim.Optimizer` (`class LARS(optim.Optimizer)` whose `step` runs `for p in group["params"]:`, or
SAM's `first_step`), is reported when a training step calls that method on an instance of the class
(`optimizer.step()`, `scaler.step(optimizer)`, `optimizer.first_step()`): at the loop, with the training step's call as the related location, or, for a
class of another file of the project, at the call, with the loop as the related location. It reports only when the target PyTorch has `fused=True` for that optimizer:
Adam and AdamW from 2.0, SGD from 2.3 (a hand-written loop from 2.0, the first release with fused
`torch.optim` optimizers). A default `Adam(...)` is not reported: since 2.0 it already takes the
multi-tensor (`foreach`) path on CUDA. A loop over the parameters that does not update them
(`p.requires_grad = False`, a gradient norm, `p.grad.zero_()`) is not reported, and neither is a loop
that runs outside the training step (once, or in evaluation). An optimizer class whose `step` only
reads the parameters (a norm, a weight decay flag), that no training step calls, or that is not a
`torch.optim.Optimizer` (an EMA of the weights) is not reported.

## Why is this bad?
With `foreach=False` (or a Python loop) the optimizer launches several small kernels per parameter
tensor on every step: a model with 200 parameter tensors runs well over a thousand kernels of a few
microseconds each, and the step is bound by the CPU that launches them. The multi-tensor path
batches tensors into a few launches; `fused=True` does the whole update of many tensors in one kernel.

## Example
```python
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=False)
```

## Use instead
```python
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
```

A hand-written optimizer's `step` can update every tensor of a group with one multi-tensor op each:
```python
params = [p for p in group["params"] if p.grad is not None]
torch._foreach_add_(params, [p.grad for p in params], alpha=-group["lr"])
```

## Fix safety
The fix replaces `foreach=False` with `fused=True` and is **unsafe**: the fused implementation needs
every parameter on CUDA (or another supported device) and of a floating dtype, and it raises at the
first `step()` otherwise; it also rounds slightly differently, so results are not bit-identical. A
hand-written loop has no fix: rewrite it with `torch._foreach_*` ops, or use a fused `torch.optim`
optimizer where one implements the same update.

## Trace evidence
Many small optimizer kernels per step.

With `check --trace`, the kernels launched under `Optimizer.step#...` in the profiled steps confirm a
`foreach=False` finding when there are at least 10 per step and fewer than half of them are
multi-tensor or fused kernels (`multi_tensor_apply`, `fused`); the time saved is the step's launch
overhead: its host time above the GPU time of its kernels, since fused kernels still do the arithmetic.
An optimizer whose kernels are mostly multi-tensor or fused refutes it; no `Optimizer.step` in the
profiled steps is `not observed`. A hand-written optimizer class is judged the same way: PyTorch profiles
the `step` of every `torch.optim.Optimizer` subclass as `Optimizer.step#LARS.step`, stacks or not. Another
method of the class (`first_step`) runs outside that record, so it is judged as a hand-written loop. A hand-written loop is confirmed by the kernels launched from its
line (a trace with stacks), of which half the time is counted as saved; without stacks it is
`unverifiable`. A trace without CUDA activity is `unverifiable`.

## Options
- `target-torch` (`--target-torch`): nothing is reported below 2.0, and `SGD` below 2.3. A pin whose
  floor is older but that allows those versions (`torch>=1.8`) counts as allowing them.

## References
- [torch.optim: algorithms (foreach and fused implementations)](https://pytorch.org/docs/stable/optim.html#algorithms)
- [torch.optim.AdamW](https://pytorch.org/docs/stable/generated/torch.optim.AdamW.html)
)md";

// What the rule found: an optimizer built with foreach=False or a hand-written optimizer class (whose
// `step` PyTorch profiles as `Optimizer.step#LARS.step` too), or a hand-written update loop.
struct FusedFinding {
  bool loop = false;
  std::string optimizer;  // "AdamW", "LARS.step"; empty for a loop
};

constexpr int kMinKernelsPerStep = 10;

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"foreach-false",
     "`{optimizer}(foreach=False)` launches kernels for each parameter tensor; `fused=True` updates them together",
     "`{optimizer}(foreach=False)` 为每个参数张量分别启动 kernel；`fused=True` 会一并更新它们"},
    {"hand-written",
     "A hand-written update loop over the parameters launches kernels for each tensor on every step; a fused "
     "`torch.optim` optimizer updates them together",
     "手写的参数更新循环每一步都为每个张量分别启动 kernel；融合的 `torch.optim` 优化器会一并更新它们"},
    {"optimizer-class",
     "`{function}` updates the parameters one tensor at a time in a loop on every training step; `torch._foreach_*` "
     "ops or a fused `torch.optim` optimizer update them together",
     "`{function}` 在每个训练步中用循环逐个张量地更新参数；`torch._foreach_*` 操作或融合的 `torch.optim` "
     "优化器会一并更新它们"},
    {"related-step", "The training step runs `{function}` here", "训练步在此处运行 `{function}`"},
    {"remote-class",
     "This step runs `{function}`, which updates the parameters one tensor at a time in a loop; `torch._foreach_*` "
     "ops or a fused `torch.optim` optimizer update them together",
     "这一步运行 `{function}`，它用循环逐个张量地更新参数；`torch._foreach_*` 操作或融合的 `torch.optim` "
     "优化器会一并更新它们"},
    {"related-loop", "`{function}` updates each parameter here", "`{function}` 在此处逐个更新参数"},
    {"fused", "Use `fused=True`", "改用 `fused=True`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no optimizer, so no trace event can be tied to it",
     "该问题没有携带优化器，无法对应到 trace 中的事件"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "the optimizer's kernels", "优化器的 kernel"},
    {"ev-no-stacks", "Without stacks the trace cannot tell the update loop's kernels from the model's; {missing}",
     "没有调用栈，trace 无法区分参数更新循环的 kernel 和模型的 kernel；{missing}"},
    {"ev-update-loop", "The update loop {where} takes {ms} ms/step ({share})",
     "参数更新循环（{where}）每 step 用时 {ms} ms（{share}）"},
    {"ev-not-observed", "No `Optimizer.step#...` ran inside the {steps}",
     "分析的 {steps} 内没有运行 `Optimizer.step#...`"},
    {"ev-fused", "{multi_tensor} of the {kernels} kernels under `Optimizer.step` are multi-tensor or fused",
     "`Optimizer.step` 下的 {kernels} 个 kernel 中有 {multi_tensor} 个是 multi-tensor 或 fused 的"},
    {"ev-few-kernels", "`Optimizer.step` launches only {count} kernels per step (below {minimum})",
     "`Optimizer.step` 每个 step 只启动 {count} 个 kernel（少于 {minimum}）"},
    {"ev-confirmed",
     "`Optimizer.step` launches {count} kernels per step, {multi_tensor} multi-tensor or fused; {ms} ms/step of "
     "launch overhead above their GPU time ({share})",
     "`Optimizer.step` 每个 step 启动 {count} 个 kernel，其中 {multi_tensor} 个是 multi-tensor 或 fused 的；"
     "超出其 GPU 时间的启动开销每 step {ms} ms（{share}）"},
};

class OptimizerNotFused final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL501",
                               "optimizer-not-fused",
                               "launch-overhead",
                               "The optimizer updates parameters one tensor at a time",
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
    const RuleOptions& options = context.options;
    if (!options.Allows(TorchVersion{2, 0})) return;
    for (std::string_view name : {"Adam", "AdamW", "SGD"}) {
      if (name == "SGD" && !options.Allows(TorchVersion{2, 3})) continue;
      for (uint32_t index : model.CallsNamed(name)) {
        const semantic::Site& call = model.Sites()[index];
        if (!model.IsCanonical(call, fmt::format("torch.optim.{}", name)) || !model.CudaAt(call.node)) continue;
        if (model.FindArgument(call, "fused", -1)) continue;
        auto arg = model.FindArgument(call, "foreach", -1);
        if (!arg) continue;
        const auto truthy = model.Resolve(arg->value, call.scope).Truthy();
        if (!truthy.has_value() || *truthy) continue;
        Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "foreach-false",
                                               {{"optimizer", std::string(name), {}}});
        diagnostic.payload = FusedFinding{false, std::string(name)};
        if (model.Text(arg->value) == "False" && arg->node.Is("keyword_argument")) {
          diagnostic.fix = MakeFix("fused", {}, Applicability::kUnsafe, {Edit{arg->node.Range(), "fused=True"}});
        }
        out.push_back(std::move(diagnostic));
      }
    }
    for (const semantic::Model::UpdateLoop& update : model.ParameterUpdateLoops()) {
      const semantic::Loop& loop = model.Loops()[static_cast<size_t>(update.loop)];
      const TextRange header{loop.node.StartByte(), loop.iterable.EndByte()};
      if (update.step == nullptr) {
        Diagnostic diagnostic = MakeDiagnostic(header, "hand-written");
        diagnostic.payload = FusedFinding{true, {}};
        out.push_back(std::move(diagnostic));
        continue;
      }
      // A method of an optimizer class of the file: reported at its loop, with the training step's call.
      const semantic::Scope& method = model.Scopes()[static_cast<size_t>(loop.scope)];
      const std::string function = fmt::format("{}.{}", model.Scopes()[static_cast<size_t>(method.parent)].name,
                                               method.name);
      Diagnostic diagnostic = MakeDiagnostic(header, "optimizer-class", {{"function", function, {}}});
      diagnostic.payload = Payload(method.name, function);
      RelatedLocation related;
      related.range = update.step->node.Range();
      SetMessage(related, "related-step", {{"function", function, {}}});
      diagnostic.related.push_back(std::move(related));
      out.push_back(std::move(diagnostic));
    }
    // An optimizer class of another file: reported at the training step's call, with the loop related.
    for (const semantic::Model::RemoteUpdateLoop& remote : model.CrossFileUpdateLoops()) {
      Diagnostic diagnostic = MakeDiagnostic(remote.call->node.Range(), "remote-class",
                                             {{"function", remote.function, {}}});
      const size_t dot = remote.function.rfind('.');
      diagnostic.payload = Payload(dot == std::string::npos ? remote.function : remote.function.substr(dot + 1),
                                   remote.function);
      diagnostic.related.push_back(
          MakeRelated(remote.path, remote.line, remote.column, "related-loop", {{"function", remote.function, {}}}));
      out.push_back(std::move(diagnostic));
    }
  }

 private:
  // PyTorch profiles an optimizer's `step` as `Optimizer.step#LARS.step`, so a `step` is judged by the
  // kernels under it; another method (`first_step`) runs outside that record and is judged as a loop, by
  // the kernels of its line.
  static FusedFinding Payload(std::string_view method, const std::string& function) {
    return method == "step" ? FusedFinding{false, function} : FusedFinding{true, {}};
  }
};

TL_REGISTER_RULE(OptimizerNotFused);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL501. Model: saved = the optimizer step's host time above its kernels' GPU time (the launch
// overhead fusion removes; the arithmetic stays); for a hand-written loop, half of its line's time.
class OptimizerNotFusedEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL501"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    const auto* finding = diagnostic.Payload<FusedFinding>();
    if (finding == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    if (finding->loop) {
      if (q.at.level != AttributionLevel::kLine) {
        return Unverifiable(Say("ev-no-stacks", {SentenceArg("missing", MissingOption("with_stack=True"))}));
      }
      if (q.at.not_observed) return NotObserved(q, TheLine(q));
      const trace::Cost c = q.trace.CostOf(q.at.where);
      return EvidenceFromCost(
          q, c.count > 0 ? Verdict::kConfirmed : Verdict::kRefuted, c, c.ms_per_step * 0.5,
          Say("ev-update-loop", {SentenceArg("where", WhereText(q)), NumberArg("ms", c.ms_per_step, 2),
                                 ShareArg("share", c.share_of_step)}));
    }
    const trace::OptimizerStepEvidence s = q.trace.OptimizerStepKernels();
    if (s.calls == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-not-observed", {StepsArg(q)}));
    const double per_step = s.cost.count_per_step;
    const MessageArg multi_tensor = NumberArg("multi_tensor", static_cast<int64_t>(s.multi_tensor));
    if (s.multi_tensor * 2 >= s.kernels && s.kernels > 0) {
      return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0,
                              Say("ev-fused", {multi_tensor, NumberArg("kernels", static_cast<int64_t>(s.kernels))}));
    }
    if (per_step < kMinKernelsPerStep) {
      return EvidenceFromCost(
          q, Verdict::kRefuted, s.cost, 0,
          Say("ev-few-kernels", {NumberArg("count", per_step, 1), NumberArg("minimum", int64_t{kMinKernelsPerStep})}));
    }
    return EvidenceFromCost(
        q, Verdict::kConfirmed, s.cost, s.cost.ms_per_step,
        Say("ev-confirmed", {NumberArg("count", per_step, 0), multi_tensor, NumberArg("ms", s.cost.ms_per_step, 2),
                             ShareArg("share", s.cost.share_of_step)}));
  }
};

TL_REGISTER_EVIDENCE(OptimizerNotFusedEvidence);

}  // namespace
}  // namespace tl
