// What this file tells the rest of the project (Summarize), and what the project tells this file's
// checks (AttachProject, CrossFileSync). See project.h.
#include <algorithm>
#include <cctype>
#include <functional>
#include <mutex>
#include <string>
#include <utility>

#include "linter/semantic/builder.h"

namespace tl::semantic {
bool ThirdParty(std::string_view canonical) {
  static constexpr NameSet<14> kPrefixes{{"torch", "numpy", "math", "os", "sys", "time", "json", "random", "tqdm",
                                          "transformers", "timm", "accelerate", "lightning", "pytorch_lightning"}};
  const std::string_view head = canonical.substr(0, canonical.find('.'));
  return OneOf(head, kPrefixes);
}

namespace {

// The leftmost name of `a.b(c).d[0]`.
ts::Node HeadName(ts::Node expr) {
  for (int depth = 0; depth < 32; ++depth) {
    expr = Unparen(expr);
    switch (KindOf(expr)) {
      case K::kIdentifier: return expr;
      case K::kAttribute: expr = Field(expr, F::kObject); break;
      case K::kSubscript: expr = Field(expr, F::kValue); break;
      case K::kCall: expr = Field(expr, F::kFunction); break;
      default: return ts::Node();
    }
  }
  return ts::Node();
}

// Whether `text` names the identifier `word` (not as part of a longer name).
bool ContainsWord(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !IdentifierChar(text[at - 1]);
    const bool ends = at + word.size() >= text.size() || !IdentifierChar(text[at + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

// The tensor-type steps one implicit sync of a summary may take (Model::type_steps_left_).
constexpr int64_t kTypeStepsPerSite = 64;

// What other files read of a function's first per-call sync.
SyncSummary Summary(const SourceFile& file, const ts::Node& node, bool on_params, const SyncOp& sync) {
  SyncSummary out;
  const LineColumn at = file.lines().Locate(node.StartByte());
  out.syncs = true;
  out.on_params = on_params;
  out.kind = static_cast<uint8_t>(sync.kind);
  out.line = at.line;
  out.column = at.column;
  out.message = sync.message;
  out.message_zh = sync.message_zh;
  out.parameter = sync.parameter;
  out.parameter_position = sync.parameter_position;
  return out;
}

}  // namespace

std::vector<Model::PerCall> Model::FirstSyncPerCall(
    const std::function<std::optional<SyncOp>(const Site&)>& find) const {
  std::vector<PerCall> per_call(scopes_.size());
  for (size_t i = 0; i < sites_.size(); ++i) {
    const Site& site = sites_[i];
    if (scopes_[static_cast<size_t>(site.scope)].kind != ScopeKind::kFunction ||
        per_call[static_cast<size_t>(site.scope)].site >= 0) {
      continue;
    }
    if (!RunsOnEachCall(site)) continue;
    const auto sync = find(site);
    if (!sync) continue;
    // What is synced: the receiver of a method, the first argument of a function (`max(x)`), the value a
    // subscript reads; a condition's own node (a comparison has no single head, so never the parameters).
    ts::Node synced = site.Receiver();
    if (synced.IsNull() && site.kind == SiteKind::kCall && !site.Arguments().IsNull() &&
        NamedChildCount(site.Arguments()) > 0) {
      synced = NamedChild(site.Arguments(), 0);
    }
    if (synced.IsNull() && site.kind == SiteKind::kSubscript) synced = Field(site.node, F::kValue);
    if (synced.IsNull()) synced = site.node;
    const bool on_params = sync->from_parameters || FromParameters(synced, site.scope, 0);
    // `if top_k is not None:` around it: whether it runs depends on the call's arguments, which the call
    // site cannot tell. A guard on the synced value itself (`if isinstance(v, torch.Tensor): v.item()`)
    // is told by whether the argument is a tensor.
    if (GuardedByParameters(site, on_params ? Text(HeadName(synced)) : std::string_view())) continue;
    per_call[static_cast<size_t>(site.scope)] = {static_cast<int>(i), on_params, *sync};
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [index, callees] : local_calls_) {
      const Site& site = sites_[index];
      PerCall& caller = per_call[static_cast<size_t>(site.scope)];
      if (caller.site >= 0 || scopes_[static_cast<size_t>(site.scope)].kind != ScopeKind::kFunction ||
          !RunsOnEachCall(site) || GuardedByParameters(site)) {
        continue;
      }
      for (int callee : callees) {
        if (per_call[static_cast<size_t>(callee)].site >= 0) {
          caller = per_call[static_cast<size_t>(callee)];
          changed = true;
          break;
        }
      }
    }
  }
  return per_call;
}

bool Model::RunsOnEachCall(const Site& site) const {
  if (site.off_device) return false;
  for (int g = site.guard; g >= 0; g = guards_[static_cast<size_t>(g)].parent) {
    if (guards_[static_cast<size_t>(g)].rare()) return false;
  }
  for (int l = site.loop; l >= 0; l = loops_[static_cast<size_t>(l)].parent) {
    if (loops_[static_cast<size_t>(l)].role == LoopRole::kEpoch) return false;
  }
  return true;
}

std::vector<uint32_t> Model::CalledParameters() const {
  std::vector<uint32_t> out(scopes_.size(), 0);
  // The parameters of each function first: a call's name is compared with those of its scope only.
  std::vector<std::vector<std::string_view>> parameters(scopes_.size());
  bool any = false;
  for (const Binding& binding : bindings_) {
    if (binding.kind != BindingKind::kParameter || binding.scope <= 0) continue;
    parameters[static_cast<size_t>(binding.scope)].push_back(binding.name);
    any = true;
  }
  if (!any) return out;
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall) continue;
    const auto& names = parameters[static_cast<size_t>(site.scope)];
    if (names.empty() || std::find(names.begin(), names.end(), site.name) == names.end() ||
        KindOf(site.callee) != K::kIdentifier) {
      continue;
    }
    const Binding* binding = SingleBinding(Text(site.callee), site.scope);
    if (binding == nullptr || binding->kind != BindingKind::kParameter || binding->scope != site.scope) continue;
    if (!RunsOnEachCall(site) || GuardedByParameters(site)) continue;
    const int position = ParameterPosition(*binding);
    if (position >= 0 && position < 32) out[static_cast<size_t>(site.scope)] |= 1u << position;
  }
  return out;
}

bool Model::ImportsTorch() const {
  return std::any_of(imports_.begin(), imports_.end(), [](const Import& import) {
    return import.canonical == "torch" || import.canonical.starts_with("torch.");
  });
}

bool Model::GradientExists(ts::Node condition) const {
  // `if p.grad is not None:` over a model's parameters (a gradient-clipping helper): after a backward
  // pass the gradients exist, whatever model the call passes.
  condition = Unparen(condition);
  if (KindOf(condition) != K::kComparison || NamedChildCount(condition) != 2 ||
      KindOf(Unparen(NamedChild(condition, 1))) != K::kNone) {
    return false;
  }
  const ts::Node left = Unparen(NamedChild(condition, 0));
  if (KindOf(left) != K::kAttribute || Text(Field(left, F::kAttribute)) != "grad") return false;
  for (uint32_t i = 0; i < condition.ChildCount(); ++i) {
    const std::string_view op = Text(condition.Child(i));
    if (!condition.Child(i).IsNamed() && op.starts_with("is") && op.ends_with("not")) return true;
  }
  return false;
}

bool Model::GuardedByParameters(const Site& site, std::string_view synced) const {
  for (int g = site.guard; g >= 0; g = guards_[static_cast<size_t>(g)].parent) {
    if (GradientExists(guards_[static_cast<size_t>(g)].condition)) continue;
    bool reads = false;
    ts::Walk(guards_[static_cast<size_t>(g)].condition, [&](ts::Node node) {
      if (reads) return false;
      if (KindOf(node) == K::kIdentifier && Text(node) != synced) reads = FromParameters(node, site.scope, 0);
      return !reads;
    });
    if (reads) return true;
  }
  return false;
}

bool Model::FromParameters(ts::Node expr, int scope, int depth) const {
  if (depth > 6 || expr.IsNull()) return false;
  const FromParametersKey key{expr.Id(), scope, depth};
  {
    const std::lock_guard lock(from_parameters_mu_);
    if (auto it = from_parameters_.find(key); it != from_parameters_.end()) return it->second;
  }
  const bool found = FromParametersUncached(expr, scope, depth);
  const std::lock_guard lock(from_parameters_mu_);
  from_parameters_.emplace(key, found);
  return found;
}

bool Model::FromParametersUncached(ts::Node expr, int scope, int depth) const {
  expr = Unparen(expr);
  const K k = KindOf(expr);
  // `{k: v for k, v in outputs.items() if ...}`: what it iterates; `to_xyxy(boxes)`: what a plain
  // function is given.
  if (k == K::kComprehension) {
    for (const ts::Node clause : expr.NamedChildren()) {
      if (KindOf(clause) == K::kForInClause && FromParameters(Field(clause, F::kRight), scope, depth + 1)) return true;
    }
    return false;
  }
  if (k == K::kCall && KindOf(Unparen(Field(expr, F::kFunction))) == K::kIdentifier) {
    bool any = false;
    const ts::Node args = Field(expr, F::kArguments);
    if (KindOf(args) == K::kArgumentList) {
      for (ts::Node arg : args.NamedChildren()) {
        if (KindOf(arg) == K::kKeywordArgument) arg = Field(arg, F::kValue);
        any = any || FromParameters(arg, scope, depth + 1);
      }
    }
    if (any) return true;
  }
  const ts::Node head = HeadName(expr);
  // `self.total`, `self(x)`: the object's state, not what the call passes.
  if (head.IsNull() || Text(head) == "self" || Text(head) == "cls") return false;
  for (const Binding& binding : BindingsOf(Text(head))) {
    if (binding.scope != scope) continue;
    if (binding.kind == BindingKind::kParameter) return true;
    if ((binding.kind == BindingKind::kLoopTarget || binding.kind == BindingKind::kAssign) && binding.value != expr &&
        FromParameters(binding.value, scope, depth + 1)) {
      return true;
    }
  }
  return false;
}

FileSummary Model::Summarize(const SourceFile& file, bool hash) const {
  FileSummary out;
  out.path = file.path();
  if (hash) out.content_hash = ContentHash(source_);
  out.own_cuda = !cuda_evidence_.IsNull();
  if (out.own_cuda) out.cuda_line = file.lines().Locate(cuda_evidence_.StartByte()).line;
  out.catalog_facts = own_facts_;
  // A conv net for the project only by the layers of classes the file names again or another file
  // imports (ProjectIndex::Finish adds those).
  if (!summary_conv2d_) out.catalog_facts &= ~uint32_t{kFactConv2d};
  for (const Import& import : imports_) {
    out.imports.push_back({std::string(import.local), import.canonical});
    if (import.canonical.find('.') != std::string::npos && !ThirdParty(import.canonical)) {
      FieldsReadOf(import.local, out.imported_reads);
    }
  }
  std::sort(out.imported_reads.begin(), out.imported_reads.end());
  out.imported_reads.erase(std::unique(out.imported_reads.begin(), out.imported_reads.end()), out.imported_reads.end());
  // `from models import *` ties the file to the module as any import does (its convolutions, its CUDA);
  // no name resolves through "*".
  for (const std::string& module : star_imports_) {
    if (!ThirdParty(module)) out.imports.push_back({"*", module});
  }

  for (const Site& site : sites_) {
    if (site.per_step()) {
      out.device_candidates = true;
      if (!out.project_calls &&
          (!ProjectCallees(site).empty() || MayHoldInstance(site) || StepsProjectOptimizer(site))) {
        out.project_calls = true;
      }
    }
    // A DataLoader, and a tensor factory that may be moved at once (TL205 reports it at any cadence).
    if (site.kind == SiteKind::kCall && (site.name == "DataLoader" || !DataFreeFactory(site).empty())) {
      out.device_candidates = true;
      out.builds_loaders = out.builds_loaders || site.name == "DataLoader";
    }
  }
  // The explicit syncs (`.item()`, `.tolist()`, `.cpu()`, `.numpy()`, `.synchronize()`) and the implicit
  // ones (a condition, an `assert`, a mask or a data-dependent op on a device tensor, a builtin over one).
  // Printing is left to the helper's own file: it needs a tensor type for every `print` of every function
  // of a large tree, and a helper that prints a tensor is still reported in its own file when that file's
  // loop calls it.
  static constexpr NameSet<5> kExplicit{{"item", "tolist", "cpu", "numpy", "synchronize"}};
  static constexpr NameSet<10> kImplicit{
      {"nonzero", "masked_select", "unique", "where", "repeat_interleave", "max", "min", "sum", "any", "all"}};
  // Implicit syncs are looked for in files that import torch: elsewhere every `if` would be typed for
  // nothing (a module of plain Python helpers makes no tensor to branch on, and its parameters' types
  // are not known). So are `int(t)`/`float(t)`/`bool(t)` of a tensor the function makes or keeps
  // (`int(self.queue_ptr)` of a registered buffer).
  const bool imports_torch = ImportsTorch();
  static constexpr NameSet<3> kConversions{{"int", "float", "bool"}};
  const std::vector<PerCall> explicit_syncs = FirstSyncPerCall([&](const Site& site) -> std::optional<SyncOp> {
    if (site.kind != SiteKind::kCall) return std::nullopt;
    if (imports_torch && OneOf(site.name, kConversions) && KindOf(site.callee) == K::kIdentifier) {
      type_steps_left_ = kTypeStepsPerSite;
      auto sync = SyncAt(site);
      type_steps_left_ = -1;
      return sync;
    }
    if (!OneOf(site.name, kExplicit) || site.Receiver().IsNull()) return std::nullopt;
    return SyncAt(site);
  });
  const auto implicit = [&](const Site& site) -> std::optional<SyncOp> {
    if (site.kind == SiteKind::kCall && !OneOf(site.name, kImplicit)) return std::nullopt;
    // A number written through a mask syncs only before PyTorch 1.10, a version the summary does not know
    // (the pin is the checking file's): taken as the current one's `masked_fill_`.
    const auto ask = [&]() {
      type_steps_left_ = kTypeStepsPerSite;
      auto found = ImplicitSyncAt(site);
      if (found && found->mask_fill) found.reset();
      return found;
    };
    auto sync = ask();
    // `assert (boxes[:, 2:] >= boxes[:, :2]).all()` on a parameter: a sync when the caller passes a device
    // tensor. Asked again only in functions that index a name as an array.
    if (!sync && std::any_of(array_names_.begin(), array_names_.end(),
                             [&](const auto& name) { return name.first == site.scope; })) {
      param_arrays_ = true;
      sync = ask();
      param_arrays_ = false;
      if (sync) {
        sync->from_parameters = true;
        // The array parameter the sync reads (the first the function indexes that the site names).
        const std::string_view text = Text(site.node);
        for (const auto& [scope, name] : array_names_) {
          const Binding* parameter = scope == site.scope ? SingleBinding(name, scope) : nullptr;
          if (parameter == nullptr || parameter->kind != BindingKind::kParameter || !ContainsWord(text, name)) continue;
          sync->parameter = std::string(name);
          sync->parameter_position = ParameterPosition(*parameter);
          break;
        }
      }
    }
    type_steps_left_ = -1;
    return sync;
  };
  const std::vector<PerCall> implicit_syncs = imports_torch ? FirstSyncPerCall(implicit)
                                                            : std::vector<PerCall>(scopes_.size());
  // `torch.cuda.empty_cache()` on every call (TL103), where a call of it is in the file.
  const std::vector<PerCall> empty_caches = CallsNamed("empty_cache").empty()
                                                ? std::vector<PerCall>(scopes_.size())
                                                : FirstSyncPerCall([&](const Site& site) -> std::optional<SyncOp> {
                                                    if (site.kind != SiteKind::kCall || site.name != "empty_cache" ||
                                                        !IsCanonical(site, "torch.cuda.empty_cache")) {
                                                      return std::nullopt;
                                                    }
                                                    return SyncOp{
                                                        SyncKind::kExplicit,
                                                        "`torch.cuda.empty_cache()` frees the allocator's cache",
                                                        "`torch.cuda.empty_cache()` 释放显存分配器的缓存"};
                                                  });
  // What the functions return and the calls they make on each call, for the index to follow across
  // files (in files that import torch, as the implicit syncs).
  std::vector<std::vector<ForwardCall>> forwards(scopes_.size());
  if (imports_torch) SummarizeForwards(file, forwards);
  if (imports_torch && out.project_calls) SummarizeStepCalls(file, out.step_calls);
  std::vector<StepSummary> steps = StepsPerCall(file);
  std::vector<std::vector<ts::Node>> returns(scopes_.size());
  for (const auto& [function, value] : returns_) returns[static_cast<size_t>(function)].push_back(value);
  const std::vector<uint32_t> reiterated_parameters = ReiteratedParameters();
  const std::vector<int>& optimizer_classes = OptimizerClasses();
  for (size_t s = 1; s < scopes_.size(); ++s) {
    const Scope& scope = scopes_[s];
    if (scope.kind == ScopeKind::kClass && scope.parent == 0) {
      ClassSummary cls;
      cls.name = std::string(scope.name);
      for (const auto& [name, layers] : class_conv2d_) {
        if (name == scope.name) cls.conv2d = static_cast<uint8_t>(std::min(layers, 255));
      }
      for (const auto& [base, canonical] : BasesOf(static_cast<int>(s))) {
        cls.bases.push_back(canonical.empty() ? std::string(Text(base)) : canonical);
      }
      out.classes.push_back(std::move(cls));
      continue;
    }
    FunctionSummary function;
    function.qualname = QualName(static_cast<int>(s));
    if (function.qualname.empty()) continue;  // nested functions are not reachable from other files
    function.line = file.lines().Locate(scope.node.StartByte()).line;
    if (const PerCall& p = explicit_syncs[s]; p.site >= 0) {
      function.sync = Summary(file, sites_[static_cast<size_t>(p.site)].node, p.on_params, p.sync);
    }
    if (const PerCall& p = implicit_syncs[s]; p.site >= 0) {
      function.implicit = Summary(file, sites_[static_cast<size_t>(p.site)].node, p.on_params, p.sync);
    }
    if (const PerCall& p = empty_caches[s]; p.site >= 0) {
      function.empty_cache = Summary(file, sites_[static_cast<size_t>(p.site)].node, p.on_params, p.sync);
    }
    if (imports_torch) {
      SummarizeReturnPlacements(static_cast<int>(s), returns[s], function);
      function.returns_tensors = ReturnsTensors(static_cast<int>(s), returns[s]);
    }
    function.forwards = std::move(forwards[s]);
    // (`return parser.parse_args()` directly, or a name that holds it.)
    function.returns_config = !returns[s].empty() && !argparse_.empty() &&
                              std::all_of(returns[s].begin(), returns[s].end(), [&](ts::Node v) {
                                return !v.IsNull() && (ParsesArguments(v) || HoldsConfig(v, static_cast<int>(s), 0));
                              });
    SummarizeReturns(static_cast<int>(s), returns[s], function);
    if (out.builds_loaders) function.returned_loader = ReturnedLoaderFacts(static_cast<int>(s), returns[s]);
    function.step = std::move(steps[s]);
    if (const int loop = std::binary_search(optimizer_classes.begin(), optimizer_classes.end(), scope.parent)
                             ? OptimizerUpdateLoop(static_cast<int>(s))
                             : -1;
        loop >= 0) {
      const LineColumn at = file.lines().Locate(loops_[static_cast<size_t>(loop)].node.StartByte());
      function.update_loop_line = at.line;
      function.update_loop_column = at.column;
    }
    function.reiterated_parameters = reiterated_parameters[s];
    function.called_parameters = called_parameters_[s];  // Builder::ReviewCallbacks
    // A function with nothing but its name and line is kept as a name: compared without them against an
    // empty summary (one made once, not one a function).
    static const FunctionSummary kPlain;
    std::string qualname = std::exchange(function.qualname, std::string());
    const uint32_t line = std::exchange(function.line, 0);
    if (function == kPlain) {
      out.plain_functions.push_back(std::move(qualname));
    } else {
      function.qualname = std::move(qualname);
      function.line = line;
      out.functions.push_back(std::move(function));
    }
  }
  std::sort(out.plain_functions.begin(), out.plain_functions.end());
  SummarizeValues(out);
  return out;
}

std::vector<ForwardCall> Model::OtherModuleCalls(const Site& site, bool project_imports) const {
  std::vector<ForwardCall> calls;
  if (project_imports) {
    for (Callee& callee : ProjectCallees(site)) {
      // An instance's class is the index's to tell (below), not the summary's.
      if (callee.kind != Callee::kInstance) calls.push_back({std::move(callee.dotted), std::string(callee.method)});
    }
  }
  if (!calls.empty()) return calls;
  // `self.matcher(outputs, targets)`, `criterion(x)`, `converter.decode(preds)`: where the object comes
  // from, for the index to turn into a class of the project.
  const K ck = KindOf(site.callee);
  const ts::Node object = ck == K::kAttribute ? Unparen(site.Receiver()) : ts::Node();
  const bool self_method = KindOf(object) == K::kIdentifier && (Text(object) == "self" || Text(object) == "cls");
  const ts::Node held = ck == K::kIdentifier || self_method ? site.callee : object;
  const K hk = KindOf(held);
  if (hk == K::kIdentifier || hk == K::kAttribute) {
    if (ValueSource source = SourceOf(held, site.scope, 0); source.known()) {
      ForwardCall call{std::move(source.call), held == site.callee ? std::string() : std::string(site.name)};
      call.instance = true;
      call.element = source.element;
      calls.push_back(std::move(call));
    }
  }
  return calls;
}

bool Model::ImportsProjectModules() const {
  return std::any_of(imports_.begin(), imports_.end(),
                     [](const Import& import) { return !ThirdParty(import.canonical); }) ||
         std::any_of(star_imports_.begin(), star_imports_.end(), [](const std::string& m) { return !ThirdParty(m); });
}

void Model::SummarizeStepCalls(const SourceFile& file, std::vector<StepCall>& out) const {
  const bool project_imports = ImportsProjectModules();
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || !site.per_step() || site.off_device || LocalCallees(site) != nullptr) continue;
    std::vector<ForwardCall> calls = OtherModuleCalls(site, project_imports);
    if (calls.empty()) continue;
    type_steps_left_ = kTypeStepsPerSite;
    const bool device_argument = DeviceArgument(site);
    type_steps_left_ = -1;
    const LineColumn at = file.lines().Locate(site.node.StartByte());
    for (ForwardCall& call : calls) {
      call.line = at.line;
      call.column = at.column;
      call.device_argument = device_argument;
      out.push_back({std::move(call), static_cast<uint8_t>(site.cadence)});
    }
  }
}

