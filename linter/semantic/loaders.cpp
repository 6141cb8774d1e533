// DataLoaders as values (TL203, TL204): which `DataLoader(...)` call an expression stands for, the loops
// over it, whether such a loop starts more than once (once per epoch), and which values are its batches.
#include <algorithm>
#include <array>

#include "linter/semantic/builder.h"

namespace tl::semantic {
namespace {

constexpr std::array<std::string_view, 5> kWrappers = {"enumerate", "tqdm", "iter", "islice", "zip"};

}  // namespace

const Site* Model::LoaderCallOf(ts::Node expr, int scope) const {
  std::vector<const Site*> loaders;
  if (!LoaderCallsDepth(expr, scope, 0, loaders) || loaders.size() != 1) return nullptr;
  return loaders.front();
}

namespace {

void AddOnce(const Site* site, std::vector<const Site*>& out) {
  if (std::find(out.begin(), out.end(), site) == out.end()) out.push_back(site);
}

// How much of the chains' bound one step through the callers of a function (or its returns) spends: a
// step with one source is a step like any other, one that fans out to several takes four, so that chains
// that multiply their sources end sooner (`train_loader` handed down through three single-caller
// helpers to the evaluation loop's batches is followed to its DataLoader).
int FanOutStep(size_t sources) { return sources == 1 ? 1 : 4; }

// Hugging Face Accelerate's `accelerator.prepare(model, optimizer, loader)`: it hands back each object it
// is given, in order, a loader rebuilt with the same settings (workers, pinning), so the loader that
// comes out is the one that went in. Its receiver is named for it (`accelerator`, `self.accelerator`).
bool AcceleratePrepare(const Model& model, const Site& call) {
  if (call.kind != SiteKind::kCall || call.name != "prepare") return false;
  const ts::Node receiver = Unparen(call.Receiver());
  if (receiver.IsNull()) return false;
  const std::string_view canonical = model.CalleeCanonical(call);
  return canonical.starts_with("accelerate.") || ContainsIgnoreCase(LastSegment(model.Text(receiver)), "accelerator");
}

}  // namespace

bool Model::LoaderCallsDepth(ts::Node expr, int scope, int depth, std::vector<const Site*>& out,
                             RemoteLoaders* remote) const {
  // A chain of single steps (a name to its value, a wrapper to its input), bounded in all, that fans out
  // where a value has several sources: the call sites of a parameter, the returns of a function, the
  // branches of a conditional. A function that passes its parameter to itself ends at the bound.
  for (; depth < kMaxDepth; ++depth) {
    expr = Unparen(expr);
    const K k = KindOf(expr);
    if (k == K::kConditional && expr.NamedChildCount() == 3) {
      // `make_loader(test_set) if test_set else None`: the loaders its branches hold (None holds none).
      for (uint32_t branch : {0u, 2u}) {
        const ts::Node value = expr.NamedChild(branch);
        if (KindOf(Unparen(value)) == K::kNone) continue;
        if (!LoaderCallsDepth(value, scope, depth + 4, out, remote)) return false;  // fan-out: fewer levels
      }
      return true;
    }
    if (k == K::kCall) {
      const Site* site = SiteOf(expr);
      if (site == nullptr || site->kind != SiteKind::kCall) return false;
      if (site->name == "DataLoader") {
        if (!IsCanonical(*site, "torch.utils.data.DataLoader")) return false;
        AddOnce(site, out);
        return true;
      }
      if (AcceleratePrepare(*this, *site) && !site->Arguments().IsNull() && site->Arguments().NamedChildCount() == 1) {
        expr = site->Arguments().NamedChild(0);  // `dl = accelerator.prepare(dl)`
        if (remote != nullptr) remote->prepared = true;
        continue;
      }
      if (!OneOf(site->name, kWrappers)) {
        // `loader = make_data_loader(...)` of another module: the project tells what it returns.
        if (remote != nullptr && LocalCallees(*site) == nullptr) {
          if (std::optional<std::string> function = OtherModuleFunction(*site)) {
            if (std::find(remote->factories.begin(), remote->factories.end(), *function) == remote->factories.end()) {
              remote->factories.push_back(std::move(*function));
            }
            return true;
          }
        }
        return ReturnedLoaders(*site, depth + 1, out);
      }
      if (site->Arguments().IsNull()) return false;
      if (site->name == "zip") {
        // zip(a, b): the first of its inputs that is a loader.
        const ts::Node args = site->Arguments();
        for (uint32_t i = 0; i < args.NamedChildCount(); ++i) {
          std::vector<const Site*> input;
          if (LoaderCallsDepth(args.NamedChild(i), scope, depth + 1, input) && !input.empty()) {
            for (const Site* loader : input) AddOnce(loader, out);
            return true;
          }
        }
        return false;
      }
      if (site->Arguments().NamedChildCount() == 0) return false;
      expr = site->Arguments().NamedChild(0);
      continue;
    }
    if (k != K::kIdentifier && k != K::kAttribute) return false;
    const Binding* binding = SingleBinding(Text(expr), scope);
    if (binding == nullptr && k == K::kIdentifier) {
      // Rebound in its function (`data_iter = iter(loader)` again when the iterator runs out): the
      // binding the use reads, the last one before it.
      binding = ReachingBinding(expr, scope);
      if (binding != nullptr && binding->kind != BindingKind::kAssign) return false;
    }
    if (binding != nullptr && binding->kind == BindingKind::kAssign && binding->position >= 0) {
      // `model, opt, train_dl = accelerator.prepare(model, opt, train_dl)`: the argument at that position.
      const Site* call = CallSiteOf(Unparen(binding->value));
      const ts::Node args = call != nullptr ? call->Arguments() : ts::Node();
      // The target is a flat pattern of as many names or attributes as the call has arguments (no `*rest`).
      const ts::Node pattern = binding->target.Parent();
      bool flat = true;
      for (const ts::Node element : pattern.NamedChildren()) {
        const K kind = KindOf(Unparen(element));
        flat = flat && (kind == K::kIdentifier || kind == K::kAttribute);
      }
      if (call == nullptr || !AcceleratePrepare(*this, *call) || args.IsNull() || !flat ||
          static_cast<uint32_t>(binding->position) >= args.NamedChildCount() ||
          pattern.NamedChildCount() != args.NamedChildCount()) {
        return false;
      }
      expr = args.NamedChild(static_cast<uint32_t>(binding->position));
      scope = binding->scope;
      if (remote != nullptr) remote->prepared = true;
      continue;
    }
    if (binding == nullptr || binding->position != -1 || binding->value == expr) return false;
    if (binding->kind == BindingKind::kAssign) {
      expr = binding->value;
      scope = binding->scope;
      continue;
    }
    if (binding->kind != BindingKind::kParameter) return false;
    // A parameter: the loaders the calls of its function in the file pass.
    const int position = ParameterPosition(*binding);
    if (position < 0) return false;
    const std::vector<uint32_t> callers = CallersOf(binding->scope);
    if (callers.empty() && remote != nullptr) {
      // No call of the file fills it: another file's may (BatchFromPinnedLoaders asks the project).
      remote->parameters.push_back(binding);
      return true;
    }
    if (callers.empty()) return false;
    const int step = FanOutStep(callers.size());
    for (uint32_t index : callers) {
      const Site& call = sites_[index];
      const auto arg = FindArgument(call, binding->name, position);
      if (!arg || !LoaderCallsDepth(arg->value, call.scope, depth + step, out, remote)) return false;
    }
    return true;
  }
  return false;
}

bool Model::ReturnedLoaders(const Site& call, int depth, std::vector<const Site*>& out) const {
  // A function of the file whose every return gives a loader (`def prepare_dataloader(...): return
  // DataLoader(...)`).
  const std::vector<int>* callees = LocalCallees(call);
  if (callees == nullptr || callees->size() != 1) return false;
  const int function = callees->front();
  const std::vector<ts::Node> returns = ReturnsOf(function);
  if (returns.empty()) return false;
  const int step = FanOutStep(returns.size());
  for (ts::Node value : returns) {
    if (value.IsNull() || !LoaderCallsDepth(value, function, depth + step, out)) return false;
  }
  return true;
}

bool Model::WrapsLoader(ts::Node iterable, int scope) const {
  // `for samples, targets in metric_logger.log_every(data_loader, 10, header):` a call of the project that
  // takes the loader and yields what it iterates (a logger's or prefetcher's generator).
  iterable = Unparen(iterable);
  if (KindOf(iterable) != K::kCall) return false;
  const ts::Node args = Field(iterable, F::kArguments);
  if (KindOf(args) != K::kArgumentList || args.NamedChildCount() == 0) return false;
  const ts::Node first = Unparen(args.NamedChild(0));
  const K fk = KindOf(first);
  if ((fk != K::kIdentifier && fk != K::kAttribute) || !IsDataLoaderLike(first, scope)) return false;
  const std::string canonical = CanonicalName(Field(iterable, F::kFunction));
  return canonical.empty() || !ThirdParty(canonical);
}

std::optional<std::string> Model::OtherModuleFunction(const Site& call) const {
  std::vector<Callee> callees = ProjectCallees(call);
  if (callees.size() != 1 || callees.front().kind != Callee::kFunction) return std::nullopt;
  return std::move(callees.front().dotted);
}

const std::vector<int>* Model::LocalCallees(const Site& call) const {
  const uint32_t index = static_cast<uint32_t>(&call - sites_.data());
  const auto it = std::lower_bound(local_calls_.begin(), local_calls_.end(), index,
                                   [](const auto& entry, uint32_t i) { return entry.first < i; });
  return it == local_calls_.end() || it->first != index ? nullptr : &it->second;
}

std::vector<uint32_t> Model::CallersOf(int function) const {
  std::vector<uint32_t> out;
  const Scope& scope = scopes_[static_cast<size_t>(function)];
  const bool init = scope.name == "__init__" && scope.parent >= 0;
  const std::lock_guard lock(callers_mu_);
  // Indexed once, not scanned per question: a file of thousands of functions asks for each of them.
  if (callers_version_ != local_calls_version_) {
    callers_.assign(scopes_.size(), {});
    for (const auto& [index, callees] : local_calls_) {
      for (const int callee : callees) {
        if (callee < 0 || static_cast<size_t>(callee) >= callers_.size()) continue;
        std::vector<uint32_t>& list = callers_[static_cast<size_t>(callee)];
        if (list.empty() || list.back() != index) list.push_back(index);
      }
    }
    callers_version_ = local_calls_version_;
  }
  out = callers_[static_cast<size_t>(function)];
  // `Trainer(model, loader)` runs `Trainer.__init__(self, model, loader)`.
  if (!init) return out;
  const Scope& klass = scopes_[static_cast<size_t>(scope.parent)];
  if (klass.kind != ScopeKind::kClass || klass.name.empty() || FindImport(klass.name) != nullptr) return out;
  if (!calls_by_name_made_) {
    for (uint32_t i = 0; i < sites_.size(); ++i) {
      const Site& site = sites_[i];
      if (site.kind == SiteKind::kCall && KindOf(site.callee) == K::kIdentifier) {
        calls_by_name_.emplace_back(Text(site.callee), i);
      }
    }
    std::stable_sort(calls_by_name_.begin(), calls_by_name_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    calls_by_name_made_ = true;
  }
  const auto [first, last] = std::equal_range(calls_by_name_.begin(), calls_by_name_.end(),
                                              std::pair<std::string_view, uint32_t>(klass.name, 0),
                                              [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto it = first; it != last; ++it) out.push_back(it->second);
  return out;
}

std::vector<ts::Node> Model::ReturnsOf(int function) const {
  std::vector<ts::Node> out;
  for (const auto& [scope, value] : returns_) {
    if (scope == function) out.push_back(value);
  }
  return out;
}

bool Model::FactoryRunsRepeatedly(const Site& loader) const {
  const int function = loader.scope;
  if (scopes_[static_cast<size_t>(function)].kind != ScopeKind::kFunction) return false;
  const std::vector<ts::Node> returns = ReturnsOf(function);
  const bool returned = std::any_of(returns.begin(), returns.end(), [&](ts::Node value) {
    return !value.IsNull() && LoaderCallOf(value, function) == &loader;
  });
  return returned && ScopeRunsInLoop(function);
}

int Model::ParameterPosition(const Binding& parameter) const {
  const Scope& function = scopes_[static_cast<size_t>(parameter.scope)];
  ts::Node params = Field(function.node, F::kParameters);
  int position = -1;
  for (uint32_t i = 0; i < params.NamedChildCount(); ++i) {
    ts::Node p = params.NamedChild(i);
    ts::Node name = KindOf(p) == K::kIdentifier ? p : Field(p, F::kName);
    if (KindOf(p) == K::kTypedParameter && p.NamedChildCount() > 0) name = p.NamedChild(0);
    if (name == parameter.target) {
      position = static_cast<int>(i);
      break;
    }
  }
  if (position < 0) return -1;
  const bool method = function.parent >= 0 && scopes_[static_cast<size_t>(function.parent)].kind == ScopeKind::kClass &&
                      !IsStaticMethod(parameter.scope);
  return method ? position - 1 : position;  // `self`
}

bool Model::IsStaticMethod(int scope) const {
  const Scope& function = scopes_[static_cast<size_t>(scope)];
  if (function.decorated.IsNull()) return false;
  const std::string_view decorators =
      Text(function.decorated).substr(0, function.node.StartByte() - function.decorated.StartByte());
  return decorators.find("staticmethod") != std::string_view::npos;
}

std::vector<int> Model::LoopsOverLoader(const Site& loader) const {
  std::vector<int> out;
  for (size_t i = 0; i < loops_.size(); ++i) {
    const Loop& loop = loops_[i];
    if (loop.kind != LoopKind::kFor || loop.iterable.IsNull()) continue;
    if (LoaderCallOf(loop.iterable, loop.scope) == &loader) out.push_back(static_cast<int>(i));
  }
  return out;
}

bool Model::ScopeRunsInLoop(int scope) const {
  // The functions whose every run runs `scope` once, from its own up through the file's callers.
  std::vector<int> functions{scope};
  for (size_t next = 0; next < functions.size() && next < 64; ++next) {
    const int function = functions[next];
    if (scopes_[static_cast<size_t>(function)].kind != ScopeKind::kFunction) continue;
    for (const auto& [index, callees] : local_calls_) {
      if (std::find(callees.begin(), callees.end(), function) == callees.end()) continue;
      const Site& call = sites_[index];
      if (call.loop >= 0) return true;
      if (std::find(functions.begin(), functions.end(), call.scope) == functions.end()) {
        functions.push_back(call.scope);
      }
    }
  }
  return false;
}

bool Model::LoopRepeatsOver(int loop, const Site& source) const {
  const Loop& over = loops_[static_cast<size_t>(loop)];
  bool outer = false;
  for (int p = over.parent; p >= 0; p = loops_[static_cast<size_t>(p)].parent) {
    outer = true;
    if (!loops_[static_cast<size_t>(p)].node.Range().Contains(source.node.Range())) return true;
  }
  return !outer && source.scope != over.scope && StartsRepeatedly(loop);
}

std::pair<const Site*, int> Model::ResultSource(ts::Node expr, int scope, int depth, ElementRead* element) const {
  for (; depth < kMaxDepth; ++depth) {
    expr = Unparen(expr);
    const K k = KindOf(expr);
    if (k == K::kCall) {
      const Site* site = SiteOf(expr);
      if (site == nullptr || site->kind != SiteKind::kCall) return {nullptr, -1};
      if (!OneOf(site->name, kWrappers) || site->name == "zip") return {site, -1};
      if (site->Arguments().IsNull() || site->Arguments().NamedChildCount() == 0) return {nullptr, -1};
      expr = site->Arguments().NamedChild(0);  // enumerate(x), tqdm(x), iter(x)
      continue;
    }
    // `test_loaders[i]`: an element of the container the result is (a list of loaders), for the caller
    // that asks (ElementRead).
    if (k == K::kSubscript && element != nullptr && element->node.IsNull()) {
      element->node = expr;
      element->scope = scope;
      expr = Field(expr, F::kValue);
      continue;
    }
    if (k != K::kIdentifier && k != K::kAttribute) return {nullptr, -1};
    const Binding* binding = SingleBinding(Text(expr), scope);
    if (binding == nullptr && k == K::kIdentifier) binding = ReachingBinding(expr, scope);
    if (binding == nullptr || binding->value == expr) return {nullptr, -1};
    if (binding->kind == BindingKind::kParameter) {
      // The result every call of the function in the file passes.
      const int position = ParameterPosition(*binding);
      const std::vector<uint32_t> callers = CallersOf(binding->scope);
      if (position < 0 || callers.empty()) return {nullptr, -1};
      std::pair<const Site*, int> found{nullptr, -1};
      for (uint32_t index : callers) {
        const Site& call = sites_[index];
        const auto arg = FindArgument(call, binding->name, position);
        const auto source = arg ? ResultSource(arg->value, call.scope, depth + 4, element)
                                : std::pair<const Site*, int>{};
        if (source.first == nullptr || (found.first != nullptr && source != found)) return {nullptr, -1};
        found = source;
      }
      return found;
    }
    if (binding->kind != BindingKind::kAssign) return {nullptr, -1};
    if (binding->position == -1) {
      expr = binding->value;
      scope = binding->scope;
      continue;
    }
    // `train_loader, val_loader = make_loaders()`: an element of what the call returns; `a, b = x, y`
    // pairs them.
    const ts::Node value = Unparen(binding->value);
    if (binding->pattern_size == 0 || binding->position < 0 || binding->position >= 31) return {nullptr, -1};
    if (KindOf(value) == K::kCall) {
      const Site* site = SiteOf(value);
      if (site == nullptr || site->kind != SiteKind::kCall) return {nullptr, -1};
      return {site, binding->position};
    }
    if ((KindOf(value) != K::kTuple && KindOf(value) != K::kExpressionList) ||
        value.NamedChildCount() != binding->pattern_size) {
      return {nullptr, -1};
    }
    expr = value.NamedChild(static_cast<uint32_t>(binding->position));
    scope = binding->scope;
  }
  return {nullptr, -1};
}

std::optional<std::pair<const Site*, std::string_view>> Model::AttributeOfResult(ts::Node expr, int scope) const {
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    expr = Unparen(expr);
    if (KindOf(expr) != K::kCall) break;
    const Site* site = SiteOf(expr);  // enumerate(x), tqdm(x), iter(x)
    if (site == nullptr || site->kind != SiteKind::kCall || !OneOf(site->name, kWrappers) || site->name == "zip" ||
        site->Arguments().IsNull() || site->Arguments().NamedChildCount() == 0) {
      return std::nullopt;
    }
    expr = site->Arguments().NamedChild(0);
  }
  if (KindOf(expr) != K::kAttribute || !BindingsOf(Text(expr)).empty()) return std::nullopt;
  const auto source = ResultSource(Field(expr, F::kObject), scope, 0);
  if (source.first == nullptr || source.second != -1) return std::nullopt;
  return std::pair(source.first, Text(Field(expr, F::kAttribute)));
}

Model::ReiteratedResults Model::ReiteratedResultBits() const {
  ReiteratedResults out;
  std::vector<uint32_t>& bits = out.bits;
  bits.assign(sites_.size(), 0);
  // ScopeRunsInLoop once per scope: every call of the file is asked.
  std::vector<int8_t> scope_repeats(scopes_.size(), -1);
  const auto runs_repeatedly = [&](const Site& site) {
    if (site.loop >= 0) return true;
    int8_t& repeats = scope_repeats[static_cast<size_t>(site.scope)];
    if (repeats < 0) repeats = ScopeRunsInLoop(site.scope) ? 1 : 0;
    return repeats == 1;
  };
  // Only calls of functions other files define, whose own run is once: a call in a loop builds anew.
  const auto other_file = [&](const Site* source) {
    if (source == nullptr || source->name == "DataLoader" || runs_repeatedly(*source)) return size_t{0};
    const size_t index = static_cast<size_t>(source - sites_.data());
    return index < callee_canonical_.size() && !callee_canonical_[index].empty() ? index + 1 : size_t{0};
  };
  const auto mark = [&](std::pair<const Site*, int> source) {
    if (const size_t index = other_file(source.first); index > 0) {
      bits[index - 1] |= 1u << static_cast<uint32_t>(source.second + 1);
    }
  };
  // `dataset.train` of `dataset = Cifar(...)`: the attribute of the result.
  const auto mark_attribute = [&](ts::Node expr, int scope, int loop) {
    const auto attribute = AttributeOfResult(expr, scope);
    if (!attribute || (loop >= 0 && !LoopRepeatsOver(loop, *attribute->first))) return;
    if (const size_t index = other_file(attribute->first); index > 0) {
      out.attributes.emplace_back(static_cast<uint32_t>(index - 1), attribute->second);
    }
  };
  // An element of a result (`loaders[index]`) is iterated again only when the sweep over the elements
  // repeats: two loops around the read that do not hold the call (the epoch loop around the index loop),
  // counting a function that runs in a loop as one.
  const auto sweep_repeats = [&](const ElementRead& element, const Site& source) {
    if (element.node.IsNull()) return true;
    int around = 0;
    for (const Loop& loop : loops_) {
      if (loop.scope == element.scope && loop.node.Range().Contains(element.node.Range()) &&
          !loop.node.Range().Contains(source.node.Range())) {
        ++around;
      }
    }
    if (source.scope != element.scope && ScopeRunsInLoop(element.scope)) ++around;
    return around >= 2;
  };
  for (size_t i = 0; i < loops_.size(); ++i) {
    const Loop& loop = loops_[i];
    if (loop.kind != LoopKind::kFor || loop.iterable.IsNull()) continue;
    ElementRead element;
    const auto source = ResultSource(loop.iterable, loop.scope, 0, &element);
    if (source.first != nullptr && LoopRepeatsOver(static_cast<int>(i), *source.first) &&
        sweep_repeats(element, *source.first)) {
      mark(source);
    }
    if (source.first == nullptr) mark_attribute(loop.iterable, loop.scope, static_cast<int>(i));
  }
  // Handed to a call that runs more than once (`train_one_epoch(model, loader)` in the epoch loop).
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || site.Arguments().IsNull() || !runs_repeatedly(site)) continue;
    const ts::Node args = site.Arguments();
    for (uint32_t i = 0; i < args.NamedChildCount(); ++i) {
      ts::Node arg = args.NamedChild(i);
      if (KindOf(arg) == K::kKeywordArgument) arg = Field(arg, F::kValue);
      const K k = KindOf(Unparen(arg));
      if (k != K::kIdentifier && k != K::kAttribute) continue;
      ElementRead element;
      const auto source = ResultSource(arg, site.scope, 0, &element);
      if (source.first != &site && (source.first == nullptr || sweep_repeats(element, *source.first))) mark(source);
      if (source.first == nullptr && k == K::kAttribute) mark_attribute(arg, site.scope, -1);
    }
  }
  // `while True: yield from loader`, `iter(loader)` again when it runs out.
  for (const YieldFrom& y : yield_froms_) {
    if (y.loop >= 0) mark(ResultSource(y.value, y.scope, 0));
  }
  for (uint32_t index : CallsNamed("iter")) {
    const Site& site = sites_[index];
    if (site.Arguments().IsNull() || site.Arguments().NamedChildCount() != 1) continue;
    if (std::any_of(stop_iteration_handlers_.begin(), stop_iteration_handlers_.end(),
                    [&](const TextRange& handler) { return handler.Contains(site.node.Range()); })) {
      mark(ResultSource(site.Arguments().NamedChild(0), site.scope, 0));
    }
  }
  std::sort(out.attributes.begin(), out.attributes.end());
  out.attributes.erase(std::unique(out.attributes.begin(), out.attributes.end()), out.attributes.end());
  return out;
}

