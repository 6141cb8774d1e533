// TL202 dataloader-pin-memory: a DataLoader without `pin_memory=True` in a script that trains on
// CUDA, so every host-to-device copy of a batch goes through pageable memory.
#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for `torch.utils.data.DataLoader` calls without `pin_memory=True` in scripts that run on CUDA,
as TL101's docs define it (a `.cuda()` call, a `"cuda"` or `f"cuda:{rank}"` device string, `torch.cuda`
and `torch.accelerator` calls, a `--cuda`/`--gpu`/`--device cuda` option, Accelerate, Lightning's
Trainer and Fabric on their default accelerator). The name is matched through imports and PyTorch's
re-exports (`from torch.utils.data.dataloader import DataLoader`). The keyword, the eighth positional
argument and `**kwargs` dict literals are followed; a value torchlint cannot resolve is not reported.
With the project index, a loader built in a file with no device of its own (`data.py`) is reported
when a file of its import component (the `train.py` that imports it) runs on CUDA. Scripts and
projects that never use a GPU are not reported: pinning only helps copies to a device.

## Why is this bad?
A batch in pageable host memory is first copied by the driver into a pinned staging buffer and only
then to the GPU, synchronously with respect to the host. With `pin_memory=True` the DataLoader's
pinning thread places batches in page-locked memory, so `.to(device, non_blocking=True)` can copy them
asynchronously while the GPU computes, at full PCIe bandwidth.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=4)
for x, y in loader:
    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
```

## Fix safety
The fix adds `pin_memory=True` (or turns a literal `False` into `True`) and is **safe**: the batches
hold the same values; only the kind of host memory they live in changes. Page-locked memory is a
limited resource, so very large batches on a machine short of RAM are the one case to watch.

## Trace evidence
Pageable HtoD copies and their time.

With `check --trace`, `Memcpy HtoD (Pageable -> Device)` copies in the profiled steps confirm the
finding, with their time per step; half of it is counted as saved (pinned copies run at about twice
the bandwidth, and overlap compute with `non_blocking=True`). HtoD copies that are all pinned, or none,
refute it. A trace without CUDA activity cannot show copies: `unverifiable`.

## Options

## References
- [PyTorch: Memory pinning](https://pytorch.org/docs/stable/data.html#memory-pinning)
- [CUDA: How to optimize data transfers](https://developer.nvidia.com/blog/how-optimize-data-transfers-cuda-cc/)
)md";

// What the rule found: `pin_memory` written False, or absent (False by default).
struct PinFinding {
  bool explicit_false = false;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"explicit-false", "`DataLoader` with `pin_memory=False` copies batches from pageable memory",
     "`DataLoader` 的 `pin_memory=False`，批次从可分页内存复制到 GPU"},
    {"missing", "`DataLoader` without `pin_memory=True` copies batches from pageable memory",
     "`DataLoader` 未设置 `pin_memory=True`，批次从可分页内存复制到 GPU"},
    {"set", "Set `pin_memory=True`", "设置 `pin_memory=True`"},
    {"add", "Add `pin_memory=True`", "添加 `pin_memory=True`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no loader arguments, so no copy of the trace can be tied to it",
     "该问题没有携带 DataLoader 的参数，无法对应到 trace 中的拷贝"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "host-to-device copies", "主机到设备的拷贝"},
    {"ev-confirmed-pageable",
     "{count} pageable `Memcpy HtoD (Pageable -> Device)` copies per step take {ms} ms/step ({share})",
     "每个 step 有 {count} 次可分页内存的 `Memcpy HtoD (Pageable -> Device)` 拷贝，每 step {ms} ms（{share}）"},
    {"ev-all-pinned", "The {copies} host-to-device copies in the trace are all from pinned memory",
     "trace 中的 {copies} 次主机到设备拷贝都来自锁页内存"},
    {"ev-nothing-ran", "Neither a DataLoader nor a host-to-device copy ran inside the profiled steps",
     "分析的 step 内既没有运行 DataLoader，也没有主机到设备的拷贝"},
    {"ev-no-copy", "The profiled steps copy nothing from host to device", "分析的 step 没有从主机向设备拷贝任何数据"},
};

class DataLoaderPinMemory final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL202",
                               "dataloader-pin-memory",
                               "data-loading",
                               "`DataLoader` batches are copied to the GPU from pageable memory",
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
    for (uint32_t index : model.CallsNamed("DataLoader")) {
      const semantic::Site& call = model.Sites()[index];
      if (!model.IsCanonical(call, "torch.utils.data.DataLoader") || !model.CudaAt(call.node)) continue;
      if (auto arg = model.FindArgument(call, "pin_memory", 7)) {
        const auto truthy = model.Resolve(arg->value, call.scope).Truthy();
        if (!truthy.has_value() || *truthy) continue;
        Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "explicit-false");
        diagnostic.payload = PinFinding{true};
        if (model.Text(arg->value) == "False") {
          diagnostic.fix = MakeFix("set", {}, Applicability::kSafe, {Edit{arg->value.Range(), "True"}});
        }
        out.push_back(std::move(diagnostic));
        continue;
      }
      if (model.HasStarArgs(call)) continue;
      const semantic::KeyLookup lookup = model.KwargsLookupIn(call, "pin_memory");
      if (lookup.presence == semantic::KeyPresence::kUnknown) continue;
      if (lookup.presence == semantic::KeyPresence::kPresent) {
        const auto truthy = lookup.value.Truthy();
        if (!truthy.has_value() || *truthy) continue;
        Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "explicit-false");
        diagnostic.payload = PinFinding{true};
        out.push_back(std::move(diagnostic));
        continue;
      }
      Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "missing");
      diagnostic.payload = PinFinding{false};
      if (auto insertion = model.AppendKeyword(call, "pin_memory", "True")) {
        diagnostic.fix = MakeFix("add", {}, Applicability::kSafe,
                                 {Edit{{insertion->offset, insertion->offset}, insertion->text}});
      }
      out.push_back(std::move(diagnostic));
    }
  }
};

TL_REGISTER_RULE(DataLoaderPinMemory);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL202. Model: saved = pageable HtoD copy time x 0.5. Pinned copies run at about twice the bandwidth
// of pageable ones (no staging copy) and with non_blocking=True they overlap compute; only the
// bandwidth half is counted, to stay conservative.
class DataLoaderPinMemoryEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL202"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<PinFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    const auto& caps = q.trace.capabilities();
    if (!caps.cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::Cost c = q.trace.PageableHtoD(nullptr);
    if (c.count > 0) {
      return EvidenceFromCost(
          q, Verdict::kConfirmed, c, c.ms_per_step * 0.5,
          Say("ev-confirmed-pageable", {NumberArg("count", c.count_per_step, 1), NumberArg("ms", c.ms_per_step, 2),
                                        ShareArg("share", c.share_of_step)}));
    }
    int64_t htod = 0;
    for (const auto& g : q.trace.analysis().copies.groups) {
      if (g.kind.direction == trace::CopyDirection::kHtoD) htod += g.count;
    }
    if (htod > 0)
      return EvidenceFromCost(q, Verdict::kRefuted, c, 0, Say("ev-all-pinned", {NumberArg("copies", htod)}));
    if (q.trace.analysis().dataloader.calls == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-nothing-ran"));
    return EvidenceFromCost(q, Verdict::kRefuted, c, 0, Say("ev-no-copy"));
  }
};

TL_REGISTER_EVIDENCE(DataLoaderPinMemoryEvidence);

}  // namespace
}  // namespace tl