void Model::SummarizeForwards(const SourceFile& file, std::vector<std::vector<ForwardCall>>& out) const {
  // Other modules' functions are reached through the file's imports of modules that are not third-party
  // ones: without any, only the file's own functions are asked for.
  const bool project_imports = ImportsProjectModules();
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || scopes_[static_cast<size_t>(site.scope)].kind != ScopeKind::kFunction ||
        !RunsOnEachCall(site)) {
      continue;
    }
    // The functions of the file it calls, and those of other modules.
    std::vector<ForwardCall> calls;
    const std::vector<int>* local = LocalCallees(site);
    if (local != nullptr) {
      for (int callee : *local) {
        if (std::string qualname = QualName(callee); !qualname.empty()) calls.push_back({std::move(qualname), {}});
      }
    } else {
      calls = OtherModuleCalls(site, project_imports);
    }
    if (calls.empty() || GuardedByParameters(site)) continue;
    bool parameter_argument = false;
    ForEachArgumentValue(
        site, [&](ts::Node arg) { parameter_argument = parameter_argument || FromParameters(arg, site.scope, 0); });
    type_steps_left_ = kTypeStepsPerSite;
    const bool device_argument = DeviceArgument(site);
    type_steps_left_ = -1;
    const LineColumn at = file.lines().Locate(site.node.StartByte());
    for (ForwardCall& call : calls) {
      call.local = local != nullptr;
      call.line = at.line;
      call.column = at.column;
      call.device_argument = device_argument;
      call.parameter_argument = parameter_argument;
      out[static_cast<size_t>(site.scope)].push_back(std::move(call));
    }
  }
}

