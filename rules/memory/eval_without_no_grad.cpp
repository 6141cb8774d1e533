// TL302 eval-without-no-grad: an evaluation or generation loop that calls the model with autograd on,
// so every forward pass records its graph and keeps the activations it saved for a backward pass that
// never comes.
#include <fmt/core.h>

#include <array>
#include <string>
#include <vector>

#include "crosscheck/evidence.h"
#include "linter/core/fix.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"
#include "linter/semantic/syntax.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for evaluation and inference loops that run with autograd on. A loop is one when it is a step
loop of the file (over a DataLoader, a decoding loop, or a rollout that steps a reinforcement-learning
environment) that calls the model and does no backward
pass or optimizer step (itself, in a loop nested in it or in a function it calls), and it lies in a
function named `eval*`, `evaluate`, `valid*`, `val`, `test*`, `predict*`, `infer*`, `generate` or
`sample*`, or after a `model.eval()` in the same function. It is reported unless autograd is off
there: a `with torch.no_grad():`, `torch.inference_mode()` or `torch.set_grad_enabled(False)` around
the loop (or around every model call in it) in its function, a `torch.set_grad_enabled(False)`
statement before it in the same function, such a decorator on the function (`@torch.no_grad()`), or
such a `with` around a call of the function elsewhere in the same file (followed through the file's
calls). The
context managers are matched through imports. "The model" is what the semantic model takes for one
(a module of `torch.nn`, torchvision, timm or Transformers, a class of the file built on `nn.Module`,
a name like `model` or `net`), or any name the file switches to evaluation or training mode with
`.eval()` or `.train()` without arguments: modules loaded from a checkpoint (`encoder =
checkpoint["encoder"]; encoder.eval()`) count. A callable the file never puts in a mode and that
nothing else types as a module (`scorer = checkpoint["scorer"]`) is not taken for the model.

Not reported: Lightning's `validation_step`/`test_step`/`predict_step` and Hugging Face's
`prediction_step` (the framework turns autograd off), a loop whose function is only called from
another file under `no_grad` (the project index does not carry grad modes; torchlint cannot see it
and stays silent only when some call in the same file shows it), and loops that call
`torch.enable_grad()` on purpose are reported like any other.

## Why is this bad?
With autograd on, every operation of the forward pass on a tensor that requires grad records a node
of the backward graph and keeps the tensors its backward needs (activations, masks, indices) alive
until the output is freed. An evaluation pass never calls `backward()`, so that is pure overhead:
more host time per op and, above all, activation memory that grows with the batch and the model,
which limits the evaluation batch size and can run out of memory where `no_grad` would not.

## Example
```python
def evaluate(model, loader):
    model.eval()
    for x, y in loader:
        correct += (model(x.cuda()).argmax(1) == y.cuda()).sum()
```

## Use instead
```python
@torch.no_grad()  # or torch.inference_mode() on PyTorch >= 1.9
def evaluate(model, loader):
    model.eval()
    for x, y in loader:
        correct += (model(x.cuda()).argmax(1) == y.cuda()).sum()
```

## Fix safety
The fix adds `@torch.no_grad()` above the function (a loop at module level gets a
`with torch.no_grad():` around it, re-indented) and is **unsafe**: code in the function that does
need gradients (a `backward()` through a helper of another file, input-gradient saliency, a test of
gradients) would stop working. `torch.no_grad()` is what the fix writes, since it exists in every
PyTorch; `torch.inference_mode()` (1.9+) is faster still where the outputs never meet autograd again.
There is no fix when the file does not import `torch` under its own name.

## Trace evidence
Autograd bookkeeping in the evaluation steps.

A profiler trace does not record whether autograd was on: a forward pass under `no_grad` runs the
same kernels. With `check --trace`, a loop that runs a backward pass (`autograd::engine` events or
`*Backward` ops under its line) is `refuted`: it is not an evaluation loop. A loop that ran without
any is `unverifiable`, with its measured time (the cost of the evaluation steps, none of it counted as
saved); a loop that did not run in the profiled steps is `not observed`.

## Options

