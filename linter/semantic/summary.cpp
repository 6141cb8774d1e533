// What this file tells the rest of the project (Summarize), and what the project tells this file's
// checks (AttachProject, CrossFileSync). See project.h.
#include <algorithm>
#include <functional>
#include <string>

#include "linter/semantic/builder.h"

namespace tl::semantic {
namespace {

// Prefixes of names that are never functions of the checked project.
bool ThirdParty(std::string_view canonical) {
  static constexpr std::array<std::string_view, 14> kPrefixes = {
      "torch",  "numpy", "math",         "os",   "sys",        "time",      "json",
      "random", "tqdm",  "transformers", "timm", "accelerate", "lightning", "pytorch_lightning"};
  const std::string_view head = canonical.substr(0, canonical.find('.'));
  return OneOf(head, kPrefixes);
}

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
        site.Arguments().NamedChildCount() > 0) {
      synced = site.Arguments().NamedChild(0);
    }
    if (synced.IsNull() && site.kind == SiteKind::kSubscript) synced = Field(site.node, F::kValue);
    if (synced.IsNull()) synced = site.node;
    const bool on_params = FromParameters(synced, site.scope, 0);
    // `if top_k is not None:` around it: whether it runs depends on the call's arguments, which the call
    // site cannot tell (a sync of a parameter's own value is told by whether the argument is a tensor).
    if (!on_params && GuardedByParameters(site)) continue;
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
    if (guards_[static_cast<size_t>(g)].periodic) return false;
  }
  for (int l = site.loop; l >= 0; l = loops_[static_cast<size_t>(l)].parent) {
    if (loops_[static_cast<size_t>(l)].role == LoopRole::kEpoch) return false;
  }
  return true;
}

bool Model::GuardedByParameters(const Site& site) const {
  for (int g = site.guard; g >= 0; g = guards_[static_cast<size_t>(g)].parent) {
    bool reads = false;
    ts::Walk(guards_[static_cast<size_t>(g)].condition, [&](ts::Node node) {
      if (reads) return false;
      if (KindOf(node) == K::kIdentifier) reads = FromParameters(node, site.scope, 0);
      return !reads;
    });
    if (reads) return true;
  }
  return false;
}