void Model::SummarizeReturnPlacements(int function, std::span<const ts::Node> returns_of, FunctionSummary& out) const {
  std::vector<ts::Node> values;
  for (ts::Node value : returns_of) {
    if (!value.IsNull() && KindOf(Unparen(value)) != K::kNone) values.push_back(Unparen(value));
  }
  if (values.empty()) return;
  const auto tuple_size = [this](ts::Node value) {
    const K k = KindOf(value);
    return k == K::kExpressionList || k == K::kTuple ? NamedChildCount(value) : 0u;
  };
  const uint32_t size = tuple_size(values.front());
  const bool tuple = size > 0 && std::all_of(values.begin(), values.end(),
                                             [&](ts::Node value) { return tuple_size(value) == size; });
  std::vector<ReturnSummary> returns(tuple ? size : 1);
  bool known = false;
  for (uint32_t e = 0; e < returns.size(); ++e) {
    ReturnSummary& element = returns[e];
    std::optional<Placement> placement;
    for (ts::Node value : values) {
      const Placement p = PlacementDepth(tuple ? NamedChild(value, e) : value, function, 0);
      placement = !placement || *placement == p ? p : Placement::kUnknown;
    }
    element.placement = static_cast<uint8_t>(*placement);
    // `return to_cpu(x)`, one path: the function's own summary says, in the index.
    if (*placement == Placement::kUnknown && values.size() == 1) {
      ts::Node value = Unparen(tuple ? NamedChild(values.front(), e) : values.front());
      const Site* call = KindOf(value) == K::kCall ? SiteOf(value) : nullptr;
      if (call != nullptr) {
        if (const std::vector<int>* local = LocalCallees(*call)) {
          if (local->size() == 1) element.via = QualName(local->front());
          element.via_local = true;
        } else if (std::vector<Callee> callees = ProjectCallees(*call);
                   callees.size() == 1 && callees.front().kind == Callee::kFunction) {
          element.via = std::move(callees.front().dotted);
        }
      }
    }
    known = known || element.placement != 0 || !element.via.empty();
  }
  if (!known) return;
  out.returns_tuple = tuple;
  out.returns = std::move(returns);
}

