// TL301 zero-grad-set-to-none: `zero_grad(set_to_none=False)` always, and a bare `zero_grad()` when
// the target PyTorch is older than 2.0 (2.0 made `set_to_none=True` the default).
#include <fmt/core.h>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for `zero_grad(set_to_none=False)` on optimizers and modules, and for a bare `zero_grad()`
when the target PyTorch is older than 2.0. PyTorch 2.0 made `set_to_none=True` the default, so a bare
call is only reported for older targets.

## Why is this bad?
`set_to_none=False` launches a fill kernel per gradient tensor (`aten::zero_`, `aten::fill_`) on every
step and keeps the gradient memory allocated between steps. Setting gradients to `None` costs nothing
on the device, frees that memory until backward needs it again, and lets backward write the first
gradient instead of accumulating into zeros.

## Example
```python
optimizer.zero_grad(set_to_none=False)
```

## Use instead
```python
optimizer.zero_grad(set_to_none=True)  # the default since PyTorch 2.0
```

## Fix safety
The fix sets `set_to_none=True` and is **unsafe**: after it, `p.grad` is `None` rather than a zero
tensor until the next backward, so code that reads or updates gradients in place between
`zero_grad()` and `backward()` (manual accumulation, gradient logging, `p.grad.add_(...)`) fails or
behaves differently. Optimizers and `clip_grad_norm_` already skip `None` gradients.

## Trace evidence
The `fill_`/`zero_` work under `zero_grad`.

With `check --trace`, `aten::zero_`/`aten::fill_` ops (and their kernels) under
`Optimizer.zero_grad#...` in the profiled steps confirm the finding, with their time per step, all of
which the fix saves; a `zero_grad` with no such work refutes it. When the trace shows the PyTorch
version (1.8-1.9 category names), it decides whether a bare `zero_grad()` is reported, unless
`--target-torch` says otherwise.

## Options
- `target-torch` (`--target-torch`): a bare `zero_grad()` is reported only when it is below 2.0. When
  not set, it is read from a `torch` pin in `pyproject.toml` or `requirements*.txt`, else a current
  2.x is assumed.

## References
- [torch.optim.Optimizer.zero_grad](https://pytorch.org/docs/stable/generated/torch.optim.Optimizer.zero_grad.html)
- [PyTorch performance tuning guide: use parameter.grad = None](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html)
)md";

// What the rule found: `set_to_none=False` written, or a bare `zero_grad()` on a PyTorch before 2.0.
struct ZeroGradFinding {
  bool explicit_false = false;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"explicit-false", "`zero_grad(set_to_none=False)` fills every gradient with zeros on each step",
     "`zero_grad(set_to_none=False)` 每一步都把所有梯度填零"},
    {"before-2-0", "`zero_grad()` fills every gradient with zeros before PyTorch 2.0 (target is {version})",
     "PyTorch 2.0 之前 `zero_grad()` 会把所有梯度填零（目标版本为 {version}）"},
    {"set", "Set `set_to_none=True`", "设置 `set_to_none=True`"},
    {"pass", "Pass `set_to_none=True`", "传入 `set_to_none=True`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no zero_grad call, so no trace event can be tied to it",
     "该问题没有携带 zero_grad 调用，无法对应到 trace 中的事件"},
    {"ev-not-observed", "No `Optimizer.zero_grad#...` ran inside the {steps}",
     "分析的 {steps} 内没有运行 `Optimizer.zero_grad#...`"},
    {"ev-confirmed",
     "`Optimizer.zero_grad` runs {count} fill_/zero_ ops per step ({kernels} kernels in all), {ms} ms/step ({share})",
     "`Optimizer.zero_grad` 每个 step 运行 {count} 个 fill_/zero_ 算子（共 {kernels} 个 kernel），每 step {ms} "
     "ms（{share}）"},
    {"ev-confirmed-where",
     "`Optimizer.zero_grad` {where} runs {count} fill_/zero_ ops per step ({kernels} kernels in all), {ms} ms/step "
     "({share})",
     "`Optimizer.zero_grad`（{where}）每个 step 运行 {count} 个 fill_/zero_ 算子（共 {kernels} 个 kernel），"
     "每 step {ms} ms（{share}）"},
    {"ev-refuted",
     "`Optimizer.zero_grad` ran {calls} with no fill_/zero_ work under it: the gradients are already set to None",
     "`Optimizer.zero_grad` 运行了 {calls}，其下没有 fill_/zero_ 操作：梯度已经被设为 None"},
};

