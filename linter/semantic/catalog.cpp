// Facts for the rules catalog (TL501-TL901): what a file trains, compiles and wraps, which parameter
// loops update weights by hand, and which guards are switched off by a debug flag's default. The
// component-wide facts travel in the file summary (CatalogFact bits) so that a `torch.compile` in
// `model.py` counts for the `train.py` that imports it.
#include <algorithm>
#include <optional>
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
// a name of the loop's body that carries one (`g = p.grad`, which the caller resolves as a name).
bool ReadsGradient(const Model& model, ts::Node node, const std::vector<std::string_view>& grad_names) {
  std::vector<ts::Node> stack{node};
  while (!stack.empty()) {
    const ts::Node n = stack.back();
    stack.pop_back();
    if (n.IsNull()) continue;  // a field the parser's recovery left out
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

bool InPlaceUpdate(std::string_view method) {
  for (std::string_view m : kInPlaceUpdates) {
    if (method == m) return true;
  }
  return false;
}

// Whether a loop's body changes its target `p` (or `p.data`) in place from a gradient: an in-place method
// anywhere in a chain on it (`p.data.add_(p.grad, alpha=-lr)`, `p.mul_(d).add_(u)`) or an augmented
// assignment (`p -= lr * p.grad`) whose operands read the gradient, directly or through names of the body
// that carry it, in statement order: bound from it (`d_p = p.grad`, `d_p = d_p.add(p, alpha=wd)`) or
// changed in place with it (`buf.mul_(momentum).add_(d_p)`, `exp_avg += g`).
bool UpdatesFromGradient(const Model& model, ts::Node body, std::string_view target) {
  std::vector<ts::Node> stack{body};
  std::vector<ts::Node> statements;
  while (!stack.empty()) {
    const ts::Node n = stack.back();
    stack.pop_back();
    if (n.IsNull() || n.Is("function_definition") || n.Is("class_definition") || n.Is("lambda")) continue;
    if (n.Is("expression_statement")) statements.push_back(n);
    for (uint32_t c = n.NamedChildCount(); c > 0; --c) stack.push_back(n.NamedChild(c - 1));
  }
  std::vector<std::string_view> grad_names;
  for (const ts::Node statement : statements) {
    const ts::Node expr = statement.NamedChildCount() > 0 ? statement.NamedChild(0) : ts::Node();
    if (expr.IsNull()) continue;
    ts::Node changed;  // what the statement changes in place with a gradient
    if (expr.Is("assignment") && expr.Field("left").Is("identifier") &&
        ReadsGradient(model, expr.Field("right"), grad_names)) {
      grad_names.push_back(model.Text(expr.Field("left")));
    } else if (expr.Is("augmented_assignment") && ReadsGradient(model, expr.Field("right"), grad_names)) {
      changed = expr.Field("left");
    } else if (expr.Is("call")) {
      bool from_gradient = false;
      ts::Node n = expr;
      while (n.Is("call") && n.Field("function").Is("attribute")) {
        const ts::Node function = n.Field("function");
        from_gradient = from_gradient || (InPlaceUpdate(model.Text(function.Field("attribute"))) &&
                                          ReadsGradient(model, n.Field("arguments"), grad_names));
        n = function.Field("object");
      }
      if (from_gradient) changed = n;
    }
    if (changed.IsNull()) continue;
    if (IsParameterExpr(model, changed, target)) return true;
    if (changed.Is("identifier")) grad_names.push_back(model.Text(changed));
  }
  return false;
}

// The optimizers a call of the optimizer method `method` may run it on: its receiver (`optimizer.step()`,
// `optimizer.first_step()`), and for a loss scaler's `scaler.step(optimizer)` its first argument.
std::vector<ts::Node> SteppedOptimizers(const Site& call, std::string_view method = "step") {
  std::vector<ts::Node> out;
  if (call.kind != SiteKind::kCall || call.name != method || call.Receiver().IsNull()) return out;
  out.push_back(call.Receiver());
  const ts::Node args = call.Arguments();
  if (method == "step" && !args.IsNull() && args.NamedChildCount() > 0 && !args.NamedChild(0).Is("keyword_argument")) {
    out.push_back(args.NamedChild(0));
  }
  return out;
}

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

bool Model::CalledOnlySwitchedOff(int function) const {
  if (function <= 0 || static_cast<size_t>(function) >= scopes_.size() ||
      scopes_[static_cast<size_t>(function)].kind != ScopeKind::kFunction) {
    return false;
  }
  size_t calls = 0;
  for (const uint32_t index : CallersOf(function)) {
    if (!SwitchedOff(sites_[index])) return false;
    ++calls;
  }
  if (project_ != nullptr && self_summary_ != nullptr) {
    const std::string qualname = QualName(function);
    if (!qualname.empty()) {
      for (const ProjectIndex::Incoming& incoming : project_->CallsOf(*self_summary_, qualname)) {
        if (!incoming.call->switched_off) return false;
        ++calls;
      }
    }
  }
  return calls > 0;
}

bool Model::ParameterNeverTrue(ts::Node condition, int scope) const {
  condition = Unparen(condition);
  ts::Node name = condition;
  int is_none = -1;  // `name is None`: 1, `name is not None`: 0; -1: the name itself
  if (KindOf(condition) == K::kComparison && condition.NamedChildCount() == 2 && condition.ChildCount() == 3) {
    const std::string_view op = Text(condition.Child(1));
    if (op != "is" && !(op.starts_with("is") && op.ends_with("not"))) return false;
    ts::Node left = Unparen(condition.NamedChild(0));
    ts::Node right = Unparen(condition.NamedChild(1));
    if (KindOf(left) == K::kNone) std::swap(left, right);
    if (KindOf(right) != K::kNone) return false;
    name = left;
    is_none = op == "is" ? 1 : 0;
  }
  if (KindOf(name) != K::kIdentifier) return false;
  const Binding* binding = SingleBinding(Text(name), scope);
  if (binding == nullptr || binding->kind != BindingKind::kParameter || binding->value.IsNull()) return false;
  // The default makes the condition false...
  const Value value = Resolve(binding->value, scopes_[static_cast<size_t>(binding->scope)].parent);
  if (!value.known()) return false;
  if (is_none >= 0 ? (value.kind == ValueKind::kNone) == (is_none == 1) : value.Truthy().value_or(true)) return false;
  // ...and every call leaves the parameter at it: those of the file, and with a project those of other
  // files (a value a call passes, even a false one, may be a run's option: `use_amp=args.use_amp`).
  const int position = ParameterPosition(*binding);
  const std::vector<uint32_t> callers = CallersOf(binding->scope);
  for (const uint32_t index : callers) {
    const Site& call = sites_[index];
    if (HasStarArgs(call) || FindArgument(call, binding->name, position)) return false;
  }
  // (RemoteArguments answers only for functions the file never calls: here both kinds of calls count.)
  size_t remote = 0;
  if (project_ != nullptr && self_summary_ != nullptr) {
    const std::string qualname = QualName(binding->scope);
    for (const ProjectIndex::Incoming& incoming :
         qualname.empty() ? std::span<const ProjectIndex::Incoming>() : project_->CallsOf(*self_summary_, qualname)) {
      if (incoming.call->splat) return false;
      for (const CallArgument& argument : incoming.call->arguments) {
        if (argument.keyword.empty() ? position >= 0 && argument.position == position
                                     : argument.keyword == binding->name) {
          return false;
        }
      }
      ++remote;
    }
  }
  return !callers.empty() || remote > 0;
}

bool Model::SwitchedOff(const Site& site) const {
  for (int g = site.guard; g >= 0; g = guards_[static_cast<size_t>(g)].parent) {
    const Guard& guard = guards_[static_cast<size_t>(g)];
    const auto truthy = Resolve(guard.condition, guard.scope).Truthy();
    if (truthy.has_value() && !*truthy) return true;
    // `if debug:` on a parameter (`def main(debug=False)`) that every call leaves at, or sets to, a false
    // value: every value the name can take is known and false.
    if (truthy.has_value() || KindOf(Unparen(guard.condition)) != K::kIdentifier) continue;
    const std::vector<Value> values = ResolveAll(guard.condition, guard.scope);
    if (!values.empty() && std::all_of(values.begin(), values.end(), [](const Value& v) {
          const auto t = v.Truthy();
          return t.has_value() && !*t;
        })) {
      return true;
    }
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

std::vector<Model::UpdateLoop> Model::ParameterUpdateLoops() const {
  std::vector<UpdateLoop> out;
  for (size_t i = 0; i < loops_.size(); ++i) {
    const Loop& loop = loops_[i];
    if (loop.kind != LoopKind::kFor || loop.role != LoopRole::kPerElement || !loop.target.Is("identifier")) continue;
    // `model.parameters()`, `module.parameters()`: a method call named parameters on a receiver.
    if (!loop.iterable.Is("call")) continue;
    const ts::Node callee = loop.iterable.Field("function");
    if (!callee.Is("attribute") || Text(callee.Field("attribute")) != "parameters") continue;
    if (!RunsEveryTrainingStep(static_cast<int>(i))) continue;
    if (UpdatesFromGradient(*this, loop.body, Text(loop.target))) out.push_back({static_cast<int>(i), nullptr});
  }
  // A method of an optimizer class of the file (`step`, SAM's `first_step`), once each, at the first
  // training step that calls it.
  for (const std::string_view method : OptimizerUpdateMethods()) {
    for (const uint32_t index : CallsNamed(method)) {
      const Site& call = sites_[index];
      if (call.cadence != Cadence::kTrainingStep) continue;
      for (const ts::Node optimizer : SteppedOptimizers(call, method)) {
        const ValueSource source = SourceOf(optimizer, call.scope, 0);
        const ConfigClass* cls = source.known() && source.element < 0 ? ClassNamed(source.call) : nullptr;
        if (cls == nullptr) continue;
        const int found = ClassMethod(cls->scope, method);
        const int loop = found >= 0 ? OptimizerUpdateLoop(found) : -1;
        const bool seen = std::any_of(out.begin(), out.end(), [&](const UpdateLoop& u) { return u.loop == loop; });
        if (loop >= 0 && !seen) out.push_back({loop, &call});
      }
    }
  }
  return out;
}

const std::vector<int>& Model::OptimizerClasses() const {
  std::call_once(optimizer_classes_once_, [&] {
    for (size_t s = 0; s < scopes_.size(); ++s) {
      if (scopes_[s].kind == ScopeKind::kClass && DerivesFromOptimizerUncached(static_cast<int>(s), 0)) {
        optimizer_classes_.push_back(static_cast<int>(s));
      }
    }
  });
  return optimizer_classes_;
}

std::vector<std::string_view> Model::OptimizerUpdateMethods() const {
  std::vector<std::string_view> out;
  const std::vector<int>& classes = OptimizerClasses();
  if (classes.empty()) return out;
  for (size_t s = 0; s < scopes_.size(); ++s) {
    if (scopes_[s].kind != ScopeKind::kFunction ||
        !std::binary_search(classes.begin(), classes.end(), scopes_[s].parent)) {
      continue;
    }
    const std::string_view name = scopes_[s].name;
    if (std::find(out.begin(), out.end(), name) != out.end()) continue;
    if (OptimizerUpdateLoop(static_cast<int>(s)) >= 0) out.push_back(name);
  }
  return out;
}

bool Model::DerivesFromOptimizer(int cls) const {
  const std::vector<int>& classes = OptimizerClasses();
  return std::binary_search(classes.begin(), classes.end(), cls);
}

bool Model::DerivesFromOptimizerUncached(int cls, int depth) const {
  if (depth > 8) return false;
  for (const auto& [base, canonical] : BasesOf(cls)) {
    if (canonical == "torch.optim.Optimizer" || canonical == "torch.optim.optimizer.Optimizer") return true;
    // A class of the file that is one (`class LARS(BaseOptimizer)`).
    const ConfigClass* local = canonical.empty() && KindOf(base) == K::kIdentifier ? ClassNamed(Text(base)) : nullptr;
    if (local != nullptr && local->scope != cls && DerivesFromOptimizerUncached(local->scope, depth + 1)) return true;
  }
  return false;
}

int Model::OptimizerUpdateLoop(int method) const {
  const Scope& scope = scopes_[static_cast<size_t>(method)];
  // Any method but the special ones (`__init__` sets up state; the training step calls the others).
  if (scope.kind != ScopeKind::kFunction || scope.name.starts_with("__") || scope.parent < 0 ||
      scopes_[static_cast<size_t>(scope.parent)].kind != ScopeKind::kClass || !DerivesFromOptimizer(scope.parent)) {
    return -1;
  }
  for (size_t i = 0; i < loops_.size(); ++i) {
    const Loop& loop = loops_[i];
    if (loop.scope != method || loop.kind != LoopKind::kFor || !loop.target.Is("identifier")) continue;
    if (UpdatesFromGradient(*this, loop.body, Text(loop.target))) return static_cast<int>(i);
  }
  return -1;
}

std::vector<Model::RemoteUpdateLoop> Model::CrossFileUpdateLoops() const {
  std::vector<RemoteUpdateLoop> out;
  if (project_ == nullptr || self_summary_ == nullptr) return out;
  for (const std::string& method : project_->UpdateLoopMethods()) {
    for (const uint32_t index : CallsNamed(method)) {
      const Site& call = sites_[index];
      if (call.cadence != Cadence::kTrainingStep) continue;
      for (const ts::Node optimizer : SteppedOptimizers(call, method)) {
        const auto cls = ClassOf(optimizer, call.scope);
        if (!cls || cls->file == self_summary_) continue;  // the file's own classes: ParameterUpdateLoops
        const auto found = project_->MethodOf(*cls, method);
        if (!found || found->function->update_loop_line == 0) continue;
        out.push_back({&call, found->file->path, found->function->update_loop_line, found->function->update_loop_column,
                       std::string(found->qualname)});
        break;
      }
    }
  }
  return out;
}

bool Model::StepsProjectOptimizer(const Site& call) const {
  const std::vector<ts::Node> optimizers = SteppedOptimizers(call);
  return std::any_of(optimizers.begin(), optimizers.end(),
                     [&](ts::Node optimizer) { return SourceOf(optimizer, call.scope, 0).known(); });
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
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    if (AccumulatingHelper(sites_[i])) out.push_back(i);
  }
  return out;
}

std::optional<Model::RemoteStep> Model::AccumulatingHelper(const Site& site) const {
  // A helper that runs `backward()` on every call and steps the optimizer only when a parameter says so
  // (`loss_scaler(loss, optimizer, update_grad=(i + 1) % accum_iter == 0)`). The loop around it may look
  // like an evaluation loop (its backward is in the helper): any per-step loop counts.
  if (site.kind != SiteKind::kCall || !site.per_step() || site.loop < 0) return std::nullopt;
  const ts::Node args = site.Arguments();
  bool periodic_argument = false;
  for (uint32_t a = 0; !args.IsNull() && a < args.NamedChildCount() && !periodic_argument; ++a) {
    ts::Node arg = args.NamedChild(a);
    if (KindOf(arg) == K::kKeywordArgument) arg = Field(arg, F::kValue);
    periodic_argument = PeriodicCondition(arg, site.scope);
  }
  if (!periodic_argument) return std::nullopt;
  // A function of the file (`optimizer_step(loss, optimizer, ..., is_update=is_update)`).
  if (const std::vector<int>* callees = LocalCallees(site); callees != nullptr && callees->size() == 1) {
    const int function = callees->front();
    const StepSites step = StepSitesPerCall()[static_cast<size_t>(function)];
    if (step.backward != nullptr && step.guard != nullptr) {
      const auto arg = FindArgument(site, step.guard->name, ParameterPosition(*step.guard));
      if (arg && PeriodicCondition(arg->value, site.scope)) {
        RemoteStep local;
        local.function = QualName(function);
        if (local.function.empty()) local.function = std::string(scopes_[static_cast<size_t>(function)].name);
        local.guard = std::string(step.guard->name);
        local.local_backward = step.backward->node;
        return local;
      }
    }
  }
  if (project_ == nullptr) return std::nullopt;
  for (const Callee& callee : ProjectCallees(site)) {
    const auto found = ResolveCallee(callee);
    if (!found || found->function->step.backward_line == 0 || found->function->step.guard.empty()) continue;
    const StepSummary& step = found->function->step;
    const auto arg = FindArgument(site, step.guard, step.guard_position);
    if (arg && PeriodicCondition(arg->value, site.scope)) {
      return RemoteStep{found->file->path, step.backward_line, step.backward_column, std::string(found->qualname),
                        step.guard,        ts::Node()};
    }
  }
  return std::nullopt;
}

}  // namespace tl::semantic
