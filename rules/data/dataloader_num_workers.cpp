// TL201 dataloader-num-workers: a DataLoader that loads every batch in the training process because
// `num_workers` is missing or resolves to 0 (keyword, 6th positional, `**kwargs` dict, argparse
// default). Unknown values are never reported.
#include <fmt/core.h>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for `torch.utils.data.DataLoader` calls whose `num_workers` is missing or resolves to `0`:
the keyword argument, the sixth positional argument, a key of a dict literal passed as `**kwargs`,
and an argparse default read as `args.name` are all followed. A parameter of a function that only
other files of the project call (run with the project, as `check` does on a folder) takes the
constants their calls pass it, and its default where a call leaves it out:
`functools.partial(Task.iter_batches, num_workers=0)` passes 0 (unless a call of the partial passes
`num_workers` again), and a `@staticmethod` called through its class counts its arguments from the first
parameter. A value
torchlint cannot resolve (a function's result, an environment variable, a parameter of a function the
file calls itself with unknown values, or one a call may fill through `*args` or `**kwargs`) is never
reported.

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
The share of the step spent in `_SingleProcessDataLoaderIter.__next__`.

With `check --trace`, the finding is `confirmed` above 5% of the step (the TensorBoard plugin's
threshold), `refuted` at or below it or when the profiled run used `_MultiProcessingDataLoaderIter`,
and `not-observed` when no DataLoader ran in the profiled steps. Time saved: half of the DataLoader
time that 4 workers would hide behind the rest of the step, less a 1% residual, capped by the GPU's
idle time. Half, because the workers' loading competes with the training process for the CPU: on two
real before/after pairs the step fell by 50% and 52% of the loader time that moved to the workers
(docs/crosscheck.md, "What the before/after pairs show").

## Options

## References
- [PyTorch: Single- and multi-process data loading](https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading)
- [PyTorch performance tuning guide: enable async data loading](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html)
)md";

constexpr std::string_view kWorkers = "4";

// What the rule found: how the loader's `num_workers` is written (absent, or resolved to 0 and where).
struct LoaderFinding {
  bool num_workers_given = false;  // false: the argument is absent (the default, 0)
  int64_t num_workers = 0;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"missing", "`DataLoader` without `num_workers` loads every batch in the training process",
     "`DataLoader` 未设置 `num_workers`，每个批次都在训练进程中加载"},
    {"zero", "`DataLoader` with `num_workers=0` loads every batch in the training process",
     "`DataLoader` 的 `num_workers=0`，每个批次都在训练进程中加载"},
    {"add", "Add `num_workers={workers}`", "添加 `num_workers={workers}`"},
    {"set", "Set `num_workers` to {workers}", "将 `num_workers` 设为 {workers}"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no loader arguments, so no loader of the trace can be tied to it",
     "该问题没有携带 DataLoader 的参数，无法对应到 trace 中的 DataLoader"},
    {"ev-not-observed", "No `enumerate(DataLoader)#...__next__` ran inside the {steps}",
     "分析的 {steps} 内没有运行 `enumerate(DataLoader)#...__next__`"},
    {"ev-multi-process",
     "The profiled run iterated a multi-process DataLoader (_MultiProcessingDataLoaderIter), which already has "
     "workers; it takes {share} of the step ({ms} ms/step)",
     "分析的运行使用的是多进程 DataLoader（_MultiProcessingDataLoaderIter），已经有 worker；它占 step 的 {share}"
     "（每 step {ms} ms）"},
    {"ev-small",
     "The single-process DataLoader takes only {share} of the step ({ms} ms/step, at most 5%): workers would not pay "
     "for themselves",
     "单进程 DataLoader 只占 step 的 {share}（每 step {ms} ms，不超过 5%）：增加 worker 得不偿失"},
    {"ev-confirmed",
     "`_SingleProcessDataLoaderIter.__next__` takes {share} of the step ({ms} of {step} ms/step, {count} calls per "
     "step); 4 workers would save about {saved} ms/step",
     "`_SingleProcessDataLoaderIter.__next__` 占 step 的 {share}（每 step {step} ms 中的 {ms} ms，每个 step 调用 "
     "{count} 次）；4 个 worker 约可每 step 节省 {saved} ms"},
};

