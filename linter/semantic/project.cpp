#include "linter/semantic/project.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace tl::semantic {
namespace {

constexpr int kMaxHops = 8;  // re-exports and base classes followed before the answer is "unknown"

bool IsIdentifier(std::string_view s) {
  if (s.empty() || (std::isdigit(static_cast<unsigned char>(s[0])) != 0)) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == '_' || std::isalnum(static_cast<unsigned char>(c)); });
}

// Whether the file defines a class of that name.
bool HasClass(const FileSummary& file, std::string_view name) {
  return std::any_of(file.classes.begin(), file.classes.end(), [&](const ClassSummary& c) { return c.name == name; });
}

// A function's own summary of one family.
const SyncSummary& OwnSync(const FunctionSummary& function, SyncFamily family) {
  switch (family) {
    case SyncFamily::kImplicit: return function.implicit;
    case SyncFamily::kEmptyCache: return function.empty_cache;
    case SyncFamily::kExplicit: break;
  }
  return function.sync;
}

// Leading path segments two paths share ("a/b/c.py" and "a/b/d/e.py" share 2).
size_t SharedDirs(std::string_view a, std::string_view b) {
  size_t shared = 0;
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    if (a[i] == '/') ++shared;
    ++i;
  }
  return shared;
}

}  // namespace

bool SameForProject(const FileSummary& a, const FileSummary& b) {
  FileSummary x = a;
  FileSummary y = b;
  x.content_hash = y.content_hash = 0;
  x.module = y.module;
  x.is_package = y.is_package;
  return x == y;
}

uint64_t ContentHash(std::string_view text) { return std::hash<std::string_view>{}(text); }

std::optional<FileSummary> SummaryCache::Find(std::string_view path, uint64_t content_hash) const {
  const std::lock_guard lock(mu_);
  auto it = by_path_.find(std::string(path));
  if (it == by_path_.end() || it->second.summary.content_hash != content_hash) return std::nullopt;
  ++hits_;
  return it->second.summary;
}

std::optional<FileSummary> SummaryCache::FindStamped(std::string_view path, Stamp stamp) const {
  const std::lock_guard lock(mu_);
  auto it = by_path_.find(std::string(path));
  if (it == by_path_.end() || !it->second.stamp || !(*it->second.stamp == stamp)) return std::nullopt;
  ++hits_;
  return it->second.summary;
}

void SummaryCache::Put(const FileSummary& summary) {
  const std::lock_guard lock(mu_);
  if (by_path_.size() >= capacity_ && !by_path_.contains(summary.path)) by_path_.clear();
  by_path_.insert_or_assign(summary.path, Entry{summary, std::nullopt});
}

void SummaryCache::Put(const FileSummary& summary, Stamp stamp) {
  const std::lock_guard lock(mu_);
  if (by_path_.size() >= capacity_ && !by_path_.contains(summary.path)) by_path_.clear();
  by_path_.insert_or_assign(summary.path, Entry{summary, stamp});
}

size_t SummaryCache::size() const {
  const std::lock_guard lock(mu_);
  return by_path_.size();
}

size_t SummaryCache::hits() const {
  const std::lock_guard lock(mu_);
  return hits_;
}

std::string ModuleName(std::string_view relative_path, bool* is_package) {
  std::string_view path = relative_path;
  while (path.starts_with("./")) path.remove_prefix(2);
  if (!path.ends_with(".py")) return {};
  path.remove_suffix(3);
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  const bool package = !parts.empty() && parts.back() == "__init__";
  if (package) parts.pop_back();
  if (is_package != nullptr) *is_package = package;
  std::string out;
  for (std::string_view part : parts) {
    if (!IsIdentifier(part)) return {};
    if (!out.empty()) out += '.';
    out += part;
  }
  return out;
}

