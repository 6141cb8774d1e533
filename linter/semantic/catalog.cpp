// Facts for the rules catalog (TL501-TL901): what a file trains, compiles and wraps, which parameter
// loops update weights by hand, and which guards are switched off by a debug flag's default. The
// component-wide facts travel in the file summary (CatalogFact bits) so that a `torch.compile` in
// `model.py` counts for the `train.py` that imports it.
#include <string>
#include <string_view>
#include <vector>

#include "linter/semantic/builder.h"
#include "linter/semantic/model.h"
#include "linter/semantic/syntax.h"

namespace tl::semantic {
namespace {

// `p` or `p.data`, where `p` is the loop's target name.
bool IsParameterExpr(const Model& model, ts::Node expr, std::string_view target) {
  if (expr.Is("identifier")) return model.Text(expr) == target;
  if (expr.Is("attribute")) {
    return model.Text(expr.Field("attribute")) == "data" && expr.Field("object").Is("identifier") &&
           model.Text(expr.Field("object")) == target;
  }
  return false;
}

// Whether `node` reads a gradient: an attribute `.grad` (of anything: `p.grad`, `param.grad.data`), or
// a name bound in the loop from one (`g = p.grad`, which the caller resolves as a name).
bool ReadsGradient(const Model& model, ts::Node node, const std::vector<std::string_view>& grad_names) {
  std::vector<ts::Node> stack{node};
  while (!stack.empty()) {
    const ts::Node n = stack.back();
    stack.pop_back();
    if (n.Is("attribute") && model.Text(n.Field("attribute")) == "grad") return true;
    if (n.Is("identifier")) {
      for (std::string_view name : grad_names) {
        if (model.Text(n) == name) return true;
      }
    }
    for (uint32_t i = 0; i < n.NamedChildCount(); ++i) stack.push_back(n.NamedChild(i));
  }
  return false;
}

constexpr std::string_view kInPlaceUpdates[] = {"add_", "sub_", "addcdiv_", "addcmul_", "mul_", "copy_", "lerp_"};

}  // namespace

uint32_t Model::OwnCatalogFacts() const {
  uint32_t facts = 0;
  for (const Loop& loop : loops_) {
    if (loop.role == LoopRole::kStep && loop.cadence == Cadence::kTrainingStep) facts |= kFactTrains;
  }
  for (const Scope& scope : scopes_) {
    if (scope.hook == Cadence::kTrainingStep) facts |= kFactTrains;
  }
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall) continue;
    const std::string_view name = site.name;
    if (name == "compile") {
      const std::string_view canonical = CalleeCanonical(site);
      // torch.compile, or nn.Module.compile() on a receiver that is not an imported module (re.compile).
      if (canonical == "torch.compile" || (canonical.empty() && !site.Receiver().IsNull())) facts |= kFactCompiles;
    } else if (name == "no_sync" || name == "accumulate") {
      if (!site.Receiver().IsNull()) facts |= kFactGradSyncOff;
    } else if (name == "DistributedDataParallel") {
      const std::string_view canonical = CalleeCanonical(site);
      if (canonical.starts_with("torch.nn.parallel.") || canonical == "torch.nn.DistributedDataParallel") {
        facts |= kFactDdp;
      }
    } else if (name == "Accelerator" || name == "Trainer" || name == "Fabric" || name == "LightningCLI") {
      if (TrainingFrameworkOf(CalleeCanonical(site)) != TrainingFramework::kNone) {
        facts |= kFactFramework | kFactTrains;
      }
    }
    if ((facts & kFactCandidates) == 0 &&
        (name.find("anomaly") != std::string_view::npos || name == "gradcheck" || name == "gradgradcheck" ||
         name == "emit_nvtx" || name == "profile" || name == "set_sync_debug_mode")) {
      facts |= kFactCandidates;
    }
  }
  // `model.require_backward_grad_sync = ...`: DDP's own switch for skipping the all-reduce.
  for (const Binding& binding : bindings_) {
    if (binding.target.Is("attribute") && Text(binding.target.Field("attribute")) == "require_backward_grad_sync") {
      facts |= kFactGradSyncOff;
    }
  }
  if ((facts & kFactTrains) != 0 || !AccumulatingBackwards().empty()) facts |= kFactCandidates;
  return facts;
}

uint32_t Model::ComponentFacts() const {
  if (project_ != nullptr && self_summary_ != nullptr) return component_facts_;
  return own_facts_;
}