bool Model::ReiteratedElsewhere(const Site& loader) const {
  if (project_ == nullptr || self_summary_ == nullptr) return false;
  // The functions of the file that return the loader, and where in their result.
  for (const auto& [function, value] : returns_) {
    if (value.IsNull()) continue;
    // The loader, or a list the function appends it to (`return names, test_loaders, count`).
    const int scope = function;  // a structured binding: not captured by clang 14
    const auto holds = [&](ts::Node part) {
      return LoaderCallOf(part, scope) == &loader || ListOfLoadersHolds(part, scope, loader);
    };
    uint32_t parts = holds(value) ? 1u : 0u;
    const ts::Node tuple = Unparen(value);
    if (KindOf(tuple) == K::kTuple || KindOf(tuple) == K::kExpressionList) {
      for (uint32_t i = 0; i < tuple.NamedChildCount() && i < 31; ++i) {
        if (holds(tuple.NamedChild(i))) parts |= 1u << (i + 1);
      }
    }
    const std::string qualname = parts == 0 ? std::string() : QualName(function);
    if (qualname.empty()) continue;
    for (const ProjectIndex::Incoming& incoming : project_->CallsOf(*self_summary_, qualname)) {
      if ((incoming.call->reiterated_results & parts) != 0) return true;
    }
  }
  // `self.train = DataLoader(...)` in a method of a class that another file constructs and iterates the
  // attribute of (`dataset = Cifar(...)`, `for batch in dataset.train:` in its epoch loop).
  for (const auto& [name, scope] : NamesOf(loader)) {
    if (!name.starts_with("self.") || name.find('.', 5) != std::string_view::npos) continue;
    const int cls = scopes_[static_cast<size_t>(scope)].parent;
    if (cls <= 0 || scopes_[static_cast<size_t>(cls)].kind != ScopeKind::kClass ||
        scopes_[static_cast<size_t>(cls)].parent != 0) {
      continue;
    }
    const std::string constructor = std::string(scopes_[static_cast<size_t>(cls)].name) + ".__init__";
    const std::string_view attribute = name.substr(5);
    for (const ProjectIndex::Incoming& incoming : project_->CallsOf(*self_summary_, constructor)) {
      const std::vector<std::string>& read = incoming.call->reiterated_attributes;
      if (std::binary_search(read.begin(), read.end(), attribute)) return true;
    }
  }
  return false;
}