void Model::SummarizeReturns(int function, std::span<const ts::Node> returns, FunctionSummary& out) const {
  for (size_t r = 0; r < returns.size(); ++r) {
    const ts::Node value = Unparen(returns[r]);
    if (value.IsNull()) return;
    const K k = KindOf(value);
    if (k == K::kExpressionList || k == K::kTuple) {
      // `return model, criterion, postprocessors`: each element's source, where every return agrees.
      std::vector<ValueSource> elements;
      for (uint32_t i = 0; i < NamedChildCount(value); ++i) {
        elements.push_back(SourceOf(NamedChild(value, i), function, 0));
      }
      if (r > 0 && elements != out.returned_elements) {
        out.returned_elements.clear();
        return;
      }
      out.returned_elements = std::move(elements);
      continue;
    }
    ValueSource source = SourceOf(value, function, 0);
    if (!source.known() || !out.returned_elements.empty() || (r > 0 && !(source == out.returned_source))) {
      out.returned_source = {};
      out.returned_elements.clear();
      return;
    }
    out.returned_source = std::move(source);
  }
  if (!out.returned_elements.empty() && out.returned_source.known()) out.returned_source = {};
}

uint8_t Model::LoaderFacts(ts::Node expr, int scope) const {
  std::vector<const Site*> loaders;
  RemoteLoaders remote;
  if (!LoaderCallsDepth(expr, scope, 0, loaders, &remote) || loaders.size() != 1 || !remote.empty()) return 0;
  // Accelerate's prepared loader hands out batches on the device: not pinned host memory to copy from.
  return PinsMemory(*loaders.front()) && !remote.prepared ? kArgPinnedLoader : kArgUnpinnedLoader;
}

uint8_t Model::ReturnedLoaderFacts(int function, std::span<const ts::Node> returns) const {
  if (returns.empty()) return 0;
  uint8_t out = kArgPinnedLoader;
  for (const ts::Node value : returns) {
    const uint8_t facts = value.IsNull() ? 0 : LoaderFacts(value, function);
    if (facts == 0) return 0;
    if (facts == kArgUnpinnedLoader) out = kArgUnpinnedLoader;
  }
  return out;
}

void Model::FieldsReadOf(std::string_view name, std::vector<std::string>& out) const {
  // A textual scan, to decide whether the project pass checks the file again: `name.attr` after no
  // identifier character.
  const std::lock_guard lock(asked_mu_);
  if (asked_fields_.empty()) return;
  for (size_t at = source_.find(name); at != std::string_view::npos; at = source_.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at > 0 && (IdentifierChar(source_[at - 1]) || source_[at - 1] == '.')) || end >= source_.size() ||
        source_[end] != '.') {
      continue;
    }
    const size_t first = ++end;
    while (end < source_.size() && IdentifierChar(source_[end])) ++end;
    const std::string_view read = source_.substr(first, end - first);
    if (end > first && std::find(asked_fields_.begin(), asked_fields_.end(), read) != asked_fields_.end()) {
      out.emplace_back(read);
    }
  }
}

std::string Model::QualName(int scope) const {
  const Scope& function = scopes_[static_cast<size_t>(scope)];
  if (function.kind != ScopeKind::kFunction || function.name.empty() || function.parent < 0) return {};
  if (function.parent == 0) return std::string(function.name);
  const Scope& parent = scopes_[static_cast<size_t>(function.parent)];
  if (parent.kind != ScopeKind::kClass || parent.parent != 0) return {};
  return std::string(parent.name) + "." + std::string(function.name);
}

bool Model::ParsesArguments(ts::Node expr) const {
  expr = Unparen(expr);
  const Site* call = KindOf(expr) == K::kCall ? SiteOf(expr) : nullptr;
  return call != nullptr && call->kind == SiteKind::kCall && call->name == "parse_args" && !call->Receiver().IsNull() &&
         !argparse_.empty();
}

bool Model::HoldsConfig(ts::Node expr, int scope, int depth) const {
  expr = Unparen(expr);
  if (depth > 4 || KindOf(expr) != K::kIdentifier) return false;
  const std::string_view name = Text(expr);
  if (name == "self" || name == "cls") return false;
  if (const int record = RecordOf(name, BindingScope(name, scope));
      record >= 0 && config_records_[static_cast<size_t>(record)].config) {
    return true;
  }
  const Binding* binding = SingleBinding(name, scope);
  if (binding == nullptr) return false;
  if (binding->kind == BindingKind::kAssign && binding->position == -1) {
    // `args = parser.parse_args()`: the file's argparse options are its fields.
    return ParsesArguments(binding->value);
  }
  if (binding->kind != BindingKind::kParameter) return false;
  // `def main(args): train.train(..., args)` with `main(parser.parse_args())`.
  return EveryCallerPasses(*binding, [&](ts::Node value, int at) { return HoldsConfig(value, at, depth + 1); });
}

bool Model::EveryCallerPasses(const Binding& parameter, const std::function<bool(ts::Node, int)>& holds) const {
  const int position = ParameterPosition(parameter);
  if (position < 0) return false;
  const std::vector<uint32_t> callers = CallersOf(parameter.scope);
  if (callers.empty()) return false;
  return std::all_of(callers.begin(), callers.end(), [&](uint32_t index) {
    const Site& call = sites_[index];
    const auto arg = FindArgument(call, parameter.name, position);
    return arg && holds(arg->value, call.scope);
  });
}

namespace {

FieldSummary FieldOf(std::string_view name, const Value& value) {
  FieldSummary out;
  out.name = std::string(name);
  out.kind = static_cast<uint8_t>(value.kind);
  out.int_value = value.int_value;
  out.float_value = value.float_value;
  out.string_value = std::string(value.string_value);
  out.at_least = value.at_least;
  return out;
}

}  // namespace

