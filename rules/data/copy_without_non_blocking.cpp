// TL204 copy-without-non-blocking: `.to(device)` / `.cuda()` of a batch from a DataLoader built with
// `pin_memory=True`, without `non_blocking=True`: the copy from page-locked memory could overlap the
// GPU's work, and the host waits for it instead.
#include <fmt/core.h>

#include <algorithm>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for `.to(device)` and `.cuda()` calls on a batch of a `DataLoader` built with `pin_memory=True`
that do not pass `non_blocking=True`, in scripts that run on CUDA (TL101's definition). A batch is a
loop target of a loop over the loader (also through `enumerate`, `tqdm`, `zip`, `iter`; not
enumerate's counter), `next()` of its iterator, a value unpacked or indexed from one (`x, y = batch`,
`batch["image"]`), or a parameter of a function of the file whose call sites all pass batches of the
same loader (`def train_step(model, batch):`), or an element of a batch (`[t.to(device) for t in
batch]`), or a loop target of a call of the project given the loader (a logger's generator:
`for samples, targets in metric_logger.log_every(data_loader, 10, header):`). The loader is followed
through names (an iterator rebuilt when it runs out reads the last `iter(loader)` before it), `self.`
attributes assigned once, the parameters of functions of the file and of a class's `__init__` (through the
calls of the class), functions of the file that return it (`prepare_dataloader(...)`), functions of
other modules of the project that return it (`loader = make_data_loader(...)` from `data/loaders.py`,
through a package's re-export and the functions that return its result), and either branch of `make(x)
if x else None`. A batch that several loaders
reach (a helper called with the validation loader and another) is reported when every one of them pins
memory. `pin_memory` is read as TL202 reads it (the keyword, the eighth positional, `**kwargs` dicts:
literals, `{...} if use_cuda else {}`, and dicts extended with `update({...})` or `d["key"] = value`,
argparse defaults): a key set on the GPU path only counts as set.

It does not report:
- loaders without `pin_memory=True` (or whose `pin_memory` cannot be resolved): the copy from pageable
  memory is synchronous anyway, and TL202 reports the loader;
- moves to the host (`.to("cpu")`) or dtype conversions (`.to(torch.float16)`);
- a `non_blocking=` whose value is not a literal `False` (a flag torchlint cannot resolve);
- a batch one of whose loaders is not pinned, or that the model cannot trace to every loader it comes
  from (a `**kwargs` dict changed by `pop` or `setdefault` is unknown);
- a batch of a loader that Hugging Face Accelerate prepared (`accelerator.prepare(loader)`, alone or in a
  tuple): its loader puts each batch on the device itself, so the `.to(device)` copies nothing;
- a parameter's batches when some call of its function passes a loader that is not known to be pinned. A
  loader passed across files is followed: a batch of a parameter of a function that its own file never
  calls (`def evaluate(net, dataloader, device):`) is reported when every call of that function in the
  project's other files passes a pinned loader: one the caller's file builds with `pin_memory=True`
  (`evaluate(model, val_loader, device)` in train.py), or one a function of the project returns there.

## Why is this bad?
With `pin_memory=True` the batch sits in page-locked memory, which the GPU's copy engine can read
directly while kernels run. A copy without `non_blocking=True` makes the host wait until the copy is
done, so the CPU cannot queue the next kernels during the transfer, and the pinning buys only half of
what it can: the copy does not overlap the previous step's compute.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
for x, y in loader:
    x, y = x.cuda(), y.to(device)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
for x, y in loader:
    x, y = x.cuda(non_blocking=True), y.to(device, non_blocking=True)
```

## Fix safety
The fix adds `non_blocking=True` (or turns a literal `False` into `True`) and is **safe**: the copy is
ordered on the current stream before every kernel that reads the tensor, and the caching host allocator
keeps the pinned buffer alive until the copy has run. Code that hands the tensor to another CUDA stream
must still synchronise that stream, as it must today.

## Trace evidence
Synchronous HtoD copies from pinned memory: `Memcpy HtoD (Pinned -> Device)` copies whose `aten::copy_`
waits for them (a `cudaStreamSynchronize` after the `cudaMemcpyAsync` inside the same op, or a
synchronous `cudaMemcpy`).

With `check --trace`, the copies under the line (CallFrom, a 1.8-1.9 `Call stack`, or the function's
frames; else the whole step) decide. `confirmed` with the host's wait per step when some waited; the
saving is that wait (with `non_blocking=True` the host queues on instead of waiting for the copy; the
copy itself still takes its time). `refuted` when every pinned copy was already asynchronous, or the
copies came from pageable memory (the loader did not pin in this run). `not-observed` when no
host-to-device copy ran in the profiled steps; `unverifiable` without CUDA activity. Findings below 1%
of the step are `negligible`.

## Options

## References
- [PyTorch: Memory pinning](https://pytorch.org/docs/stable/data.html#memory-pinning)
- [A guide on good usage of non_blocking and pin_memory() in PyTorch](https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html)
)md";

// What the rule found: `non_blocking` written False, or absent.
struct NonBlockingFinding {
  bool explicit_false = false;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"explicit-false", "{call} of a batch from a pinned `DataLoader` with `non_blocking=False` waits for the copy",
     "对来自锁页内存 `DataLoader` 的批次调用 {call} 且 `non_blocking=False`，会等待复制完成"},
    {"missing", "{call} of a batch from a pinned `DataLoader` without `non_blocking=True` waits for the copy",
     "对来自锁页内存 `DataLoader` 的批次调用 {call} 而未设置 `non_blocking=True`，会等待复制完成"},
    {"set", "Set `non_blocking=True`", "设置 `non_blocking=True`"},
    {"add", "Add `non_blocking=True`", "添加 `non_blocking=True`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no copy arguments, so no copy of the trace can be tied to it",
     "该问题没有携带拷贝参数，无法对应到 trace 中的拷贝"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "host-to-device copies", "主机到设备的拷贝"},
    {"ev-confirmed",
     "{count} of {pinned} pinned HtoD copies per step {where} make the host wait {ms} ms/step ({share})",
     "{where}，每个 step 的 {pinned} 次锁页内存 HtoD 拷贝中有 {count} 次让主机等待，每 step {ms} ms（{share}）"},
    {"ev-refuted-async", "The {pinned} pinned HtoD copies {where} did not make the host wait",
     "{where}，{pinned} 次锁页内存 HtoD 拷贝都没有让主机等待"},
    {"ev-refuted-pageable",
     "The {pageable} HtoD copies {where} are from pageable memory: the batches were not pinned in this run",
     "{where}，{pageable} 次 HtoD 拷贝都来自可分页内存：这次运行中批次没有被锁页"},
    {"ev-no-copy", "No host-to-device copy ran {where}", "{where}没有运行任何主机到设备的拷贝"},
};