bool Model::StartsRepeatedly(int loop) const {
  if (loop < 0 || static_cast<size_t>(loop) >= loops_.size()) return false;
  if (loops_[static_cast<size_t>(loop)].parent >= 0) return true;
  return ScopeRunsInLoop(loops_[static_cast<size_t>(loop)].scope);
}

std::vector<std::pair<std::string_view, int>> Model::NamesOf(const Site& call) const {
  std::vector<std::pair<std::string_view, int>> names;
  for (const Binding& b : bindings_) {
    if (b.kind == BindingKind::kAssign && b.position == -1 && b.value == call.node) names.emplace_back(b.name, b.scope);
  }
  return names;
}

bool Model::PassedRepeatedly(const Site& loader) const {
  const std::vector<std::pair<std::string_view, int>> names = NamesOf(loader);
  if (names.empty()) return false;
  auto runs_repeatedly = [&](const Site& site) { return site.loop >= 0 || ScopeRunsInLoop(site.scope); };
  // A loader built anew each time (in a loop, or in a function a loop calls) starts its workers anew
  // whatever persistent_workers says.
  if (runs_repeatedly(loader)) return false;
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || &site == &loader) continue;
    const ts::Node args = site.Arguments();
    if (args.IsNull()) continue;
    bool passes = false;
    for (uint32_t i = 0; i < args.NamedChildCount() && !passes; ++i) {
      ts::Node arg = args.NamedChild(i);
      if (KindOf(arg) == K::kKeywordArgument) arg = Field(arg, F::kValue);
      const std::string_view text = Text(Unparen(arg));
      for (const auto& [name, scope] : names) {
        // A name of the same function, or `self.x` read anywhere in the file.
        if (text == name && (scope == site.scope || name.starts_with("self."))) passes = true;
      }
    }
    if (passes && runs_repeatedly(site)) return true;
  }
  return false;
}