void Model::SummarizeValues(FileSummary& out) const {
  // The fields: argparse defaults, constants written to the attributes of a configuration object, and
  // the file's config writes (a dataclass default, `config.workers = 4`).
  for (const ArgparseDefault& option : argparse_) {
    out.fields.push_back(FieldOf(option.dest, option.conflicting ? Value{} : option.value));
  }
  for (const Binding& binding : bindings_) {
    if (KindOf(binding.target) != K::kAttribute ||
        (binding.kind != BindingKind::kAssign && binding.kind != BindingKind::kAugmented)) {
      continue;
    }
    if (!HoldsConfig(Field(binding.target, F::kObject), binding.scope, 0)) continue;
    const Value value = binding.kind == BindingKind::kAssign && binding.position == -1
                            ? Resolve(binding.value, binding.scope)
                            : Value{};
    out.fields.push_back(FieldOf(Text(Field(binding.target, F::kAttribute)), value));
  }
  for (const ConfigWrite& write : config_writes_) {
    if (write.config) {
      out.fields.push_back(FieldOf(write.field, write.value.IsNull() ? Value{} : Resolve(write.value, write.scope)));
    }
  }
  // The calls of functions of other modules, with what each argument is and which parts of their results
  // the file iterates more than once (in files that import torch: a loop over another module's loaders
  // is in training code, and following every call's result through a large tree of plain Python is not
  // free).
  const bool torch = ImportsTorch();
  ReiteratedResults reiterated;
  if (torch) {
    reiterated = ReiteratedResultBits();
  } else {
    reiterated.bits.assign(sites_.size(), 0);
  }
  auto attribute = reiterated.attributes.begin();
  for (size_t i = 0; i < sites_.size(); ++i) {
    const Site& site = sites_[i];
    if (!out.parameter_reads && site.kind == SiteKind::kCall) out.parameter_reads = ReadsParameters(site);
    if (site.kind == SiteKind::kCall && !(out.parameter_reads && (out.remote_loaders || !torch))) {
      bool factories = false;
      CopiesRemoteBatch(site, out.parameter_reads, factories);
      out.remote_loaders = out.remote_loaders || (torch && factories);
    }
    if (site.kind != SiteKind::kCall || site.Arguments().IsNull() || i >= callee_canonical_.size()) continue;
    // `functools.partial(Task.iter_batches, num_workers=0)`: a call of the function with those arguments
    // bound, and any others left to whoever calls the partial (a splat). (Most calls are of names the
    // summary keeps nothing of: they are looked at in place, and only a kept one is copied.)
    const bool partial = callee_canonical_[i] == "functools.partial";
    std::string partial_callee;
    if (partial) {
      const ts::Node args = site.Arguments();
      partial_callee = NamedChildCount(args) == 0 || KindOf(NamedChild(args, 0)) == K::kKeywordArgument
                           ? std::string()
                           : CanonicalName(NamedChild(args, 0));
    }
    const std::string& callee = partial ? partial_callee : callee_canonical_[i];
    if (callee.empty() || ThirdParty(callee)) continue;
    OutgoingCall call;
    call.callee = callee;
    call.splat = partial;
    call.switched_off = SwitchedOff(site);
    call.reiterated_results = reiterated.bits[i];
    while (attribute != reiterated.attributes.end() && attribute->first < i) ++attribute;
    for (; attribute != reiterated.attributes.end() && attribute->first == i; ++attribute) {
      call.reiterated_attributes.emplace_back(attribute->second);
    }
    const std::vector<std::string_view> overridden = partial ? PartialOverrides(site) : std::vector<std::string_view>();
    const ts::Node args = site.Arguments();
    call.arguments.reserve(NamedChildCount(args));  // a summary lives until the index is built: no slack
    int32_t position = partial ? -1 : 0;            // the partial's first argument is the function
    for (ts::Node arg : NamedChildren(args)) {
      const K k = KindOf(arg);
      if (k == K::kComment) continue;
      if (k == K::kListSplat || k == K::kDictionarySplat) {
        call.splat = true;
        continue;
      }
      CallArgument argument;
      if (k == K::kKeywordArgument) {
        argument.keyword = std::string(Text(Field(arg, F::kName)));
        arg = Field(arg, F::kValue);
        if (std::find(overridden.begin(), overridden.end(), argument.keyword) != overridden.end()) continue;
      } else if (position++ < 0) {
        continue;
      } else {
        argument.position = position - 1;
      }
      if (HoldsConfig(arg, site.scope, 0)) {
        argument.facts |= kArgConfig;
      } else {
        argument.config_module = ImportedConfigModule(arg, site.scope, 0);
      }
      argument.source = SourceOf(arg, site.scope, 0);
      // (Only the file's own DataLoader calls end LoaderFacts' chains.)
      if (out.builds_loaders) argument.facts |= LoaderFacts(arg, site.scope);
      if (const Value value = Resolve(arg, site.scope); value.known()) {
        argument.value_kind = static_cast<uint8_t>(value.kind);
        argument.int_value = value.int_value;
        argument.float_value = value.float_value;
        argument.string_value = std::string(value.string_value);
      }
      call.arguments.push_back(std::move(argument));
    }
    out.calls.push_back(std::move(call));
  }
  out.calls.shrink_to_fit();
  // A period the file cannot resolve (`if step % args.log_interval == 0:`), where it throttles per-step
  // code: in a step loop of the file, or in a function that runs every step.
  const auto throttles_steps = [&](const Guard& guard) {
    if (!guard.periodic || guard.period.known()) return false;
    if (scopes_[static_cast<size_t>(guard.scope)].runs_per_step) return true;
    return std::any_of(loops_.begin(), loops_.end(), [&](const Loop& loop) {
      return loop.role == LoopRole::kStep && loop.scope == guard.scope &&
             loop.node.Range().Contains(guard.block.Range());
    });
  };
  if (!out.parameter_reads) out.parameter_reads = std::any_of(guards_.begin(), guards_.end(), throttles_steps);
}

std::vector<std::string_view> Model::PartialOverrides(const Site& partial) const {
  // The keywords the calls of a name bound to the partial pass again (a later keyword wins); every
  // keyword when one of them passes `**kwargs`.
  std::vector<std::string_view> out;
  for (const Binding& binding : bindings_) {
    if (binding.kind != BindingKind::kAssign || binding.position != -1 || binding.value != partial.node) continue;
    for (uint32_t index : CallsNamed(binding.name)) {
      const Site& call = sites_[index];
      if (Text(call.callee) != binding.name || call.Arguments().IsNull()) continue;
      const ts::Node args = call.Arguments();
      for (uint32_t a = 0; a < NamedChildCount(args); ++a) {
        const ts::Node arg = NamedChild(args, a);
        if (KindOf(arg) == K::kKeywordArgument) out.push_back(Text(Field(arg, F::kName)));
        if (KindOf(arg) != K::kDictionarySplat) continue;
        const ts::Node bound = partial.Arguments();
        for (uint32_t b = 0; b < NamedChildCount(bound); ++b) {
          if (KindOf(NamedChild(bound, b)) == K::kKeywordArgument)
            out.push_back(Text(Field(NamedChild(bound, b), F::kName)));
        }
      }
    }
  }
  return out;
}

void Model::CopiesRemoteBatch(const Site& call, bool& parameters, bool& factories) const {
  if ((call.name != "to" && call.name != "cuda") || call.Receiver().IsNull()) return;
  std::vector<const Site*> loaders;
  RemoteLoaders remote;
  if (!BatchLoadersDepth(call.Receiver(), call.scope, 0, loaders, &remote)) return;
  // A parameter no call of the file fills (in a function: ReadsParameters' scope), a call of another
  // module's function.
  const bool in_function = scopes_[static_cast<size_t>(call.scope)].kind == ScopeKind::kFunction;
  parameters = parameters || (in_function && !remote.parameters.empty());
  factories = factories || !remote.factories.empty();
}

