// TL102 implicit-sync-in-step-loop: code that makes the host wait for the GPU on every training step
// without calling a sync API: branching or asserting on a tensor, boolean-mask indexing, ops whose
// output size depends on the data (`nonzero`, `masked_select`, `unique`, `torch.where(cond)`,
// `repeat_interleave` with tensor repeats), Python's `max()`/`sum()` over a tensor. The semantic model's
// ImplicitSyncAt decides what syncs; its cadence what runs every step (as for TL101).
#include <fmt/core.h>

#include <algorithm>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

// What reads the device: a Python truth test (`if`/`while`/`assert`, builtins), a boolean mask, or a
// data-dependent op.
enum class ImplicitKind { kTruth, kMask, kDataDependent };
struct ImplicitSyncFinding {
  ImplicitKind kind = ImplicitKind::kTruth;
};

constexpr std::string_view kDocs = R"md(## What it does
Checks for code that makes the host wait for the GPU on every training step without a sync call:
- branching or asserting on a tensor: `if loss > 10:`, `elif not torch.isfinite(loss):`,
  `while not done:` with a tensor `done`, `assert t.min() >= 0`;
- boolean-mask indexing of a device tensor, read or write: `x[mask]`, `x[x > 0] = 0`, where the mask
  is a boolean tensor (a comparison with a tensor, `~m`, `a & b`, `torch.isnan(x)`, `x.eq(y)`, `.bool()`,
  or a name bound once to one of these);
- ops whose output size depends on the values: `.nonzero()` / `torch.nonzero`, the one-argument
  `torch.where(cond)`, `masked_select`, `unique` / `torch.unique`, and `repeat_interleave` with tensor
  repeats and no `output_size=`;
- Python's builtins `max()`, `min()`, `sum()`, `any()`, `all()` over a device tensor (not shadowed by an
  import or a function of the file), and `any()`/`all()` over a generator of tensor tests
  (`any(not torch.isfinite(p.grad).all() for p in params)`: one sync per element).

"Every step" is what TL101 means by it (the training step loop, evaluation and decoding loops, among
them a module's own `generate` loop that calls `self(idx)`, Lightning and Hugging Face per-step hooks,
the functions they call, not under a periodic guard, not in the epoch loop). Explicit syncs (`.item()`,
`.cpu()`, `float(t)`, printing, `synchronize()`) are TL101's.

It does not report:
- host tensors (a factory without `device=`, `torch.tensor([...])`, `torch.from_numpy`, `.cpu()` results)
  and NumPy arrays: `a[a > 0]` on a NumPy array is not a device read;
- `repeat_interleave` with integer repeats (`x.repeat_interleave(2, dim=0)`): PyTorch expands it without
  reading the device;
- values whose tensor type the model cannot tell (a mask passed in as a parameter, a tensor from a
  function of another module): a mask that may be a list of indices or a Python bool stays silent;
