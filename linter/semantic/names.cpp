// Imports and canonical names: what `tud.DataLoader` or `DL` stands for, through the file's imports and
// the table of PyTorch's public re-exports.
#include "linter/semantic/builder.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <string>

namespace tl::semantic {

// PyTorch's public names and the modules that define them: `from torch.utils.data.dataloader import
// DataLoader` is the same class as `torch.utils.data.DataLoader`, and rules ask only for the public
// name. A defining module maps to its package when one exported name follows it.
constexpr std::pair<std::string_view, std::string_view> kReExports[] = {
    {"torch.utils.data.dataloader", "torch.utils.data"},
    {"torch.utils.data.dataset", "torch.utils.data"},
    {"torch.utils.data.sampler", "torch.utils.data"},
    {"torch.utils.data.distributed", "torch.utils.data"},
    {"torch.nn.modules.linear", "torch.nn"},
    {"torch.nn.modules.conv", "torch.nn"},
    {"torch.nn.modules.sparse", "torch.nn"},
    {"torch.nn.modules.rnn", "torch.nn"},
    {"torch.nn.modules.activation", "torch.nn"},
    {"torch.nn.modules.module", "torch.nn"},
    {"torch.nn.modules.loss", "torch.nn"},
    {"torch.nn.modules.batchnorm", "torch.nn"},
    {"torch.nn.modules.container", "torch.nn"},
    {"torch.nn.modules", "torch.nn"},
    {"torch.nn.parallel.distributed", "torch.nn.parallel"},
    {"torch.nn.parallel.data_parallel", "torch.nn.parallel"},
    {"torch.optim.sgd", "torch.optim"},
    {"torch.optim.adam", "torch.optim"},
    {"torch.optim.adamw", "torch.optim"},
    {"torch.optim.optimizer", "torch.optim"},
    {"torch.cuda.amp.grad_scaler", "torch.cuda.amp"},
    {"torch.cuda.amp.autocast_mode", "torch.cuda.amp"},
    {"torch.amp.grad_scaler", "torch.amp"},
    {"torch.amp.autocast_mode", "torch.amp"},
};

// `torch.nn.modules.linear.Linear` -> `torch.nn.Linear`; anything else unchanged. The longest defining
// module that matches wins (`torch.nn.modules.linear` before `torch.nn.modules`).
void PublicName(std::string& dotted) {
  size_t best = 0;
  std::string_view replacement;
  for (const auto& [module, package] : kReExports) {
    if (module.size() <= best || dotted.size() <= module.size() + 1 || !std::string_view(dotted).starts_with(module) ||
        dotted[module.size()] != '.') {
      continue;
    }
    // Exactly one segment after the module: the exported name itself.
    if (std::string_view(dotted).substr(module.size() + 1).find('.') != std::string_view::npos) continue;
    best = module.size();
    replacement = package;
  }
  if (best > 0) dotted = std::string(replacement) + dotted.substr(best);
}

void Builder::RecordImport(ts::Node node, K kind) {
  auto add = [&](std::string_view local, std::string canonical) {
    m_.imports_.push_back({local, std::move(canonical)});
  };
  if (kind == K::kImport) {
    for (ts::Node child : node.NamedChildren()) {
      if (KindOf(child) == K::kDottedName) {
        // `import torch.utils.data` binds `torch`.
        const std::string_view dotted = m_.Text(child);
        const std::string_view head = dotted.substr(0, dotted.find('.'));
        add(head, std::string(head));
      } else if (KindOf(child) == K::kAliasedImport) {
        ts::Node name = Field(child, F::kName);
        ts::Node alias = Field(child, F::kAlias);
        if (!name.IsNull() && !alias.IsNull()) add(m_.Text(alias), std::string(m_.Text(name)));
      }
    }
    return;
  }
  ts::Node module = Field(node, F::kModuleName);
  // Relative imports (`from .misc import f`, `from . import utils`) name modules of this project; they
  // keep their dots, which no torch name starts with, for the project index to resolve.
  const bool relative = !module.IsNull() && module.Type() == "relative_import";
  if (KindOf(module) != K::kDottedName && !relative) return;
  std::string module_name(m_.Text(module));
  if (relative && module_name.ends_with('.')) module_name.pop_back();  // `from . import x` -> "." + "." + "x"
  for (ts::Node child : node.NamedChildren()) {
    if (child == module) continue;
    const K k = KindOf(child);
    if (k == K::kWildcardImport) {
      // Relative ones too: only the project index reads them (CanonicalName trusts torch's alone).
      if (!module_name.empty()) m_.star_imports_.emplace_back(module_name);
    } else if (k == K::kDottedName) {
      add(m_.Text(child), module_name + "." + std::string(m_.Text(child)));
    } else if (k == K::kAliasedImport) {
      ts::Node name = Field(child, F::kName);
      ts::Node alias = Field(child, F::kAlias);
      if (!name.IsNull() && !alias.IsNull()) {
        add(m_.Text(alias), module_name + "." + std::string(m_.Text(name)));
      }
    }
  }
}

void Builder::NameCalls() {
  for (uint32_t i = 0; i < m_.sites_.size(); ++i) {
    Site& site = m_.sites_[i];
    if (site.kind != SiteKind::kCall) continue;
    if (KindOf(site.callee) == K::kIdentifier && !m_.import_last_.empty()) {
      if (auto it = m_.import_last_.find(site.name); it != m_.import_last_.end()) {
        site.name = LastSegment(m_.imports_[static_cast<size_t>(it->second)].canonical);
      }
    }
  }
  // The names are final: CallsNamed scans their keys from now on.
  m_.call_name_keys_.resize(m_.sites_.size());
  for (size_t i = 0; i < m_.sites_.size(); ++i) {
    // A site that is no call gets a key of a length no name of up to six bytes has; CallsNamed checks a
    // longer name against the site itself.
    m_.call_name_keys_[i] = m_.sites_[i].kind == SiteKind::kCall ? NameKey(m_.sites_[i].name) : ~uint64_t{0};
  }
}

const Model::Import* Model::FindImport(std::string_view local) const {
  // Last import of a name wins, as at run time for straight-line module code.
  if (import_last_ready_) {
    const auto it = import_last_.find(local);
    return it == import_last_.end() ? nullptr : &imports_[static_cast<size_t>(it->second)];
  }
  for (size_t i = imports_.size(); i-- > 0;) {
    if (imports_[i].local == local) return &imports_[i];
  }
  return nullptr;
}

std::string Model::CanonicalName(ts::Node expr) const { return CanonicalName(expr, {}, ts::Node()); }

std::string Model::CanonicalName(ts::Node expr, std::string_view attribute, ts::Node object) const {
  // Most callees (`self.fc`, `x.view`, `print`) start with a name that is no import: the head's text
  // is where the expression starts, so those are answered without reading the chain. Only an ASCII
  // name read to its end is trusted (`(a).b` and `é.b` take the long way), and only without star
  // imports (a bare name may come from one).
  if (star_imports_.empty() && !expr.IsNull()) {
    const size_t start = expr.StartByte();
    size_t end = start;
    while (end < source_.size() &&
           (std::isalnum(static_cast<unsigned char>(source_[end])) != 0 || source_[end] == '_')) {
      ++end;
    }
    if (end > start && (end == source_.size() || static_cast<unsigned char>(source_[end]) < 0x80) &&
        FindImport(source_.substr(start, end - start)) == nullptr) {
      return {};
    }
  }
  // The attribute chain a.b.c, read iteratively into a fixed array (no allocation: most calls end
  // at a head that is no import): [c, b], head a.
  constexpr size_t kMaxTail = 64;
  std::array<std::string_view, kMaxTail> tail;
  size_t size = 0;
  ts::Node node;
  if (object.IsNull()) {
    node = Unparen(expr);
  } else {
    tail[size++] = attribute;
    node = object;
  }
  while (KindOf(node) == K::kAttribute) {
    if (size == kMaxTail) return {};  // a chain of more than 64 attributes
    // `object . attribute`: the name is read from the node's text (RecordCall reads `site.name` so
    // too), and tree-sitter keeps extras out of a node's two ends, so the first child is the object,
    // for much less than a lookup by field.
    tail[size++] = AttributeNameText(node, source_);
    node = Unparen(FirstChild(node));
  }
  if (KindOf(node) != K::kIdentifier) return {};
  std::string out;
  const std::string_view head = Text(node);
  if (const Import* import = FindImport(head)) {
    out = import->canonical;
  } else if (!star_imports_.empty() && size == 0) {
    // `from torch.nn import *`: a bare name may come from it. Only torch's star imports are
    // trusted, since rules only ask about torch names.
    for (const std::string& module : star_imports_) {
      if (module.starts_with("torch")) out = module + "." + std::string(head);
    }
    if (out.empty()) return {};
  } else {
    return {};
  }
  for (size_t i = size; i-- > 0;) {
    out += '.';
    out += tail[i];
  }
  PublicName(out);
  return out;
}

bool Model::IsCanonical(const Site& call, std::string_view canonical) const {
  if (call.kind != SiteKind::kCall || LastSegment(canonical) != call.name) return false;
  return CalleeCanonical(call) == canonical;
}

std::string_view Model::CalleeCanonical(const Site& call) const {
  const Site* const first = sites_.data();
  if (std::less_equal<const Site*>()(first, &call) && std::less<const Site*>()(&call, first + sites_.size()) &&
      callee_canonical_.size() == sites_.size()) {
    return callee_canonical_[static_cast<size_t>(&call - first)];
  }
  // A copy of a site, or a query during the walk: computed here, kept for the thread's next call.
  thread_local std::string computed;
  computed = CanonicalName(call.callee);
  return computed;
}

void Builder::NameCanonicalCallees() {
  m_.callee_canonical_.assign(m_.sites_.size(), std::string());
  for (size_t i = 0; i < m_.sites_.size(); ++i) {
    const Site& site = m_.sites_[i];
    if (site.kind != SiteKind::kCall) continue;
    // An attribute's name and object were read by RecordCall (`site.name` is the attribute's own text).
    m_.callee_canonical_[i] = KindOf(site.callee) == K::kAttribute
                                  ? m_.CanonicalName(site.callee, site.name, receivers_[i])
                                  : m_.CanonicalName(site.callee);
  }
}

}  // namespace tl::semantic
