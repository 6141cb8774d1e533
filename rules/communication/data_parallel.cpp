// TL602 data-parallel: `nn.DataParallel`, which replicates the model, scatters the batch and gathers
// the outputs from one Python process on every step.
#include <fmt/core.h>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for `torch.nn.DataParallel(...)` (also spelt `nn.DataParallel`, `torch.nn.parallel.DataParallel`,
or under an alias). The name is matched through the file's imports, so a `DataParallel` class of
another library, or one the file defines itself, is not reported.

## Why is this bad?
`DataParallel` runs one Python process for all GPUs: on every forward pass it copies the model's
parameters and buffers from the first GPU to the others (replicate), splits the batch (scatter), runs
the replicas in threads under the GIL and gathers the outputs back onto the first GPU, which also
computes the whole loss and holds the gathered gradients. The PyTorch docs recommend
`DistributedDataParallel` instead, even on a single machine: one process per GPU, no replication per
step, and gradients all-reduced in buckets while backward still runs.

## Example
```python
model = nn.DataParallel(model).cuda()
```

## Use instead
```python
# one process per GPU (torchrun --nproc_per_node=N train.py)
dist.init_process_group("nccl")
model = DistributedDataParallel(model.to(local_rank), device_ids=[local_rank])
```

## Fix safety
The fix is **display-only**: moving to `DistributedDataParallel` needs a process group, a launcher
(`torchrun`), a `DistributedSampler` and rank-aware logging and saving, which no edit of this line can
supply.

## Trace evidence
Replicate/scatter/gather ops every step.

With `check --trace`, the ops `DataParallel` runs in the profiled steps confirm the finding: the
outermost `Broadcast*`, `ReduceAddCoalesced*`, `Scatter*` and `Gather*` ops (and their autograd nodes),
and peer-to-peer (`Memcpy PtoP`) copies, with their time per step. That time is counted as saved
(DistributedDataParallel neither replicates the model nor gathers the outputs each step), a
conservative model since the GIL contention of the replica threads is not counted. A CUDA trace with
none of that work is `not observed` (a `DataParallel` over one GPU just calls the module, but so does
a trace of another script). A trace without CUDA activity cannot show it: `unverifiable`.

## Options

## References
- [torch.nn.DataParallel](https://pytorch.org/docs/stable/generated/torch.nn.DataParallel.html)
- [CUDA semantics: use nn.parallel.DistributedDataParallel instead of DataParallel](https://pytorch.org/docs/stable/notes/cuda.html#use-nn-parallel-distributeddataparallel-instead-of-multiprocessing-or-nn-dataparallel)
)md";

// What the rule found: a DataParallel construction.
struct DataParallelFinding {
  bool found = true;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"data-parallel",
     "`nn.DataParallel` replicates the model and gathers its outputs on every step; use `DistributedDataParallel`",
     "`nn.DataParallel` 每一步都复制模型并汇集输出；请改用 `DistributedDataParallel`"},
    {"use-ddp", "Use `DistributedDataParallel` with one process per GPU",
     "改用 `DistributedDataParallel`，每个 GPU 一个进程"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no DataParallel call, so no trace event can be tied to it",
     "该问题没有携带 DataParallel 调用，无法对应到 trace 中的事件"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "DataParallel's copies between GPUs", "由 DataParallel 在 GPU 之间做的拷贝"},
    {"ev-confirmed",
     "DataParallel runs {count} replicate/scatter/gather ops and peer copies per step, {ms} ms/step ({share})",
     "DataParallel 每个 step 执行 {count} 次 replicate/scatter/gather 算子和 GPU 间拷贝，每 step {ms} ms（{share}）"},
    {"ev-not-observed", "No replicate, scatter or gather op and no peer copy ran inside the {steps}",
     "分析的 {steps} 内没有运行任何 replicate、scatter、gather 算子或 GPU 间拷贝"},
};

class DataParallel final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL602",
                               "data-parallel",
                               "communication",
                               "`nn.DataParallel` replicates the model and gathers its outputs on every step",
                               kDocs,
                               FixAvailability::kAlways,
                               Severity::kWarning,
                               /*options=*/{},
                               /*default_enabled=*/true,
                               kMessages,
                               Applicability::kDisplayOnly};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    for (uint32_t index : model.CallsNamed("DataParallel")) {
      const semantic::Site& call = model.Sites()[index];
      if (!model.IsCanonical(call, "torch.nn.DataParallel") &&
          !model.IsCanonical(call, "torch.nn.parallel.DataParallel") &&
          !model.IsCanonical(call, "torch.nn.parallel.data_parallel.DataParallel")) {
        continue;
      }
      Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), "data-parallel");
      diagnostic.payload = DataParallelFinding{};
      diagnostic.fix = MakeFix("use-ddp", {}, Applicability::kDisplayOnly,
                               {Edit{call.callee.Range(), "torch.nn.parallel.DistributedDataParallel"}});
      out.push_back(std::move(diagnostic));
    }
  }
};

TL_REGISTER_RULE(DataParallel);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL602. Model: saved = the replicate/scatter/gather ops and peer copies, all of them: DDP keeps one
// model per process and all-reduces gradients instead.
class DataParallelEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL602"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<DataParallelFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::Cost c = q.trace.DataParallelWork();
    if (c.count > 0) {
      return EvidenceFromCost(
          q, Verdict::kConfirmed, c, c.ms_per_step,
          Say("ev-confirmed", {NumberArg("count", c.count_per_step, 1), NumberArg("ms", c.ms_per_step, 2),
                               ShareArg("share", c.share_of_step)}));
    }
    // Not refuted: a DataParallel over one GPU does none of this work, but neither does a trace of
    // another script, and the trace cannot tell the two apart.
    return VerdictOnly(Verdict::kNotObserved, Say("ev-not-observed", {StepsArg(q)}));
  }
};

TL_REGISTER_EVIDENCE(DataParallelEvidence);

}  // namespace
}  // namespace tl