class DataLoaderNumWorkers final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL201",
                               "dataloader-num-workers",
                               "data-loading",
                               "`DataLoader` loads every batch in the training process",
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
      Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "missing");
      diagnostic.payload = LoaderFinding{false, 0};
      if (auto insertion = model.AppendKeyword(call, "num_workers", kWorkers)) {
        diagnostic.fix = MakeFix("add", {{"workers", std::string(kWorkers), {}}}, Applicability::kUnsafe,
                                 {Edit{{insertion->offset, insertion->offset}, insertion->text}});
      }
      out.push_back(std::move(diagnostic));
    }
  }

  void ReportIfZero(const semantic::Model& model, const semantic::Site& call, const semantic::Value& value,
                    std::vector<Diagnostic>& out) const {
    const auto workers = value.AsInt();
    if (!workers.has_value() || *workers != 0) return;
    Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "zero");
    diagnostic.payload = LoaderFinding{true, 0};
    // The fix rewrites the literal where the 0 is written, which may be an argparse default or a
    // module constant rather than the call itself.
    if (!value.origin.IsNull() && model.Text(value.origin) == "0") {
      diagnostic.fix = MakeFix("set", {{"workers", std::string(kWorkers), {}}}, Applicability::kUnsafe,
                               {Edit{value.origin.Range(), std::string(kWorkers)}});
    }
    out.push_back(std::move(diagnostic));
  }
};

TL_REGISTER_RULE(DataLoaderNumWorkers);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL201. Model: with W = 4 workers the loader's time is hidden behind the rest of the step, except
// what W workers cannot produce in that time (max(0, DL/W - rest)); of that, half comes back, since the
// workers' loading competes with the training process for the CPU (the ResNet50 pair and our decode0
// pair: the step fell by 50% and 52% of the loader time moved); less a residual of 1% of the step (the
// num_workers=4 anchor trace measures 1.0%). On a GPU the saving is capped by the GPU's idle share of
// the step, because only idle GPU time can be won back.
class DataLoaderNumWorkersEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL201"; }
  // The loader and zero_grad work are host-side ops: a trace cut before its GPU events still shows them.
  bool NeedsGpu() const override { return false; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<LoaderFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    const trace::DataLoaderEvidence d = q.trace.DataLoader();
    if (d.iterator == trace::IteratorKind::kNone || d.cost.count == 0) {
      return VerdictOnly(Verdict::kNotObserved, Say("ev-not-observed", {StepsArg(q)}));
    }
    if (d.iterator == trace::IteratorKind::kMulti) {
      return EvidenceFromCost(
          q, Verdict::kRefuted, d.cost, 0,
          Say("ev-multi-process", {ShareArg("share", d.cost.share_of_step), NumberArg("ms", d.cost.ms_per_step, 2)}));
    }
    constexpr double kThreshold = 0.05;  // the TensorBoard plugin's DataLoader recommendation fires above 5%
    if (d.cost.share_of_step <= kThreshold) {
      return EvidenceFromCost(
          q, Verdict::kRefuted, d.cost, 0,
          Say("ev-small", {ShareArg("share", d.cost.share_of_step), NumberArg("ms", d.cost.ms_per_step, 2)}));
    }
    constexpr double kAssumedWorkers = 4.0, kWonBack = 0.5, kResidualShare = 0.01;
    const double dl = d.cost.share_of_step * q.step_ms;
    const double rest = std::max(0.0, q.step_ms - dl);
    double saved = kWonBack * (dl - std::max(0.0, dl / kAssumedWorkers - rest)) - kResidualShare * q.step_ms;
    const auto& a = q.trace.analysis();
    if (a.busy.has_gpu) saved = std::min(saved, q.step_ms * (1.0 - a.busy.share));
    trace::Cost c = d.cost;
    c.ms_per_step = dl;
    return EvidenceFromCost(
        q, Verdict::kConfirmed, c, saved,
        Say("ev-confirmed",
            {ShareArg("share", d.cost.share_of_step), NumberArg("ms", dl, 2), NumberArg("step", q.step_ms, 2),
             NumberArg("count", d.cost.count_per_step, 1), NumberArg("saved", std::max(0.0, saved), 1)}));
  }
};

TL_REGISTER_EVIDENCE(DataLoaderNumWorkersEvidence);

}  // namespace
}  // namespace tl
