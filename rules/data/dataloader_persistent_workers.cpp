// TL203 dataloader-persistent-workers: a DataLoader with worker processes, iterated once per epoch,
// without `persistent_workers=True`, so every epoch shuts its workers down and starts new ones.
#include <fmt/core.h>

#include <algorithm>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for `torch.utils.data.DataLoader` calls whose `num_workers` resolves to more than 0 (a literal, a
constant, an argparse default such as `--workers 4`, config values that are all above 0, or the machine's
CPU count: `os.cpu_count()`, `multiprocessing.cpu_count()`, `len(os.sched_getaffinity(0))`), without
`persistent_workers=True`, when the loader is iterated more than once: by a loop inside another loop (the
epoch loop), by a loop in a function of the file that is called from inside a loop (a `train_one_epoch`
called once per epoch), by `yield from loader` inside a loop that does not build it (`while True: yield
from loader`, a generator over the data without end), or by `iter(loader)` in an `except StopIteration:`
handler (the iterator rebuilt each time it runs out, which starts the workers again), also of an element
of a list bound to `[]` that the file only appends loaders to (`iter(self.loaders[i])`), or by a function
or method of another file of the project that iterates the parameter it is passed to inside another of
its loops (`trainer.fit(train_loader)` with `Trainer.fit` running the epoch loop; the call's positional
arguments only). The loader is followed through names, `self.` attributes assigned once, wrappers
(`enumerate`, `tqdm`, `zip`, `iter`), the parameters of functions of the file (and of a class's `__init__`)
whose call sites all pass the same loader, functions of the file that return it (`self._prepare_dataloader
(dataset)`), Hugging Face Accelerate's `accelerator.prepare(...)`, which hands back the loader it is given
with the same workers (`dl = accelerator.prepare(dl)`, and the argument at the same position of `model,
opt, dl = accelerator.prepare(model, opt, dl)`), and either branch of `make(x) if x else None`. A
generator that several loaders go through (one `cycle(dl)` for the train and the validation loader) is
not followed. `num_workers` may be wrapped in `int(...)` or
come from a `**kwargs` dict (a literal, `{...} if use_cuda else {}`, or a dict extended with
`update({...})`): a count set on the GPU path only counts. A count computed at run time is above 0 when it
is a product or sum of values that are: positive constants and argparse defaults, and, in a script that
runs on CUDA, `torch.cuda.device_count()` (at least one device on a CUDA run), also through `int(...)` and
a write that scales the option (`opt.workers = opt.workers * opt.num_gpu` with `--workers` defaulting to
4 is at least 4); a product with a value that may be 0 (a literal 0, an unknown, `len(...)`) or a
difference (`workers - 4`) is not. `num_workers=args.workers` read through a
parameter of a function that its own file never calls takes the value other files of the project give
the field where they call it with their parsed options or config (TL101 says how); a caller that passes
something else, or whose options lack the field, leaves it unknown. Likewise `num_workers=num_workers`
(or `persistent_workers=`) read from a parameter of such a function takes the constants the other files'
calls pass it (`make_loader(ds, num_workers=4)`, `args.workers` with its argparse default), and its
default where a call leaves it out; a call that passes anything else, or may fill it through `*args` or
`**kwargs`, leaves it unknown.

A loader that a function of the file returns (the whole result, or an element of a returned tuple:
`return train_loader, val_loader`) is reported when another file of the project that calls the function
iterates that part of the result more than once, as above (a loop in its epoch loop, a call of its own
`train_one_epoch` in a loop, `yield from` in a loop, `iter()` in an `except StopIteration:` handler), and
does not call the function again each time. Likewise a loader kept as an attribute of an object
(`self.train = DataLoader(...)` in a method of a class of the file) is reported when another file builds
the object once and iterates that attribute more than once (`dataset = Cifar(...)`, then `for batch in
dataset.train:` in its epoch loop). The calling file is read so when it imports torch (a training
script does); a caller without any torch import is not followed, which keeps the project pass cheap on
large trees of plain Python.

It does not report:
- loaders with `num_workers=0` or no `num_workers` (TL201's), or a value it cannot resolve (a field of a
  config file such as Hydra's YAML, a YACS `CfgNode` default (`_C.DATA.NUM_WORKERS = 8`) that reaches
  the loader through another file's `get_config()`, a count computed at run time that may be 0 such as
  `args.workers * len(gpus)`);
- loaders iterated once (a single pass of evaluation, a `for` at module level that is not in a loop, a
  generator that yields from its loader once, an iterator that is never rebuilt),
  and loaders built again inside the loop or function that repeats the iteration, or by a factory
  function called once per epoch (each pass makes a new loader, whose workers `persistent_workers`
  cannot keep);
- loaders that another file iterates but does not get from a function of this file (a loader handed to
  a function of another file is that file's to report, and is followed there), loaders a caller gets
  from a function called in a loop (each call builds a new one), results kept in lists or dicts, and
  loaders iterated by a framework (a Lightning `train_dataloader()` hook, a Hugging Face `Trainer`): the
  model does not see those loops;
- a `persistent_workers=` value it cannot resolve;
- a target older than PyTorch 1.7, which has no `persistent_workers`: one given by `--target-torch`
  or the config, or a pin that allows nothing newer (`torch<1.7`). A pin whose floor is older but that
  allows newer versions (`torch>=1.4`) is reported, since the project may run one of them; the fix is
  then unsafe, because the keyword fails on the floor's version.

## Why is this bad?
Without `persistent_workers=True`, each `iter(loader)` (each epoch) starts `num_workers` new processes:
each one imports the script's modules again, unpickles the dataset and fills its prefetch queue before
the first batch arrives. On large datasets or with many workers that is seconds per epoch of a GPU
waiting for data, and the workers' warm caches are lost each time.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)
for epoch in range(epochs):
    for x, y in loader:
        train_step(x, y)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True, persistent_workers=True)
```

## Fix safety
The fix adds `persistent_workers=True` (or turns a literal `False` into `True`) and is **safe** for the
usual dataset: batches, their order (the sampler runs in the main process, so `set_epoch` still works)
and the workers' seeds are the same. A dataset whose state the main process changes between epochs
(`dataset.resize(...)` before each epoch) keeps its first-epoch copy in persistent workers; such code
should not take the fix. There is no fix when the workers come from a `**kwargs` dict on one path only
(`{"num_workers": 4} if use_cuda else {}`): `DataLoader` rejects `persistent_workers=True` on the path
without workers. For the same reason the fix is **unsafe** when the count is known to be above 0 only on a
CUDA run (`args.workers * torch.cuda.device_count()` is 0 on a machine without a GPU).

## Trace evidence
Worker start-up at each epoch boundary: the `_get_iterator` frames of `DataLoader.__iter__` (Python
frames, `with_stack=True`) whose `_MultiProcessingDataLoaderIter.__init__` starts worker processes.

With `check --trace`, two or more start-ups with workers confirm the finding; the measured cost is the
start-up time in the trace over the analysed steps, and the saving counts every start-up after the
first (persistent workers start once). One start-up is `not-observed` (the profile does not cross an
epoch boundary), as is a profile with none; a run whose steps use a single-process iterator
(`num_workers=0` in that run) `refutes` it. A trace without Python frames cannot show start-ups:
`unverifiable`, naming `with_stack=True`. The evidence does not need CUDA activity.

## Options

## References
- [torch.utils.data.DataLoader: persistent_workers](https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader)
- [PyTorch performance tuning guide: enable async data loading](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html)
)md";

// What the rule found: the resolved worker count, and whether `persistent_workers=False` is written.
struct PersistentWorkersFinding {
  int64_t num_workers = 0;
  bool explicit_false = false;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"explicit-false", "`DataLoader` with `persistent_workers=False` restarts its {workers} every epoch",
     "`DataLoader` 的 `persistent_workers=False`，每个 epoch 都要重启它的 {workers}"},
    {"missing", "`DataLoader` without `persistent_workers=True` restarts its {workers} every epoch",
     "`DataLoader` 未设置 `persistent_workers=True`，每个 epoch 都要重启它的 {workers}"},
    {"set", "Set `persistent_workers=True`", "设置 `persistent_workers=True`"},
    {"add", "Add `persistent_workers=True`", "添加 `persistent_workers=True`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no loader arguments, so no start-up of the trace can be tied to it",
     "该问题没有携带 DataLoader 的参数，无法对应到 trace 中的启动"},
    {"ev-single-process",
     "The profiled steps read a single-process DataLoader iterator: the run had no worker processes to keep",
     "分析的 step 读取的是单进程 DataLoader 迭代器：这次运行没有需要保留的 worker 进程"},
    {"ev-no-frames", "The trace has no Python frames, so it cannot show the DataLoader's iterator start-ups; {missing}",
     "trace 中没有 Python 帧，因此无法显示 DataLoader 迭代器的启动；{missing}"},
    {"ev-confirmed",
     "{startups} DataLoader iterator start-ups with worker processes take {total} ms in all ({ms} ms/step over the "
     "analysed steps); persistent workers would start once",
     "{startups} 次带 worker 进程的 DataLoader 迭代器启动共用时 {total} ms（按分析的 step 平均每 step {ms} ms）；"
     "persistent worker 只需启动一次"},
    {"ev-one-startup",
     "One DataLoader start-up with workers ran ({ms} ms); the profile does not cross an epoch boundary, so its "
     "repetition is not seen",
     "运行了一次带 worker 的 DataLoader 启动（{ms} ms）；分析范围没有跨越 epoch 边界，看不到它的重复"},
    {"ev-no-startup", "No DataLoader iterator started inside the profile: it does not cross an epoch boundary",
     "分析范围内没有启动任何 DataLoader 迭代器：它没有跨越 epoch 边界"},
};

class DataLoaderPersistentWorkers final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL203",
                               "dataloader-persistent-workers",
                               "data-loading",
                               "`DataLoader` workers are restarted every epoch",
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
    if (!context.options.Allows(TorchVersion{1, 7})) return;
    // A pin whose floor is older than 1.7 (`torch>=0.4`): the keyword would break that floor.
    const Applicability safety = context.options.target_torch >= TorchVersion{1, 7} ? Applicability::kSafe
                                                                                    : Applicability::kUnsafe;
    for (uint32_t index : model.CallsNamed("DataLoader")) {
      const semantic::Site& call = model.Sites()[index];
      if (!model.IsCanonical(call, "torch.utils.data.DataLoader")) continue;
      const auto count = Workers(model, call);
      if (!count || count->least <= 0) continue;
      const MessageArg workers_arg = WorkersArg(*count);
      // A count above 0 only on a CUDA run: a CPU run may have none, where the keyword raises.
      const Applicability applicability = count->bound ? Applicability::kUnsafe : safety;
      const int64_t* workers = &count->least;
      if (!IteratedRepeatedly(model, call) && !model.PassedRepeatedly(call) && !model.Reiterated(call) &&
          !model.ReiteratedElsewhere(call) && !model.PassedToReiteratingCallee(call)) {
        continue;
      }
      // A factory called once per epoch builds a new loader each time, whose workers cannot persist.
      if (model.FactoryRunsRepeatedly(call)) continue;
      if (auto arg = model.FindArgument(call, "persistent_workers", -1)) {
        const auto truthy = model.Resolve(arg->value, call.scope).Truthy();
        if (!truthy.has_value() || *truthy) continue;
        Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "explicit-false", {workers_arg});
        diagnostic.payload = PersistentWorkersFinding{*workers, true};
        if (model.Text(arg->value) == "False") {
          diagnostic.fix = MakeFix("set", {}, applicability, {Edit{arg->value.Range(), "True"}});
        }
        out.push_back(std::move(diagnostic));
        continue;
      }
      if (model.HasStarArgs(call) ||
          model.KwargsLookupIn(call, "persistent_workers").presence != semantic::KeyPresence::kAbsent) {
        continue;
      }
      Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "missing", {workers_arg});
      diagnostic.payload = PersistentWorkersFinding{*workers, false};
      // Workers set on one path only (`{"num_workers": 4} if use_cuda else {}`): the keyword would reach
      // the path without workers too, where DataLoader rejects it.
      const bool some_paths = !model.FindArgument(call, "num_workers", 5) &&
                              model.KwargsLookupIn(call, "num_workers").partial;
      if (auto insertion = model.AppendKeyword(call, "persistent_workers", "True"); insertion && !some_paths) {
        diagnostic.fix = MakeFix("add", {}, applicability,
                                 {Edit{{insertion->offset, insertion->offset}, insertion->text}});
      }
      out.push_back(std::move(diagnostic));
    }
  }

 private:
  // The worker count: the smallest value it can take, or the machine's CPU count (at least 1).
  // `bound`: a lower bound only (`opt.workers * torch.cuda.device_count()`, Value::at_least).
  struct WorkerCount {
    int64_t least = 0;
    bool cpu_count = false;
    bool bound = false;
  };

  // "4 workers" / "4 个工作进程", "`os.cpu_count()` workers".
  static MessageArg WorkersArg(const WorkerCount& count) {
    if (count.cpu_count) return {"workers", "`os.cpu_count()` workers", "`os.cpu_count()` 个工作进程"};
    if (count.bound) {
      return {"workers", fmt::format("{} or more workers", count.least),
              fmt::format("至少 {} 个工作进程", count.least)};
    }
    return {"workers", fmt::format("{} worker{}", count.least, count.least == 1 ? "" : "s"),
            fmt::format("{} 个工作进程", count.least)};
  }

  // The worker count when every value it can take is known or bounded below, or it is the CPU count.
  static std::optional<WorkerCount> Workers(const semantic::Model& model, const semantic::Site& call) {
    ts::Node value;
    if (auto arg = model.FindArgument(call, "num_workers", 5)) {
      value = arg->value;
    } else {
      if (model.HasStarArgs(call)) return std::nullopt;
      const semantic::KeyLookup lookup = model.KwargsLookupIn(call, "num_workers");
      if (lookup.presence != semantic::KeyPresence::kPresent) return std::nullopt;
      if (const auto n = lookup.value.AsInt()) return WorkerCount{*n, false};
      if (lookup.value.at_least) return WorkerCount{*lookup.value.at_least, false, true};
      // `dict(num_workers=os.cpu_count())`: the keyword's or the pair's own value.
      const ts::Node given = lookup.node.IsNull() ? ts::Node() : lookup.node.Field("value");
      if (!given.IsNull() && model.IsCpuCount(given, call.scope)) return WorkerCount{1, true};
      return std::nullopt;
    }
    if (model.IsCpuCount(value, call.scope)) return WorkerCount{1, true};
    const semantic::Value resolved = model.Resolve(value, call.scope);
    if (const auto single = resolved.AsInt()) return WorkerCount{*single, false};
    std::optional<int64_t> least;
    bool bound = false;
    for (const semantic::Value& v : model.ResolveAll(value, call.scope)) {
      const auto n = v.LowerBound();
      if (!n) {
        least.reset();
        break;
      }
      least = least ? std::min(*least, *n) : *n;
      bound = bound || !v.known();
    }
    if (least) return WorkerCount{*least, false, bound};
    if (resolved.at_least) return WorkerCount{*resolved.at_least, false, true};
    return std::nullopt;
  }

  // Iterated more than once by the same loader: a loader built again inside the loop (or the function)
  // that repeats the iteration gets new workers anyway, and persistent workers would not outlive it.
  static bool IteratedRepeatedly(const semantic::Model& model, const semantic::Site& call) {
    const std::vector<int> loops = model.LoopsOverLoader(call);
    return std::any_of(loops.begin(), loops.end(), [&](int loop) { return model.LoopRepeatsOver(loop, call); });
  }
};

TL_REGISTER_RULE(DataLoaderPersistentWorkers);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved). TL203. Model:
// saved = the start-up time of every iterator after the first (persistent workers start once per run).
class DataLoaderPersistentWorkersEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL203"; }
  bool NeedsGpu() const override { return false; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<PersistentWorkersFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    const trace::LoaderStartupEvidence s = q.trace.LoaderStartups();
    if (s.cost.count == 0 && s.iterator == trace::IteratorKind::kSingle) {
      return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0, Say("ev-single-process"));
    }
    if (!q.trace.capabilities().python_stacks) {
      return Unverifiable(Say("ev-no-frames", {SentenceArg("missing", MissingOption("with_stack=True"))}));
    }
    if (s.multi_process >= 2) {
      const double n = static_cast<double>(s.cost.count);
      const double saved = s.cost.ms_per_step * (n - 1) / n;
      return EvidenceFromCost(
          q, Verdict::kConfirmed, s.cost, saved,
          Say("ev-confirmed", {NumberArg("startups", static_cast<int64_t>(s.multi_process)),
                               NumberArg("total", s.cost.ms_per_step * static_cast<double>(q.steps), 1),
                               NumberArg("ms", s.cost.ms_per_step, 2)}));
    }
    return VerdictOnly(Verdict::kNotObserved,
                       s.multi_process == 1
                           ? Say("ev-one-startup",
                                 {NumberArg("ms", s.cost.examples.empty() ? 0.0 : s.cost.examples.front().dur_ms, 1)})
                           : Say("ev-no-startup"));
  }
};

TL_REGISTER_EVIDENCE(DataLoaderPersistentWorkersEvidence);

}  // namespace
}  // namespace tl
