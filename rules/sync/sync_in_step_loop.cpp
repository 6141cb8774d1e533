// TL101 sync-in-step-loop: host-device synchronisation that runs on every training step (`.item()`,
// `.tolist()`, `.cpu()`, `.numpy()`, `float()`/`int()`/`bool()` of a tensor, printing, f-string or `%`
// formatting a tensor, `torch.cuda.synchronize()`). The semantic model decides what runs every step
// (step loops, helpers they call, periodic guards). Syncs without a sync call (branching on a tensor,
// masks) are TL102's.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <unordered_set>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

// What kind of sync a finding is about: a scalar read (`.item()`, `float()`, printing), a
// copy to the host (`.cpu()`, `.numpy()`, `.tolist()`), or an explicit `synchronize()`.
enum class SyncKind { kScalar, kCopy, kExplicit };
struct SyncFinding {
  SyncKind kind = SyncKind::kScalar;
};

constexpr std::string_view kDocs = R"md(## What it does
Checks for operations that make the host wait for the GPU and that run on every training step:
`.item()`, `.tolist()`, `.cpu()`, `.numpy(force=True)`, `float()`/`int()`/`bool()` of a tensor, `print()`
of a tensor, f-string or `%` formatting of one (`"%.3f" % loss`), and `torch.cuda.synchronize()` (and `.synchronize()` on streams and
events). A plain `.numpy()` is not one: it raises on a CUDA tensor, so where it runs it reads the host. Syncs without a sync call (`if loss > 10:`, `while not done:` or `assert` on a tensor,
boolean masks, `nonzero`, `unique`) are reported by TL102 (`implicit-sync-in-step-loop`).

"Every step" means what the semantic model takes to run once per batch:
- the training step loop: the loop over a `DataLoader` (also through `enumerate`, `zip`, `tqdm`, `iter`,
  `next()` in a `while True:`, and a call of the project's own given the loader, such as a logger's
  `metric_logger.log_every(data_loader, 10)`), or the loop that calls `optimizer.step()` itself, so a
  gradient-accumulation loop over micro-batches inside it runs on every step too;