std::vector<uint32_t> Model::ReiteratedParameters() const {
  std::vector<uint32_t> out(scopes_.size(), 0);
  for (const Loop& loop : loops_) {
    if (loop.kind != LoopKind::kFor || loop.parent < 0) continue;
    // `tqdm(loader)`, `enumerate(loader)`, `iter(loader)`: the loader itself (as ResultSource reads them).
    ts::Node iterable = Unparen(loop.iterable);
    for (int depth = 0; depth < 4 && KindOf(iterable) == K::kCall; ++depth) {
      const Site* wrapper = SiteOf(iterable);
      if (wrapper == nullptr || wrapper->kind != SiteKind::kCall || !wrapper->Receiver().IsNull() ||
          !OneOf(wrapper->name, kWrappers) || wrapper->name == "zip" || wrapper->Arguments().IsNull() ||
          wrapper->Arguments().NamedChildCount() == 0) {
        break;
      }
      iterable = Unparen(wrapper->Arguments().NamedChild(0));
    }
    if (KindOf(iterable) != K::kIdentifier) continue;
    const Binding* parameter = SingleBinding(Text(iterable), loop.scope);
    if (parameter == nullptr || parameter->kind != BindingKind::kParameter || parameter->scope != loop.scope) continue;
    const int position = ParameterPosition(*parameter);
    if (position >= 0 && position < 32) out[static_cast<size_t>(loop.scope)] |= 1u << static_cast<uint32_t>(position);
  }
  return out;
}

