// TL101 sync-in-step-loop: host-device synchronisation that runs on every training step (`.item()`,
// `.tolist()`, `.cpu()`, `.numpy()`, `float()`/`int()`/`bool()` of a tensor, printing or f-string
// formatting a tensor, `torch.cuda.synchronize()`, `if tensor:` / `while tensor:`). The semantic
// model decides what runs every step (step loops, helpers they call, periodic guards).
#include <fmt/core.h>

#include <algorithm>
#include <array>

#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for operations that make the host wait for the GPU and that run on every training step:
`.item()`, `.tolist()`, `.cpu()`, `.numpy()`, `float()`/`int()`/`bool()` of a tensor, `print()` or
f-string formatting of a tensor, `torch.cuda.synchronize()` (and `.synchronize()` on streams and
events), and branching on a tensor (`if loss > 10:`, `while not done:` with a tensor `done`).

"Every step" means inside the training step loop (the loop over a `DataLoader`, or the loop that
calls `loss.backward()` / `optimizer.step()` / the model), including the functions of the same file
that the step loop calls, transitively. It does not include:
- the epoch loop around the step loop (once per epoch is cheap);
- statements under `if step % N == 0:` when N is a constant above 1. When N cannot be resolved
  (`if step % cfg.log_every == 0:` with `cfg` from a config file), the guard is taken as periodic
  and the sync is **not** reported: a modulo guard is written to throttle, and torchlint prefers
  missing a rare per-step sync to flagging deliberate logging. When N resolves to 1 (say an argparse
  default `--log-interval 1`), the guarded code runs every step and is reported;
- values that are plainly not tensors: `.shape`, `len()`, Python numbers, results of `.item()`
  itself, `dict.items()`.

Scripts that never use a GPU (no `.cuda()`, no `"cuda"` device, no `torch.cuda` call, no `--cuda`
flag) are not checked: without a device there is no device sync.

## Why is this bad?
CUDA kernels run asynchronously: Python queues work and moves on while the GPU computes. Reading a
value back to the host (`.item()`, printing, a Python `if` on a tensor) blocks the CPU until every
queued kernel has finished, so the CPU cannot queue the next step's kernels ahead of time and the GPU
idles between steps. One sync per step is often a 5-20% slowdown on small and medium models.

## Example
```python
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
    running_loss += loss.item()
```

## Use instead
```python
running_loss = torch.zeros((), device="cuda")
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
    running_loss += loss.detach()
    if step % 100 == 0:
        print(running_loss.item() / (step + 1))
```

## Fix safety
No fix is offered: moving a sync out of the step loop changes what the code logs and when.

## Trace evidence
Confirmed when the trace shows the device syncs under this line on every step: a device-to-host copy
(`Memcpy DtoH`) followed by `cudaStreamSynchronize` (or `cudaDeviceSynchronize`) inside
`aten::item` / `aten::_local_scalar_dense` (or the `aten::to`/`aten::copy_` of `.cpu()`), and the CPU
time blocked in that synchronisation while the GPU queue drains.

## Options
None.

## References
- [PyTorch performance tuning guide: avoid unnecessary CPU-GPU synchronization](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html)
- [torch.cuda.set_sync_debug_mode](https://pytorch.org/docs/stable/generated/torch.cuda.set_sync_debug_mode.html)
)md";