void ProjectIndex::Add(FileSummary summary) {
  if (summary.module.empty() || by_module_.count(summary.module) != 0) return;
  by_module_.emplace(summary.module, files_.size());
  const size_t dot = summary.module.rfind('.');
  by_last_[dot == std::string::npos ? summary.module : summary.module.substr(dot + 1)].push_back(files_.size());
  files_.push_back(std::make_unique<FileSummary>(std::move(summary)));
}

const FileSummary* ProjectIndex::Find(std::string_view module) const {
  auto it = by_module_.find(module);
  return it == by_module_.end() ? nullptr : files_[it->second].get();
}

std::vector<ImportSummary> ProjectIndex::StarBindings(const FileSummary& file) const {
  std::vector<ImportSummary> out;
  std::vector<const FileSummary*> seen = {&file};
  std::vector<const FileSummary*> level = {&file};
  for (int depth = 0; depth < 3 && !level.empty(); ++depth) {
    std::vector<const FileSummary*> next;
    for (const FileSummary* from : level) {
      for (const ImportSummary& import : from->imports) {
        if (import.local != "*") continue;
        const FileSummary* module = ResolveModule(*from, import.canonical);
        if (module == nullptr || std::find(seen.begin(), seen.end(), module) != seen.end()) continue;
        seen.push_back(module);
        next.push_back(module);
        for (const ImportSummary& name : module->imports) {
          if (name.local == "*" || name.local.starts_with('_') || name.canonical.starts_with('.')) continue;
          const bool bound = std::any_of(out.begin(), out.end(),
                                         [&](const ImportSummary& b) { return b.local == name.local; });
          if (!bound) out.push_back(name);
        }
      }
    }
    level = std::move(next);
  }
  return out;
}

bool ProjectIndex::BringsTorch(const std::vector<ImportSummary>& bindings) {
  return std::any_of(bindings.begin(), bindings.end(), [](const ImportSummary& b) {
    return b.canonical == "torch" || b.canonical.starts_with("torch.");
  });
}

bool ProjectIndex::ImportsFields(const FileSummary& file) const {
  if (file.imported_reads.empty()) return false;
  return std::any_of(file.imports.begin(), file.imports.end(), [&](const ImportSummary& import) {
    const size_t dot = import.canonical.rfind('.');
    if (import.local == "*" || dot == std::string::npos) return false;
    const FileSummary* module = ResolveModule(file, std::string_view(import.canonical).substr(0, dot));
    if (module == nullptr || module == &file) return false;
    return std::any_of(module->fields.begin(), module->fields.end(), [&](const FieldSummary& field) {
      return std::binary_search(file.imported_reads.begin(), file.imported_reads.end(), field.name);
    });
  });
}

const FileSummary* ProjectIndex::ResolveModule(const FileSummary& from, std::string_view dotted) const {
  if (dotted.starts_with('.')) {
    // `from ..util import misc`: up from the importing file's package, one level per extra dot.
    size_t level = 0;
    while (level < dotted.size() && dotted[level] == '.') ++level;
    std::string base = from.module;
    if (!from.is_package) {
      const size_t dot = base.rfind('.');
      base = dot == std::string::npos ? std::string() : base.substr(0, dot);
    }
    for (size_t up = 1; up < level; ++up) {
      if (base.empty()) return nullptr;
      const size_t dot = base.rfind('.');
      base = dot == std::string::npos ? std::string() : base.substr(0, dot);
    }
    const std::string_view rest = dotted.substr(level);
    const std::string full = base.empty() ? std::string(rest) : rest.empty() ? base : base + "." + std::string(rest);
    return Find(full);
  }
  if (const FileSummary* exact = Find(dotted)) return exact;
  // A script run from its own folder imports its neighbours by their short name (`import utils`
  // next to `projects/x/train.py`); the module whose name ends with it and that shares the most
  // folders with the importer wins.
  const FileSummary* best = nullptr;
  size_t best_shared = 0;
  const size_t dot = dotted.rfind('.');
  auto candidates = by_last_.find(dot == std::string_view::npos ? dotted : dotted.substr(dot + 1));
  if (candidates == by_last_.end()) return nullptr;
  for (size_t index : candidates->second) {
    const auto& file = files_[index];
    const std::string_view module = file->module;  // must end with "." + dotted
    if (module.size() <= dotted.size() || !module.ends_with(dotted) ||
        module[module.size() - dotted.size() - 1] != '.') {
      continue;
    }
    const size_t shared = SharedDirs(file->path, from.path) + 1;
    if (shared > best_shared) {
      best = file.get();
      best_shared = shared;
    }
  }
  return best;
}

