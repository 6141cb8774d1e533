// Calls: receivers and arguments, `**kwargs` splats, where a keyword goes, and the calls that reach
// the file's own functions.
#include "linter/semantic/builder.h"

#include <algorithm>
#include <string>

namespace tl::semantic {

ts::Node Site::Receiver() const {
  if (kind != SiteKind::kCall || KindOf(callee) != K::kAttribute) return ts::Node();
  return Field(callee, F::kObject);
}

ts::Node Site::Arguments() const {
  if (kind != SiteKind::kCall) return ts::Node();
  return Field(node, F::kArguments);
}

std::vector<int> Builder::LocalCallees(const Site& site) const {
  std::vector<int> out;
  if (site.kind != SiteKind::kCall || m_.functions_.empty()) return out;
  const K ck = KindOf(site.callee);
  std::string_view name;
  if (ck == K::kIdentifier) {
    name = m_.Text(site.callee);
    if (import_index_.count(name) != 0) return out;
  } else if (ck == K::kAttribute) {
    // `self.train_step()` / `cls.helper()`: a method of the file's classes.
    ts::Node object = Unparen(site.Receiver());
    const std::string_view head = m_.Text(object);
    if (KindOf(object) != K::kIdentifier || (head != "self" && head != "cls")) return out;
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

std::vector<uint32_t> Model::CallsNamed(std::string_view name) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    if (sites_[i].name == name && sites_[i].kind == SiteKind::kCall) out.push_back(i);
  }
  return out;
}

std::optional<Argument> Model::FindArgument(const Site& call, std::string_view name, int position) const {
  const ts::Node call_args = call.Arguments();
  if (call_args.IsNull() || KindOf(call_args) != K::kArgumentList) return std::nullopt;
  int index = 0;
  bool star = false;
  std::optional<Argument> positional;
  for (uint32_t i = 0; i < call_args.NamedChildCount(); ++i) {
    ts::Node arg = call_args.NamedChild(i);
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
  for (uint32_t i = 0; i < call_args.NamedChildCount(); ++i) {
    ts::Node arg = call_args.NamedChild(i);
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
  for (uint32_t i = 0; i < call_args.NamedChildCount(); ++i) {
    if (KindOf(call_args.NamedChild(i)) == K::kListSplat) return true;
  }
  return false;
}

KeyLookup Model::KwargsLookupIn(const Site& call, std::string_view key) const {
  const ts::Node call_args = call.Arguments();
  KeyLookup result;
  result.presence = KeyPresence::kAbsent;
  if (call_args.IsNull()) return result;
  for (uint32_t i = 0; i < call_args.NamedChildCount(); ++i) {
    ts::Node arg = call_args.NamedChild(i);
    if (KindOf(arg) != K::kDictionarySplat) continue;
    ts::Node expr = arg.NamedChildCount() > 0 ? Unparen(arg.NamedChild(0)) : ts::Node();
    ts::Node dict;
    if (KindOf(expr) == K::kDictionary || KindOf(expr) == K::kCall) {
      dict = expr;
    } else if (KindOf(expr) == K::kIdentifier) {
      const std::string_view name = Text(expr);
      const bool open = std::find(open_dicts_.begin(), open_dicts_.end(), name) != open_dicts_.end();
      const Binding* binding = SingleBinding(name, call.scope);
      if (!open && binding != nullptr && binding->kind == BindingKind::kAssign && binding->position == -1) {
        dict = Unparen(binding->value);
      }
    }
    // A literal dict, or `dict(k=v, ...)`; anything else (a function's result, a parameter) is
    // unknown, and so is a literal that splats another mapping into itself without the key.
    bool closed = false;
    KeyLookup found;
    if (KindOf(dict) == K::kDictionary) {
      closed = true;
      for (uint32_t j = 0; j < dict.NamedChildCount(); ++j) {
        ts::Node item = dict.NamedChild(j);
        if (KindOf(item) == K::kDictionarySplat) closed = false;
        if (KindOf(item) != K::kPair) continue;
        auto k = StringContent(Field(item, F::kKey), source_);
        if (k && *k == key) {
          found.presence = KeyPresence::kPresent;
          found.node = item;
          found.value = Resolve(Field(item, F::kValue), call.scope);
        }
      }
    } else if (KindOf(dict) == K::kCall && Text(Field(dict, F::kFunction)) == "dict") {
      ts::Node args = Field(dict, F::kArguments);
      closed = KindOf(args) == K::kArgumentList;
      for (uint32_t j = 0; closed && j < args.NamedChildCount(); ++j) {
        ts::Node item = args.NamedChild(j);
        if (KindOf(item) != K::kKeywordArgument) {
          closed = false;
          continue;
        }
        if (Text(Field(item, F::kName)) == key) {
          found.presence = KeyPresence::kPresent;
          found.node = item;
          found.value = Resolve(Field(item, F::kValue), call.scope);
        }
      }
    }
    if (found.presence == KeyPresence::kPresent) {
      result = found;  // a later splat may override, which only matters if it also has the key
      continue;
    }
    if (!closed && result.presence != KeyPresence::kPresent) result.presence = KeyPresence::kUnknown;
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

}  // namespace tl::semantic