bool Model::PassedToReiteratingCallee(const Site& loader) const {
  if (project_ == nullptr || self_summary_ == nullptr) return false;
  const std::vector<std::pair<std::string_view, int>> names = NamesOf(loader);
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || &site == &loader || site.Arguments().IsNull()) continue;
    int position = -1;
    int index = 0;
    for (ts::Node arg : NamedChildren(site.Arguments())) {
      const K k = KindOf(arg);
      if (k == K::kComment) continue;
      if (k == K::kKeywordArgument || k == K::kListSplat || k == K::kDictionarySplat) break;
      const std::string_view text = Text(Unparen(arg));
      for (const auto& [name, scope] : names) {
        if (text == name && scope == site.scope) position = index;
      }
      ++index;
    }
    if (position < 0 || position >= 32) continue;
    for (const Callee& callee : ProjectCallees(site)) {
      const auto function = ResolveCallee(callee);
      if (function && (function->function->reiterated_parameters & (1u << static_cast<uint32_t>(position))) != 0) {
        return true;
      }
    }
  }
  return false;
}

bool Model::ListOfLoadersHolds(ts::Node list, int scope, const Site& loader) const {
  // A name (or `self.x`) bound once to `[]`, that the file only ever appends loaders to.
  list = Unparen(list);
  if (KindOf(list) != K::kIdentifier && KindOf(list) != K::kAttribute) return false;
  const Binding* binding = SingleBinding(Text(list), scope);
  if (binding == nullptr || binding->kind != BindingKind::kAssign || binding->position != -1 ||
      KindOf(Unparen(binding->value)) != K::kList || Unparen(binding->value).NamedChildCount() != 0) {
    return false;
  }
  const std::string_view name = Text(list);
  const bool member = KindOf(list) == K::kAttribute;  // `self.x` is read from the class's methods
  bool found = false;
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    const Site& site = sites_[i];
    if (site.kind != SiteKind::kCall || site.Receiver().IsNull() || Text(Unparen(site.Receiver())) != name) continue;
    if (!member && site.scope != binding->scope) continue;
    static constexpr std::array<std::string_view, 5> kChanges = {"append", "extend", "insert", "__setitem__", "clear"};
    if (!OneOf(site.name, kChanges)) continue;
    if (site.name != "append" || site.Arguments().IsNull() || site.Arguments().NamedChildCount() != 1) return false;
    const Site* added = LoaderCallOf(site.Arguments().NamedChild(0), site.scope);
    if (added == nullptr) return false;
    found = found || added == &loader;
  }
  // `L[i] = x` written to a plain name: something else may stand there.
  if (!member && std::binary_search(item_writes_.begin(), item_writes_.end(), name, NameLess{})) return false;
  return found;
}

