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
  `while not done:` with a tensor `done`, `assert t.min() >= 0`, the condition of a conditional
  expression (`gamma = g if S_min <= t_cur <= S_max else 0` with `t_cur` a 0-dim device tensor), and a
  comprehension's `if` on the
  elements of a device tensor (`[i for i, w in enumerate(words) if w != end]`: one sync per element;
  the elements of a tensor, of `enumerate(t)` and of `zip(a, t)` are followed, an enumerate counter is
  not a tensor). The variable of a `for` loop over a device tensor, or over `zip`/`enumerate` of device
  tensors, is a device tensor too (`for t_cur, t_next in zip(t_steps[:-1], t_steps[1:]):`, `for idx, d
  in enumerate(next_done): if d:`), but not over a field of a loader's batch (often a list of strings);
- boolean-mask indexing of a device tensor, read or write: `x[mask]`, `x[x > 0] += 1`, `x[m] = y[m]`,
  `x[m] = t.max()` (a tensor value), and, on PyTorch before 1.10, `x[x > 0] = 0`, where the mask
  is a boolean tensor (a comparison with a tensor, `~m`, `a & b`, `torch.isnan(x)`, `x.eq(y)`, `.bool()`,
  a factory with `dtype=torch.bool` on the device or moved there, `torch.eye(n, dtype=torch.bool).to(d)`,
  a byte mask (`dtype=torch.uint8`, which PyTorch still takes for a mask) and its complement `1 - m`,
  or a name bound once to one of these, or rebound only to masks as it grows: `suppress =
  torch.max(suppress, iou > t)`);
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

With the project index (the default; `--no-project` turns it off), a function or method of another file
of the project that syncs implicitly on every call (a post-processing helper that takes Python's `max()`
of a device tensor or branches on one, a loss helper that `assert`s on device boxes, a method that calls
`nonzero`) is reported at the call the step loop makes, with the helper's first such sync as the related
location. Each sync of such a helper is also reported where it is written, in the helper's file, with the
call as the related location, since that is the line to change (a loss whose `forward` indexes with
three boolean masks has three findings there; their measured cost is shared, not counted three times).
The helper is found as TL101 finds one: a function imported from the project, a method of an
object built from a class of the project (`decoder = Decoder()`), an inherited method, the call of an
object whose class the project tells (`criterion(outputs, targets)` runs `forward`) or a method called on
one (`converter.decode(preds)` with `converter` a parameter every caller fills with one class); through the
helper's own file, the functions it calls on each call count too, and so do the functions of other
files of the project it calls on each call, through any number of files. A sync counts when it runs on every
call: not under a periodic guard, and not under a branch that tests a parameter (`if top_k is not None:`
runs only for some calls) unless what it reads is itself the parameter's value, in which case the call
is reported only when it passes a tensor. A parameter the helper indexes as an array (`boxes[:, 2:]`,
`x[..., 4]`: only a tensor or a NumPy array takes several indices) is taken for a tensor in the helper's
summary, so `assert (boxes1[:, 2:] >= boxes1[:, :2]).all()` in a box helper counts; a call that reaches
it directly is reported only when the argument for that parameter is a device tensor
(`count_matches(host_targets, i)` with targets that stay on the host is silent), and one that reaches it
through other helpers when it passes a device tensor. An object a class keeps (`self.matcher =
matcher` in `__init__`, with every construction of the class in its file passing `build_matcher(args)`)
is followed like a name: `self.matcher(outputs, targets)` runs the matcher class's `forward`.

It does not report:
- host tensors (a factory without `device=`, `torch.tensor([...])`, `torch.from_numpy`, `.cpu()` results)
  and NumPy arrays: `a[a > 0]` on a NumPy array is not a device read;
- `repeat_interleave` with integer repeats (`x.repeat_interleave(2, dim=0)`): PyTorch expands it without
  reading the device;