- scripts that never use a GPU (TL101's definition of a CUDA script);
- syncs inside a function of another file that the step calls (an `assert` on boxes in a loss helper):
  the model does not follow implicit syncs across files.

## Why is this bad?
A mask or a data-dependent op cannot size its output until the GPU has computed the mask: PyTorch copies
the count to the host and waits for every queued kernel to finish. A Python `if` on a tensor reads its
value the same way. The CPU stops queueing work ahead of the GPU, and the GPU idles until the next
kernels arrive: the same cost as an `.item()` per step, hidden in ordinary-looking code.

## Example
```python
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    loss = criterion(model(x), y)
    valid = loss_per_item[loss_per_item > 0]
    if loss > 10:
        print("spike")
```

## Use instead
```python
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    loss = criterion(model(x), y)
    valid = torch.where(loss_per_item > 0, loss_per_item, 0)  # same shape, no sync
    spikes += (loss > 10)  # accumulate on the device, read it every N steps
```

## Fix safety
No fix is offered: keeping shapes static (`torch.where(mask, x, 0)`, `output_size=`) changes the values
downstream code sees.

## Trace evidence
The device syncs under the line: `cudaStreamSynchronize` or a blocking DtoH copy inside
`aten::nonzero`, `aten::is_nonzero` (a Python truth test), `aten::masked_select`, `aten::_unique2`,
`aten::repeat_interleave` or `_local_scalar_dense`.

With `check --trace`, the line is found through `CallFrom` (or a PyTorch 1.8-1.9 `Call stack`), else
its function's frames; every blocking call under it counts, and the finding is `confirmed` with the CPU
time blocked per step (what removing the sync saves: the host stops waiting for the queue to drain),
`refuted` when the line ran and nothing under it synchronised, `not-observed` when it did not run in the
profiled steps. Without stacks, the blocking calls of the steps under those ops confirm it (shared with
other findings on the same events). A trace without CUDA activity cannot show a device sync:
`unverifiable`. Findings below 1% of the step are `negligible` (the cross-check's materiality threshold).

## Options

## References
- [PyTorch performance tuning guide: avoid unnecessary CPU-GPU synchronization](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html)
- [torch.cuda.set_sync_debug_mode](https://pytorch.org/docs/stable/generated/torch.cuda.set_sync_debug_mode.html)
- [torch.repeat_interleave: output_size](https://pytorch.org/docs/stable/generated/torch.repeat_interleave.html)
)md";

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"implicit-sync", "{sync} on {cadence}", "{sync}，发生在{cadence}"},
};

class ImplicitSyncInStepLoop final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL102",
                               "implicit-sync-in-step-loop",
                               "host-device-sync",
                               "Host-device synchronization without a sync call on every training step",
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
    for (const semantic::Site& site : model.Sites()) {
      if (!site.per_step() || site.off_device) continue;
      const auto sync = model.ImplicitSyncAt(site);
      if (!sync) continue;
      ImplicitKind kind = ImplicitKind::kDataDependent;
      if (site.kind == semantic::SiteKind::kSubscript) kind = ImplicitKind::kMask;
      if (site.kind == semantic::SiteKind::kCondition || site.kind == semantic::SiteKind::kAssert ||
          (site.kind == semantic::SiteKind::kCall && site.Receiver().IsNull())) {
        kind = ImplicitKind::kTruth;
      }
      Diagnostic diagnostic = MakeDiagnostic(
          site.node.Range(), "implicit-sync",
          {{"sync", sync->message, sync->message_zh},
           {"cadence", std::string(ToString(site.cadence)), std::string(ToChinese(site.cadence))}});
      diagnostic.payload = ImplicitSyncFinding{kind};
      out.push_back(std::move(diagnostic));
    }
  }
};

TL_REGISTER_RULE(ImplicitSyncInStepLoop);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved). Saved = the
// CPU time blocked in the syncs under the line (the host stops waiting for the GPU queue to drain).
class ImplicitSyncInStepLoopEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL102"; }

  Evidence Confirm(const Diagnostic& d, const EvidenceQuery& q) const override {
    if (d.Payload<ImplicitSyncFinding>() == nullptr) {
      return Unverifiable("The finding carries no sync kind, so no trace event can be tied to it");
    }
    if (q.at.not_observed) return NotObserved(q, fmt::format("Line {}", q.line));
    if (!q.trace.capabilities().cuda) {
      return Unverifiable(
          "The trace has no CUDA activity, so it cannot show a device sync; profile with "
          "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
    }
    const trace::ImplicitSyncEvidence s = q.trace.ImplicitSyncs(q.at.scope());
    if (q.at.level != AttributionLevel::kStep) {
      if (s.cost.count > 0) {
        return EvidenceFromCost(q, Verdict::kConfirmed, s.cost, s.cost.ms_per_step,
                                fmt::format("{:.1f} device syncs per step {} block the CPU {:.2f} ms/step ({})",
                                            s.cost.count_per_step, WhereText(q), s.cost.ms_per_step,
                                            FormatShare(s.cost.share_of_step)));
      }
      return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0,
                              fmt::format("The code ran {} and no device sync ran under it", WhereText(q)));
    }
    // No stacks: the blocking calls under the ops that read the device implicitly, in the whole step.
    if (s.cost.count > 0) {
      return EvidenceFromCost(q, Verdict::kConfirmed, s.cost, s.cost.ms_per_step,
                              fmt::format("{:.1f} device syncs per step under data-dependent ops or tensor truth "
                                          "tests block the CPU {:.2f} ms/step ({}); attributed by {}",
                                          s.cost.count_per_step, s.cost.ms_per_step, FormatShare(s.cost.share_of_step),
                                          q.at.how));
    }
    if (s.implicit_ops == 0) {
      Evidence e;
      e.verdict = Verdict::kNotObserved;
      e.summary = fmt::format(
          "No data-dependent op or tensor truth test (aten::nonzero, aten::is_nonzero, ...) ran in the {} profiled "
          "{} (attributed by {})",
          q.steps, q.steps == 1 ? "step" : "steps", q.at.how);
      return e;
    }
    return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0,
                            fmt::format("{} data-dependent ops or truth tests ran in the profiled steps and none "
                                        "synchronised with the device",
                                        s.implicit_ops));
  }
};

TL_REGISTER_EVIDENCE(ImplicitSyncInStepLoopEvidence);

}  // namespace
}  // namespace tl