bool Model::Reiterated(const Site& loader) const {
  // The loader itself, or a name every assignment of which in its scope builds a loader (`loader =
  // DataLoader(...)` in both branches of an `if`), this one among them.
  auto holds = [&](ts::Node expr, int scope) {
    if (LoaderCallOf(expr, scope) == &loader) return true;
    expr = Unparen(expr);
    // `iter(self.loaders[i])`: an element of a list of loaders, this one among them.
    if (KindOf(expr) == K::kSubscript) return ListOfLoadersHolds(Field(expr, F::kValue), scope, loader);
    if (KindOf(expr) != K::kIdentifier) return false;
    bool found = false;
    bool all = true;
    for (const Binding& b : BindingsOf(Text(expr))) {
      if (b.scope != scope) continue;
      const bool builds = b.kind == BindingKind::kAssign && b.position == -1 && LoaderCallOf(b.value, scope) != nullptr;
      all = all && builds;
      found = found || (builds && LoaderCallOf(b.value, scope) == &loader);
    }
    return found && all;
  };
  for (const YieldFrom& y : yield_froms_) {
    if (y.loop < 0 || loops_[static_cast<size_t>(y.loop)].node.Range().Contains(loader.node.Range())) continue;
    if (holds(y.value, y.scope)) return true;
  }
  if (stop_iteration_handlers_.empty()) return false;
  for (uint32_t index : CallsNamed("iter")) {
    const Site& site = sites_[index];
    if (!site.Receiver().IsNull() || site.Arguments().IsNull() || site.Arguments().NamedChildCount() != 1) continue;
    const bool rebuilds = std::any_of(stop_iteration_handlers_.begin(), stop_iteration_handlers_.end(),
                                      [&](const TextRange& handler) { return handler.Contains(site.node.Range()); });
    if (rebuilds && holds(site.Arguments().NamedChild(0), site.scope)) return true;
  }
  return false;
}

