// TL103 empty-cache-in-step-loop: `torch.cuda.empty_cache()` on every training step, which hands the
// caching allocator's free blocks back to the driver only for the next step to allocate them again.
#include <fmt/core.h>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for `torch.cuda.empty_cache()` (through any import alias) that runs on every training step,
evaluation batch or generated token, as TL101 defines "every step": in the step loop, in a function it
calls, in a per-step hook, not under a periodic or rare guard (`if step % 100 == 0:`,
`if iteration in testing_iterations:`) and not in the epoch loop. A call in a function of another file
that the step calls on every step, and that calls it on every call of its own (directly or through
other functions of the project), is reported at that call, with the `empty_cache()` as the related
location.

## Why is this bad?
PyTorch's caching allocator keeps freed blocks to reuse them without asking the driver.
`empty_cache()` returns every unused cached block with `cudaFree`, which synchronizes the device, and the
next step's allocations go back to `cudaMalloc`, which is slow and also synchronizes. The memory it frees
is not available to the script's own tensors any more than before (the allocator would have reused it);
it only helps other processes on the same GPU.

## Example
```python
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
    torch.cuda.empty_cache()
```

## Use instead
```python
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
# empty_cache() once, if another process needs the memory (after training, between phases)
```

## Fix safety
No fix is offered: a script that shares the GPU with another process, or works around fragmentation,
may call it on purpose; moving it out of the loop is the user's decision
(`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` is the usual fix for fragmentation).

## Trace evidence
`cudaFree` under the call and re-`cudaMalloc` in the step.

