// Calls: receivers and arguments, `**kwargs` splats, where a keyword goes, and the calls that reach
// the file's own functions.
#include "linter/semantic/builder.h"

#include <algorithm>
#include <array>
#include <string>

namespace tl::semantic {

ts::Node Site::Receiver() const {
  if (kind != SiteKind::kCall || KindOf(callee) != K::kAttribute) return ts::Node();
  return FirstChild(callee);  // `object . attribute`: the first child (see CanonicalName)
}

std::vector<int> Builder::LocalCallees(const Site& site) const {
  std::vector<int> out;
  if (site.kind != SiteKind::kCall || m_.functions_.empty()) return out;
  const K ck = KindOf(site.callee);
  std::string_view name;
  if (ck == K::kIdentifier) {
    name = m_.Text(site.callee);
    if (m_.import_last_.count(name) != 0) return out;
    if (m_.FunctionsNamed(name).empty()) {
      InstanceCallees(site.callee, site.scope, out);
      return out;
    }
  } else if (ck == K::kAttribute) {
    // `self.train_step()` / `cls.helper()`: a method of the file's classes; `trainer.fit(loader)` with
    // `trainer = Trainer(model)`: that class's method; `self.decoder.update(tokens)` with `self.decoder =
    // BeamSearchDecoder(...)` in a method of the class: that one's.
    ts::Node object = ReceiverOf(site);
    const K ok = KindOf(object);
    const ts::Node holder = ok == K::kAttribute ? Unparen(Field(object, F::kObject)) : ts::Node();
    const bool self_attribute = KindOf(holder) == K::kIdentifier && m_.Text(holder) == "self";
    if (ok != K::kIdentifier && !self_attribute) return out;
    const std::string_view head = m_.Text(object);
    if (head != "self" && head != "cls") {
      // Only where a class of the file has a method of that name (most such calls are a list's `append`).
      const auto named = m_.FunctionsNamed(site.name);
      const bool method = std::any_of(named.begin(), named.end(), [&](const auto& function) {
        const int parent = m_.scopes_[static_cast<size_t>(function.second)].parent;
        return parent >= 0 && m_.scopes_[static_cast<size_t>(parent)].kind == ScopeKind::kClass;
      });
      if (method && m_.import_last_.count(head) == 0) InstanceCallees(object, site.scope, out, site.name);
      return out;
    }
    name = site.name;
  } else {
    return out;
  }
  for (const auto& [function_name, scope] : m_.FunctionsNamed(name)) {
    // Methods are only reachable through self./cls.; plain names reach module-level and nested
    // functions.
    const bool is_method = m_.scopes_[static_cast<size_t>(m_.scopes_[static_cast<size_t>(scope)].parent)].kind ==
                           ScopeKind::kClass;
    if (is_method == (ck == K::kAttribute)) out.push_back(scope);
  }
  return out;
}

void Builder::ConstructedClasses(const Model::Binding& binding, std::vector<std::string_view>& out) const {
  // `Net(...).cuda()`, `.to(device)`, `.train()`, a DDP wrapper: the object the chain starts from.
  const auto construction = [&](ts::Node value) {
    value = m_.SameObject(value);
    if (KindOf(value) != K::kCall) return;
    const ts::Node cls = Unparen(Field(value, F::kFunction));
    if (KindOf(cls) == K::kIdentifier && m_.import_last_.count(m_.Text(cls)) == 0) out.push_back(m_.Text(cls));
  };
  if (binding.position != -1) return;
  if (binding.kind == Model::BindingKind::kAssign) {
    construction(binding.value);
    return;
  }
  if (binding.kind != Model::BindingKind::kLoopTarget) return;
  // `for logit_filter in self.logit_filters:` the objects the list is built from: `self.logit_filters =
  // [SuppressBlank(...)]`, `self.logit_filters.append(ApplyTimestampRules(...))`, in the loop's function
  // for a plain name, in the methods of its class for `self.x`.
  const ts::Node list = Unparen(binding.value);
  const std::string_view text = m_.Text(list);
  const bool self_attribute = KindOf(list) == K::kAttribute && text.starts_with("self.");
  if (KindOf(list) != K::kIdentifier && !self_attribute) return;
  const int cls = self_attribute ? m_.scopes_[static_cast<size_t>(binding.scope)].parent : -1;
  const auto same_holder = [&](int scope) {
    return self_attribute ? m_.scopes_[static_cast<size_t>(scope)].parent == cls : scope == binding.scope;
  };
  const std::span<const uint32_t> assignments = self_attribute ? m_.ClassAttributeBindings(text, binding.scope)
                                                               : m_.BindingsIn(text, binding.scope, binding.scope);
  for (const uint32_t index : assignments) {
    const Model::Binding& assigned = m_.bindings_[index];
    if (assigned.kind != Model::BindingKind::kAssign || assigned.position != -1 || !same_holder(assigned.scope) ||
        KindOf(Unparen(assigned.value)) != K::kList) {
      continue;
    }
    for (const ts::Node element : Unparen(assigned.value).NamedChildren()) construction(element);
  }
  for (const uint32_t index : append_calls_) {
    const Site& append = m_.sites_[index];
    const ts::Node args = append.Arguments();
    if (m_.Text(Unparen(append.Receiver())) != text || !same_holder(append.scope) || args.IsNull() ||
        args.NamedChildCount() != 1) {
      continue;
    }
    construction(args.NamedChild(0));
  }
}

void Builder::InstanceCallees(ts::Node head, int scope, std::vector<int>& out, std::string_view method) const {
  // `model(x)` with `model = Net(...).cuda()` and `Net` a class of the file: Python runs its `__call__`,
  // and an `nn.Module` runs its `forward`; `obj.m(x)` runs its `m`. Each binding of the name that builds
  // such an object counts (`self.decoder`: each assignment in the methods of the class), and each class
  // of the objects a list holds for the variable of a loop over it.
  // The method `wanted` of the classes of the file named `cls` (the last one a class defines wins).
  const auto method_of = [&](std::string_view cls, std::string_view wanted) {
    int found = -1;
    for (const auto& [function, candidate] : m_.FunctionsNamed(wanted)) {
      const int parent = m_.scopes_[static_cast<size_t>(candidate)].parent;
      if (parent >= 0 && m_.scopes_[static_cast<size_t>(parent)].kind == ScopeKind::kClass &&
          m_.scopes_[static_cast<size_t>(parent)].name == cls) {
        found = candidate;
      }
    }
    return found;
  };
  // (Without a `__call__` or a `forward` anywhere in the file, a call of an object runs none of its
  // functions: most files, and the bindings are not looked at.)
  if (method.empty() && m_.FunctionsNamed("__call__").empty() && m_.FunctionsNamed("forward").empty()) return;
  std::vector<std::string_view> classes;
  if (KindOf(head) == K::kIdentifier) {
    for (const Model::Binding& binding : m_.BindingsOf(m_.Text(head))) ConstructedClasses(binding, classes);
  } else {
    const int cls = m_.scopes_[static_cast<size_t>(scope)].parent;
    for (const uint32_t index : m_.ClassAttributeBindings(m_.Text(head), scope)) {
      const Model::Binding& binding = m_.bindings_[index];
      if (m_.scopes_[static_cast<size_t>(binding.scope)].parent == cls) ConstructedClasses(binding, classes);
    }
  }
  for (const std::string_view cls : classes) {
    int target = method_of(cls, method.empty() ? "__call__" : method);
    if (target < 0 && method.empty()) target = method_of(cls, "forward");
    if (target >= 0 && std::find(out.begin(), out.end(), target) == out.end()) out.push_back(target);
  }
}

std::vector<uint32_t> Model::CallsNamed(std::string_view name) const {
  std::vector<uint32_t> out;
  // Eight bytes a site instead of the site itself; a long name's key is checked against the name.
  const uint64_t key = NameKey(name);
  const bool whole = name.size() <= 6;
  for (uint32_t i = 0; i < call_name_keys_.size(); ++i) {
    if (call_name_keys_[i] == key && (whole || (sites_[i].kind == SiteKind::kCall && sites_[i].name == name))) {
      out.push_back(i);
    }
  }
  return out;
}

std::optional<Argument> Model::FindArgument(const Site& call, std::string_view name, int position) const {
  const ts::Node call_args = call.Arguments();
  if (call_args.IsNull() || KindOf(call_args) != K::kArgumentList) return std::nullopt;
  int index = 0;
  bool star = false;
  std::optional<Argument> positional;
  for (ts::Node arg : NamedChildren(call_args)) {
    const K k = KindOf(arg);
    if (k == K::kComment) continue;
    if (k == K::kKeywordArgument) {
      if (Text(Field(arg, F::kName)) == name) return Argument{arg, Field(arg, F::kValue)};
      continue;
    }
    if (k == K::kDictionarySplat) continue;
    if (k == K::kListSplat) {
      star = true;
      continue;
    }
    if (!star && index == position) positional = Argument{arg, arg};
    ++index;
  }
  return positional;
}

std::optional<Model::Insertion> Model::AppendKeyword(const Site& call, std::string_view keyword,
                                                     std::string_view value) const {
  const ts::Node call_args = call.Arguments();
  if (call_args.IsNull() || KindOf(call_args) != K::kArgumentList) return std::nullopt;
  ts::Node last;
  for (ts::Node arg : NamedChildren(call_args)) {
    if (KindOf(arg) != K::kComment) last = arg;
  }
  Insertion out;
  const std::string argument = std::string(keyword) + "=" + std::string(value);
  if (last.IsNull()) {
    out.offset = call_args.StartByte() + 1;
    out.text = argument;
    return out;
  }
  // One argument per line with a trailing comma (the black / ruff-format layout): add a line in the
  // same layout rather than `last, new,` on one line.
  ts::Node after = last.NextSibling();
  const std::string_view before_last = source_.substr(call_args.StartByte(), last.StartByte() - call_args.StartByte());
  if (!after.IsNull() && Text(after) == "," && before_last.find('\n') != std::string_view::npos) {
    const size_t line_start = source_.rfind('\n', last.StartByte() - 1);
    const std::string_view indent = source_.substr(line_start + 1, last.StartByte() - line_start - 1);
    if (indent.find_first_not_of(" \t") == std::string_view::npos) {
      const bool crlf = line_start > 0 && source_[line_start - 1] == '\r';
      out.offset = after.EndByte();
      out.text = std::string(crlf ? "\r\n" : "\n") + std::string(indent) + argument + ",";
      return out;
    }
  }
  out.offset = last.EndByte();
  out.text = ", " + argument;
  return out;
}

bool Model::HasStarArgs(const Site& call) const {
  const ts::Node call_args = call.Arguments();
  if (call_args.IsNull()) return false;
  for (uint32_t i = 0; i < NamedChildCount(call_args); ++i) {
    if (KindOf(NamedChild(call_args, i)) == K::kListSplat) return true;
  }
  return false;
}

namespace {

// Two resolved values that are the same constant.
bool SameValue(const Value& a, const Value& b) {
  return a.known() && a.kind == b.kind && a.int_value == b.int_value && a.float_value == b.float_value &&
         a.string_value == b.string_value;
}

// Merges what one more way of building a dict says about a key into `into`: unknown when either is,
// else present when any of them has it (with its value when they all agree), closed only when every one is.
void MergeLookup(const DictKeys& more, DictKeys& into) {
  if (into.found.presence == KeyPresence::kUnknown) return;
  if (more.found.presence == KeyPresence::kUnknown) {
    into = more;
    return;
  }
  if (more.found.presence == KeyPresence::kPresent) {
    if (into.found.presence != KeyPresence::kPresent) {
      into.found = more.found;
      into.found.partial = true;
    } else if (!SameValue(into.found.value, more.found.value)) {
      into.found.value = Value{};
    }
  }
  into.closed = into.closed && more.closed;
}

}  // namespace

DictKeys Model::DictKeyDepth(ts::Node expr, std::string_view key, int scope, int depth) const {
  DictKeys out;
  out.found.presence = KeyPresence::kAbsent;
  if (depth > kMaxDepth) return out;
  expr = Unparen(expr);
  const K k = KindOf(expr);
  if (k == K::kDictionary) {
    // A literal; one that splats another mapping into itself is open unless it has the key.
    out.closed = true;
    for (ts::Node item : expr.NamedChildren()) {
      if (KindOf(item) == K::kDictionarySplat) out.closed = false;
      if (KindOf(item) != K::kPair) continue;
      auto name = StringContent(Field(item, F::kKey), source_);
      if (name && *name == key) {
        out.found.presence = KeyPresence::kPresent;
        out.found.node = item;
        out.found.value = Resolve(Field(item, F::kValue), scope);
      }
    }
    return out;
  }
  if (k == K::kCall && Text(Field(expr, F::kFunction)) == "dict") {
    // `dict(k=v, ...)`; a positional mapping or a splat leaves it open.
    ts::Node args = Field(expr, F::kArguments);
    out.closed = KindOf(args) == K::kArgumentList;
    for (uint32_t j = 0; out.closed && j < NamedChildCount(args); ++j) {
      ts::Node item = NamedChild(args, j);
      if (KindOf(item) != K::kKeywordArgument) {
        out.closed = false;
        continue;
      }
      if (Text(Field(item, F::kName)) == key) {
        out.found.presence = KeyPresence::kPresent;
        out.found.node = item;
        out.found.value = Resolve(Field(item, F::kValue), scope);
      }
    }
    return out;
  }
  if (k == K::kConditional && expr.NamedChildCount() == 3) {
    // `{...} if use_cuda else {}`: the key is there on the path that has it.
    out = DictKeyDepth(expr.NamedChild(0), key, scope, depth + 1);
    const DictKeys other = DictKeyDepth(expr.NamedChild(2), key, scope, depth + 1);
    const bool both = out.found.presence == KeyPresence::kPresent && other.found.presence == KeyPresence::kPresent;
    MergeLookup(other, out);
    if (out.found.presence == KeyPresence::kPresent) out.found.partial = out.found.partial || !both;
    return out;
  }
  if (k != K::kIdentifier) return out;
  const std::string_view name = Text(expr);
  const Binding* binding = SingleBinding(name, scope);
  if (binding == nullptr || binding->kind != BindingKind::kAssign || binding->position != -1) return out;
  out = DictKeyDepth(binding->value, key, binding->scope, depth + 1);
  if (std::find(open_dicts_.begin(), open_dicts_.end(), name) == open_dicts_.end()) return out;
  // A dict changed after it was built: `d.update({...})` and `d["key"] = v` in the scope that binds it
  // add what they write; a key that is not a literal leaves it open, and any other change (`pop`,
  // `setdefault`) makes it unknown.
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || KindOf(site.callee) != K::kAttribute) continue;
    const ts::Node receiver = Unparen(site.Receiver());
    if (KindOf(receiver) != K::kIdentifier || Text(receiver) != name || SingleBinding(name, site.scope) != binding) {
      continue;
    }
    static constexpr std::array<std::string_view, 4> kMutators = {"setdefault", "pop", "popitem", "clear"};
    if (OneOf(site.name, kMutators)) return DictKeys{};  // the key may be gone, or added unseen
    if (site.name != "update") continue;
    const ts::Node args = site.Arguments();
    for (uint32_t i = 0; !args.IsNull() && i < NamedChildCount(args); ++i) {
      const ts::Node arg = NamedChild(args, i);
      const K ak = KindOf(arg);
      if (ak == K::kComment) continue;
      if (ak == K::kKeywordArgument) {
        if (Text(Field(arg, F::kName)) != key) continue;
        DictKeys keyword;
        keyword.closed = true;
        keyword.found.presence = KeyPresence::kPresent;
        keyword.found.node = arg;
        keyword.found.value = Resolve(Field(arg, F::kValue), site.scope);
        MergeLookup(keyword, out);
      } else if (ak == K::kListSplat || ak == K::kDictionarySplat) {
        out.closed = false;
      } else {
        MergeLookup(DictKeyDepth(arg, key, site.scope, depth + 1), out);
      }
    }
  }
  auto [items, items_end] = std::equal_range(item_writes_.begin(), item_writes_.end(), name, NameLess{});
  for (auto it = items; it != items_end; ++it) {
    if (SingleBinding(name, it->scope) != binding) continue;
    const auto written = StringContent(it->key, source_);
    if (!written) {
      out.closed = false;
      continue;
    }
    if (*written != key) continue;
    DictKeys item;
    item.closed = true;
    item.found.presence = KeyPresence::kPresent;
    item.found.node = it->target;
    if (!it->value.IsNull()) item.found.value = Resolve(it->value, it->scope);
    MergeLookup(item, out);
  }
  return out;
}