const Site* Model::BatchLoader(ts::Node expr, int scope) const {
  const std::vector<const Site*> loaders = BatchLoaders(expr, scope);
  return loaders.size() == 1 ? loaders.front() : nullptr;
}

std::vector<const Site*> Model::BatchLoaders(ts::Node expr, int scope) const {
  std::vector<const Site*> loaders;
  if (!BatchLoadersDepth(expr, scope, 0, loaders)) loaders.clear();
  return loaders;
}

bool Model::BatchLoadersDepth(ts::Node expr, int scope, int depth, std::vector<const Site*>& out,
                              RemoteLoaders* remote) const {
  for (; depth < kMaxDepth; ++depth) {
    expr = Unparen(expr);
    const K k = KindOf(expr);
    if (k == K::kSubscript) {  // batch[0], batch["image"]
      expr = Field(expr, F::kValue);
      continue;
    }
    if (k == K::kCall) {  // next(iterator_of_a_loader)
      const Site* site = SiteOf(expr);
      if (site == nullptr || site->kind != SiteKind::kCall || site->name != "next" || !site->Receiver().IsNull() ||
          site->Arguments().IsNull() || site->Arguments().NamedChildCount() == 0) {
        return false;
      }
      return LoaderCallsDepth(site->Arguments().NamedChild(0), scope, depth + 1, out, remote);
    }
    if (k != K::kIdentifier) return false;
    // `[t.to(device) for t in batch]`: an element of a batch is a batch.
    if (ts::Node iterable = ComprehensionIterable(expr); !iterable.IsNull()) {
      expr = iterable;
      continue;
    }
    const Binding* binding = ReachingBinding(expr, scope);
    if (binding == nullptr || binding->value == expr) return false;
    if (binding->kind == BindingKind::kLoopTarget) {
      if (binding->loop < 0) return false;
      const Loop& loop = loops_[static_cast<size_t>(binding->loop)];
      ts::Node iterable = Unparen(loop.iterable);
      // enumerate's counter is element 0 of the target, not a batch.
      if (KindOf(iterable) == K::kCall) {
        const Site* wrapper = SiteOf(iterable);
        if (wrapper != nullptr && wrapper->kind == SiteKind::kCall && wrapper->name == "enumerate" &&
            binding->position == 0) {
          return false;
        }
      }
      // `for samples, targets in metric_logger.log_every(data_loader, 10, header):` yields the loader's batches.
      if (KindOf(iterable) == K::kCall && WrapsLoader(iterable, loop.scope)) {
        return LoaderCallsDepth(Unparen(Field(iterable, F::kArguments)).NamedChild(0), loop.scope, depth + 1, out,
                                remote);
      }
      return LoaderCallsDepth(loop.iterable, loop.scope, depth + 1, out, remote);
    }
    if (binding->kind == BindingKind::kParameter) {
      // `def train_step(batch):` called by the file with batches.
      const int position = ParameterPosition(*binding);
      if (position < 0) return false;
      const std::vector<uint32_t> callers = CallersOf(binding->scope);
      if (callers.empty()) return false;
      const int step = FanOutStep(callers.size());
      for (uint32_t index : callers) {
        const Site& call = sites_[index];
        const auto arg = FindArgument(call, binding->name, position);
        if (!arg || !BatchLoadersDepth(arg->value, call.scope, depth + step, out, remote)) return false;
      }
      return true;
    }
    if (binding->kind != BindingKind::kAssign) return false;
    // `x, y = batch`, `inputs = batch["x"]`: a part of a batch is a batch; `a, b = x, y` pairs them.
    expr = binding->value;
    scope = binding->scope;
    const K vk = KindOf(Unparen(expr));
    if (binding->position >= 0 && (vk == K::kExpressionList || vk == K::kTuple)) {
      if (static_cast<uint32_t>(binding->position) >= Unparen(expr).NamedChildCount()) return false;
      expr = Unparen(expr).NamedChild(static_cast<uint32_t>(binding->position));
    } else if (binding->position < -1 || binding->position >= 100) {
      return false;
    }
  }
  return false;
}

