// Instances of the project's classes: where a value comes from as far as its class goes (SourceOf, what
// the summary tells other files of its calls' arguments and its functions' returns), the class of an
// expression through the project index (ClassOf: a construction, a factory of another file, a parameter
// every caller fills alike), and what a method does to the training step on every call (StepOf, TL601).
#include <algorithm>

#include "linter/semantic/builder.h"

namespace tl::semantic {
namespace {

constexpr int kMaxSourceDepth = 8;  // bindings, parameters and wrappers followed before "unknown"

// CanonicalName of a call's callee: the site's cached one when the call is one of the file's sites.
std::string CallCanonical(const Model& model, ts::Node call) {
  if (const Site* site = model.SiteOf(call); site != nullptr && site->kind == SiteKind::kCall) {
    return std::string(model.CalleeCanonical(*site));
  }
  return model.CanonicalName(Field(call, F::kFunction));
}

}  // namespace

bool ModuleWrapper(std::string_view canonical) {
  return canonical == "torch.nn.parallel.DistributedDataParallel" || canonical == "torch.nn.DataParallel" ||
         canonical == "torch.nn.parallel.DataParallel";
}

bool ReturnsSelfModule(std::string_view method) {
  return method == "to" || method == "cuda" || method == "train" || method == "eval" || method == "float" ||
         method == "half";
}

ts::Node Model::SameObject(ts::Node expr) const {
  for (int depth = 0; depth < kMaxSourceDepth; ++depth) {
    expr = Unparen(expr);
    if (KindOf(expr) != K::kCall) return expr;
    const ts::Node function = Field(expr, F::kFunction);
    const ts::Node args = Field(expr, F::kArguments);
    if (ModuleWrapper(CallCanonical(*this, expr))) {
      // `DistributedDataParallel(model, device_ids=[gpu])`: the module is the first argument.
      if (args.IsNull() || args.NamedChildCount() == 0 || KindOf(args.NamedChild(0)) == K::kKeywordArgument) {
        return expr;
      }
      expr = args.NamedChild(0);
      continue;
    }
    // `model.cuda(gpu)`, `model.to(device)`, `.train()`, `.eval()`, `.float()`, `.half()`: a module's own
    // methods that return the module itself.
    if (KindOf(function) != K::kAttribute) return expr;
    if (!ReturnsSelfModule(Text(Field(function, F::kAttribute)))) return expr;
    expr = Field(function, F::kObject);
  }
  return expr;
}

ValueSource Model::SourceOf(ts::Node expr, int scope, int depth) const {
  if (depth > kMaxSourceDepth) return {};
  expr = SameObject(expr);
  const K k = KindOf(expr);
  if (k == K::kCall) {
    const ts::Node function = Field(expr, F::kFunction);
    if (std::string canonical = CallCanonical(*this, expr); !canonical.empty()) {
      return ThirdParty(canonical) ? ValueSource{} : ValueSource{std::move(canonical), -1};
    }
    // A class or function of the file itself, by its bare name (the index looks there first).
    if (KindOf(function) != K::kIdentifier) return {};
    const std::string_view name = Text(function);
    const ConfigClass* cls = ClassNamed(name);
    const bool top_class = cls != nullptr && scopes_[static_cast<size_t>(cls->scope)].parent == 0;
    const auto functions = FunctionsNamed(name);
    const bool top_function = std::any_of(functions.begin(), functions.end(), [&](const auto& f) {
      return scopes_[static_cast<size_t>(f.second)].parent == 0;
    });
    return top_class || top_function ? ValueSource{std::string(name), -1} : ValueSource{};
  }
  if (k == K::kAttribute) return AttributeSource(expr, scope, depth);
  if (k != K::kIdentifier) return {};
  const std::string_view name = Text(expr);
  if (name == "self" || name == "cls") return {};
  const int bound = BindingScope(name, scope);
  if (bound < 0) return {};
  // Every binding of the name in its scope must say the same class; when they do not, those the run's
  // defaults take (OffByDefault): `if args.optimizer == "lars": optimizer = LARS(...)` with "lars" the
  // argparse default, and not the `elif` that builds AdamW.
  const std::span<const uint32_t> bindings = BindingsIn(name, bound, bound);
  ValueSource out = BindingsSource(name, bindings, depth, false);
  if (!out.known() && bindings.size() > 1 &&
      std::any_of(bindings.begin(), bindings.end(), [&](uint32_t index) { return OffByDefault(bindings_[index]); })) {
    out = BindingsSource(name, bindings, depth, true);
  }
  return out;
}

ValueSource Model::BindingsSource(std::string_view name, std::span<const uint32_t> bindings, int depth,
                                  bool by_default) const {
  ValueSource out;
  for (const uint32_t index : bindings) {
    const Binding& binding = bindings_[index];
    if (by_default && OffByDefault(binding)) continue;
    ValueSource one;
    if (binding.kind == BindingKind::kAssign && binding.position == -1) {
      const ts::Node value = SameObject(binding.value);
      // `model = DistributedDataParallel(model)`: the same object; `decoder = checkpoint["decoder"]`: a
      // module loaded whole, of the class the name's other bindings build.
      if (KindOf(value) == K::kSubscript || (KindOf(value) == K::kIdentifier && Text(value) == name)) continue;
      one = SourceOf(value, binding.scope, depth + 1);
    } else if (binding.kind == BindingKind::kAssign && KindOf(Unparen(binding.value)) == K::kCall) {
      // `model, criterion, postprocessors = build_model(args)`.
      const ValueSource whole = SourceOf(binding.value, binding.scope, depth + 1);
      if (whole.element >= 0) return {};
      one = {whole.call, binding.position};
    } else if (binding.kind == BindingKind::kParameter) {
      // The calls of the file must all pass the same class (another file's calls: ClassOf).
      const int position = ParameterPosition(binding);
      const std::vector<uint32_t> callers = CallersOf(binding.scope);
      for (const uint32_t caller : callers) {
        const Site& call = sites_[caller];
        const auto arg = FindArgument(call, binding.name, position);
        const ValueSource passed = arg ? SourceOf(arg->value, call.scope, depth + 1) : ValueSource{};
        if (!passed.known() || (one.known() && !(one == passed))) return {};
        one = passed;
      }
    }
    if (!one.known() || (out.known() && !(out == one))) return {};
    out = std::move(one);
  }
  return out;
}

bool Model::OffByDefault(const Binding& binding) const {
  const uint32_t at = binding.target.StartByte();
  for (const Guard& guard : guards_) {
    if (guard.scope != binding.scope || guard.block.IsNull() || at < guard.block.StartByte()) continue;
    if (at < guard.block.EndByte()) {
      // In the branch: its condition must not fail.
      if (Resolve(guard.condition, guard.scope).Truthy() == false) return true;
    } else if (at < guard.statement_end) {
      // In a later `elif`/`else` of the same statement: this condition must not hold.
      if (Resolve(guard.condition, guard.scope).Truthy() == true) return true;
    }
  }
  return false;
}

ValueSource Model::AttributeSource(ts::Node attribute, int scope, int depth) const {
  // `self.matcher` in a method: what the class's methods assign to it (`self.matcher = matcher` in
  // `__init__`, with every construction of the class in the file passing `build_matcher(args)`).
  const ts::Node object = Unparen(Field(attribute, F::kObject));
  if (KindOf(object) != K::kIdentifier || Text(object) != "self") return {};
  const int cls = scope > 0 ? scopes_[static_cast<size_t>(scope)].parent : -1;
  ValueSource out;
  for (const uint32_t index : ClassAttributeBindings(Text(attribute), scope)) {
    const Binding& binding = bindings_[index];
    if (scopes_[static_cast<size_t>(binding.scope)].parent != cls) continue;
    if (binding.kind != BindingKind::kAssign || binding.position != -1) return {};
    const ValueSource one = SourceOf(binding.value, binding.scope, depth + 1);
    if (!one.known() || (out.known() && !(out == one))) return {};
    out = one;
  }
  return out;
}

std::span<const uint32_t> Model::ClassAttributeBindings(std::string_view attribute, int scope) const {
  if (scope <= 0 || static_cast<size_t>(scope) >= scopes_.size()) return {};
  const int cls = scopes_[static_cast<size_t>(scope)].parent;
  if (cls < 0 || scopes_[static_cast<size_t>(cls)].kind != ScopeKind::kClass) return {};
  // The class's methods are the scopes right after it (the walk numbers scopes in document order): only
  // their bindings of the name are read, not those of every class of the file.
  size_t next = static_cast<size_t>(cls) + 1;
  while (next < scopes_.size() && scopes_[next].parent >= cls) ++next;
  return BindingsIn(attribute, cls + 1, static_cast<int>(next) - 1);
}

std::optional<ProjectIndex::ClassRef> Model::ClassOf(ts::Node expr, int scope) const {
  if (project_ == nullptr || self_summary_ == nullptr) return std::nullopt;
  expr = SameObject(expr);
  if (const ValueSource source = SourceOf(expr, scope, 0); source.known()) {
    return project_->ResolveClass(*self_summary_, source);
  }
  // A parameter no call of the file fills: the class every call from other files passes.
  if (KindOf(expr) != K::kIdentifier) return std::nullopt;
  const Binding* parameter = SingleBinding(Text(expr), scope);
  if (parameter == nullptr || parameter->kind != BindingKind::kParameter) return std::nullopt;
  std::optional<ProjectIndex::ClassRef> out;
  const std::vector<RemoteArgument> remote = RemoteArguments(*parameter);
  for (const RemoteArgument& argument : remote) {
    if (argument.argument == nullptr) return std::nullopt;
    auto cls = project_->ResolveClass(*argument.caller, argument.argument->source);
    if (!cls || (out && !(*out == *cls))) return std::nullopt;
    out = std::move(cls);
  }
  return out;
}

bool Model::MayHoldInstance(const Site& call) const {
  if (call.kind != SiteKind::kCall) return false;
  ts::Node head = call.callee;
  if (KindOf(head) == K::kAttribute) head = Unparen(Field(head, F::kObject));
  if (KindOf(head) != K::kIdentifier) return false;
  const std::string_view name = Text(head);
  if (name == "self" || name == "cls" || FindImport(name) != nullptr) return false;
  const Binding* binding = SingleBinding(name, call.scope);
  if (binding != nullptr && binding->kind == BindingKind::kParameter) return true;
  return SourceOf(head, call.scope, 0).known();
}

bool Model::PeriodicCondition(ts::Node expr, int scope) const {
  expr = Unparen(expr);
  // A name bound once to such a condition (`is_update = step % args.grad_acc == 0`, also written `True if
  // ... else False`), then passed on or tested.
  for (int depth = 0; depth < 2 && KindOf(expr) == K::kIdentifier; ++depth) {
    const Binding* binding = SingleBinding(Text(expr), scope);
    if (binding == nullptr || binding->kind != BindingKind::kAssign || binding->position != -1) break;
    expr = Unparen(binding->value);
    scope = binding->scope;
  }
  if (KindOf(expr) == K::kConditional && NamedChildCount(expr) == 3 && Text(NamedChild(expr, 0)) == "True" &&
      Text(NamedChild(expr, 2)) == "False") {
    expr = Unparen(NamedChild(expr, 1));
  }
  ts::Node modulo;
  if (KindOf(expr) == K::kNot) {
    modulo = Unparen(Field(expr, F::kArgument));
  } else if (KindOf(expr) == K::kComparison && expr.NamedChildCount() == 2 && expr.ChildCount() == 3 &&
             Text(expr.Child(1)) == "==") {
    for (uint32_t i = 0; i < 2; ++i) {
      const ts::Node side = Unparen(expr.NamedChild(i));
      if (KindOf(side) == K::kBinary && Resolve(expr.NamedChild(1 - i), scope).AsInt().has_value()) modulo = side;
    }
  }
  if (KindOf(modulo) != K::kBinary || Text(Field(modulo, F::kOperator)) != "%") return false;
  // As a guard's period: N above 1, or unknown (Builder::Periodic); or an option of the run, whatever its
  // default (`args.accum_iter`, default 1): the code is written to accumulate when it is set.
  ts::Node period = Unparen(Field(modulo, F::kRight));
  const auto n = Resolve(period, scope).AsInt();
  if (!n.has_value() || *n > 1) return true;
  return PeriodIsOption(period, scope);
}

bool Model::PeriodIsOption(ts::Node period, int scope) const {
  period = Unparen(period);
  for (int depth = 0; depth < kMaxSourceDepth && KindOf(period) == K::kIdentifier; ++depth) {
    const Binding* binding = SingleBinding(Text(period), scope);
    if (binding == nullptr || binding->kind != BindingKind::kAssign || binding->position != -1) break;
    period = Unparen(binding->value);
    scope = binding->scope;
  }
  // `def train_one_epoch(..., update_freq)`: what the callers pass, the run's option.
  if (KindOf(period) == K::kIdentifier) {
    const Binding* binding = SingleBinding(Text(period), scope);
    return binding != nullptr && binding->kind == BindingKind::kParameter;
  }
  if (KindOf(period) != K::kAttribute) return false;
  ts::Node head = period;
  while (KindOf(head) == K::kAttribute) head = Unparen(Field(head, F::kObject));
  if (KindOf(head) != K::kIdentifier) return false;
  const Binding* holder = SingleBinding(Text(head), scope);
  return HoldsConfig(head, scope, 0) || (holder != nullptr && holder->kind == BindingKind::kParameter);
}

std::vector<StepSummary> Model::StepsPerCall(const SourceFile& file) const {
  const std::vector<StepSites> found = StepSitesPerCall();
  std::vector<StepSummary> out(scopes_.size());
  for (size_t function = 0; function < found.size(); ++function) {
    const StepSites& step = found[function];
    if (step.backward == nullptr) continue;
    // A backward pass on every call: a loop that calls it trains (Builder::ReviewTrainingHelpers).
    const LineColumn backward_at = file.lines().Locate(step.backward->node.StartByte());
    out[function].backward_line = backward_at.line;
    out[function].backward_column = backward_at.column;
    if (step.guard == nullptr) continue;
    out[function].guard = std::string(step.guard->name);
    out[function].guard_position = ParameterPosition(*step.guard);
  }
  return out;
}

std::vector<Model::StepSites> Model::StepSitesPerCall() const {
  // One pass over the sites: per function, its first backward that runs on every call and its first
  // optimizer step.
  std::vector<std::pair<const Site*, const Site*>> found(scopes_.size(), {nullptr, nullptr});
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || (site.name != "backward" && site.name != "step") || site.Receiver().IsNull() ||
        scopes_[static_cast<size_t>(site.scope)].kind != ScopeKind::kFunction) {
      continue;
    }
    auto& [backward, step] = found[static_cast<size_t>(site.scope)];
    if (site.name == "backward" && backward == nullptr && RunsOnEachCall(site) && !GuardedByParameters(site)) {
      backward = &site;
    }
    if (site.name == "step" && step == nullptr) {
      const ts::Node args = site.Arguments();
      if (IsOptimizerLike(site.Receiver(), site.scope) ||
          (!args.IsNull() && args.NamedChildCount() > 0 && IsOptimizerLike(args.NamedChild(0), site.scope))) {
        step = &site;
      }
    }
  }
  std::vector<StepSites> out(scopes_.size());
  for (size_t function = 0; function < found.size(); ++function) {
    const auto& [backward, step] = found[function];
    if (backward == nullptr) continue;
    out[function].backward = backward;
    if (step == nullptr) continue;
    // `if update_grad:` around the optimizer step, with `update_grad` a parameter.
    for (int g = step->guard; g >= 0; g = guards_[static_cast<size_t>(g)].parent) {
      const ts::Node condition = Unparen(guards_[static_cast<size_t>(g)].condition);
      if (KindOf(condition) != K::kIdentifier) continue;
      const Binding* parameter = SingleBinding(Text(condition), static_cast<int>(function));
      if (parameter == nullptr || parameter->kind != BindingKind::kParameter ||
          parameter->scope != static_cast<int>(function)) {
        continue;
      }
      out[function].guard = parameter;
      break;
    }
  }
  return out;
}

}  // namespace tl::semantic