bool Model::ReadsParameters(const Site& call) const {
  if (scopes_[static_cast<size_t>(call.scope)].kind != ScopeKind::kFunction) return false;
  if (call.name == "DataLoader") {
    // A worker count or `persistent_workers=` the file cannot resolve.
    for (std::string_view keyword : {"num_workers", "persistent_workers"}) {
      const auto arg = FindArgument(call, keyword, -1);
      if (arg && !Resolve(arg->value, call.scope).known()) return true;
    }
    // A function that may return the loader to callers in other files, which may iterate it per epoch.
    return !QualName(call.scope).empty() && !ReturnsOf(call.scope).empty();
  }
  // A layer whose width is a parameter of the function (`nn.Embedding(output_size, input_size)` in a
  // module's `__init__`): another file's construction may pass the number (TL401).
  const auto layer = std::find_if(kWidthLayers.begin(), kWidthLayers.end(),
                                  [&](const WidthLayer& l) { return l.name == call.name; });
  // (The copy of a batch a parameter brings: CopiesRemoteBatch.)
  if (layer == kWidthLayers.end() || !CalleeCanonical(call).starts_with("torch.nn.")) return false;
  for (int position = 0; position < 2; ++position) {
    const std::string_view param = layer->params[static_cast<size_t>(position)];
    const auto arg = param.empty() ? std::nullopt : FindArgument(call, param, position);
    const ts::Node width = arg ? Unparen(arg->value) : ts::Node();
    const Binding* binding = KindOf(width) == K::kIdentifier ? SingleBinding(Text(width), call.scope) : nullptr;
    if (binding != nullptr && binding->kind == BindingKind::kParameter && binding->scope == call.scope) return true;
  }
  return false;
}

std::vector<Model::RemoteArgument> Model::RemoteArguments(const Binding& parameter) const {
  std::vector<RemoteArgument> out;
  if (project_ == nullptr || self_summary_ == nullptr || parameter.kind != BindingKind::kParameter) return out;
  const std::string qualname = QualName(parameter.scope);
  if (qualname.empty()) return out;
  // The index first: most functions have no callers in other files, and CallersOf scans the file's sites
  // for a class's constructions.
  const std::span<const ProjectIndex::Incoming> incoming_calls = project_->CallsOf(*self_summary_, qualname);
  if (incoming_calls.empty() || !CallersOf(parameter.scope).empty()) return out;
  const int position = ParameterPosition(parameter);
  for (const ProjectIndex::Incoming& incoming : incoming_calls) {
    const auto& arguments = incoming.call->arguments;
    const auto it = std::find_if(arguments.begin(), arguments.end(), [&](const CallArgument& a) {
      return a.keyword.empty() ? position >= 0 && a.position == position : a.keyword == parameter.name;
    });
    out.push_back({incoming.caller, it == arguments.end() ? nullptr : &*it, incoming.call});
  }
  return out;
}

bool Model::RemoteParameterValues(const Binding& parameter, std::vector<Value>& out) const {
  if (project_ == nullptr) return false;
  const std::vector<RemoteArgument> arguments = RemoteArguments(parameter);
  if (arguments.empty()) return false;
  for (const RemoteArgument& remote : arguments) {
    if (remote.argument == nullptr) {
      // Left out: the default, unless a splat may fill it.
      const bool defaulted = !remote.call->splat && !parameter.value.IsNull();
      out.push_back(defaulted ? Resolve(parameter.value, scopes_[static_cast<size_t>(parameter.scope)].parent)
                              : Value{});
      continue;
    }
    Value value;
    value.kind = static_cast<ValueKind>(remote.argument->value_kind);
    value.int_value = remote.argument->int_value;
    value.float_value = remote.argument->float_value;
    value.string_value = remote.argument->string_value;
    out.push_back(value);
  }
  return true;
}

std::string Model::ImportedConfigModule(ts::Node name, int scope, int depth) const {
  name = Unparen(name);
  if (depth > 2 || KindOf(name) != K::kIdentifier) return {};
  const Binding* binding = SingleBinding(Text(name), scope);
  if (binding == nullptr) {
    if (BindingScope(Text(name), scope) >= 0) return {};  // bound here or around: not the import
    const Import* import = FindImport(Text(name));
    const size_t dot = import == nullptr ? std::string::npos : import->canonical.rfind('.');
    if (dot == std::string::npos || ThirdParty(import->canonical)) return {};
    return import->canonical.substr(0, dot);
  }
  if (binding->kind == BindingKind::kAssign && binding->position == -1) {
    // `config = get_config()` with `from config import get_config`: what that function returns, the
    // configuration its module parses, when the index says it returns one ("config.get_config()").
    const ts::Node value = Unparen(binding->value);
    const ts::Node callee = KindOf(value) == K::kCall ? Unparen(Field(value, F::kFunction)) : ts::Node();
    if (KindOf(callee) != K::kIdentifier || BindingScope(Text(callee), scope) >= 0) return {};
    const Import* import = FindImport(Text(callee));
    if (import == nullptr || import->canonical.find('.') == std::string::npos || ThirdParty(import->canonical)) {
      return {};
    }
    return import->canonical + "()";
  }
  if (binding->kind != BindingKind::kParameter || CallersOf(binding->scope).empty()) return {};
  // A field the function writes itself is not the module's.
  const std::string prefix = std::string(Text(name)) + ".";
  for (const Binding& b : bindings_) {
    if (b.scope == binding->scope && b.name.starts_with(prefix)) return {};
  }
  std::string module;
  const bool every = EveryCallerPasses(*binding, [&](ts::Node value, int at) {
    std::string one = ImportedConfigModule(value, at, depth + 1);
    if (one.empty() || (!module.empty() && one != module)) return false;
    module = std::move(one);
    return true;
  });
  return every ? module : std::string();
}

bool Model::RemoteFieldValues(ts::Node object, std::string_view field, int scope, std::vector<Value>& out) const {
  object = Unparen(object);
  if (KindOf(object) != K::kIdentifier) return false;
  if (project_ == nullptr) {
    const std::lock_guard lock(asked_mu_);
    if (std::find(asked_fields_.begin(), asked_fields_.end(), field) == asked_fields_.end()) {
      asked_fields_.emplace_back(field);
    }
    return false;
  }
  const auto field_value = [](const FieldSummary& f) {
    Value value;
    value.kind = static_cast<ValueKind>(f.kind);
    value.int_value = f.int_value;
    value.float_value = f.float_value;
    value.string_value = f.string_value;
    if (value.kind == ValueKind::kUnknown) value.at_least = f.at_least;
    return value;
  };
  // `from option import args`: the fields of the configuration that module parses.
  const auto module_fields = [&](const FileSummary& from, const std::string& module_name, std::vector<Value>& values) {
    const FileSummary* module = nullptr;
    if (module_name.ends_with("()")) {
      // What a function of the project returns: its module's configuration, when it returns that.
      const auto function = project_->ResolveFunction(from,
                                                      std::string_view(module_name).substr(0, module_name.size() - 2));
      if (function && function->function->returns_config) module = function->file;
    } else if (!module_name.empty()) {
      module = project_->Module(from, module_name);
    }
    if (module == nullptr) return false;
    const size_t before = values.size();
    for (const FieldSummary& f : module->fields) {
      if (f.name == field) values.push_back(field_value(f));
    }
    return values.size() > before;
  };
  const auto imported = [&](ts::Node name, int at, std::vector<Value>& values) {
    return self_summary_ != nullptr && SingleBinding(Text(name), at) == nullptr &&
           module_fields(*self_summary_, ImportedConfigModule(name, at, 0), values);
  };
  const Binding* parameter = SingleBinding(Text(object), scope);
  if (parameter == nullptr) return BindingsOf(Text(object)).empty() && imported(object, scope, out);
  if (parameter->kind == BindingKind::kAssign) {
    // `config = get_config()` of another module; the file's own writes of the field win.
    if (self_summary_ == nullptr || !BindingsOf(std::string(Text(object)) + "." + std::string(field)).empty())
      return false;
    const std::string module = ImportedConfigModule(object, scope, 0);
    return module.ends_with("()") && module_fields(*self_summary_, module, out);
  }
  if (parameter->kind != BindingKind::kParameter) return false;
  // The function writes the field itself (`args.workers = 0`): what the callers gave may not be what is read.
  const auto writes = BindingsOf(std::string(Text(object)) + "." + std::string(field));
  const bool written = std::any_of(writes.begin(), writes.end(),
                                   [&](const Binding& b) { return b.scope == parameter->scope; });
  // `def main(args)` called in the file only as `main(args)` with such an import.
  if (!CallersOf(parameter->scope).empty()) {
    if (written) return false;
    std::vector<Value> values;
    if (!EveryCallerPasses(*parameter, [&](ts::Node value, int at) { return imported(Unparen(value), at, values); })) {
      return false;
    }
    out.insert(out.end(), values.begin(), values.end());
    return true;
  }
  const std::vector<RemoteArgument> arguments = RemoteArguments(*parameter);
  if (arguments.empty()) return false;
  if (written) {
    out.emplace_back();
    return true;
  }
  for (const RemoteArgument& remote : arguments) {
    // The caller passes a configuration imported from a module (`from option import args`, maybe through
    // its own `main(args)`): that module's fields, unless the caller writes the field itself.
    if (remote.argument != nullptr && !remote.argument->config_module.empty()) {
      const bool rewritten = std::any_of(remote.caller->fields.begin(), remote.caller->fields.end(),
                                         [&](const FieldSummary& f) { return f.name == field; });
      if (rewritten || !module_fields(*remote.caller, remote.argument->config_module, out)) out.emplace_back();
      continue;
    }
    if (remote.argument == nullptr || (remote.argument->facts & kArgConfig) == 0) {
      out.emplace_back();
      continue;
    }
    bool found = false;
    for (const FieldSummary& f : remote.caller->fields) {
      if (f.name != field) continue;
      found = true;
      out.push_back(field_value(f));
    }
    if (!found) out.emplace_back();
  }
  return true;
}

