// TL901 debug-api-in-training: anomaly detection, the autograd profiler, NVTX ranges, gradcheck and the
// CUDA sync debug mode left switched on in training code.
#include <fmt/core.h>

#include <array>
#include <iterator>
#include <string_view>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"
#include "linter/semantic/syntax.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks training code (a file with a training step loop, a training hook or framework training, or a
file of the same project import component) for debugging APIs that stay on:
`torch.autograd.set_detect_anomaly(True)`, `torch.autograd.detect_anomaly()`,
`torch.autograd.profiler.emit_nvtx()`, `torch.autograd.profiler.profile(...)` unless `enabled=False`,
`torch.autograd.gradcheck`/`gradgradcheck`, and `torch.cuda.set_sync_debug_mode(...)` with a mode
other than `0`/`"default"`. Names are matched through the file's imports.

Not reported: a call whose switch resolves to off (`set_detect_anomaly(False)`,
`set_detect_anomaly(args.detect_anomaly)` whose argparse default is off, `profile(enabled=False)`);
a call under a guard that resolves to false (`if args.debug:` whose default is off, `if debug:` on a
parameter that every call of the file leaves at its false default or sets to false); a call in a
function whose every call, in its file and in the project's other files, is under such a guard
(`def detect_anomaly(): torch.autograd.set_detect_anomaly(True)`, called only under `if debug:` with
`debug = False`); a file of a project that never trains (a test of gradients). When the switch is a
value the model cannot resolve, the rule stays silent.

## Why is this bad?
Anomaly mode records a Python traceback for every forward op and checks every backward output for
NaNs, which synchronises with the GPU; the PyTorch docs warn it slows execution and is for debugging
only. The autograd profiler and `emit_nvtx` wrap every op in a record range, `gradcheck` runs the
model many times in float64, and the sync debug mode checks every CUDA call for a synchronisation.
All of them cost time on every step and none changes what the model learns.

## Example
```python
torch.autograd.set_detect_anomaly(True)
for x, y in loader:
    loss = loss_fn(model(x), y)
    loss.backward()
```

## Use instead
```python
parser.add_argument("--detect-anomaly", action="store_true")
torch.autograd.set_detect_anomaly(args.detect_anomaly)  # off unless asked for
```

## Fix safety
For `set_detect_anomaly(True)` torchlint offers to remove the call, **display-only**: the call may
be there on purpose while a NaN is being hunted, and removing it changes which errors a run reports.
The other calls have no fix: a `with` block or a profiler object must be unwrapped by hand.

## Trace evidence
Anomaly-mode events, profiler overhead.

A profiler trace marks neither anomaly mode nor the sync debug mode, and an autograd profiler or
NVTX range left on shows in the trace only as the overhead it adds to every op, which cannot be told
apart from the ops' own time. With `check --trace` the verdict is therefore `unverifiable`, with no
cost and no time saved claimed.

## Options

## References
- [torch.autograd: anomaly detection](https://pytorch.org/docs/stable/autograd.html#anomaly-detection)
- [PyTorch performance tuning guide: disable debugging APIs](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#disable-debugging-apis)
- [torch.cuda.set_sync_debug_mode](https://pytorch.org/docs/stable/generated/torch.cuda.set_sync_debug_mode.html)
)md";

enum class DebugApi { kAnomaly, kNvtx, kProfiler, kGradcheck, kSyncDebug };

// What the rule found: which debugging API.
struct DebugApiFinding {
  DebugApi api = DebugApi::kAnomaly;
};

struct Known {
  std::string_view canonical;
  DebugApi api;
  std::string_view switch_name;  // the argument that turns it off; empty when none
  int switch_position;
  std::string_view message;  // the id of its sentence in kMessages
};

constexpr Known kApis[] = {
    {"torch.autograd.set_detect_anomaly", DebugApi::kAnomaly, "mode", 0, "anomaly"},
    {"torch.autograd.detect_anomaly", DebugApi::kAnomaly, "", -1, "anomaly"},
    {"torch.autograd.profiler.emit_nvtx", DebugApi::kNvtx, "enabled", 0, "nvtx"},
    {"torch.autograd.profiler.profile", DebugApi::kProfiler, "enabled", 0, "profiler"},
    {"torch.autograd.gradcheck", DebugApi::kGradcheck, "", -1, "gradcheck"},
    {"torch.autograd.gradgradcheck", DebugApi::kGradcheck, "", -1, "gradcheck"},
    {"torch.autograd.gradcheck.gradcheck", DebugApi::kGradcheck, "", -1, "gradcheck"},
    {"torch.cuda.set_sync_debug_mode", DebugApi::kSyncDebug, "debug_mode", 0, "sync-debug"},
};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"anomaly", "`{api}` leaves anomaly detection on in training code", "`{api}` 让训练代码一直开着异常检测"},
    {"nvtx", "`{api}` leaves an NVTX range around every op on in training code",
     "`{api}` 让训练代码在每个算子外都套一层 NVTX 范围"},
    {"profiler", "`{api}` leaves the autograd profiler on in training code",
     "`{api}` 让训练代码一直开着 autograd 性能分析器"},
    {"gradcheck", "`{api}` leaves a float64 gradient check on in training code",
     "`{api}` 让训练代码一直执行 float64 梯度检查"},
    {"sync-debug", "`{api}` leaves the CUDA sync debug mode on in training code",
     "`{api}` 让训练代码一直开着 CUDA 同步调试模式"},
    {"remove", "Remove the call", "删除该调用"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no debugging API, so no trace event can be tied to it",
     "该问题没有携带调试 API，无法对应到 trace 中的事件"},
    {"ev-anomaly",
     "A profiler trace does not mark anomaly mode: its traceback recording and NaN checks add to every op's own time",
     "profiler trace 不会标记 anomaly 模式：它记录 traceback 和检查 NaN 的开销计入每个算子自身的时间"},
    {"ev-sync-debug", "A profiler trace does not mark the CUDA sync debug mode: its checks add to every CUDA call",
     "profiler trace 不会标记 CUDA 同步调试模式：它的检查开销计入每次 CUDA 调用"},
    {"ev-profiler",
     "The overhead of a profiler or NVTX ranges left on adds to every op's own time and has no event of its own",
     "遗留的 profiler 或 NVTX 区间的开销计入每个算子自身的时间，没有单独的事件"},
    {"ev-gradcheck", "gradcheck's evaluations cannot be told apart from the model's own ops in a trace",
     "在 trace 中无法区分 gradcheck 的计算和模型自身的算子"},
    {"ev-unknown", "The trace cannot show this debugging API", "trace 无法显示这个调试 API"},
};