class SyncInStepLoop final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL101", "sync-in-step-loop", "host-device-sync",
                               "Host-device synchronization on every training step", kDocs,
                               FixAvailability::kNone, Severity::kWarning};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    if (!model.UsesCuda()) return;
    for (const semantic::Site& site : model.Sites()) {
      if (!site.per_step()) continue;
      switch (site.kind) {
        case semantic::SiteKind::kCall:
          CheckCall(model, site, out);
          break;
        case semantic::SiteKind::kInterpolation: {
          ts::Node expr = site.node.Field("expression");
          if (!expr.IsNull() && model.TensorKindOf(expr, site.scope) == semantic::TensorKind::kTensor) {
            Report(site.node, "Formatting a tensor in an f-string synchronizes with the GPU on every step", out);
          }
          break;
        }
        case semantic::SiteKind::kCondition:
          if (IsTensorCondition(model, site.node, site.scope)) {
            Report(site.node, "Branching on a tensor synchronizes with the GPU on every step", out);
          }
          break;
      }
    }
  }

 private:
  void Report(ts::Node node, std::string message, std::vector<Diagnostic>& out) const {
    Diagnostic diagnostic;
    diagnostic.code = std::string(Meta().code);
    diagnostic.name = std::string(Meta().name);
    diagnostic.severity = Meta().severity;
    diagnostic.message = std::move(message);
    diagnostic.range = node.Range();
    out.push_back(std::move(diagnostic));
  }

  // A sync method on a receiver that already went through a sync (`x.cpu().numpy()`) is one sync,
  // reported once, at the first.
  static bool AfterSync(const semantic::Model& model, ts::Node receiver) {
    static constexpr std::array<std::string_view, 4> kSync = {"cpu", "numpy", "item", "tolist"};
    for (int depth = 0; depth < 16 && !receiver.IsNull(); ++depth) {
      if (receiver.Is("call")) {
        ts::Node callee = receiver.Field("function");
        if (callee.Is("attribute")) {
          const std::string_view method = model.Text(callee.Field("attribute"));
          if (std::find(kSync.begin(), kSync.end(), method) != kSync.end()) return true;
          receiver = callee.Field("object");
          continue;
        }
        return false;
      }
      if (receiver.Is("attribute")) {
        receiver = receiver.Field("object");
        continue;
      }
      return false;
    }
    return false;
  }

  static bool IsTensorCondition(const semantic::Model& model, ts::Node condition, int scope) {
    // Python evaluates the truth of each operand of `not`, `and`, `or`.
    std::vector<ts::Node> work{condition};
    for (size_t guard = 0; !work.empty() && guard < 64; ++guard) {
      ts::Node node = work.back();
      work.pop_back();
      if (node.Is("parenthesized_expression") && node.NamedChildCount() == 1) {
        work.push_back(node.NamedChild(0));
      } else if (node.Is("not_operator")) {
        work.push_back(node.Field("argument"));
      } else if (node.Is("boolean_operator")) {
        work.push_back(node.Field("left"));
        work.push_back(node.Field("right"));
      } else if (model.TensorKindOf(node, scope) == semantic::TensorKind::kTensor) {
        return true;
      }
    }
    return false;
  }

  void CheckCall(const semantic::Model& model, const semantic::Site& call, std::vector<Diagnostic>& out) const {
    const std::string_view name = call.name;
    if (!call.Receiver().IsNull()) {
      if (name == "item" || name == "tolist" || name == "cpu" || name == "numpy") {
        if (model.TensorKindOf(call.Receiver(), call.scope) == semantic::TensorKind::kNotTensor) return;
        if (AfterSync(model, call.Receiver())) return;
        Report(call.node, fmt::format("`.{}()` synchronizes with the GPU on every step", name), out);
        return;
      }
      if (name == "synchronize") {
        Report(call.node,
               model.IsCanonical(call, "torch.cuda.synchronize")
                   ? std::string("`torch.cuda.synchronize()` blocks the host on every step")
                   : std::string("`.synchronize()` blocks the host on every step"),
               out);
      }
      return;
    }
    if (!call.callee.Is("identifier") || call.Arguments().IsNull()) return;
    if (name == "float" || name == "int" || name == "bool") {
      if (call.Arguments().NamedChildCount() == 0) return;
      if (model.TensorKindOf(call.Arguments().NamedChild(0), call.scope) == semantic::TensorKind::kTensor) {
        Report(call.node, fmt::format("`{}()` of a tensor synchronizes with the GPU on every step", name), out);
      }
      return;
    }
    if (name == "print") {
      for (uint32_t i = 0; i < call.Arguments().NamedChildCount(); ++i) {
        ts::Node arg = call.Arguments().NamedChild(i);
        if (arg.Is("keyword_argument")) continue;
        if (model.TensorKindOf(arg, call.scope) == semantic::TensorKind::kTensor) {
          Report(call.node, "Printing a tensor synchronizes with the GPU on every step", out);
          return;
        }
      }
    }
  }
};

TL_REGISTER_RULE(SyncInStepLoop);

}  // namespace
}  // namespace tl