- a Python number written through a boolean mask that is the only tensor index (`logits[logits < v] =
  -float("inf")`, `probs[mask] = 0.0`, `x[m, 0] = torch.finfo(x.dtype).min`, `t[m] = self.eot` with
  `self.eot` an `int`): from PyTorch 1.10, `index_put_` runs it as `masked_fill_`, which reads nothing back.
  The value counts as a number when it is a numeric literal, arithmetic on numbers, `float(...)`/`int(...)`,
  `math.inf`/`numpy.nan`/`torch.inf`, a `finfo`/`iinfo` field, or a name whose every assignment binds one
  (a parameter annotated `int`/`float`/`bool` too). With an older pin (or `--target-torch`) it is reported
  as a sync; a helper of another file is summarized for PyTorch 1.10 and later whatever the pin;
- values whose tensor type the model cannot tell (a mask passed in as a parameter, a tensor from a
  function of another module): a mask that may be a list of indices or a Python bool stays silent. The
  parameters a loop over `model.parameters()` or `model.named_parameters()` yields are tensors, so a
  clipping helper's `if clip_coef < 1:` on a gradient's norm is reported, and so is a parameter annotated
  with torch's tensor class (`tokens: Tensor`, `torch.LongTensor`; not `Optional[Tensor]`, which may be
  None): `tokens[tokens.ge(begin)]` in a decoder's method reads the device;
- scripts that never use a GPU (TL101's definition of a CUDA script);
- syncs of a helper of another file that the model cannot reach: a method called on a parameter whose
  callers pass different classes (`converter = CTCLabelConverter(...)` or `AttnLabelConverter(...)` by an
  option), an attribute of another file's class assigned different classes, and a helper whose sync reads a parameter it
  indexes with one index only (`if t[i] != 0:` with `t = text_index[index:index + l]`: a list would do
  the same);
- helpers in a file that does not import torch: their branches are not typed for the project (a module
  of plain Python helpers makes no tensor to branch on), which keeps the project pass cheap on large
  trees.

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
    {"remote-sync", "`{function}()` synchronizes with the GPU without a sync call on {cadence}",
     "`{function}()` 会在没有同步调用的情况下与 GPU 同步，发生在{cadence}"},
    {"remote-note", "`{function}` syncs here: {sync}", "`{function}` 在此处同步：{sync}"},
    {"caller-note", "`{function}()` is called here on {cadence}", "`{function}()` 在此处被调用，{cadence}"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no sync kind, so no trace event can be tied to it",
     "该问题没有携带同步类型，无法对应到 trace 中的事件"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "a device sync", "设备同步"},
    {"ev-confirmed-here", "{count} device syncs per step {where} block the CPU {ms} ms/step ({share})",
     "{where}，每个 step 有 {count} 次设备同步，阻塞 CPU 每 step {ms} ms（{share}）"},
    {"ev-refuted-here", "The code ran {where} and no device sync ran under it",
     "代码{where}运行过，其下没有任何设备同步"},
    {"ev-confirmed",
     "{count} device syncs per step under data-dependent ops or tensor truth tests block the CPU {ms} ms/step "
     "({share}); attributed by {how}",
     "每个 step 在数据相关算子或张量真值判断下有 {count} 次设备同步，阻塞 CPU 每 step {ms} ms（{share}）；"
     "归因方式：{how}"},
    {"ev-not-observed",
     "No data-dependent op or tensor truth test (aten::nonzero, aten::is_nonzero, ...) ran in the {steps} "
     "(attributed by {how})",
     "分析的 {steps} 中没有运行任何数据相关算子或张量真值判断（aten::nonzero、aten::is_nonzero 等）"
     "（归因方式：{how}）"},
    {"ev-refuted",
     "{ops} data-dependent ops or truth tests ran in the profiled steps and none synchronised with the device",
     "分析的 step 中运行了 {ops} 个数据相关算子或真值判断，没有一个与设备同步"},
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
      const bool remote = !site.per_step() && site.remote_cadence != semantic::Cadence::kNone;
      if ((!site.per_step() && !remote) || site.off_device || !model.CudaAt(site.node)) continue;
      auto sync = model.ImplicitSyncAt(site);
      // A number written through a boolean mask is a `masked_fill_` from PyTorch 1.10 on.
      if (sync && sync->mask_fill && context.options.target_torch >= TorchVersion{1, 10}) sync.reset();
      if (!sync) {
        if (site.kind == semantic::SiteKind::kCall && !remote) ReportRemote(model, site, out);
        continue;
      }
      const semantic::Cadence cadence = remote ? site.remote_cadence : site.cadence;
      ImplicitKind kind = ImplicitKind::kDataDependent;
      if (site.kind == semantic::SiteKind::kSubscript) kind = ImplicitKind::kMask;
      if (site.kind == semantic::SiteKind::kCondition || site.kind == semantic::SiteKind::kAssert ||
          (site.kind == semantic::SiteKind::kCall && site.Receiver().IsNull())) {
        kind = ImplicitKind::kTruth;
      }
      Diagnostic diagnostic = MakeDiagnostic(
          site.node.Range(), "implicit-sync",
          {{"sync", sync->message, sync->message_zh},
           {"cadence", std::string(ToString(cadence)), std::string(ToChinese(cadence))}});
      diagnostic.payload = ImplicitSyncFinding{kind};
      // A helper another file's step loop calls: that call is why it runs so often.
      if (const auto caller = remote ? model.RemoteCallerOf(site) : std::nullopt) {
        diagnostic.related.push_back(
            MakeRelated(std::string(caller->path), caller->line, caller->column, "caller-note",
                        {{"function", std::string(caller->function), {}},
                         {"cadence", std::string(ToString(cadence)), std::string(ToChinese(cadence))}}));
      }
      out.push_back(std::move(diagnostic));
    }
  }

 private:
  // A helper of another file of the project that syncs implicitly on every call: reported at the call
  // the step loop makes, with the helper's sync as the related location (as TL101 does for explicit ones).
  void ReportRemote(const semantic::Model& model, const semantic::Site& site, std::vector<Diagnostic>& out) const {
    const auto remote = model.CrossFileSync(site, semantic::SyncFamily::kImplicit);
    if (!remote) return;
    Diagnostic diagnostic = MakeDiagnostic(
        site.node.Range(), "remote-sync",
        {{"function", remote->function, {}},
         {"cadence", std::string(ToString(site.cadence)), std::string(ToChinese(site.cadence))}});
    diagnostic.payload = ImplicitSyncFinding{ImplicitKind::kTruth};
    diagnostic.related.push_back(
        MakeRelated(remote->path, remote->line, remote->column, "remote-note",
                    {{"function", remote->syncing_function, {}}, {"sync", remote->message, remote->message_zh}}));
    out.push_back(std::move(diagnostic));
  }
};