bool Model::SwitchedOff(const Site& site) const {
  for (int g = site.guard; g >= 0; g = guards_[static_cast<size_t>(g)].parent) {
    const Guard& guard = guards_[static_cast<size_t>(g)];
    const auto truthy = Resolve(guard.condition, guard.scope).Truthy();
    if (truthy.has_value() && !*truthy) return true;
  }
  return false;
}

bool Model::RunsEveryTrainingStep(int loop) const {
  const Loop& self = loops_[static_cast<size_t>(loop)];
  for (int l = self.parent; l >= 0; l = loops_[static_cast<size_t>(l)].parent) {
    const Loop& outer = loops_[static_cast<size_t>(l)];
    if (outer.role == LoopRole::kStep) return outer.cadence == Cadence::kTrainingStep;
  }
  const Scope& scope = scopes_[static_cast<size_t>(self.scope)];
  return (scope.runs_per_step && scope.cadence == Cadence::kTrainingStep) || scope.hook == Cadence::kTrainingStep;
}

std::vector<int> Model::ParameterUpdateLoops() const {
  std::vector<int> out;
  for (size_t i = 0; i < loops_.size(); ++i) {
    const Loop& loop = loops_[i];
    if (loop.kind != LoopKind::kFor || loop.role != LoopRole::kPerElement || !loop.target.Is("identifier")) continue;
    // `model.parameters()`, `module.parameters()`: a method call named parameters on a receiver.
    if (!loop.iterable.Is("call")) continue;
    const ts::Node callee = loop.iterable.Field("function");
    if (!callee.Is("attribute") || Text(callee.Field("attribute")) != "parameters") continue;
    if (!RunsEveryTrainingStep(static_cast<int>(i))) continue;
    const std::string_view target = Text(loop.target);
    // Names bound from a gradient in the body (`g = p.grad`), which an update then reads.
    std::vector<std::string_view> grad_names;
    bool updates = false;
    std::vector<ts::Node> stack{loop.body};
    std::vector<ts::Node> statements;
    while (!stack.empty()) {
      const ts::Node n = stack.back();
      stack.pop_back();
      if (n.Is("function_definition") || n.Is("class_definition") || n.Is("lambda")) continue;
      if (n.Is("expression_statement")) statements.push_back(n);
      for (uint32_t c = n.NamedChildCount(); c > 0; --c) stack.push_back(n.NamedChild(c - 1));
    }
    for (const ts::Node statement : statements) {
      const ts::Node expr = statement.NamedChild(0);
      if (expr.Is("assignment") && expr.Field("left").Is("identifier") &&
          ReadsGradient(*this, expr.Field("right"), {})) {
        grad_names.push_back(Text(expr.Field("left")));
      } else if (expr.Is("augmented_assignment") && IsParameterExpr(*this, expr.Field("left"), target) &&
                 ReadsGradient(*this, expr.Field("right"), grad_names)) {
        updates = true;
      } else if (expr.Is("call")) {
        const ts::Node function = expr.Field("function");
        if (!function.Is("attribute") || !IsParameterExpr(*this, function.Field("object"), target)) continue;
        const std::string_view method = Text(function.Field("attribute"));
        bool in_place = false;
        for (std::string_view m : kInPlaceUpdates) in_place = in_place || method == m;
        if (in_place && ReadsGradient(*this, expr.Field("arguments"), grad_names)) updates = true;
      }
    }
    if (updates) out.push_back(static_cast<int>(i));
  }
  return out;
}

namespace {

// The training step loop a loop is, or lies in (same scope), or -1.
int EnclosingStepLoop(const std::vector<Loop>& loops, int loop) {
  for (int l = loop; l >= 0; l = loops[static_cast<size_t>(l)].parent) {
    if (loops[static_cast<size_t>(l)].role == LoopRole::kStep) {
      return loops[static_cast<size_t>(l)].cadence == Cadence::kTrainingStep ? l : -1;
    }
  }
  return -1;
}

// Whether two nodes lie in different branches of one `if` (`if c: a` / `else: b`), so never both run.
bool Exclusive(ts::Node a, ts::Node b) {
  for (ts::Node n = a.Parent(); !n.IsNull(); n = n.Parent()) {
    if (n.StartByte() <= b.StartByte() && b.EndByte() <= n.EndByte()) return n.Is("if_statement");
  }
  return false;
}

bool LoopWithin(const std::vector<Loop>& loops, int loop, int ancestor) {
  for (int l = loop; l >= 0; l = loops[static_cast<size_t>(l)].parent) {
    if (l == ancestor) return true;
  }
  return false;
}

}  // namespace