With `check --trace`, the `cudaFree` calls under the line (CallFrom, a 1.8-1.9 `Call stack` or the
function's frames; else in the whole step) together with `cudaMalloc` calls in the profiled steps
confirm it; the cost and the saving are the time of both per step (with the cache kept, neither runs).
The line ran and released nothing (no `cudaFree` under it): `refuted`. Frees without re-allocation in the
steps are `refuted` too (the memory was not needed again). A line that did not run in the profiled steps
is `not-observed`; a trace without CUDA activity `unverifiable`.

With a memory snapshot of the same training (`--memory SNAPSHOT`, recorded with
`torch.cuda.memory._record_memory_history()`), its history says whether the allocator handed whole
segments back to the driver (`segment_free`) and allocated segments again after (`segment_alloc`). The
snapshot counts, the trace times: a confirmation needs the trace's `cudaFree`/`cudaMalloc` time, and the
snapshot's figures are added to its summary. On a trace that cannot time them (no CUDA activity), a
history that frees no segment, or frees segments and never allocates one again, `refutes` the finding;
churn found there leaves it `unverifiable`, with the segment counts, until a trace with CUDA activity
measures its cost; a snapshot without a history leaves the trace's verdict as it is. When the trace
refutes and the snapshot shows churn, the two covered different steps and the finding is `unverifiable`.
A snapshot whose Python frames name only other files is another program's and is not used.

## Options

## References
- [CUDA semantics: memory management](https://pytorch.org/docs/stable/notes/cuda.html#memory-management)
- [torch.cuda.empty_cache](https://pytorch.org/docs/stable/generated/torch.cuda.empty_cache.html)
)md";

struct EmptyCacheFinding {
  bool per_step = true;
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"empty-cache", "`torch.cuda.empty_cache()` frees the allocator's cache on {cadence}",
     "`torch.cuda.empty_cache()` 在{cadence}都释放显存分配器的缓存"},
    {"remote-empty-cache", "`{function}()` frees the allocator's cache with `torch.cuda.empty_cache()` on {cadence}",
     "`{function}()` 在{cadence}都通过 `torch.cuda.empty_cache()` 释放显存分配器的缓存"},
    {"remote-note", "`{function}` calls `torch.cuda.empty_cache()` here",
     "`{function}` 在此处调用 `torch.cuda.empty_cache()`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no call, so no allocator event of the trace can be tied to it",
     "该问题没有携带调用，无法对应到 trace 中的分配器事件"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "cudaFree/cudaMalloc", "任何 cudaFree/cudaMalloc 调用"},
    {"ev-confirmed",
     "{frees} cudaFree calls per step {where} and {mallocs} cudaMalloc calls per step take {ms} ms/step ({share})",
     "{where}，每个 step {frees} 次 cudaFree 调用和每个 step {mallocs} 次 cudaMalloc 调用，每 step {ms} ms（{share}）"},
    {"ev-no-malloc",
     "{frees} cudaFree calls per step {where}, but no cudaMalloc in the steps: the memory was not allocated again",
     "{where}，每个 step 有 {frees} 次 cudaFree 调用，但 step 中没有 cudaMalloc：显存没有被重新分配"},
    {"ev-no-free", "No cudaFree ran {where}: the cache held nothing to release",
     "{where}没有运行 cudaFree：缓存中没有可释放的显存"},
    // What a memory snapshot (--memory) adds: one clause on its history, alone or after the trace's summary.
    {"snap-no-history",
     "it has no allocation history; record one with torch.cuda.memory._record_memory_history() before the steps",
     "它没有分配历史；请在训练 step 之前调用 torch.cuda.memory._record_memory_history() 记录"},
    {"snap-no-free", "its history of {events} allocator events frees no segment: empty_cache gave nothing back",
     "它记录的 {events} 个分配器事件中没有释放任何段：empty_cache 没有归还任何显存"},
    {"snap-no-realloc",
     "its history frees {frees} segments ({bytes}) and allocates none after: the memory was not needed again",
     "它的历史释放了 {frees} 个段（{bytes}），之后没有再分配段：这些显存没有再被需要"},
    {"snap-churn",
     "its history frees {frees} segments ({bytes}) and allocates {reallocs} again after, the cudaFree then "
     "cudaMalloc of empty_cache",
     "它的历史释放了 {frees} 个段（{bytes}），之后又重新分配了 {reallocs} 个段，即 empty_cache 造成的先 cudaFree "
     "再 cudaMalloc"},
    {"ev-snapshot", "From the memory snapshot: {snapshot}", "根据内存快照：{snapshot}"},
    {"ev-and-snapshot", "{summary}; from the memory snapshot: {snapshot}", "{summary}；根据内存快照：{snapshot}"},
    {"ev-churn-untimed",
     "From the memory snapshot: {snapshot}; its cost needs the trace's cudaFree/cudaMalloc time, so profile with "
     "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]",
     "根据内存快照：{snapshot}；其耗时需要 trace 中的 cudaFree/cudaMalloc 时间，请用 "
     "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] 采集"},
    {"ev-snapshot-conflict",
     "{summary}, but from the memory snapshot: {snapshot}; the two cover different steps, so neither decides",
     "{summary}，但根据内存快照：{snapshot}；两者覆盖的 step 不同，都不能单独下结论"},
};

class EmptyCacheInStepLoop final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL103",
                               "empty-cache-in-step-loop",
                               "host-device-sync",
                               "`torch.cuda.empty_cache()` on every training step",
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
    for (uint32_t index : model.CallsNamed("empty_cache")) {
      const semantic::Site& site = model.Sites()[index];
      if (!site.per_step() || site.off_device || !model.IsCanonical(site, "torch.cuda.empty_cache")) continue;
      Diagnostic diagnostic = MakeDiagnostic(site.node.Range(), "empty-cache", {Cadence(site)});
      diagnostic.payload = EmptyCacheFinding{};
      out.push_back(std::move(diagnostic));
    }
    // A function of another file of the project that empties the cache on every call, called on every
    // step: reported at the call, with the helper's `empty_cache()` as the related location.
    for (const semantic::Site& site : model.Sites()) {
      if (site.kind != semantic::SiteKind::kCall || !site.per_step() || site.off_device) continue;
      const auto remote = model.CrossFileSync(site, semantic::SyncFamily::kEmptyCache);
      if (!remote) continue;
      Diagnostic diagnostic = MakeDiagnostic(site.node.Range(), "remote-empty-cache",
                                             {{"function", remote->function, {}}, Cadence(site)});
      diagnostic.payload = EmptyCacheFinding{};
      diagnostic.related.push_back(MakeRelated(remote->path, remote->line, remote->column, "remote-note",
                                               {{"function", remote->syncing_function, {}}}));
      out.push_back(std::move(diagnostic));
    }
  }

 private:
  static MessageArg Cadence(const semantic::Site& site) {
    return {"cadence", std::string(ToString(site.cadence)), std::string(ToChinese(site.cadence))};
  }
};

