// TL501 optimizer-not-fused: `Adam`/`AdamW`/`SGD` with `foreach=False`, or a hand-written update loop
// over the parameters, where the target PyTorch has a fused optimizer that updates them all in a few
// kernels.
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
`p -= lr * p.grad`). It reports only when the target PyTorch has `fused=True` for that optimizer:
Adam and AdamW from 2.0, SGD from 2.3 (a hand-written loop from 2.0, the first release with fused
`torch.optim` optimizers). A default `Adam(...)` is not reported: since 2.0 it already takes the
multi-tensor (`foreach`) path on CUDA. A loop over the parameters that does not update them
(`p.requires_grad = False`, a gradient norm, `p.grad.zero_()`) is not reported, and neither is a loop
that runs outside the training step (once, or in evaluation).

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

## Fix safety
The fix replaces `foreach=False` with `fused=True` and is **unsafe**: the fused implementation needs
every parameter on CUDA (or another supported device) and of a floating dtype, and it raises at the
first `step()` otherwise; it also rounds slightly differently, so results are not bit-identical. A
hand-written loop has no fix.

## Trace evidence
Many small optimizer kernels per step.

With `check --trace`, the kernels launched under `Optimizer.step#...` in the profiled steps confirm a
`foreach=False` finding when there are at least 10 per step and fewer than half of them are
multi-tensor or fused kernels (`multi_tensor_apply`, `fused`); the time saved is the step's launch
overhead: its host time above the GPU time of its kernels, since fused kernels still do the arithmetic.
An optimizer whose kernels are mostly multi-tensor or fused refutes it; no `Optimizer.step` in the
profiled steps is `not observed`. A hand-written loop is confirmed by the kernels launched from its
line (a trace with stacks), of which half the time is counted as saved; without stacks it is
`unverifiable`. A trace without CUDA activity is `unverifiable`.

## Options
- `target-torch` (`--target-torch`): nothing is reported below 2.0, and `SGD` below 2.3.

## References
- [torch.optim: algorithms (foreach and fused implementations)](https://pytorch.org/docs/stable/optim.html#algorithms)
- [torch.optim.AdamW](https://pytorch.org/docs/stable/generated/torch.optim.AdamW.html)
)md";

// What the rule found: an optimizer built with foreach=False, or a hand-written update loop.
struct FusedFinding {
  bool loop = false;
  std::string optimizer;  // "AdamW"; empty for a loop
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
    {"fused", "Use `fused=True`", "改用 `fused=True`"},
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
    const TorchVersion torch = context.options.target_torch;
    if (torch < TorchVersion{2, 0}) return;
    for (std::string_view name : {"Adam", "AdamW", "SGD"}) {
      if (name == "SGD" && torch < TorchVersion{2, 3}) continue;
      for (uint32_t index : model.CallsNamed(name)) {
        const semantic::Site& call = model.Sites()[index];
        if (!model.IsCanonical(call, fmt::format("torch.optim.{}", name))) continue;
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
    for (int index : model.ParameterUpdateLoops()) {
      const semantic::Loop& loop = model.Loops()[static_cast<size_t>(index)];
      Diagnostic diagnostic = MakeDiagnostic({loop.node.StartByte(), loop.iterable.EndByte()}, "hand-written");
      diagnostic.payload = FusedFinding{true, {}};
      out.push_back(std::move(diagnostic));
    }
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
    if (finding == nullptr) {
      return Unverifiable("The finding carries no optimizer, so no trace event can be tied to it");
    }
    if (!q.trace.capabilities().cuda) {
      return Unverifiable(
          "The trace has no CUDA activity, so it cannot show the optimizer's kernels; profile with "
          "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
    }
    if (finding->loop) {
      if (q.at.level != AttributionLevel::kLine) {
        return Unverifiable("Without stacks the trace cannot tell the update loop's kernels from the model's; " +
                            MissingOption("with_stack=True"));
      }
      if (q.at.not_observed) return NotObserved(q, fmt::format("Line {}", q.line));
      const trace::Cost c = q.trace.CostOf(q.at.where);
      return EvidenceFromCost(q, c.count > 0 ? Verdict::kConfirmed : Verdict::kRefuted, c, c.ms_per_step * 0.5,
                              fmt::format("The update loop {} takes {:.2f} ms/step ({})", WhereText(q), c.ms_per_step,
                                          FormatShare(c.share_of_step)));
    }
    const trace::OptimizerStepEvidence s = q.trace.OptimizerStepKernels();
    if (s.calls == 0) {
      Evidence e;
      e.verdict = Verdict::kNotObserved;
      e.summary = fmt::format("No `Optimizer.step#...` ran inside the {} profiled step{}", q.steps,
                              q.steps == 1 ? "" : "s");
      return e;
    }
    const double per_step = s.cost.count_per_step;
    if (s.multi_tensor * 2 >= s.kernels && s.kernels > 0) {
      return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0,
                              fmt::format("{} of the {} kernels under `Optimizer.step` are multi-tensor or fused",
                                          s.multi_tensor, s.kernels));
    }
    if (per_step < kMinKernelsPerStep) {
      return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0,
                              fmt::format("`Optimizer.step` launches only {:.1f} kernels per step (below {})", per_step,
                                          kMinKernelsPerStep));
    }
    return EvidenceFromCost(q, Verdict::kConfirmed, s.cost, s.cost.ms_per_step,
                            fmt::format("`Optimizer.step` launches {:.0f} kernels per step, {} multi-tensor or fused; "
                                        "{:.2f} ms/step of launch overhead above their GPU time ({})",
                                        per_step, s.multi_tensor, s.cost.ms_per_step,
                                        FormatShare(s.cost.share_of_step)));
  }
};

TL_REGISTER_EVIDENCE(OptimizerNotFusedEvidence);

}  // namespace
}  // namespace tl