std::vector<uint32_t> Model::AccumulatingBackwards() const {
  // Optimizer steps: under a periodic guard, or outside the micro-batch loop the backward runs in.
  struct OptimizerStep {
    int step_loop = -1;
    int loop = -1;
    bool periodic = false;
    ts::Node node;
  };
  std::vector<OptimizerStep> steps;
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || site.name != "step" || site.Receiver().IsNull()) continue;
    bool optimizer = IsOptimizerLike(site.Receiver(), site.scope);
    if (!optimizer && site.Arguments().NamedChildCount() > 0) {
      optimizer = IsOptimizerLike(site.Arguments().NamedChild(0), site.scope);  // scaler.step(optimizer)
    }
    if (!optimizer) continue;
    OptimizerStep step;
    step.node = site.node;
    step.loop = site.loop;
    step.step_loop = EnclosingStepLoop(loops_, site.loop);
    if (step.step_loop < 0) continue;
    // A guard whose period is the run's option counts whatever the option's default (PeriodicCondition).
    for (int g = site.guard; g >= 0 && !step.periodic; g = guards_[static_cast<size_t>(g)].parent) {
      const Guard& guard = guards_[static_cast<size_t>(g)];
      step.periodic = guard.periodic || PeriodicCondition(guard.condition, site.scope);
    }
    for (const Guard& guard : guards_) {
      if (guard.scope == site.scope && !guard.rest.empty() && guard.rest.begin <= site.node.StartByte() &&
          site.node.EndByte() <= guard.rest.end) {
        step.periodic = true;
      }
    }
    steps.push_back(step);
  }
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    const Site& site = sites_[i];
    if (site.kind != SiteKind::kCall || site.name != "backward" || site.Receiver().IsNull()) continue;
    const int step_loop = EnclosingStepLoop(loops_, site.loop);
    if (step_loop < 0) continue;
    bool accumulates = false;
    bool stepped = false;  // an optimizer step on every iteration of the backward's own loop
    for (const OptimizerStep& step : steps) {
      if (step.step_loop != step_loop || Exclusive(site.node, step.node)) continue;
      if (!step.periodic && step.loop == site.loop) stepped = true;
      // Periodic: the backward itself must run on every iteration.
      if (step.periodic && site.per_step()) accumulates = true;
      // A micro-batch loop: the backward in a loop inside the step loop that the optimizer step is not in.
      if (!step.periodic && site.loop != step_loop && !LoopWithin(loops_, step.loop, site.loop)) accumulates = true;
    }
    if (accumulates && !stepped) out.push_back(i);
  }
  if (project_ == nullptr) return out;
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    if (AccumulatingHelper(sites_[i])) out.push_back(i);
  }
  return out;
}

std::optional<Model::RemoteStep> Model::AccumulatingHelper(const Site& site) const {
  // A helper of the project that runs `backward()` on every call and steps the optimizer only when a
  // parameter says so (`loss_scaler(loss, optimizer, update_grad=(i + 1) % accum_iter == 0)`). The loop
  // around it may look like an evaluation loop (its backward is in the helper): any per-step loop counts.
  if (project_ == nullptr || site.kind != SiteKind::kCall || !site.per_step() || site.loop < 0) return std::nullopt;
  const ts::Node args = site.Arguments();
  bool periodic_argument = false;
  for (uint32_t a = 0; !args.IsNull() && a < args.NamedChildCount() && !periodic_argument; ++a) {
    ts::Node arg = args.NamedChild(a);
    if (KindOf(arg) == K::kKeywordArgument) arg = Field(arg, F::kValue);
    periodic_argument = PeriodicCondition(arg, site.scope);
  }
  if (!periodic_argument) return std::nullopt;
  for (const Callee& callee : ProjectCallees(site)) {
    const auto found = ResolveCallee(callee);
    if (!found || found->function->step.backward_line == 0 || found->function->step.guard.empty()) continue;
    const StepSummary& step = found->function->step;
    const auto arg = FindArgument(site, step.guard, step.guard_position);
    if (arg && PeriodicCondition(arg->value, site.scope)) {
      return RemoteStep{found->file->path, step.backward_line, step.backward_column, found->function->qualname,
                        step.guard};
    }
  }
  return std::nullopt;
}

}  // namespace tl::semantic