class DebugApiInTraining final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL901",
                               "debug-api-in-training",
                               "debug",
                               "A debugging API is left on in training code",
                               kDocs,
                               FixAvailability::kSometimes,
                               Severity::kWarning,
                               /*options=*/{},
                               /*default_enabled=*/true,
                               kMessages,
                               Applicability::kDisplayOnly};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    if (!model.HasFact(semantic::kFactTrains)) return;
    // IsCanonical first compares the call's name with the last segment: that test, on every call for
    // every API, is done here on segments read once.
    std::array<std::string_view, std::size(kApis)> names;
    for (size_t i = 0; i < names.size(); ++i) names[i] = semantic::LastSegment(kApis[i].canonical);
    for (const semantic::Site& call : model.Sites()) {
      if (call.kind != semantic::SiteKind::kCall) continue;
      const Known* known = nullptr;
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] == call.name && model.IsCanonical(call, kApis[i].canonical)) known = &kApis[i];
      }
      if (known == nullptr || model.SwitchedOff(call) || model.CalledOnlySwitchedOff(call.scope)) continue;
      if (!known->switch_name.empty()) {
        if (auto arg = model.FindArgument(call, known->switch_name, known->switch_position)) {
          if (!On(model, *known, model.Resolve(arg->value, call.scope))) continue;
        } else if (known->api == DebugApi::kAnomaly || known->api == DebugApi::kSyncDebug) {
          continue;  // a required argument the model cannot see (a splat)
        } else if (model.HasStarArgs(call) ||
                   model.KwargsLookupIn(call, known->switch_name).presence != semantic::KeyPresence::kAbsent) {
          continue;
        }
      }
      Diagnostic diagnostic = MakeDiagnostic(call.node.Range(), known->message,
                                             {{"api", std::string(model.Text(call.callee)), {}}});
      diagnostic.payload = DebugApiFinding{known->api};
      const ts::Node statement = call.node.Parent();
      if (call.name == "set_detect_anomaly" && statement.Is("expression_statement")) {
        diagnostic.fix = MakeFix("remove", {}, Applicability::kDisplayOnly, {Edit{statement.Range(), "pass"}});
      }
      out.push_back(std::move(diagnostic));
    }
  }

 private:
  // Whether the switch's value leaves the API on; unknown values are not reported.
  static bool On(const semantic::Model& model, const Known& known, const semantic::Value& value) {
    (void)model;
    if (known.api == DebugApi::kSyncDebug) {
      if (value.kind == semantic::ValueKind::kString)
        return value.string_value == "warn" || value.string_value == "error";
      const auto mode = value.AsInt();
      return mode.has_value() && *mode != 0;
    }
    const auto truthy = value.Truthy();
    return truthy.has_value() && *truthy;
  }
};

TL_REGISTER_RULE(DebugApiInTraining);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL901. Model: none. The overhead of these modes spreads over every op and leaves no event of its
// own, so no trace can back a confirmed verdict or a saving.
class DebugApiInTrainingEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL901"; }
  bool NeedsGpu() const override { return false; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    (void)q;
    const auto* finding = diagnostic.Payload<DebugApiFinding>();
    if (finding == nullptr) return Unverifiable(Say("ev-no-payload"));
    switch (finding->api) {
      case DebugApi::kAnomaly: return Unverifiable(Say("ev-anomaly"));
      case DebugApi::kSyncDebug: return Unverifiable(Say("ev-sync-debug"));
      case DebugApi::kNvtx:
      case DebugApi::kProfiler: return Unverifiable(Say("ev-profiler"));
      case DebugApi::kGradcheck: return Unverifiable(Say("ev-gradcheck"));
    }
    return Unverifiable(Say("ev-unknown"));
  }
};

TL_REGISTER_EVIDENCE(DebugApiInTrainingEvidence);

}  // namespace
}  // namespace tl