- evaluation loops over a loader (reported as "every evaluation batch"), decoding loops that call the
  model once per generated token and give it back what it returned (`idx = torch.cat((idx, next_id))`:
  "every generated token"; the model call may be one of its submodules or methods given inputs,
  `model.decode(ys, memory)`, but not `nn.Module`'s own methods such as `parameters()`, a method that
  sets, resets or asks (`reset()`, `is_ready(x)`), a tokenizer's `decode`, or an option's
  `args.model.startswith(...)`; or a method of the file, with no loop of its own, that returns what the model
  gives: `self.inference.logits(tokens, audio)` returning `self.model.decoder(tokens, audio)`), and
  other loops that only call the model, which take their batches some
  other way (`X, Y = get_batch("val")`: "every evaluation batch"). A reinforcement-learning rollout loop
  that steps an environment (`envs.step(action.cpu().numpy())` on a receiver named `env`, `envs`,
  `self.train_env`...) and neither runs the backward pass nor the optimizer itself is per step too:
  "every environment step", and so is a loop that calls a function of the file that steps one (an
  agent's `play_step`). A loop that only calls the model and calls a function of the file whose loop
  takes a loader's batches or runs the optimizer (`for epoch in ...: train(); sample =
  model.decode(noise)`) is the epoch loop around those batches. A loop whose backward pass runs in a
  function or method of another file of the project that runs `backward()` on every call (a loss
  scaler's `__call__`: `loss_scaler(loss, optimizer)`) is a training loop ("every training step");
- framework hooks that run once per batch with no loop in the file: Lightning's `training_step`,
  `validation_step`, `test_step` and `predict_step` on a `LightningModule`, and `training_step`,
  `compute_loss` and `prediction_step` on a Hugging Face `Trainer` subclass;
- the functions and methods those loops call (`self._run_batch(x, y)`, transitively), the
  `forward` (or `__call__`) of a class of the file that a loop calls an object of
  (`model = Net().cuda()`, then `model(x)`), the methods of the file's classes called on an object a
  class keeps in an attribute (`self.decoder.update(tokens, logits)` with `self.decoder =
  BeamSearchDecoder(...)` in one branch of `__init__` and `GreedyDecoder(...)` in the other: both
  `update`s) or on the variable of a loop over a list of such objects (`for f in self.logit_filters:
  f.apply(logits, tokens)` with the list made of `[SuppressBlank(...)]` and given
  `ApplyTimestampRules(...)` by `append`: each class's `apply`), and a function of the file passed by position to a call
  whose callee calls it on every call (`gpu_timer(train_step)`, the callee in this file or another of
  the project; a loop whose backward pass is in such a closure is a training loop). A buffer the class registers
  (`self.register_buffer("queue_ptr", torch.zeros(1))`) and an `nn.Parameter` attribute are tensors that
  move with the module, so `int(self.queue_ptr)` there syncs. A helper in
  another file of the project that syncs on every call (a `MetricLogger.update(**kwargs)` that calls
  `.item()` on each tensor, an `all_reduce_mean` that returns `.item()`, an inherited method of a
  base class in another module) is reported at the call in the step loop, with the helper's sync as
  the related location. When what the helper syncs comes from its parameters, the call is reported
  only when it passes a tensor (`update(loss=loss.item())` passes a float). `int()`, `float()` and
  `bool()` of a tensor the helper makes or keeps (a registered buffer) count as its syncs in files that
  import torch. A sync under a branch that
  tests a parameter (`if top_k is not None:`) runs only for some calls and is not followed, unless it
  reads the parameter's own value (`if isinstance(v, torch.Tensor): v = v.item()`), or is
  `if p.grad is not None:` (true after every backward pass: a gradient-clipping helper that calls
  `.item()` on each parameter's norm syncs on every call). Helpers are followed through any number of
  files and functions: `compute_loss` in `loss.py` that returns `to_cpu(parts)`, with `to_cpu` in
  `utils.py` calling `.cpu()`, is reported at the `compute_loss(...)` call, with the `.cpu()` as the
  related location. A helper that syncs
  without a sync call (an `if` or `assert` on a device tensor, a mask) is TL102's, reported the same way.
  A method called on an object whose class the model cannot tell is followed under an
  `isinstance(obj, C)` guard around the call (`if isinstance(self.sampler, LossAwareSampler):
  self.sampler.update_with_local_losses(t, losses)`): `C`'s method, or the one it inherits (a subclass
  that overrides it is not known). An object whose class the project tells is followed too: calling it
  runs its `__call__`, or `forward` for a subclass of a `torch.nn` class (through the project's bases),
  and a method called on it runs that method. Its class is the one a construction of a project class
  gives (`criterion = SetCriterion(...)`, also through `DistributedDataParallel(model)`, `model.cuda()`,
  `model.to(device)` and a rebinding from a checkpoint's entry), the one a factory of the project returns
  (`model, criterion, post = build_model(args)`, with `build_model` returning `build(args)` and `build`
  returning the tuple), or, for a parameter (`def train_one_epoch(model, criterion, ...):
  criterion(outputs, targets)`), the one every call of the function passes, from its own file or from
  others. Not followed: a parameter whose callers pass different classes (or something the model cannot
  tell), a class of a third-party library (`nn.CrossEntropyLoss()`), an attribute assigned different
  classes, and arguments whose tensor type the model cannot tell: the call stays silent. A container of
  tensors counts as passing them: `update(**scaled)` and `update(x=reduced["class_error"])` with
  `reduced = utils.reduce_dict(loss_dict)` (a function of the project whose `return` builds a dict or list
  from tensors, such as `{k: v for k, v in zip(names, stacked)}`) and `scaled = {k: v * w for k, v in
  reduced.items()}`. A dict display counts only when every entry is a tensor (a checkpoint's
  `{"model": ..., "iter_num": n}` does not). An object a class keeps is followed:
  `self.matcher(...)` with `self.matcher = matcher` in `__init__` and every construction of the class in
  its file passing `build_matcher(args)` runs the class `build_matcher` returns.

It does not include:
- the epoch loop around the step loop (once per epoch is cheap);
- statements under `if step % N == 0:` (or after `if step % N != 0: continue`, the gradient
  accumulation shape) when N is a constant above 1. When N cannot be resolved
  (`if step % cfg.log_every == 0:` with `cfg` from a config file), the guard is taken as periodic
  and the sync is **not** reported: a modulo guard is written to throttle, and torchlint prefers
  missing a rare per-step sync to flagging deliberate logging. When N resolves to 1 (say an argparse
  default `--log-interval 1`), the guarded code runs every step and is reported. N is also followed
  across files: `args.log_interval` read through a parameter of a function that the file itself never
  calls takes the values the project's other files give that field where they call the function with
  their parsed options (`args = parser.parse_args()`, or a parameter all their calls fill with it) or a
  config object; it resolves when every such call passes one that gives the field the same constant. A
  call that passes something else, an option that is not there, or an attribute written with something
  torchlint cannot read leaves N unknown (periodic). Calls from files outside the checked project are
  not seen;
- statements under `if i == 0:` or `if i == last_idx:` (either side) where `i` is a loop target, under
  `if i in C:` where `i` counts iterations (the target of `for i in range(...)`, enumerate's counter, or
  a parameter every call of the file fills with one: `if iteration in testing_iterations:` in a
  reporting helper) and C is a name, an attribute or a literal collection (`not in` is not rare), under
  `if i <= 4:` (`<`, or `>`/`>=` the other way round) with `i` such a counter and a constant bound of at
  most 10 iterations (the first few batches), under `if shown < 5:` whose branch runs `shown += 1` with
  `shown` set once to a constant and only ever grown (at most 10 runs), under a name bound to such a
  condition (`last_batch = batch_idx == last_idx`), under `A and B` when either
  side is rare and under `A or B` when both are (`if i == 0 or (i + 1) % 50 == 0:`). A counter here may
  also be one the function keeps itself, set by assignments and only grown by a positive constant
  (`iteration += 1`: `if iteration == 0 or ...`); a flag assigned a comparison (or `True`) that the loop
  leaves on (`done = cur_nimg >= total`, `if done: break`) is true once, so `if done or tick %
  snapshot_ticks == 0:` is rare; and a call of a function of the file whose one `return` is a modulo
  test of its parameters (`if divisible_by(step, save_every):`) is a periodic guard with the period the
  call passes (a period of 1 runs every step);
- branches that only run off CUDA: `if device.type == "cpu":`, `elif device.type == "npu":`,
  `if not torch.cuda.is_available():`;
- branches that end the run, which run at most once: the statements of a branch that calls
  `sys.exit()`, `os._exit()` or the builtin `exit()`, or raises with no `try` of the function around it
  (`if not math.isfinite(loss.item()): print(loss.item()); sys.exit(1)`: the condition still syncs
  every step, the `print` does not);
- branches that never run: a test of a parameter (`if debug:`, `if criterion is not None:`, `if
  criterion is None:`) that its default makes false, in a function whose every call, in the file and
  with the project in other files, leaves that parameter out. A call that passes it, even a run's option
  that is false by default (`use_amp=args.use_amp`), keeps the branch;
- values that are plainly not tensors (`.shape`, `len()`, Python numbers, results of `.item()`
  itself, `dict.items()`, NumPy values) and tensors made on the host and never moved: a factory
  without `device=` (`torch.randint(0, 10, (1,))`), `torch.tensor([...])`, `torch.from_numpy(a)`,
  `.cpu()` results, and what a function returns when every `return` gives a host value, also across
  files and per element of a returned tuple (`loss, parts = compute_loss(...)` with `return loss,
  to_cpu(parts)`: `float(parts[0])` reads the host). A batch field that the loop never moves is on the host when the loop moves other
  fields itself (`images = images.to(device)` says the loader yields host tensors, so `lengths.tolist()`
  of an unmoved `lengths` is no sync), also through indexing (`labels[order]`); a move on one branch
  only, or a rebinding in an inner loop, leaves it unknown. A value whose placement is unknown follows
  the script's device.

Scripts that never use a GPU are not checked: without a device there is no device sync. A script uses
one when it has a `.cuda()` call or `.to(local_rank)`, a `"cuda"` device string (also
`f"cuda:{rank}"`), a `torch.cuda` or `torch.accelerator` call (PyTorch 2.6's `current_accelerator()` /
`is_available()`), a `--cuda`, `--gpu` or `--accel` flag or a device option whose default or
choices name `cuda` or `gpu` (or whose help does, with a `"cpu"` default), `DistributedDataParallel(..., device_ids=[...])`, Hugging Face
Accelerate's `Accelerator()`, `torch.cuda.amp.GradScaler()`, or a Lightning `Trainer`, `Fabric` or
`LightningCLI` whose accelerator is not set to something else (their default is `"auto"`). With the
project index (the default; `--no-project` turns it off), a file without such evidence of its own
runs on CUDA when a file it imports, or that imports it, does: `engine.py` gets its device from the
`main.py` that calls it. Its `if __name__ == "__main__":` block (a module's self-test, run as a script of
its own) takes CUDA only from the files it imports, directly or through others.

## Why is this bad?
CUDA kernels run asynchronously: Python queues work and moves on while the GPU computes. Reading a
value back to the host (`.item()`, printing) blocks the CPU until every
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
The device syncs under the line, and the CPU time blocked. That means a DtoH copy plus
`cudaStreamSynchronize` inside `aten::item`/`_local_scalar_dense`, or sync calls.

With `check --trace`, the line is found through `CallFrom` (or a PyTorch 1.8-1.9 `Call stack`;
`with_stack=True`), else through its function's frames, else by op names: the `.item()` calls of the
step that synchronise. The finding is `confirmed` with the blocked time per step (what the fix saves),
`refuted` when the line ran and nothing under it synchronised (an `.item()` on a CPU scalar, or a run
whose memory events show no device at all), `not-observed` when it did not run in the profiled steps,
and `unverifiable` without CUDA activity in the trace (`ProfilerActivity.CUDA`).

## Options

## References
- [PyTorch performance tuning guide: avoid unnecessary CPU-GPU synchronization](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html)
- [torch.cuda.set_sync_debug_mode](https://pytorch.org/docs/stable/generated/torch.cuda.set_sync_debug_mode.html)
)md";

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"sync", "{sync} on {cadence}", "{sync}，发生在{cadence}"},
    {"remote-sync", "`{function}()` synchronizes with the GPU on {cadence}",
     "`{function}()` 会与 GPU 同步，发生在{cadence}"},
    {"remote-note", "`{function}` syncs here: {sync}", "`{function}` 在此处同步：{sync}"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no sync kind, so no trace event can be tied to it",
     "该问题没有携带同步类型，无法对应到 trace 中的事件"},
    {"ev-code-in-steps", "in the steps", "在 step 中"},
    {"ev-code-that-ran", "that ran {where}", "{where}运行时"},
    {"ev-no-device",
     "The profiled run had no device: its memory events show host allocations only, so the code {code} ({calls}) "
     "read CPU values and waited for nothing; profile the GPU run with ProfilerActivity.CUDA to measure its syncs",
     "分析的运行没有使用设备：它的显存事件只有主机端分配，所以{code}的代码（{calls}）读取的是 CPU 上的值，"
     "没有等待任何东西；请用 ProfilerActivity.CUDA 采集 GPU 上的运行来测量同步"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "a device sync", "设备同步"},
    {"ev-no-cuda-no-memory",
     "The trace has no CUDA activity, so it cannot show a device sync; profile with "
     "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] (profile_memory=True would at least show whether the "
     "run used a device)",
     "trace 中没有 CUDA 活动，因此无法显示设备同步；请用 "
     "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] 采集（profile_memory=True 至少能显示这次运行是否"
     "使用了设备）"},
    {"ev-confirmed-here",
     "{count} device syncs per step {where} block the CPU {ms} ms/step ({share}); {syncing} of {items} .item() calls "
     "synchronised",
     "{where}，每个 step 有 {count} 次设备同步，阻塞 CPU 每 step {ms} ms（{share}）；{items} 次 .item() 调用中有 "
     "{syncing} 次发生了同步"},
    {"ev-refuted-here",
     "The code ran {where} and no device sync or blocking copy ran under it ({calls}, none synchronised): a CPU value",
     "代码{where}运行过，其下没有任何设备同步或阻塞拷贝（{calls}，都没有同步）：这是 CPU 上的值"},
    {"ev-no-item", "No .item() call ran in the {steps}, so this scalar read did not run there (attributed by {how})",
     "分析的 {steps} 中没有运行任何 .item() 调用，所以这次标量读取没有在其中运行（归因方式：{how}）"},
    {"ev-confirmed-scalar",
     "{count} of {items} .item() calls per step synchronise with the device, blocking the CPU {ms} ms/step ({share}); "
     "attributed by {how}",
     "每个 step 的 {items} 次 .item() 调用中有 {count} 次与设备同步，阻塞 CPU 每 step {ms} ms（{share}）；"
     "归因方式：{how}"},
    {"ev-refuted-scalar",
     "None of the {items} .item() calls per step synchronised with the device (CPU scalars); attributed by {how}",
     "每个 step 的 {items} 次 .item() 调用都没有与设备同步（CPU 标量）；归因方式：{how}"},
    {"ev-confirmed", "{count} device syncs per step block the CPU {ms} ms/step ({share}); attributed by {how}",
     "每个 step 有 {count} 次设备同步，阻塞 CPU 每 step {ms} ms（{share}）；归因方式：{how}"},
    {"ev-refuted", "The trace shows CUDA activity and no device sync at all in the {steps}",
     "trace 中有 CUDA 活动，但分析的 {steps} 中没有任何设备同步"},
};

class SyncInStepLoop final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL101",
                               "sync-in-step-loop",
                               "host-device-sync",
                               "Host-device synchronization on every training step",
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
      if (!site.per_step() || site.off_device || !model.CudaAt(site.node)) continue;
      if (const auto sync = model.SyncAt(site)) {
        Report(site, "sync", {{"sync", sync->message, sync->message_zh}}, FromModel(sync->kind), {}, out);
        continue;
      }
      // A helper of another file of the project that syncs on every call: reported here, at the call
      // the step loop makes, with the helper's sync as the related location.
      if (const auto remote = model.CrossFileSync(site)) {
        Report(site, "remote-sync", {{"function", remote->function, {}}}, FromModel(remote->kind),
               MakeRelated(remote->path, remote->line, remote->column, "remote-note",
                           {{"function", remote->syncing_function, {}}, {"sync", remote->message, remote->message_zh}}),
               out);
      }
    }
  }

 private:
  static SyncKind FromModel(semantic::SyncKind kind) {
    switch (kind) {
      case semantic::SyncKind::kCopy: return SyncKind::kCopy;
      case semantic::SyncKind::kExplicit: return SyncKind::kExplicit;
      case semantic::SyncKind::kScalar: break;
    }
    return SyncKind::kScalar;
  }

  // The message ends with how often the line runs: "on every training step", "on every evaluation batch".
  void Report(const semantic::Site& site, std::string_view id, MessageArgs args, SyncKind kind,
              std::optional<RelatedLocation> related, std::vector<Diagnostic>& out) const {
    args.push_back({"cadence", std::string(ToString(site.cadence)), std::string(ToChinese(site.cadence))});
    Diagnostic diagnostic = MakeDiagnostic(site.node.Range(), id, std::move(args));
    diagnostic.payload = SyncFinding{kind};
    if (related) diagnostic.related.push_back(std::move(*related));
    out.push_back(std::move(diagnostic));
  }
};

TL_REGISTER_RULE(SyncInStepLoop);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved). Saved = the
// CPU time blocked in the syncs (the host stops waiting for the GPU queue to drain).
class SyncInStepLoopEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL101"; }

  Evidence Confirm(const Diagnostic& d, const EvidenceQuery& q) const override {
    const SyncFinding* finding = d.Payload<SyncFinding>();
    if (finding == nullptr) return Unverifiable(Say("ev-no-payload"));
    const auto& caps = q.trace.capabilities();
    if (q.at.not_observed) return NotObserved(q, TheLine(q));
    if (!caps.cuda) {
      // Without CUDA activity a sync cannot be seen, unless the run had no device at all: profile_memory
      // records every allocator, CUDA's included, so memory events with no device allocation show tensors
      // that all lived on the CPU, where `.item()` reads host memory and waits for nothing.
      bool device_memory = false;
      for (const auto& m : q.trace.analysis().memory.devices) device_memory = device_memory || m.device_type != 0;
      if (caps.memory && !device_memory) {
        const trace::SyncEvidence s = q.trace.DeviceSyncs(q.at.scope());
        if (q.at.level == AttributionLevel::kStep || s.code_ran) {
          // The count is of .item() calls (what would sync on a device), the time that of the code's events.
          trace::Cost c = q.at.level == AttributionLevel::kStep ? s.cost : q.trace.CostOf(q.at.where);
          c.count = s.item_calls;
          c.count_per_step = static_cast<double>(s.item_calls) / static_cast<double>(std::max<size_t>(1, q.steps));
          const Sentence code = q.at.level == AttributionLevel::kStep
                                    ? Say("ev-code-in-steps")
                                    : Say("ev-code-that-ran", {SentenceArg("where", WhereText(q))});
          return EvidenceFromCost(q, Verdict::kRefuted, c, 0,
                                  Say("ev-no-device", {SentenceArg("code", code), ItemCalls(s.item_calls)}));
        }
      }
      return caps.memory ? NoCudaActivity(Say("ev-cuda-shows")) : Unverifiable(Say("ev-no-cuda-no-memory"));
    }
    const trace::SyncEvidence s = q.trace.DeviceSyncs(q.at.scope());
    const SyncKind kind = finding->kind;
    if (q.at.level != AttributionLevel::kStep) {
      const MessageArg where = SentenceArg("where", WhereText(q));
      if (s.cost.count > 0) {
        return EvidenceFromCost(
            q, Verdict::kConfirmed, s.cost, s.cost.ms_per_step,
            Say("ev-confirmed-here", {NumberArg("count", s.cost.count_per_step, 1), where,
                                      NumberArg("ms", s.cost.ms_per_step, 2), ShareArg("share", s.cost.share_of_step),
                                      NumberArg("syncing", static_cast<int64_t>(s.syncing_item_calls)),
                                      NumberArg("items", static_cast<int64_t>(s.item_calls))}));
      }
      return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0,
                              Say("ev-refuted-here", {where, ItemCalls(s.item_calls)}));
    }
    // No stacks: the op names of the whole step decide.
    const auto& a = q.trace.analysis();
    const double steps = static_cast<double>(std::max<size_t>(1, q.steps));
    const MessageArg how = SentenceArg("how", q.at.how);
    const MessageArg items_per_step = NumberArg("items", static_cast<double>(a.syncs.items_in_steps) / steps, 1);
    if (kind == SyncKind::kScalar) {
      // A scalar read is confirmed only by scalar reads that synchronised: the syncs of other code (a
      // pageable copy, an explicit synchronize) are not this line's.
      if (a.syncs.items_in_steps == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-no-item", {StepsArg(q), how}));
      int64_t blocked = 0;
      std::unordered_set<uint32_t> syncing;
      for (const auto& item : a.syncs.items) {
        if (item.step >= 0 && item.syncs()) {
          blocked += item.blocked_ns;
          syncing.insert(item.event);
        }
      }
      if (a.syncs.syncing_items > 0) {
        trace::Cost c;
        c.observed = true;
        c.count = a.syncs.syncing_items;
        c.count_per_step = static_cast<double>(a.syncs.syncing_items) / steps;
        c.ms_per_step = static_cast<double>(blocked) / 1e6 / steps;
        c.share_of_step = q.step_ms > 0 ? c.ms_per_step / q.step_ms : 0.0;
        c.examples = s.cost.examples;
        // The sync events under the syncing .item() calls: what another finding on the same syncs shares.
        const trace::Trace& tr = q.trace.trace();
        for (uint32_t event : s.cost.claims) {
          uint32_t p = tr.parent(event);
          for (int depth = 0; depth < 64 && p != trace::kNoIndex; ++depth, p = tr.parent(p)) {
            if (syncing.count(p) != 0) {
              c.claims.push_back(event);
              break;
            }
          }
        }
        return EvidenceFromCost(
            q, Verdict::kConfirmed, c, c.ms_per_step,
            Say("ev-confirmed-scalar", {NumberArg("count", c.count_per_step, 1), items_per_step,
                                        NumberArg("ms", c.ms_per_step, 2), ShareArg("share", c.share_of_step), how}));
      }
      return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0, Say("ev-refuted-scalar", {items_per_step, how}));
    }
    if (s.cost.count > 0) {
      return EvidenceFromCost(
          q, Verdict::kConfirmed, s.cost, s.cost.ms_per_step,
          Say("ev-confirmed", {NumberArg("count", s.cost.count_per_step, 1), NumberArg("ms", s.cost.ms_per_step, 2),
                               ShareArg("share", s.cost.share_of_step), how}));
    }
    return EvidenceFromCost(q, Verdict::kRefuted, s.cost, 0, Say("ev-refuted", {StepsArg(q)}));
  }

 private:
  // "3 .item() calls", in both languages.
  static MessageArg ItemCalls(int64_t calls) {
    return CountArg("calls", calls, ".item() call", ".item() calls", "次 .item() 调用");
  }
};

TL_REGISTER_EVIDENCE(SyncInStepLoopEvidence);

}  // namespace
}  // namespace tl