bool Model::PinsMemory(const Site& loader) const {
  if (auto arg = FindArgument(loader, "pin_memory", 7))
    return Resolve(arg->value, loader.scope).Truthy().value_or(false);
  if (HasStarArgs(loader)) return false;
  const KeyLookup lookup = KwargsLookupIn(loader, "pin_memory");
  return lookup.presence == KeyPresence::kPresent && lookup.value.Truthy().value_or(false);
}

bool Model::BatchFromPinnedLoaders(ts::Node expr, int scope) const {
  std::vector<const Site*> loaders;
  RemoteLoaders remote;
  if (!BatchLoadersDepth(expr, scope, 0, loaders, &remote)) return false;
  // A batch of a loader Accelerate prepared is on the device already: a `.to(device)` of it copies nothing.
  if ((loaders.empty() && remote.empty()) || remote.prepared) return false;
  if (!std::all_of(loaders.begin(), loaders.end(), [&](const Site* loader) { return PinsMemory(*loader); })) {
    return false;
  }
  // A loader another module's function returns (`make_data_loader(...)`, through re-exports and the
  // functions that return its result).
  if (!std::all_of(remote.factories.begin(), remote.factories.end(), [&](const std::string& function) {
        return project_ != nullptr && self_summary_ != nullptr &&
               project_->ReturnedLoader(*self_summary_, {function, -1}) == kArgPinnedLoader;
      })) {
    return false;
  }
  return std::all_of(remote.parameters.begin(), remote.parameters.end(), [&](const Binding* parameter) {
    const std::vector<RemoteArgument> arguments = RemoteArguments(*parameter);  // none without a project
    return !arguments.empty() && std::all_of(arguments.begin(), arguments.end(), [&](const RemoteArgument& r) {
      if (r.argument == nullptr) return false;
      // A loader of the calling file, or one a function of the project returns there.
      return r.argument->facts == kArgPinnedLoader ||
             (r.argument->facts == 0 && project_->ReturnedLoader(*r.caller, r.argument->source) == kArgPinnedLoader);
    });
  });
}

bool Model::CudaAt(ts::Node node) const {
  if (!cuda_evidence_.IsNull()) return true;
  if (inherited_cuda_.empty()) return false;
  if (imports_cuda_ || node.IsNull()) return true;
  const uint32_t at = node.StartByte();
  return std::none_of(main_blocks_.begin(), main_blocks_.end(),
                      [&](const TextRange& block) { return block.Contains(at); });
}

void Model::AttachProject(const ProjectIndex* project, const std::string& module) {
  {
    const std::lock_guard lock(resolved_mu_);
    resolved_names_.clear();  // resolved without the project
  }
  project_ = project;
  self_summary_ = project == nullptr ? nullptr : project->Find(module);
  inherited_cuda_.clear();
  imports_cuda_ = false;
  component_facts_ = 0;
  if (self_summary_ != nullptr) {
    if (auto cuda = project->InheritedCuda(*self_summary_)) inherited_cuda_ = std::move(*cuda);
    if (!inherited_cuda_.empty() && !main_blocks_.empty()) imports_cuda_ = project->ImportedCuda(*self_summary_);
    // The file's own facts as its text is now, too: the index holds the summary of the text it was
    // given, and `check --fix` checks the text its fixes made against that index.
    component_facts_ = project->ComponentFacts(*self_summary_) | own_facts_;
    // A guard period another file's configuration gives.
    if (project->Called(*self_summary_)) Builder(*this).ReviewGuards();
    Builder(*this).ReviewTrainingHelpers();
    Builder(*this).ReviewCallbacks(true);
  }
  const bool had_entries = !remote_entries_.empty();
  remote_entries_.clear();
  if (self_summary_ != nullptr) {
    const auto entries = project->StepEntries(*self_summary_);
    remote_entries_.assign(entries.begin(), entries.end());
    // A function a CUDA script's step loop calls runs on CUDA (the detector of a model the script loads
    // from a checkpoint, in a module it never imports): the call is the file's evidence (not for its
    // `__main__` block, which runs without that script).
    if (cuda_evidence_.IsNull() && inherited_cuda_.empty()) {
      const auto cuda = std::find_if(entries.begin(), entries.end(), [](const auto& e) { return e.cuda; });
      if (cuda != entries.end()) {
        inherited_cuda_ = cuda->caller->path + ":" + std::to_string(cuda->line);
      }
    }
  }
  if (had_entries || !remote_entries_.empty()) Builder(*this).MarkRemoteEntries();
}

std::vector<Model::Callee> Model::ProjectCallees(const Site& call) const {
  std::vector<Callee> out;
  if (call.kind != SiteKind::kCall) return out;
  // `utils.all_reduce_mean(x)`, `all_reduce_mean(x)` imported from a module of the project (the callee's
  // canonical name is computed once per site).
  if (const std::string_view canonical = CalleeCanonical(call); !canonical.empty()) {
    if (!ThirdParty(canonical)) out.push_back({Callee::kFunction, std::string(canonical), {}, {}});
    return out;
  }
  if (KindOf(call.callee) == K::kIdentifier) {
    // `accuracy(scores, targets)` with `from utils import *`: a name the file does not bind may come from
    // any module it star-imports (the index knows which has it).
    if (!star_imports_.empty() && BindingsOf(call.name).empty() && FunctionsNamed(call.name).empty()) {
      for (const std::string& module : star_imports_) {
        if (!ThirdParty(module)) out.push_back({Callee::kFunction, module + "." + std::string(call.name), {}, {}});
      }
      return out;
    }
    // `criterion(outputs, targets)` with an instance of a class of the project: its `__call__` or `forward`.
    if (auto cls = ClassOf(call.callee, call.scope)) out.push_back({Callee::kInstance, {}, {}, std::move(*cls)});
    return out;
  }
  if (KindOf(call.callee) != K::kAttribute) return out;
  ts::Node object = Unparen(call.Receiver());
  const K ok = KindOf(object);
  // `metric_logger.update(...)` with `metric_logger = utils.MetricLogger()` (or `self.logger = ...`).
  if (ok == K::kIdentifier || ok == K::kAttribute) {
    const std::string_view text = Text(object);
    if (text == "self" || text == "cls") {
      // An inherited method of a base class from another module.
      const int cls = scopes_[static_cast<size_t>(call.scope)].parent;
      if (cls < 0 || scopes_[static_cast<size_t>(cls)].kind != ScopeKind::kClass) return out;
      if (ClassMethod(cls, call.name) >= 0) return out;  // the class's own method
      // `self.matcher(outputs, targets)`: an object the class keeps, of a class of the project.
      if (auto held = ClassOf(call.callee, call.scope)) {
        out.push_back({Callee::kInstance, {}, {}, std::move(*held)});
        return out;
      }
      for (const auto& [base, canonical] : BasesOf(cls)) {
        if (!canonical.empty() && !ThirdParty(canonical)) out.push_back({Callee::kMethod, canonical, call.name, {}});
      }
      return out;
    }
    // `if isinstance(self.sampler, LossAwareSampler): self.sampler.update(...)`: the guard says the class
    // (a subclass may override the method; the class's own is what the model knows).
    if (std::string narrowed = IsinstanceClass(call, text); !narrowed.empty()) {
      if (!ThirdParty(narrowed)) out.push_back({Callee::kMethod, std::move(narrowed), call.name, {}});
      return out;
    }
    const Binding* binding = SingleBinding(text, call.scope);
    if (binding != nullptr && binding->kind == BindingKind::kAssign && binding->position == -1 &&
        KindOf(Unparen(binding->value)) == K::kCall) {
      std::string canonical = CanonicalName(Field(Unparen(binding->value), F::kFunction));
      if (!canonical.empty() && !ThirdParty(canonical)) {
        out.push_back({Callee::kMethod, std::move(canonical), call.name, {}});
        return out;
      }
    }
    // `converter.decode(preds)` with `converter` a parameter, or built by a factory of the project;
    // `self.matcher.match(...)` with the object the class keeps.
    if (ok == K::kIdentifier || ok == K::kAttribute) {
      if (auto cls = ClassOf(object, call.scope)) out.push_back({Callee::kInstance, {}, call.name, std::move(*cls)});
    }
    // `model.detect_objects(...)` with `model = checkpoint["model"]`: a model whose class nothing here
    // tells runs the method of the project's one torch.nn class that has it.
    if (out.empty() && ModelNamed(text) && ProjectIndex::ModuleMethodName(call.name) &&
        (project_ == nullptr || project_->ModuleMethod(call.name)) && !SourceOf(object, call.scope, 0).known()) {
      out.push_back({Callee::kModuleMethod, std::string(ProjectIndex::kModuleMethodCallee), call.name, {}});
    }
  }
  return out;
}

