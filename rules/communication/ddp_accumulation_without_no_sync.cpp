// TL601 ddp-accumulation-without-no-sync: gradient accumulation under DistributedDataParallel without
// `no_sync()`, so every micro-batch's backward all-reduces the gradients instead of only the last one.
#include <fmt/core.h>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for gradient accumulation in a file (or project import component) that wraps a model in
`torch.nn.parallel.DistributedDataParallel`, with no `model.no_sync()` and no
`require_backward_grad_sync` toggling anywhere in the component. Accumulation is what the semantic
model sees in a training step loop: a `backward()` on every iteration while `optimizer.step()` (or
`scaler.step(optimizer)`) runs under a periodic guard (`if (i + 1) % accum_steps == 0:`, or after
`if (i + 1) % accum_steps != 0: continue`, or `if do_step:` with `do_step` bound once to such a
condition, also written `True if ... else False`), or a
`backward()` in a micro-batch loop inside the step loop whose optimizer step is outside it. The
`backward()` call is reported. A function of the same file that runs `backward()` on every call and
steps the optimizer only under a parameter (`def optimizer_step(loss, optimizer, ..., is_update=True)`)
is followed the same way when the loop passes that parameter a periodic condition: the call is reported,
with the helper's `backward()` as the related location. Accelerate's `accelerator.accumulate(model)`, Lightning and Fabric
handle the synchronisation themselves and are not reported; neither is code where the model cannot
tell whether the optimizer step is periodic.