std::optional<ProjectIndex::Symbol> ProjectIndex::ResolveSymbol(const FileSummary& from, std::string_view dotted,
                                                                int depth) const {
  if (depth > kMaxHops || dotted.empty()) return std::nullopt;
  // The longest prefix that is a module; what follows is a name inside it.
  for (size_t end = dotted.size();;) {
    const std::string_view prefix = dotted.substr(0, end);
    if (const FileSummary* file = ResolveModule(from, prefix)) {
      const std::string rest = end >= dotted.size() ? std::string()
                               : dotted[end] == '.' ? std::string(dotted.substr(end + 1))
                                                    : std::string(dotted.substr(end));
      if (rest.empty()) return Symbol{file, rest};
      // A name the module imports (a package's __init__ re-exporting `from .misc import f`).
      const std::string head = rest.substr(0, rest.find('.'));
      for (const ImportSummary& import : file->imports) {
        if (import.local != head) continue;
        const std::string tail = rest.size() > head.size() ? rest.substr(head.size()) : std::string();
        if (auto found = ResolveSymbol(*file, import.canonical + tail, depth + 1)) return found;
        return std::nullopt;
      }
      return Symbol{file, rest};
    }
    if (prefix.find_first_not_of('.') == std::string_view::npos) return std::nullopt;  // the package was tried
    const size_t dot = prefix.rfind('.');
    if (dot == std::string_view::npos) return std::nullopt;
    // `..x`: after the dots comes a name in the package the dots name, which is tried next.
    end = prefix.substr(0, dot).find_first_not_of('.') == std::string_view::npos ? dot + 1 : dot;
  }
}

std::optional<ProjectIndex::Function> ProjectIndex::ResolveFunction(const FileSummary& from,
                                                                    std::string_view dotted) const {
  const auto symbol = ResolveSymbol(from, dotted, 0);
  if (!symbol || symbol->rest.empty()) return std::nullopt;
  if (auto function = FunctionIn(*symbol->file, symbol->rest)) return function;
  // `Class.method` spelled through the class: look through its bases too.
  const size_t dot = symbol->rest.rfind('.');
  if (dot != std::string::npos) {
    return MethodIn(*symbol->file, symbol->rest.substr(0, dot), symbol->rest.substr(dot + 1), 0);
  }
  return std::nullopt;
}

std::optional<ProjectIndex::Function> ProjectIndex::MethodIn(const FileSummary& file, std::string_view cls,
                                                             std::string_view method, int depth) const {
  if (depth > kMaxHops) return std::nullopt;
  const std::string qualname = std::string(cls) + "." + std::string(method);
  if (auto found = FunctionIn(file, qualname)) return found;
  for (const ClassSummary& c : file.classes) {
    if (c.name != cls) continue;
    for (const std::string& base : c.bases) {
      // A class of the same file, else one of another module of the project.
      if (HasClass(file, base)) {
        if (auto found = MethodIn(file, base, method, depth + 1)) return found;
        continue;
      }
      if (auto symbol = ResolveSymbol(file, base, depth + 1); symbol && !symbol->rest.empty()) {
        if (auto found = MethodIn(*symbol->file, symbol->rest, method, depth + 1)) return found;
      }
    }
    break;
  }
  return std::nullopt;
}

