// TL201 dataloader-num-workers: a DataLoader that loads every batch in the training process because
// `num_workers` is missing or resolves to 0 (keyword, 6th positional, `**kwargs` dict, argparse
// default). Unknown values are never reported.
#include <fmt/core.h>

#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for `torch.utils.data.DataLoader` calls whose `num_workers` is missing or resolves to `0`:
the keyword argument, the sixth positional argument, a key of a dict literal passed as `**kwargs`,
and an argparse default read as `args.name` are all followed. A value torchlint cannot resolve (a
function's result, an environment variable, a parameter) is never reported.

## Why is this bad?
With `num_workers=0` (the default) the training process itself reads, decodes and collates every
batch, and the GPU waits for it: loading and compute run one after the other instead of in parallel.
Worker processes prefetch the next batches while the current one trains.

## Example
```python
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=64, shuffle=True)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
```

## Fix safety
The fix adds `num_workers=4` (or turns an explicit `0` into `4`) and is **unsafe**. Worker processes
change behaviour in ways a linter cannot check: an `IterableDataset` without per-worker sharding yields
every sample once per worker; on spawn platforms (macOS, Windows) the dataset must be picklable and
the script needs an `if __name__ == "__main__":` guard; random state and open handles are per worker;
and each worker holds its own copy of the dataset in memory. Four is a conservative start that fits
laptops and CI machines as well as servers (PyTorch warns when workers exceed the CPUs it sees);
tune it with the trace.

## Trace evidence
Confirmed when a trace shows the step waiting on data: the share of each step spent in
`enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__` (the single-process iterator) on the
host, with the GPU idle in that interval. A few percent is noise; a double-digit share is worth
fixing.

## Options
None.

## References
- [PyTorch: Single- and multi-process data loading](https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading)
- [PyTorch performance tuning guide: enable async data loading](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html)
)md";

constexpr std::string_view kWorkers = "4";

class DataLoaderNumWorkers final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL201", "dataloader-num-workers", "data-loading",
                               "`DataLoader` loads every batch in the training process", kDocs,
                               FixAvailability::kSometimes, Severity::kWarning};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    for (uint32_t index : model.CallsNamed("DataLoader")) {
      const semantic::Site& call = model.Sites()[index];
      if (!model.IsCanonical(call, "torch.utils.data.DataLoader")) continue;
      if (auto arg = model.FindArgument(call, "num_workers", 5)) {
        ReportIfZero(model, call, model.Resolve(arg->value, call.scope), out);
        continue;
      }
      if (model.HasStarArgs(call)) continue;  // `*args` may carry it
      const semantic::KeyLookup lookup = model.KwargsLookupIn(call, "num_workers");
      if (lookup.presence == semantic::KeyPresence::kUnknown) continue;
      if (lookup.presence == semantic::KeyPresence::kPresent) {
        ReportIfZero(model, call, lookup.value, out);
        continue;
      }
      Diagnostic diagnostic = Make(call, "`DataLoader` without `num_workers` loads every batch in the training process");
      if (auto insertion = model.AppendKeyword(call, "num_workers", kWorkers)) {
        diagnostic.fix = Fix{"Add `num_workers=4`", Applicability::kUnsafe,
                             {Edit{{insertion->offset, insertion->offset}, insertion->text}}};
      }
      out.push_back(std::move(diagnostic));
    }
  }

 private:
  Diagnostic Make(const semantic::Site& call, std::string message) const {
    Diagnostic diagnostic;
    diagnostic.code = std::string(Meta().code);
    diagnostic.name = std::string(Meta().name);
    diagnostic.severity = Meta().severity;
    diagnostic.message = std::move(message);
    diagnostic.range = call.node.Range();
    return diagnostic;
  }

  void ReportIfZero(const semantic::Model& model, const semantic::Site& call, const semantic::Value& value,
                    std::vector<Diagnostic>& out) const {
    const auto workers = value.AsInt();
    if (!workers.has_value() || *workers != 0) return;
    Diagnostic diagnostic = Make(call, "`DataLoader` with `num_workers=0` loads every batch in the training process");
    // The fix rewrites the literal where the 0 is written, which may be an argparse default or a
    // module constant rather than the call itself.
    if (!value.origin.IsNull() && model.Text(value.origin) == "0") {
      diagnostic.fix = Fix{"Set `num_workers` to 4", Applicability::kUnsafe,
                           {Edit{value.origin.Range(), std::string(kWorkers)}}};
    }
    out.push_back(std::move(diagnostic));
  }
};

TL_REGISTER_RULE(DataLoaderNumWorkers);

}  // namespace
}  // namespace tl