TL_REGISTER_RULE(ImplicitSyncInStepLoop);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved). Saved = the
// CPU time blocked in the syncs under the line (the host stops waiting for the GPU queue to drain).
class ImplicitSyncInStepLoopEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL102"; }

  Evidence Confirm(const Diagnostic& d, const EvidenceQuery& q) const override {
    if (d.Payload<ImplicitSyncFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (q.at.not_observed) return NotObserved(q, TheLine(q));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::ImplicitSyncEvidence s = q.trace.ImplicitSyncs(q.at.scope());
    const MessageArg count = NumberArg("count", s.cost.count_per_step, 1);
    const MessageArg ms = NumberArg("ms", s.cost.ms_per_step, 2);
    const MessageArg share = ShareArg("share", s.cost.share_of_step);
    if (q.at.level != AttributionLevel::kStep) {
      const MessageArg where = SentenceArg("where", WhereText(q));
      if (s.cost.count > 0) {
        return EvidenceFromCost(q, Verdict::kConfirmed, s.cost, s.cost.ms_per_step,
                                Say("ev-confirmed-here", {count, where, ms, share}));
      }
      return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0, Say("ev-refuted-here", {where}));
    }
    // No stacks: the blocking calls under the ops that read the device implicitly, in the whole step.
    const MessageArg how = SentenceArg("how", q.at.how);
    if (s.cost.count > 0) {
      return EvidenceFromCost(q, Verdict::kConfirmed, s.cost, s.cost.ms_per_step,
                              Say("ev-confirmed", {count, ms, share, how}));
    }
    if (s.implicit_ops == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-not-observed", {StepsArg(q), how}));
    return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0,
                            Say("ev-refuted", {NumberArg("ops", static_cast<int64_t>(s.implicit_ops))}));
  }
};

TL_REGISTER_EVIDENCE(ImplicitSyncInStepLoopEvidence);

}  // namespace
}  // namespace tl