std::optional<ProjectIndex::Function> ProjectIndex::ResolveMethod(const FileSummary& from,
                                                                  std::string_view class_dotted,
                                                                  std::string_view method) const {
  const auto symbol = ResolveSymbol(from, class_dotted, 0);
  if (!symbol || symbol->rest.empty()) return std::nullopt;
  return MethodIn(*symbol->file, symbol->rest, method, 0);
}

std::optional<ProjectIndex::ClassRef> ProjectIndex::ResolveClass(const FileSummary& from,
                                                                 const ValueSource& source) const {
  return ResolveClassDepth(from, source, 0);
}

std::optional<ProjectIndex::Symbol> ProjectIndex::SourceSymbol(const FileSummary& from,
                                                               const ValueSource& source) const {
  if (!source.known()) return std::nullopt;
  if (source.call.find('.') == std::string::npos &&
      (HasClass(from, source.call) || FunctionIn(from, source.call).has_value())) {
    return Symbol{&from, source.call};
  }
  auto symbol = ResolveSymbol(from, source.call, 0);
  if (!symbol || symbol->rest.empty()) return std::nullopt;
  return symbol;
}

std::optional<ProjectIndex::ClassRef> ProjectIndex::ResolveClassDepth(const FileSummary& from,
                                                                      const ValueSource& source, int depth) const {
  if (depth > kMaxHops) return std::nullopt;
  const auto symbol = SourceSymbol(from, source);
  if (!symbol) return std::nullopt;
  const FileSummary* file = symbol->file;
  const std::string& rest = symbol->rest;
  if (HasClass(*file, rest)) {
    if (source.element >= 0) return std::nullopt;  // an element of an instance: not the class
    return ClassRef{file, rest};
  }
  for (const FunctionSummary& function : file->functions) {
    if (function.qualname != rest) continue;
    if (source.element < 0) return ResolveClassDepth(*file, function.returned_source, depth + 1);
    const auto element = static_cast<size_t>(source.element);
    if (element < function.returned_elements.size()) {
      return ResolveClassDepth(*file, function.returned_elements[element], depth + 1);
    }
    // `return build(args)`: the element of the tuple that call returns.
    if (function.returned_elements.empty() && function.returned_source.element < 0) {
      return ResolveClassDepth(*file, {function.returned_source.call, source.element}, depth + 1);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

uint8_t ProjectIndex::ReturnedLoader(const FileSummary& from, const ValueSource& source) const {
  return ReturnedLoaderDepth(from, source, 0);
}

uint8_t ProjectIndex::ReturnedLoaderDepth(const FileSummary& from, const ValueSource& source, int depth) const {
  // The whole result only: a loader is not a tuple's element here.
  if (depth > kMaxHops || source.element >= 0) return 0;
  const auto symbol = SourceSymbol(from, source);
  if (!symbol) return 0;
  const auto function = FunctionIn(*symbol->file, symbol->rest);
  if (!function || function->function == nullptr) return 0;
  if (function->function->returned_loader != 0) return function->function->returned_loader;
  return ReturnedLoaderDepth(*symbol->file, function->function->returned_source, depth + 1);
}

bool ProjectIndex::DerivesFromTorchNn(const FileSummary& file, std::string_view cls, int depth) const {
  if (depth > kMaxHops) return false;
  for (const ClassSummary& c : file.classes) {
    if (c.name != cls) continue;
    for (const std::string& base : c.bases) {
      if (base.starts_with("torch.nn.")) return true;
      if (HasClass(file, base)) {
        if (DerivesFromTorchNn(file, base, depth + 1)) return true;
        continue;
      }
      if (auto symbol = ResolveSymbol(file, base, depth + 1); symbol && !symbol->rest.empty()) {
        if (DerivesFromTorchNn(*symbol->file, symbol->rest, depth + 1)) return true;
      }
    }
    break;
  }
  return false;
}

bool ProjectIndex::ModuleMethodName(std::string_view method) {
  // torch.nn.Module's own methods: a subclass that overrides one is not the only class that has it.
  // clang-format off
  static constexpr std::array<std::string_view, 40> kModuleApi = {
      "forward", "train", "eval", "to", "cuda", "cpu", "half", "float", "double", "bfloat16", "parameters",
      "named_parameters", "buffers", "named_buffers", "children", "named_children", "modules", "named_modules",
      "state_dict", "load_state_dict", "zero_grad", "apply", "register_buffer", "register_parameter",
      "register_module", "add_module", "requires_grad_", "extra_repr", "type", "get_submodule",
      "get_parameter", "get_buffer", "share_memory", "compile", "ipu", "xpu", "to_empty",
      "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook"};
  // clang-format on
  return !method.empty() && !method.starts_with("__") &&
         std::find(kModuleApi.begin(), kModuleApi.end(), method) == kModuleApi.end();
}

std::optional<ProjectIndex::Function> ProjectIndex::ModuleMethod(std::string_view method) const {
  if (!ModuleMethodName(method)) return std::nullopt;
  std::call_once(module_methods_once_, [this] {
    for (const auto& file : files_) {
      for (const ClassSummary& cls : file->classes) {
        if (!DerivesFromTorchNn(*file, cls.name, 0)) continue;
        const auto add = [&](std::string_view qualname) {
          if (qualname.size() <= cls.name.size() + 1 || !qualname.starts_with(cls.name) ||
              qualname[cls.name.size()] != '.' || qualname.find('.', cls.name.size() + 1) != std::string_view::npos) {
            return;
          }
          const std::string_view name = qualname.substr(cls.name.size() + 1);
          auto [it, inserted] = module_methods_.try_emplace(name);
          if (inserted) {
            it->second = FunctionIn(*file, qualname);
          } else {
            it->second.reset();  // a second class has it
          }
        };
        for (const FunctionSummary& f : file->functions) add(f.qualname);
        for (const std::string& f : file->plain_functions) add(f);
      }
    }
  });
  auto it = module_methods_.find(method);
  if (it == module_methods_.end()) return std::nullopt;
  return it->second;
}

std::optional<ProjectIndex::Function> ProjectIndex::MethodOf(const ClassRef& cls, std::string_view method) const {
  if (cls.file == nullptr) return std::nullopt;
  return MethodIn(*cls.file, cls.name, method, 0);
}

std::optional<ProjectIndex::Function> ProjectIndex::CallOperator(const ClassRef& cls) const {
  if (auto call = MethodOf(cls, "__call__")) return call;
  // nn.Module.__call__ runs `forward`.
  if (cls.file != nullptr && DerivesFromTorchNn(*cls.file, cls.name, 0)) return MethodOf(cls, "forward");
  return std::nullopt;
}

void ProjectIndex::Finish() {
  const size_t n = files_.size();
  for (const auto& file : files_) {
    for (const FunctionSummary& function : file->functions) {
      if (function.update_loop_line == 0) continue;
      const size_t dot = function.qualname.rfind('.');
      update_loop_methods_.push_back(dot == std::string::npos ? function.qualname : function.qualname.substr(dot + 1));
    }
  }
  std::sort(update_loop_methods_.begin(), update_loop_methods_.end());
  update_loop_methods_.erase(std::unique(update_loop_methods_.begin(), update_loop_methods_.end()),
                             update_loop_methods_.end());
  component_.resize(n);
  std::iota(component_.begin(), component_.end(), size_t{0});
  std::function<size_t(size_t)> root = [&](size_t i) {
    while (component_[i] != i) {
      component_[i] = component_[component_[i]];
      i = component_[i];
    }
    return i;
  };
  for (size_t i = 0; i < n; ++i) {
    for (const ImportSummary& import : files_[i]->imports) {
      const auto symbol = ResolveSymbol(*files_[i], import.canonical, 0);
      if (!symbol || symbol->file == files_[i].get()) continue;
      const size_t j = by_module_.at(symbol->file->module);
      component_[root(i)] = root(j);
    }
  }
  // The calls each function receives from other files: a class's construction runs its `__init__`. (A
  // file calls most of its callees more than once: each is resolved once a file.)
  std::unordered_map<std::string_view, std::optional<Symbol>> resolved;
  for (size_t i = 0; i < n; ++i) {
    resolved.clear();
    for (const OutgoingCall& call : files_[i]->calls) {
      auto [known, added] = resolved.try_emplace(call.callee);
      if (added) known->second = ResolveSymbol(*files_[i], call.callee, 0);
      const std::optional<Symbol>& symbol = known->second;
      if (!symbol || symbol->rest.empty() || symbol->file == files_[i].get()) continue;
      const bool construction = HasClass(*symbol->file, symbol->rest);
      called_.insert(symbol->file->module);
      incoming_[symbol->file->module + ":" + symbol->rest + (construction ? ".__init__" : "")].push_back(
          {files_[i].get(), &call});
    }
  }
  ForwardSyncs();
  for (const auto& file : files_) {
    calls_parameters_ = calls_parameters_ ||
                        std::any_of(file->functions.begin(), file->functions.end(),
                                    [](const FunctionSummary& f) { return f.called_parameters != 0; });
  }
  component_cuda_.assign(n, -1);
  component_facts_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    component_[i] = root(i);
    component_facts_[component_[i]] |= files_[i]->catalog_facts;
    if (files_[i]->own_cuda && component_cuda_[component_[i]] < 0) component_cuda_[component_[i]] = static_cast<int>(i);
  }
  // A conv net class another file imports (`from model import Net`, or calls through its module,
  // `models.Net(...)`) makes the component a conv net, though its own file never names it again.
  const auto conv_class = [&](const FileSummary& from, std::string_view dotted) {
    const auto symbol = ResolveSymbol(from, dotted, 0);
    if (!symbol || symbol->rest.empty() || symbol->file == &from) return false;
    return std::any_of(symbol->file->classes.begin(), symbol->file->classes.end(),
                       [&](const ClassSummary& c) { return c.name == symbol->rest && c.conv2d >= 2; });
  };
  const bool conv_classes = std::any_of(files_.begin(), files_.end(), [](const auto& file) {
    return std::any_of(file->classes.begin(), file->classes.end(), [](const ClassSummary& c) { return c.conv2d >= 2; });
  });
  for (size_t i = 0; conv_classes && i < n; ++i) {
    const FileSummary& file = *files_[i];
    const bool uses = std::any_of(file.imports.begin(), file.imports.end(),
                                  [&](const ImportSummary& import) { return conv_class(file, import.canonical); }) ||
                      std::any_of(file.calls.begin(), file.calls.end(),
                                  [&](const OutgoingCall& call) { return conv_class(file, call.callee); });
    if (uses) component_facts_[component_[i]] |= kFactConv | kFactConv2d;
  }
  FindStepEntries();
}

std::optional<ProjectIndex::Function> ProjectIndex::FunctionIn(const FileSummary& file, std::string_view qualname) {
  const auto it = std::find_if(file.functions.begin(), file.functions.end(),
                               [&](const FunctionSummary& f) { return f.qualname == qualname; });
  if (it != file.functions.end()) return Function{&file, &*it, it->qualname};
  const auto plain = std::lower_bound(file.plain_functions.begin(), file.plain_functions.end(), qualname);
  if (plain == file.plain_functions.end() || *plain != qualname) return std::nullopt;
  static const FunctionSummary kNothing;
  return Function{&file, &kNothing, *plain};
}

void ProjectIndex::ForwardSyncs() {
  // A function that runs no sync itself takes the first one a forwarded call reaches, round after round,
  // until a round finds nothing new: each round reaches one file further (cycles end there too).
  struct Pending {
    const FileSummary* file;
    const FunctionSummary* function;
  };
  std::vector<Pending> pending;
  for (const auto& file : files_) {
    for (const FunctionSummary& function : file->functions) {
      if (!function.forwards.empty()) pending.push_back({file.get(), &function});
    }
  }
  if (pending.empty()) return;
  // The callees, resolved once.
  std::vector<std::vector<std::optional<Function>>> callees(pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    for (const ForwardCall& call : pending[i].function->forwards) {
      callees[i].push_back(ResolveForward(*pending[i].file, call));
    }
  }
  for (size_t f = 0; f < kSyncFamilies; ++f) {
    const auto family = static_cast<SyncFamily>(f);
    auto& forwarded = forwarded_[f];
    for (int round = 0; round < kMaxHops; ++round) {
      bool changed = false;
      for (size_t i = 0; i < pending.size(); ++i) {
        const FunctionSummary& function = *pending[i].function;
        if (OwnSync(function, family).syncs || forwarded.contains(&function)) continue;
        for (size_t c = 0; c < function.forwards.size(); ++c) {
          if (!callees[i][c]) continue;
          const auto reached = SyncOf(*callees[i][c], family);
          if (!reached) continue;
          const ForwardCall& call = function.forwards[c];
          // A sync of the callee's own parameters happens when this call passes on this function's
          // parameters (then this function's callers' arguments tell), or a device tensor of its own.
          Sync sync = *reached;
          if (sync.on_params && !call.parameter_argument) {
            if (!call.device_argument) continue;
            sync.on_params = false;
          }
          forwarded.emplace(&function, sync);
          changed = true;
          break;
        }
      }
      if (!changed) break;
    }
  }
}

std::optional<ProjectIndex::Function> ProjectIndex::ResolveForward(const FileSummary& file,
                                                                   const ForwardCall& call) const {
  if (call.instance) {
    const auto cls = ResolveClass(file, ValueSource{call.callee, call.element});
    if (!cls) return std::nullopt;
    return call.method.empty() ? CallOperator(*cls) : MethodOf(*cls, call.method);
  }
  if (call.callee == kModuleMethodCallee) return ModuleMethod(call.method);
  return call.local            ? FunctionIn(file, call.callee)
         : call.method.empty() ? ResolveFunction(file, call.callee)
                               : ResolveMethod(file, call.callee, call.method);
}

void ProjectIndex::FindStepEntries() {
  for (size_t i = 0; i < files_.size(); ++i) {
    const auto& file = files_[i];
    const bool cuda = file->own_cuda || component_cuda_[component_[i]] >= 0;
    for (const StepCall& step : file->step_calls) {
      const auto callee = ResolveForward(*file, step.call);
      if (!callee || callee->file == file.get()) continue;
      const auto reached = SyncOf(*callee, SyncFamily::kImplicit);
      // A sync of the callee's parameters happens when the call passes a device tensor.
      if (!reached || (reached->on_params && !step.call.device_argument)) continue;
      const StepEntry entry{callee->qualname, step.cadence, file.get(), step.call.line, step.call.column, cuda};
      step_entries_[callee->file->module].push_back(entry);
      // The function of a third file that syncs for it runs as often.
      if (reached->file != callee->file && reached->file != file.get()) {
        step_entries_[reached->file->module].push_back(
            {reached->function->qualname, step.cadence, file.get(), step.call.line, step.call.column, cuda});
      }
    }
  }
  for (auto& [module, entries] : step_entries_) {
    // One entry per function: the first call in the order of the files, a training step before the rest.
    std::stable_sort(entries.begin(), entries.end(), [](const StepEntry& a, const StepEntry& b) {
      return a.qualname != b.qualname ? a.qualname < b.qualname : a.cadence < b.cadence;
    });
    entries.erase(std::unique(entries.begin(), entries.end(),
                              [](const StepEntry& a, const StepEntry& b) { return a.qualname == b.qualname; }),
                  entries.end());
  }
}

std::span<const ProjectIndex::StepEntry> ProjectIndex::StepEntries(const FileSummary& file) const {
  auto it = step_entries_.find(file.module);
  if (it == step_entries_.end()) return {};
  return it->second;
}

std::optional<ProjectIndex::Sync> ProjectIndex::SyncOf(const Function& function, SyncFamily family) const {
  const SyncSummary& own = OwnSync(*function.function, family);
  if (own.syncs) return Sync{function.file, function.function, &own, own.on_params};
  const auto& forwarded = forwarded_[static_cast<size_t>(family)];
  auto it = forwarded.find(function.function);
  if (it == forwarded.end()) return std::nullopt;
  return it->second;
}

uint8_t ProjectIndex::ReturnPlacement(const Function& function, int position) const {
  return ReturnPlacementDepth(function, position, 0);
}

uint8_t ProjectIndex::ReturnPlacementDepth(const Function& function, int position, int depth) const {
  const FunctionSummary& summary = *function.function;
  if (depth > kMaxHops || summary.returns.empty()) return 0;
  // The whole value when the function does not return a tuple: a host tensor's elements are on the
  // host too.
  const ReturnSummary* value = nullptr;
  if (!summary.returns_tuple) {
    value = &summary.returns.front();
  } else if (position >= 0 && static_cast<size_t>(position) < summary.returns.size()) {
    value = &summary.returns[static_cast<size_t>(position)];
  }
  if (value == nullptr) return 0;
  if (value->placement != 0 || value->via.empty()) return value->placement;
  const auto callee = value->via_local ? FunctionIn(*function.file, value->via)
                                       : ResolveFunction(*function.file, value->via);
  if (!callee) return 0;
  // `return other(x)` as a whole: the caller's element is the other function's element.
  return ReturnPlacementDepth(*callee, summary.returns_tuple ? -1 : position, depth + 1);
}

std::span<const ProjectIndex::Incoming> ProjectIndex::CallsOf(const FileSummary& file,
                                                              std::string_view qualname) const {
  auto it = incoming_.find(file.module + ":" + std::string(qualname));
  if (it == incoming_.end()) return {};
  return it->second;
}

bool ProjectIndex::Called(const FileSummary& file) const { return called_.contains(file.module); }

std::optional<std::string> ProjectIndex::InheritedCuda(const FileSummary& file) const {
  if (file.own_cuda) return std::nullopt;
  auto it = by_module_.find(file.module);
  if (it == by_module_.end() || it->second >= component_.size()) return std::nullopt;
  const int cuda = component_cuda_[component_[it->second]];
  if (cuda < 0) return std::nullopt;
  const FileSummary& with = *files_[static_cast<size_t>(cuda)];
  return with.path + ":" + std::to_string(with.cuda_line);
}

bool ProjectIndex::ImportedCuda(const FileSummary& file) const {
  std::vector<const FileSummary*> pending{&file};
  std::unordered_set<const FileSummary*> seen{&file};
  while (!pending.empty()) {
    const FileSummary* next = pending.back();
    pending.pop_back();
    for (const ImportSummary& import : next->imports) {
      const auto symbol = ResolveSymbol(*next, import.canonical, 0);
      if (!symbol || !seen.insert(symbol->file).second) continue;
      if (symbol->file->own_cuda) return true;
      pending.push_back(symbol->file);
    }
  }
  return false;
}

uint32_t ProjectIndex::ComponentFacts(const FileSummary& file) const {
  auto it = by_module_.find(file.module);
  if (it == by_module_.end() || it->second >= component_.size()) return file.catalog_facts;
  return component_facts_[component_[it->second]] | file.catalog_facts;
}

}  // namespace tl::semantic