TL_REGISTER_RULE(EmptyCacheInStepLoop);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved). TL103. Model:
// saved = the cudaFree time under the call plus the cudaMalloc time of the steps (a kept cache needs
// neither). A memory snapshot counts segments freed and allocated again but has no time: it can refute
// where the trace cannot say, never confirm without the trace's time.
class EmptyCacheInStepLoopEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL103"; }
  bool UsesMemorySnapshot() const override { return true; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<EmptyCacheFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (q.at.not_observed) return NotObserved(q, TheLine(q));
    Evidence e = FromTrace(q);
    if (q.memory == nullptr) return e;
    return WithSnapshot(std::move(e), trace::SegmentChurnOf(*q.memory));
  }

 private:
  Evidence FromTrace(const EvidenceQuery& q) const {
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::AllocatorEvidence a = q.trace.AllocatorRoundTrips(q.at.scope());
    const MessageArg where = SentenceArg("where", WhereText(q));
    if (a.frees.count > 0 && a.mallocs.count > 0) {
      trace::Cost c = a.frees;
      c.ms_per_step += a.mallocs.ms_per_step;
      c.share_of_step += a.mallocs.share_of_step;
      c.claims.insert(c.claims.end(), a.mallocs.claims.begin(), a.mallocs.claims.end());
      return EvidenceFromCost(
          q, Verdict::kConfirmed, c, c.ms_per_step,
          Say("ev-confirmed",
              {NumberArg("frees", a.frees.count_per_step, 1), where, NumberArg("mallocs", a.mallocs.count_per_step, 1),
               NumberArg("ms", c.ms_per_step, 2), ShareArg("share", c.share_of_step)}));
    }
    if (a.frees.count > 0) {
      return EvidenceFromCost(q, Verdict::kRefuted, a.frees, 0,
                              Say("ev-no-malloc", {NumberArg("frees", a.frees.count_per_step, 1), where}));
    }
    return EvidenceFromCost(q, Verdict::kRefuted, a.frees, 0, Say("ev-no-free", {where}));
  }

  // The trace's evidence `e` with what the snapshot's history says. The trace's time confirms; the
  // snapshot's counts refute only where the trace could not say (unverifiable), and churn against a
  // trace that refutes means that the two saw different steps.
  Evidence WithSnapshot(Evidence e, const trace::SegmentChurn& c) const {
    const MessageArgs figures = {NumberArg("events", c.events),
                                 NumberArg("frees", c.segment_frees),
                                 {"bytes", trace::FormatBytes(c.segment_freed_bytes), {}},
                                 NumberArg("reallocs", c.segment_reallocs)};
    const Sentence clause = Say(!c.history             ? "snap-no-history"
                                : c.segment_frees == 0 ? "snap-no-free"
                                : !c.churn()           ? "snap-no-realloc"
                                                       : "snap-churn",
                                figures);
    const MessageArg snapshot = SentenceArg("snapshot", clause);
    if (e.verdict == Verdict::kUnverifiable && c.history) {
      if (c.churn()) return Unverifiable(Say("ev-churn-untimed", {snapshot}));
      return VerdictOnly(Verdict::kRefuted, Say("ev-snapshot", {snapshot}));
    }
    const MessageArg summary{"summary", e.summary, LocalizedSummary(e, Lang::kChinese)};
    if (e.verdict == Verdict::kRefuted && c.churn()) {
      return Unverifiable(Say("ev-snapshot-conflict", {summary, snapshot}));
    }
    SetSummary(e, Say("ev-and-snapshot", {summary, snapshot}));
    return e;
  }
};

TL_REGISTER_EVIDENCE(EmptyCacheInStepLoopEvidence);

}  // namespace
}  // namespace tl