class ZeroGradSetToNone final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL301",
                               "zero-grad-set-to-none",
                               "memory",
                               "`zero_grad()` fills gradients with zeros instead of freeing them",
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
    const bool old_torch = context.options.target_torch < TorchVersion{2, 0};
    for (uint32_t index : model.CallsNamed("zero_grad")) {
      const semantic::Site& call = model.Sites()[index];
      if (call.Receiver().IsNull()) continue;  // a function named zero_grad, not the method
      if (auto arg = model.FindArgument(call, "set_to_none", 0)) {
        const auto truthy = model.Resolve(arg->value, call.scope).Truthy();
        if (!truthy.has_value() || *truthy) continue;
        Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "explicit-false");
        diagnostic.payload = ZeroGradFinding{true};
        if (model.Text(arg->value) == "False") {
          diagnostic.fix = MakeFix("set", {}, Applicability::kUnsafe, {Edit{arg->value.Range(), "True"}});
        }
        out.push_back(std::move(diagnostic));
        continue;
      }
      if (!old_torch || model.HasStarArgs(call)) continue;
      if (model.KwargsLookupIn(call, "set_to_none").presence != semantic::KeyPresence::kAbsent) continue;
      Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "before-2-0",
                                             {{"version", context.options.target_torch.ToString(), {}}});
      diagnostic.payload = ZeroGradFinding{false};
      if (auto insertion = model.AppendKeyword(call, "set_to_none", "True")) {
        diagnostic.fix = MakeFix("pass", {}, Applicability::kUnsafe,
                                 {Edit{{insertion->offset, insertion->offset}, insertion->text}});
      }
      out.push_back(std::move(diagnostic));
    }
  }
};

TL_REGISTER_RULE(ZeroGradSetToNone);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL301. Model: saved = the fill_/zero_ work under zero_grad, all of it: with set_to_none=True the
// gradients are dropped instead of filled.
class ZeroGradSetToNoneEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL301"; }
  // The loader and zero_grad work are host-side ops: a trace cut before its GPU events still shows them.
  bool NeedsGpu() const override { return false; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<ZeroGradFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (q.at.level == AttributionLevel::kLine && q.at.not_observed) return NotObserved(q, TheLine(q));
    const auto& z = q.trace.analysis().optimizer.zero_grad;
    if (z.calls == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-not-observed", {StepsArg(q)}));
    trace::Cost c = q.trace.ZeroGradWork();
    bool here = false;
    // The zero_grad calls made from this very line, when the trace can tell (several optimizers).
    if (q.at.level == AttributionLevel::kLine &&
        std::any_of(z.events.begin(), z.events.end(), [&](uint32_t e) { return q.trace.Inside(q.at.where, e); })) {
      c = q.trace.ZeroGradWork(&q.at.where);
      here = true;
    }
    if (c.count > 0) {
      MessageArgs args{NumberArg("count", c.count_per_step, 0), NumberArg("kernels", static_cast<int64_t>(z.kernels)),
                       NumberArg("ms", c.ms_per_step, 2), ShareArg("share", c.share_of_step)};
      if (here) args.push_back(SentenceArg("where", WhereText(q)));
      return EvidenceFromCost(q, Verdict::kConfirmed, c, c.ms_per_step,
                              Say(here ? "ev-confirmed-where" : "ev-confirmed", std::move(args)));
    }
    return EvidenceFromCost(
        q, Verdict::kRefuted, c, 0,
        Say("ev-refuted", {CountArg("calls", static_cast<int64_t>(z.calls), "time", "times", "次")}));
  }
};

TL_REGISTER_EVIDENCE(ZeroGradSetToNoneEvidence);

}  // namespace
}  // namespace tl