class CopyWithoutNonBlocking final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL204",
                               "copy-without-non-blocking",
                               "data-loading",
                               "A batch from pinned memory is copied to the GPU synchronously",
                               kDocs,
                               FixAvailability::kSometimes,
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
      if (site.kind != semantic::SiteKind::kCall || (site.name != "to" && site.name != "cuda")) continue;
      if (site.off_device || !model.CudaAt(site.node) || !model.MovesToDevice(site)) continue;
      // Every loader the batch can come from pins its memory.
      if (!model.BatchFromPinnedLoaders(site.Receiver(), site.scope)) continue;
      if (model.HasStarArgs(site)) continue;
      // `.cuda(device, non_blocking)`; `.to()` takes it by keyword in practice (its positional overloads differ).
      const auto arg = model.FindArgument(site, "non_blocking", site.name == "cuda" ? 1 : -1);
      const std::string what = site.name == "cuda" ? "`.cuda()`" : "`.to()`";
      if (arg) {
        const auto truthy = model.Resolve(arg->value, site.scope).Truthy();
        if (!truthy.has_value() || *truthy) continue;
        Diagnostic diagnostic = MakeDiagnostic(site.node.Range(), "explicit-false", {{"call", what, {}}});
        diagnostic.payload = NonBlockingFinding{true};
        if (model.Text(arg->value) == "False") {
          diagnostic.fix = MakeFix("set", {}, Applicability::kSafe, {Edit{arg->value.Range(), "True"}});
        }
        out.push_back(std::move(diagnostic));
        continue;
      }
      const semantic::KeyLookup lookup = model.KwargsLookupIn(site, "non_blocking");
      if (lookup.presence != semantic::KeyPresence::kAbsent) continue;
      Diagnostic diagnostic = MakeDiagnostic(site.node.Range(), "missing", {{"call", what, {}}});
      diagnostic.payload = NonBlockingFinding{false};
      if (auto insertion = model.AppendKeyword(site, "non_blocking", "True")) {
        diagnostic.fix = MakeFix("add", {}, Applicability::kSafe,
                                 {Edit{{insertion->offset, insertion->offset}, insertion->text}});
      }
      out.push_back(std::move(diagnostic));
    }
  }
};

TL_REGISTER_RULE(CopyWithoutNonBlocking);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved). TL204. Model:
// saved = the host's wait for the pinned copies (with non_blocking=True the host queues on; the copy
// still runs, now overlapping the GPU's work).
class CopyWithoutNonBlockingEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL204"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<NonBlockingFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (q.at.not_observed) return NotObserved(q, TheLine(q));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::PinnedCopyEvidence p = q.trace.PinnedHtoD(q.at.scope());
    const MessageArg where = SentenceArg("where", WhereText(q));
    if (p.blocking.count > 0) {
      return EvidenceFromCost(
          q, Verdict::kConfirmed, p.blocking, p.blocking.ms_per_step,
          Say("ev-confirmed",
              {NumberArg("count", p.blocking.count_per_step, 1),
               NumberArg("pinned",
                         static_cast<double>(p.pinned_htod) / static_cast<double>(std::max<size_t>(1, q.steps)), 1),
               where, NumberArg("ms", p.blocking.ms_per_step, 2), ShareArg("share", p.blocking.share_of_step)}));
    }
    if (p.pinned_htod > 0) {
      return EvidenceFromCost(
          q, Verdict::kRefuted, p.blocking, 0,
          Say("ev-refuted-async", {NumberArg("pinned", static_cast<int64_t>(p.pinned_htod)), where}));
    }
    if (p.pageable_htod > 0) {
      return EvidenceFromCost(
          q, Verdict::kRefuted, p.blocking, 0,
          Say("ev-refuted-pageable", {NumberArg("pageable", static_cast<int64_t>(p.pageable_htod)), where}));
    }
    return VerdictOnly(Verdict::kNotObserved, Say("ev-no-copy", {where}));
  }
};

TL_REGISTER_EVIDENCE(CopyWithoutNonBlockingEvidence);

}  // namespace
}  // namespace tl