bool Model::FromParameters(ts::Node expr, int scope, int depth) const {
  if (depth > 6) return false;
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

FileSummary Model::Summarize(const SourceFile& file) const {
  FileSummary out;
  out.path = file.path();
  out.content_hash = ContentHash(source_);
  out.own_cuda = !cuda_evidence_.IsNull();
  if (out.own_cuda) out.cuda_line = file.lines().Locate(cuda_evidence_.StartByte()).line;
  out.catalog_facts = own_facts_;
  for (const Import& import : imports_) out.imports.push_back({std::string(import.local), import.canonical});

  for (const Site& site : sites_) {
    if (site.per_step()) {
      out.device_candidates = true;
      if (!ProjectCallees(site).empty()) out.project_calls = true;
    }
    // A DataLoader, and a tensor factory that may be moved at once (TL205 reports it at any cadence).
    if (site.kind == SiteKind::kCall && (site.name == "DataLoader" || !DataFreeFactory(site).empty())) {
      out.device_candidates = true;
    }
  }
  // The explicit syncs (`.item()`, `.tolist()`, `.cpu()`, `.numpy()`, `.synchronize()`) and the implicit
  // ones (a condition, an `assert`, a mask or a data-dependent op on a device tensor, a builtin over one).
  // Printing and `float(t)` are left to the helper's own file: they need a tensor type for every `print`
  // of every function of a large tree, and a helper that prints a tensor is still reported in its own
  // file when that file's loop calls it.
  static constexpr std::array<std::string_view, 5> kExplicit = {"item", "tolist", "cpu", "numpy", "synchronize"};
  static constexpr std::array<std::string_view, 10> kImplicit = {
      "nonzero", "masked_select", "unique", "where", "repeat_interleave", "max", "min", "sum", "any", "all"};
  const std::vector<PerCall> explicit_syncs = FirstSyncPerCall([&](const Site& site) -> std::optional<SyncOp> {
    if (site.kind != SiteKind::kCall || !OneOf(site.name, kExplicit) || site.Receiver().IsNull()) return std::nullopt;
    return SyncAt(site);
  });
  const std::vector<PerCall> implicit_syncs = FirstSyncPerCall([&](const Site& site) -> std::optional<SyncOp> {
    if (site.kind == SiteKind::kCall && !OneOf(site.name, kImplicit)) return std::nullopt;
    type_steps_left_ = kTypeStepsPerSite;
    auto sync = ImplicitSyncAt(site);
    type_steps_left_ = -1;
    return sync;
  });
  for (size_t s = 1; s < scopes_.size(); ++s) {
    const Scope& scope = scopes_[s];
    const Scope& parent = scopes_[static_cast<size_t>(scope.parent)];
    if (scope.kind == ScopeKind::kClass && scope.parent == 0) {
      ClassSummary cls;
      cls.name = std::string(scope.name);
      ts::Node bases = Field(scope.node, F::kSuperclasses);
      for (uint32_t i = 0; !bases.IsNull() && i < bases.NamedChildCount(); ++i) {
        ts::Node base = bases.NamedChild(i);
        if (KindOf(base) == K::kKeywordArgument) continue;  // metaclass=...
        std::string canonical = CanonicalName(base);
        cls.bases.push_back(canonical.empty() ? std::string(Text(base)) : std::move(canonical));
      }
      out.classes.push_back(std::move(cls));
      continue;
    }
    if (scope.kind != ScopeKind::kFunction || scope.name.empty()) continue;
    FunctionSummary function;
    if (scope.parent == 0) {
      function.qualname = std::string(scope.name);
    } else if (parent.kind == ScopeKind::kClass && parent.parent == 0) {
      function.qualname = std::string(parent.name) + "." + std::string(scope.name);
    } else {
      continue;  // nested functions are not reachable from other files
    }
    function.line = file.lines().Locate(scope.node.StartByte()).line;
    if (const PerCall& p = explicit_syncs[s]; p.site >= 0) {
      function.sync = Summary(file, sites_[static_cast<size_t>(p.site)].node, p.on_params, p.sync);
    }
    if (const PerCall& p = implicit_syncs[s]; p.site >= 0) {
      function.implicit = Summary(file, sites_[static_cast<size_t>(p.site)].node, p.on_params, p.sync);
    }
    out.functions.push_back(std::move(function));
  }
  return out;
}

void Model::AttachProject(const ProjectIndex* project, const std::string& module) {
  project_ = project;
  self_summary_ = project == nullptr ? nullptr : project->Find(module);
  inherited_cuda_.clear();
  component_facts_ = 0;
  if (self_summary_ != nullptr) {
    if (auto cuda = project->InheritedCuda(*self_summary_)) inherited_cuda_ = std::move(*cuda);
    component_facts_ = project->ComponentFacts(*self_summary_);
  }
}

std::vector<Model::Callee> Model::ProjectCallees(const Site& call) const {
  std::vector<Callee> out;
  if (call.kind != SiteKind::kCall) return out;
  // `utils.all_reduce_mean(x)`, `all_reduce_mean(x)` imported from a module of the project.
  if (std::string canonical = CanonicalName(call.callee); !canonical.empty()) {
    if (!ThirdParty(canonical)) out.push_back({Callee::kFunction, std::move(canonical), {}});
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
      for (const auto& [name, scope] : FunctionsNamed(call.name)) {
        if (scopes_[static_cast<size_t>(scope)].parent == cls) return out;  // the class's own method
      }
      ts::Node bases = Field(scopes_[static_cast<size_t>(cls)].node, F::kSuperclasses);
      for (uint32_t i = 0; !bases.IsNull() && i < bases.NamedChildCount(); ++i) {
        std::string canonical = CanonicalName(bases.NamedChild(i));
        if (!canonical.empty() && !ThirdParty(canonical)) {
          out.push_back({Callee::kMethod, std::move(canonical), call.name});
        }
      }
      return out;
    }
    // `if isinstance(self.sampler, LossAwareSampler): self.sampler.update(...)`: the guard says the class
    // (a subclass may override the method; the class's own is what the model knows).
    if (std::string narrowed = IsinstanceClass(call, text); !narrowed.empty()) {
      if (!ThirdParty(narrowed)) out.push_back({Callee::kMethod, std::move(narrowed), call.name});
      return out;
    }
    const Binding* binding = SingleBinding(text, call.scope);
    if (binding == nullptr || binding->kind != BindingKind::kAssign || binding->position != -1 ||
        KindOf(Unparen(binding->value)) != K::kCall) {
      return out;
    }
    std::string canonical = CanonicalName(Field(Unparen(binding->value), F::kFunction));
    if (!canonical.empty() && !ThirdParty(canonical)) out.push_back({Callee::kMethod, std::move(canonical), call.name});
  }
  return out;
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
      if (args.IsNull() || args.NamedChildCount() != 2 || Text(args.NamedChild(0)) != receiver) continue;
      return CanonicalName(args.NamedChild(1));  // empty for a tuple of classes or a local class
    }
  }
  return {};
}

std::optional<Model::RemoteSync> Model::CrossFileSync(const Site& call, bool implicit) const {
  if (project_ == nullptr || self_summary_ == nullptr || call.kind != SiteKind::kCall) return std::nullopt;
  for (const Callee& callee : ProjectCallees(call)) {
    const auto found = callee.kind == Callee::kFunction
                           ? project_->ResolveFunction(*self_summary_, callee.dotted)
                           : project_->ResolveMethod(*self_summary_, callee.dotted, callee.method);
    if (!found || found->file == self_summary_) continue;
    const SyncSummary& sync = implicit ? found->function->implicit : found->function->sync;
    if (!sync.syncs) continue;
    if (sync.on_params) {
      // Only a tensor argument makes it sync: `update(loss=loss.item())` passes a float.
      bool tensor = false;
      const ts::Node args = call.Arguments();
      for (uint32_t i = 0; !args.IsNull() && i < args.NamedChildCount() && !tensor; ++i) {
        ts::Node arg = args.NamedChild(i);
        if (KindOf(arg) == K::kKeywordArgument) arg = Field(arg, F::kValue);
        const K k = KindOf(arg);
        if (k == K::kListSplat || k == K::kDictionarySplat || k == K::kComment) continue;
        tensor = IsDeviceTensor(arg, call.scope);
      }
      if (!tensor) continue;
    }
    RemoteSync out;
    out.path = found->file->path;
    out.line = sync.line;
    out.column = sync.column;
    out.function = found->function->qualname;
    out.message = sync.message;
    out.message_zh = sync.message_zh;
    out.kind = static_cast<SyncKind>(sync.kind);
    return out;
  }
  return std::nullopt;
}

}  // namespace tl::semantic