## References
- [PyTorch: Locally disabling gradient computation](https://pytorch.org/docs/stable/notes/autograd.html#locally-disabling-gradient-computation)
- [PyTorch: torch.inference_mode](https://pytorch.org/docs/stable/generated/torch.inference_mode.html)
- [PyTorch performance tuning guide](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html)
)md";

// What the rule found: what one iteration of the loop is.
struct EvalFinding {
  semantic::Cadence cadence = semantic::Cadence::kEvaluationBatch;
};

bool EvalName(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kPrefixes = {"eval",  "valid",  "test",  "predict",
                                                                "infer", "sample", "_eval", "_valid"};
  for (std::string_view prefix : kPrefixes) {
    if (name.starts_with(prefix)) return true;
  }
  return name == "val" || name == "generate" || name == "_generate" || name.starts_with("val_") ||
         name.starts_with("run_eval") || name.starts_with("run_val") || name.starts_with("run_test");
}

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"no-grad", "Evaluation loop runs the model with autograd on; wrap it in `torch.no_grad()`",
     "评估循环在开启 autograd 的情况下运行模型；请把它包在 `torch.no_grad()` 中"},
    {"no-grad-or-inference",
     "Evaluation loop runs the model with autograd on; wrap it in `torch.no_grad()` or `torch.inference_mode()`",
     "评估循环在开启 autograd 的情况下运行模型；请把它包在 `torch.no_grad()` 或 `torch.inference_mode()` 中"},
    {"decorate", "Decorate the function with `torch.no_grad()`", "用 `torch.no_grad()` 装饰该函数"},
    {"wrap", "Wrap the loop in `with torch.no_grad():`", "把循环包在 `with torch.no_grad():` 中"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no loop, so no step of the trace can be tied to it",
     "该问题没有携带循环，无法对应到 trace 中的 step"},
    {"ev-no-call-sites", "The trace has no Python call sites, so the loop's steps cannot be found in it; {missing}",
     "trace 中没有 Python 调用位置，因此找不到这个循环的 step；{missing}"},
    {"ev-the-loop", "The loop at line {line}", "第 {line} 行的循环"},
    {"ev-trains", "The loop runs {ops} backward ops {where}: it trains, it does not only evaluate",
     "{where}，这个循环运行了 {ops} 个 backward 算子：它在训练，而不只是评估"},
    {"ev-cannot-tell",
     "The loop's steps take {ms} ms/step {where}, but a trace does not record whether autograd was on",
     "{where}，这个循环的 step 每 step 用时 {ms} ms，但 trace 不记录 autograd 是否开启"},
};