std::optional<ProjectIndex::Function> Model::ResolveCallee(const Callee& callee) const {
  if (project_ == nullptr || self_summary_ == nullptr) return std::nullopt;
  switch (callee.kind) {
    case Callee::kFunction: return project_->ResolveFunction(*self_summary_, callee.dotted);
    case Callee::kMethod: return project_->ResolveMethod(*self_summary_, callee.dotted, callee.method);
    case Callee::kInstance:
      return callee.method.empty() ? project_->CallOperator(callee.cls) : project_->MethodOf(callee.cls, callee.method);
    case Callee::kModuleMethod: return project_->ModuleMethod(callee.method);
  }
  return std::nullopt;
}

std::string Model::IsinstanceClass(const Site& site, std::string_view receiver) const {
  for (int g = site.guard; g >= 0; g = guards_[static_cast<size_t>(g)].parent) {
    // The condition, or a side of `and` (both sides hold in the branch).
    std::vector<ts::Node> work{guards_[static_cast<size_t>(g)].condition};
    for (int steps = 0; !work.empty() && steps < 16; ++steps) {
      const ts::Node node = Unparen(work.back());
      work.pop_back();
      if (KindOf(node) == K::kBoolean && Text(Field(node, F::kOperator)) == "and") {
        work.push_back(Field(node, F::kLeft));
        work.push_back(Field(node, F::kRight));
        continue;
      }
      if (KindOf(node) != K::kCall || Text(Field(node, F::kFunction)) != "isinstance") continue;
      const ts::Node args = Field(node, F::kArguments);
      if (args.IsNull() || NamedChildCount(args) != 2 || Text(NamedChild(args, 0)) != receiver) continue;
      return CanonicalName(NamedChild(args, 1));  // empty for a tuple of classes or a local class
    }
  }
  return {};
}

void Model::ForEachArgumentValue(const Site& call, const std::function<void(ts::Node)>& visit) const {
  const ts::Node args = call.Arguments();
  if (args.IsNull()) return;
  for (ts::Node arg : NamedChildren(args)) {
    if (KindOf(arg) == K::kKeywordArgument) arg = Field(arg, F::kValue);
    const K k = KindOf(arg);
    if (k != K::kListSplat && k != K::kDictionarySplat && k != K::kComment) visit(arg);
  }
}

bool Model::DeviceArgument(const Site& call) const {
  // A model's parameters live where the model does: `clip_gradients(model, 1.0)` passes device tensors.
  // So do its `parameters()` and `named_parameters()` (`grad_logger(encoder.named_parameters())`).
  const auto parameters_of_model = [&](ts::Node arg) {
    arg = Unparen(arg);
    if (KindOf(arg) != K::kCall) return false;
    const ts::Node callee = Unparen(Field(arg, F::kFunction));
    if (KindOf(callee) != K::kAttribute) return false;
    const std::string_view method = Text(Field(callee, F::kAttribute));
    return (method == "parameters" || method == "named_parameters") &&
           IsModelLike(Field(callee, F::kObject), call.scope, 0);
  };
  bool device = false;
  ForEachArgumentValue(call, [&](ts::Node arg) {
    device = device || IsDeviceTensor(arg, call.scope) || IsModelLike(arg, call.scope, 0) || parameters_of_model(arg);
  });
  if (device) return true;
  // `update(**loss_dict_reduced)`: the entries of a container of device tensors.
  const ts::Node args = call.Arguments();
  for (uint32_t i = 0; !device && !args.IsNull() && i < args.NamedChildCount(); ++i) {
    const ts::Node arg = args.NamedChild(i);
    if (KindOf(arg) != K::kDictionarySplat && KindOf(arg) != K::kListSplat) continue;
    const ts::Node container = arg.NamedChildCount() > 0 ? arg.NamedChild(0) : ts::Node();
    device = !container.IsNull() && ElementTensorKind(container, call.scope, 0) == TensorKind::kTensor &&
             PlacementOf(container, call.scope) != Placement::kHost;
  }
  return device;
}

bool Model::ReturnsTensors(int function, std::span<const ts::Node> returns_of) const {
  // Only returns that build a container (a comprehension, a dict or list display, or a name bound to one)
  // are typed: the summary of a large tree pays for nothing else.
  const auto container = [](K k) { return k == K::kComprehension || k == K::kDictionary || k == K::kList; };
  for (const ts::Node returned : returns_of) {
    ts::Node value = Unparen(returned);
    if (value.IsNull()) continue;
    if (KindOf(value) == K::kIdentifier) {
      const Binding* binding = SingleBinding(Text(value), function);
      if (binding == nullptr || binding->kind != BindingKind::kAssign || binding->position != -1) continue;
      value = Unparen(binding->value);
    }
    if (!container(KindOf(value))) continue;
    type_steps_left_ = kTypeStepsPerSite;
    const bool tensors = ElementTensorKind(value, function, 0) == TensorKind::kTensor;
    type_steps_left_ = -1;
    if (tensors) return true;
  }
  return false;
}

std::optional<Model::RemoteSync> Model::CrossFileSync(const Site& call, SyncFamily family) const {
  if (project_ == nullptr || self_summary_ == nullptr || call.kind != SiteKind::kCall) return std::nullopt;
  for (const Callee& callee : ProjectCallees(call)) {
    const auto found = ResolveCallee(callee);
    if (!found || found->file == self_summary_) continue;
    const auto reached = project_->SyncOf(*found, family);
    if (!reached) continue;
    const SyncSummary& sync = *reached->sync;
    // Only a device argument (a tensor, a model) makes it sync: `update(loss=loss.item())` passes a float.
    // The callee's own sync of one array parameter: that argument.
    if (reached->on_params && reached->function == found->function && !sync.parameter.empty()) {
      const auto argument = FindArgument(call, sync.parameter, sync.parameter_position);
      if (!argument || !IsDeviceTensor(argument->value, call.scope)) continue;
    } else if (reached->on_params && !DeviceArgument(call)) {
      continue;
    }
    RemoteSync out;
    out.path = reached->file->path;
    out.line = sync.line;
    out.column = sync.column;
    out.function = std::string(found->qualname);
    out.syncing_function = reached->function->qualname;
    out.message = sync.message;
    out.message_zh = sync.message_zh;
    out.kind = static_cast<SyncKind>(sync.kind);
    return out;
  }
  return std::nullopt;
}

}  // namespace tl::semantic