With the project index (the default; `--no-project` turns it off), a helper of another file that does
both for the loop is followed: a function or method of the project (a loss-scaler object whose
`__call__` runs `scaler.scale(loss).backward()` on every call and steps the optimizer only under a
parameter, `if update_grad:`) called in the step loop with that parameter given a periodic condition
(`loss_scaler(loss, optimizer, update_grad=(i + 1) % accum_iter == 0)`). The call is reported. The
object's class is found as TL101 finds it: a construction of a project class, a factory of the project
that returns one, or a parameter every caller fills with the same class, from this file or another. A
period that is an option of the run (`args.accum_iter`, `config.TRAIN.ACCUMULATION_STEPS`, or a
parameter of the loop's function, `update_freq`) counts whatever its default or the value the callers
pass, for the optimizer step in the loop as for a helper's: the code is written to accumulate. Not followed: a helper whose `backward()` is
itself under a parameter's branch, one that steps on every call, and an object whose callers pass
different classes.

## Why is this bad?
DDP all-reduces the gradients during every `backward()`. With accumulation over N micro-batches only
the last all-reduce is needed: the others average gradients that are still being summed. Without
`no_sync()` a step costs N all-reduces of the whole model instead of one, which on a slow
interconnect can dominate the step.

## Example
```python
model = DistributedDataParallel(model, device_ids=[rank])
for i, (x, y) in enumerate(loader):
    loss = loss_fn(model(x), y) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
```

## Use instead
```python
for i, (x, y) in enumerate(loader):
    sync = (i + 1) % accum_steps == 0
    with contextlib.nullcontext() if sync else model.no_sync():
        loss = loss_fn(model(x), y) / accum_steps
        loss.backward()
    if sync:
        optimizer.step()
        optimizer.zero_grad()
```

## Fix safety
There is no fix: the forward pass and the backward pass must both run inside `no_sync()`, which
means restructuring the loop body.

## Trace evidence
One all-reduce per micro-batch instead of per step.

With `check --trace` and `prof.step()` called once per micro-batch, the all-reduce kernels of the
profiled steps that run no `Optimizer.step` are the ones `no_sync()` skips: there being any confirms
the finding, and their GPU time is counted as saved. A trace whose steps all run an optimizer step
cannot separate the micro-steps (`unverifiable`); a trace with no all-reduce at all is `not
observed` (another script, or a single process). A trace without CUDA activity is `unverifiable`.

## Options

## References
- [DistributedDataParallel.no_sync](https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html#torch.nn.parallel.DistributedDataParallel.no_sync)
- [Hugging Face: gradient accumulation with DDP](https://huggingface.co/docs/accelerate/usage_guides/gradient_accumulation)
)md";

// What the rule found: a micro-step backward under DDP.
struct NoSyncFinding {
  bool found = true;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"accumulation",
     "`backward()` on a gradient-accumulation micro-step all-reduces the DDP gradients; wrap the micro-steps in "
     "`model.no_sync()`",
     "在梯度累积的微步上调用 `backward()` 会对 DDP 梯度做 all-reduce；请把这些微步包在 `model.no_sync()` 中"},
    {"accumulation-helper",
     "`{function}()` runs `backward()` on every gradient-accumulation micro-step (`{guard}` steps the optimizer "
     "every N), which all-reduces the DDP gradients; wrap the micro-steps in `model.no_sync()`",
     "`{function}()` 在每个梯度累积微步上都调用 `backward()`（`{guard}` 每 N 步才执行优化器 step），会对 DDP "
     "梯度做 all-reduce；请把这些微步包在 `model.no_sync()` 中"},
    {"helper-note", "`{function}` runs `backward()` here on every call",
     "`{function}` 每次调用都在此处执行 `backward()`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no backward call, so no trace event can be tied to it",
     "该问题没有携带 backward 调用，无法对应到 trace 中的事件"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "all-reduce kernels", "任何 all-reduce kernel"},
    {"ev-no-all-reduce", "No all-reduce kernel ran inside the {steps}",
     "分析的 {steps} 内没有运行任何 all-reduce kernel"},
    {"ev-confirmed",
     "{without} of the {steps} run no optimizer step yet all-reduce: {count} all-reduce kernels per step, {ms} "
     "ms/step ({share})",
     "分析的 {steps} 中有 {without} 个没有执行优化器 step 却做了 all-reduce：每个 step {count} 个 all-reduce "
     "kernel，每 step {ms} ms（{share}）"},
    {"ev-refuted", "The profiled micro-steps without an optimizer step run no all-reduce",
     "分析的 micro-step 中，没有优化器 step 的那些不做 all-reduce"},
    {"ev-every-step-optimizes",
     "Every profiled step runs an optimizer step, so the trace cannot separate the micro-steps' all-reduces; call "
     "prof.step() once per micro-batch",
     "每个分析的 step 都执行了优化器 step，trace 无法区分各 micro-step 的 all-reduce；请每个 micro-batch 调用一次 "
     "prof.step()"},
};

class DdpAccumulationWithoutNoSync final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL601",
                               "ddp-accumulation-without-no-sync",
                               "communication",
                               "DDP all-reduces gradients on every accumulation micro-step",
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
    const uint32_t facts = model.ComponentFacts();
    if ((facts & semantic::kFactDdp) == 0) return;
    if ((facts & (semantic::kFactGradSyncOff | semantic::kFactFramework)) != 0) return;
    for (uint32_t index : model.AccumulatingBackwards()) {
      const semantic::Site& call = model.Sites()[index];
      Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "accumulation");
      if (const auto helper = model.AccumulatingHelper(call)) {
        diagnostic = MakeDiagnostic(call.node.Range(), "accumulation-helper",
                                    {{"function", helper->function, {}}, {"guard", helper->guard, {}}});
        if (!helper->local_backward.IsNull()) {
          const LineColumn at = context.file.lines().Locate(helper->local_backward.StartByte());
          diagnostic.related.push_back(MakeRelated(std::string(context.file.path()), at.line, at.column, "helper-note",
                                                   {{"function", helper->function, {}}}));
        } else {
          diagnostic.related.push_back(MakeRelated(helper->path, helper->backward_line, helper->backward_column,
                                                   "helper-note", {{"function", helper->function, {}}}));
        }
      }
      diagnostic.payload = NoSyncFinding{};
      out.push_back(std::move(diagnostic));
    }
  }
};

TL_REGISTER_RULE(DdpAccumulationWithoutNoSync);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL601. Model: saved = the GPU time of the all-reduce kernels in profiled steps without an optimizer
// step; with no_sync() those micro-steps do not communicate.
class DdpAccumulationWithoutNoSyncEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL601"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<NoSyncFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::MicroStepAllReduceEvidence a = q.trace.MicroStepAllReduces();
    if (a.all_reduces == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-no-all-reduce", {StepsArg(q)}));
    if (a.cost.count > 0) {
      return EvidenceFromCost(
          q, Verdict::kConfirmed, a.cost, a.cost.ms_per_step,
          Say("ev-confirmed", {NumberArg("without", static_cast<int64_t>(q.steps - a.steps_with_optimizer)),
                               StepsArg(q), NumberArg("count", a.cost.count_per_step, 1),
                               NumberArg("ms", a.cost.ms_per_step, 2), ShareArg("share", a.cost.share_of_step)}));
    }
    if (a.steps_with_optimizer < q.steps) return EvidenceFromCost(q, Verdict::kRefuted, a.cost, 0, Say("ev-refuted"));
    return Unverifiable(Say("ev-every-step-optimizes"));
  }
};

TL_REGISTER_EVIDENCE(DdpAccumulationWithoutNoSyncEvidence);

}  // namespace
}  // namespace tl