ts::Node Model::ComprehensionIterable(ts::Node name) const {
  const ComprehensionTarget* target = ComprehensionBinding(name);
  return target != nullptr && target->position == -1 ? target->iterable : ts::Node();
}

const Model::ComprehensionTarget* Model::ComprehensionBinding(ts::Node name) const {
  // The innermost comprehension around the name whose `for` clause binds it.
  const std::string_view text = Text(name);
  auto it = std::lower_bound(comprehension_targets_.begin(), comprehension_targets_.end(), text,
                             [](const ComprehensionTarget& t, std::string_view n) { return t.name < n; });
  const TextRange at = name.Range();
  const ComprehensionTarget* found = nullptr;
  for (; it != comprehension_targets_.end() && it->name == text; ++it) {
    if (!it->comprehension.Contains(at) || it->iterable.Range().Contains(at)) continue;
    if (found == nullptr || found->comprehension.Contains(it->comprehension)) found = &*it;
  }
  return found;
}

namespace {

// Whether two nodes sit in different branches of one `if` statement (its body, an `elif`, the `else`), so
// that no run goes through both. `if_statements` are the file's: the walk up through parents is paid only
// when one of them holds both nodes.
bool ExclusiveBranches(ts::Node a, ts::Node b, const std::vector<TextRange>& if_statements) {
  const TextRange ar = a.Range();
  const TextRange br = b.Range();
  if (std::none_of(if_statements.begin(), if_statements.end(),
                   [&](TextRange statement) { return statement.Contains(ar) && statement.Contains(br); })) {
    return false;
  }
  ts::Node clause = a;
  for (ts::Node node = a.Parent(); !node.IsNull(); clause = node, node = node.Parent()) {
    const K k = KindOf(node);
    if (k == K::kFunction || k == K::kLambda || k == K::kClass || k == K::kModule) return false;
    if (k != K::kIf || !node.Range().Contains(b.Range())) continue;
    if (clause == Field(node, F::kCondition)) return false;
    return !clause.Range().Contains(b.Range()) && !Field(node, F::kCondition).Range().Contains(b.Range());
  }
  return false;
}

}  // namespace

const Model::Binding* Model::ReachingBinding(ts::Node name, int scope) const {
  const Binding* binding = nullptr;
  for (const Binding& b : BindingsOf(Text(name))) {
    if (b.scope != scope || b.target.StartByte() >= name.StartByte()) continue;
    if (!b.value.IsNull() && b.value.Range().Contains(name.Range())) continue;  // the rebinding itself
    if (ExclusiveBranches(b.target, name, if_statements_)) continue;  // `if`: x = x.cuda() / `else`: x.to(device)
    if (binding == nullptr || b.target.StartByte() > binding->target.StartByte()) binding = &b;
  }
  return binding;
}

bool Model::MovesToDevice(const Site& call) const {
  if (call.kind != SiteKind::kCall || call.Receiver().IsNull()) return false;
  if (call.name == "cuda") return true;
  if (call.name != "to") return false;
  const auto device = FindArgument(call, "device", 0);
  if (!device) return false;
  ts::Node value = Unparen(device->value);
  // `.to(torch.float16)`, `.to(dtype)`: a dtype, not a device.
  const std::string canonical = CanonicalName(value);
  if (canonical.starts_with("torch.") && canonical != "torch.device") return false;
  const std::string_view text = Text(value);
  if (LastSegment(text) == "dtype" || text.find("dtype") != std::string_view::npos) return false;
  // `.to(other_tensor)` follows that tensor: a move unless it lives on the host (a tensor whose placement is
  // unknown follows the script's device, as everywhere else).
  if (TensorKindOf(value, call.scope) == TensorKind::kTensor) return IsDeviceTensor(value, call.scope);
  const Value resolved = Resolve(value, call.scope);
  if (resolved.kind == ValueKind::kString) return resolved.string_value != "cpu" && resolved.string_value != "meta";
  if (KindOf(value) == K::kCall) {
    // torch.device("cpu")
    const Site* site = SiteOf(value);
    if (site != nullptr && site->kind == SiteKind::kCall && site->name == "device" && !site->Arguments().IsNull() &&
        site->Arguments().NamedChildCount() > 0) {
      const Value inner = Resolve(site->Arguments().NamedChild(0), call.scope);
      if (inner.kind == ValueKind::kString) return inner.string_value != "cpu";
    }
  }
  return true;
}

bool Model::DataFreeFactoryName(std::string_view name) {
  // clang-format off
  static constexpr NameSet<27> kFactories{{
      "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "linspace", "eye",
      "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like",
      "logspace", "empty_strided", "hann_window", "hamming_window", "blackman_window", "bartlett_window",
      "kaiser_window", "tril_indices", "triu_indices"}};
  // clang-format on
  return OneOf(name, kFactories);
}

std::string_view Model::DataFreeFactory(const Site& call) const {
  if (call.kind != SiteKind::kCall || !DataFreeFactoryName(call.name)) return {};
  const std::string canonical = CanonicalName(call.callee);
  if (canonical != "torch." + std::string(call.name)) return {};
  return call.name;
}

}  // namespace tl::semantic