class EvalWithoutNoGrad final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL302",
                               "eval-without-no-grad",
                               "memory",
                               "Evaluation loop runs with autograd on and keeps activations for a backward pass",
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
    std::vector<int> fixed_scopes;
    for (int index : model.StepLoops()) {
      const semantic::Loop& loop = model.Loops()[static_cast<size_t>(index)];
      // A rollout that steps an environment is one too when it evaluates (a policy in eval mode, or a
      // function named for evaluation, as below); one that collects experience to train on is not.
      if (loop.cadence != semantic::Cadence::kEvaluationBatch && loop.cadence != semantic::Cadence::kGenerationStep &&
          loop.cadence != semantic::Cadence::kEnvironmentStep) {
        continue;
      }
      const semantic::Scope& scope = model.Scopes()[static_cast<size_t>(loop.scope)];
      if (scope.hook != semantic::Cadence::kNone || scope.runs_per_step) continue;
      if (!model.LoopCallsModel(index)) continue;
      const bool named = scope.kind == semantic::ScopeKind::kFunction && EvalName(scope.name);
      if (!named && !model.EvalModeBefore(loop.scope, loop.node.StartByte())) continue;
      if (model.GradDisabledAt(loop.node)) continue;

      const ts::Node header_end = loop.iterable.IsNull() ? loop.body : loop.iterable;
      const TextRange range{loop.node.StartByte(), header_end.EndByte()};
      const bool inference_mode = context.options.target_torch >= TorchVersion{1, 9};
      Diagnostic diagnostic = MakeDiagnostic(range, inference_mode ? "no-grad-or-inference" : "no-grad");
      diagnostic.payload = EvalFinding{loop.cadence};
      AddFix(context, loop, diagnostic, fixed_scopes);
      out.push_back(std::move(diagnostic));
    }
  }

 private:
  // `@torch.no_grad()` on the function (once per function), or a `with` around a module-level loop.
  void AddFix(const CheckContext& context, const semantic::Loop& loop, Diagnostic& diagnostic,
              std::vector<int>& fixed_scopes) const {
    const semantic::Model& model = context.model;
    const std::string_view torch = model.LocalNameOf("torch");
    if (torch.empty()) return;
    const std::string_view source = context.file.text();
    const semantic::Scope& scope = model.Scopes()[static_cast<size_t>(loop.scope)];
    if (scope.kind == semantic::ScopeKind::kFunction && !scope.name.empty()) {
      for (int s : fixed_scopes) {
        if (s == loop.scope) return;
      }
      fixed_scopes.push_back(loop.scope);
      // Right above the `def`, under its other decorators: `@staticmethod` must stay outermost.
      const auto line = IndentOf(source, scope.node.StartByte());
      if (!line) return;
      const uint32_t at = line->line_start;
      diagnostic.fix = MakeFix("decorate", {}, Applicability::kUnsafe,
                               {Edit{{at, at}, fmt::format("{}@{}.no_grad()\n", line->indent, torch)}});
      return;
    }
    if (scope.kind != semantic::ScopeKind::kModule) return;
    // Re-indent the loop under a `with`; not when a line of it is inside a multi-line string.
    const auto line = IndentOf(source, loop.node.StartByte());
    if (!line) return;
    const uint32_t at = line->line_start;
    const std::string& indent = line->indent;
    const std::string_view text = source.substr(at, loop.node.EndByte() - at);
    if (text.find("\"\"\"") != std::string_view::npos || text.find("'''") != std::string_view::npos ||
        text.find("\\\n") != std::string_view::npos) {
      return;
    }
    std::vector<Edit> edits;
    edits.push_back(Edit{{at, at}, fmt::format("{}with {}.no_grad():\n", indent, torch)});
    for (uint32_t i = at; i < loop.node.EndByte(); ++i) {
      if (i == at || source[i - 1] == '\n') {
        if (source[i] != '\n' && source[i] != '\r') edits.push_back(Edit{{i, i}, "    "});
      }
    }
    // The first line's indent edit and the `with` line sit at one offset: merge them.
    edits.front().replacement += edits[1].replacement;
    edits.erase(edits.begin() + 1);
    diagnostic.fix = MakeFix("wrap", {}, Applicability::kUnsafe, std::move(edits));
  }
};

TL_REGISTER_RULE(EvalWithoutNoGrad);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL302. Model: nothing is counted as saved. A trace does not record autograd's mode, so the finding
// can only be refuted (the loop runs a backward pass) or left unverifiable with the loop's cost.
class EvalWithoutNoGradEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL302"; }
  bool NeedsGpu() const override { return false; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<EvalFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    trace::SourceMatch where = q.trace.Locate(q.file.path(), q.line);
    if (where.spans.empty() && !q.function.empty()) {
      where = q.trace.LocateFunction(q.file.path(), q.function, q.function_def_line);
    }
    if (where.spans.empty() || !q.trace.RanInSteps(where)) {
      if (!q.trace.capabilities().stacks()) {
        return Unverifiable(Say("ev-no-call-sites", {SentenceArg("missing", MissingOption("with_stack=True"))}));
      }
      return NotObserved(q, Say("ev-the-loop", {NumberArg("line", q.line)}));
    }
    const trace::AutogradEvidence autograd = q.trace.AutogradUnder(where);
    if (autograd.backward_ops > 0) {
      return EvidenceFromCost(q, Verdict::kRefuted, autograd.cost, 0,
                              Say("ev-trains", {NumberArg("ops", static_cast<int64_t>(autograd.backward_ops)),
                                                SentenceArg("where", WhereText(q))}));
    }
    return EvidenceFromCost(
        q, Verdict::kUnverifiable, autograd.cost, 0,
        Say("ev-cannot-tell", {NumberArg("ms", autograd.cost.ms_per_step, 2), SentenceArg("where", WhereText(q))}));
  }
};

TL_REGISTER_EVIDENCE(EvalWithoutNoGradEvidence);

}  // namespace
}  // namespace tl