KeyLookup Model::KwargsLookupIn(const Site& call, std::string_view key) const {
  const ts::Node call_args = call.Arguments();
  KeyLookup result;
  result.presence = KeyPresence::kAbsent;
  if (call_args.IsNull()) return result;
  for (ts::Node arg : NamedChildren(call_args)) {
    if (KindOf(arg) != K::kDictionarySplat) continue;
    // A literal dict, `dict(k=v, ...)`, a name bound to one (and changed only by `update` and item
    // writes), or either branch of a conditional; anything else (a function's result, a parameter) is
    // unknown.
    const DictKeys found = DictKeyDepth(arg.NamedChildCount() > 0 ? arg.NamedChild(0) : ts::Node(), key, call.scope, 0);
    if (found.found.presence == KeyPresence::kPresent) {
      result = found.found;  // a later splat may override, which only matters if it also has the key
      continue;
    }
    if (!found.closed && result.presence != KeyPresence::kPresent) result.presence = KeyPresence::kUnknown;
  }
  return result;
}

const Site* Model::SiteOf(ts::Node node) const {
  const uint32_t start = node.StartByte();
  auto it = std::lower_bound(sites_.begin(), sites_.end(), start,
                             [](const Site& site, uint32_t offset) { return site.node.StartByte() < offset; });
  for (; it != sites_.end() && it->node.StartByte() == start; ++it) {
    if (it->node == node) return &*it;
  }
  return nullptr;
}

const Site* Model::CallSiteOf(ts::Node call) const {
  const Site* site = SiteOf(call);
  if (site == nullptr) return nullptr;
  for (const Site* end = sites_.data() + sites_.size(); site != end && site->node.StartByte() == call.StartByte();
       ++site) {
    if (site->kind == SiteKind::kCall && site->node == call) return site;
  }
  return nullptr;
}

}  // namespace tl::semantic
