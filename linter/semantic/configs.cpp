// Configs and value flow: the constants that reach an expression through more than one binding. A layer's
// size is often written far from the layer: a dataclass default, `config.vocab_size = 50257`,
// `config_args['vocab_size'] = 50257` splatted into `GPTConfig(**config_args)`, a keyword of a
// constructor, an argparse default, or an argument at the call site of the `__init__` that builds it.
// The builder records the file's config classes, the variables that hold config objects and dicts, and
// every write to their fields that is not overwritten later in the same flow; ValueFlow answers
// ResolveAll from those tables. Object sensitivity is coarse on purpose: a field read through a config
// parameter may take any value written to that field of the file's configs. The write side is strict: a
// write counts only when its target is clearly a config.
#include <algorithm>
#include <array>
#include <mutex>
#include <string>

#include "linter/semantic/builder.h"

namespace tl::semantic {
namespace {

constexpr size_t kMaxValues = 64;       // values kept for one expression: products of sets grow fast
constexpr size_t kMaxCallSites = 64;    // call sites read for one parameter
constexpr int kMaxStatementDepth = 64;  // nodes between a write's target and its statement

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// `GPTConfig`, `ModelArgs`, `TrainingArguments`, `HParams`: names classes of configuration carry.
bool ConfigClassName(std::string_view name) {
  const std::string lower = Lower(name);
  constexpr std::array<std::string_view, 6> kSuffixes = {"config", "cfg", "conf", "args", "arguments", "params"};
  return std::any_of(kSuffixes.begin(), kSuffixes.end(), [&](std::string_view s) { return lower.ends_with(s); });
}

// `config`, `model_cfg`, `gptconf`, `args`, `opt`, `hparams`: names variables holding a config carry.
bool ConfigVariableName(std::string_view name) {
  const std::string lower = Lower(name);
  if (lower.find("config") != std::string::npos || lower.find("cfg") != std::string::npos || lower.ends_with("conf")) {
    return true;
  }
  constexpr std::array<std::string_view, 9> kNames = {"args", "opt",   "opts",     "hparams", "hp",
                                                      "hps",  "flags", "settings", "options"};
  return OneOf(std::string_view(lower), kNames);
}

// The statement that contains a node: the ancestor whose parent is a block or the module.
ts::Node StatementOf(ts::Node node) {
  for (int i = 0; i < kMaxStatementDepth && !node.IsNull(); ++i) {
    ts::Node parent = node.Parent();
    const K k = KindOf(parent);
    if (parent.IsNull() || k == K::kBlock || k == K::kModule) return node;
    node = parent;
  }
  return ts::Node();
}

bool Contains(ts::Node outer, ts::Node inner) {
  return !outer.IsNull() && !inner.IsNull() && outer.StartByte() <= inner.StartByte() &&
         inner.EndByte() <= outer.EndByte();
}

// The value of `name=` in a call's arguments, or null.
ts::Node KeywordValue(ts::Node call_args, std::string_view name, std::string_view source) {
  for (ts::Node arg : call_args.NamedChildren()) {
    if (KindOf(arg) == K::kKeywordArgument && Field(arg, F::kName).Text(source) == name) {
      return Field(arg, F::kValue);
    }
  }
  return ts::Node();
}

// `x = value` where `node` is the value: the assignment's target, else null.
ts::Node AssignedTo(ts::Node node) {
  ts::Node parent = node.Parent();
  if (KindOf(parent) != K::kAssignment || !(Field(parent, F::kRight) == node)) return ts::Node();
  return Field(parent, F::kLeft);
}

bool SameValue(const Value& a, const Value& b) {
  return a.kind == b.kind && a.int_value == b.int_value && a.float_value == b.float_value &&
         a.string_value == b.string_value && a.origin == b.origin && a.source == b.source && a.at_least == b.at_least;
}

// Python's `==` on dict keys: numbers by value (1 == 1.0), strings by content.
bool SameKey(const Value& a, const Value& b) {
  const bool a_number = a.kind == ValueKind::kInt || a.kind == ValueKind::kFloat || a.kind == ValueKind::kBool;
  const bool b_number = b.kind == ValueKind::kInt || b.kind == ValueKind::kFloat || b.kind == ValueKind::kBool;
  if (a_number && b_number) {
    const double x = a.kind == ValueKind::kFloat ? a.float_value : static_cast<double>(a.int_value);
    const double y = b.kind == ValueKind::kFloat ? b.float_value : static_cast<double>(b.int_value);
    return x == y;
  }
  return a.kind == ValueKind::kString && b.kind == ValueKind::kString && a.string_value == b.string_value;
}

void PushUnknown(std::vector<Value>& out) { out.emplace_back(); }

// The name of a function's positional parameter at `position` (0-based, `self` included), or empty.
std::string_view PositionalParameter(ts::Node function, size_t position, std::string_view source) {
  const ts::Node parameters = Field(function, F::kParameters);
  size_t index = 0;
  for (const ts::Node p : parameters.NamedChildren()) {
    ts::Node name;
    switch (KindOf(p)) {
      case K::kIdentifier: name = p; break;
      case K::kDefaultParameter: name = Field(p, F::kName); break;
      case K::kTypedParameter: name = p.NamedChildCount() > 0 ? p.NamedChild(0) : ts::Node(); break;
      case K::kListSplatPattern:
      case K::kKeywordSeparator: return {};
      default: continue;
    }
    if (KindOf(name) != K::kIdentifier) return {};
    if (index++ == position) return name.Text(source);
  }
  return {};
}

bool IsNamespace(std::string_view canonical) {
  return canonical == "argparse.Namespace" || canonical == "types.SimpleNamespace";
}

// The fields a dataclass's constructor takes, in order: its annotated class attributes.
std::vector<size_t> ArgumentFields(const Model::ConfigClass& klass) {
  std::vector<size_t> out;
  for (size_t i = 0; i < klass.fields.size(); ++i) {
    if (klass.fields[i].annotated) out.push_back(i);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Builder: the tables.

void Builder::CollectConfigs() {
  FindConfigClasses();
  for (size_t i = 0; i < m_.config_classes_.size(); ++i) {
    m_.class_by_name_.emplace_back(m_.config_classes_[i].name, static_cast<int>(i));
  }
  std::stable_sort(m_.class_by_name_.begin(), m_.class_by_name_.end(), NameLess{});
  // Calls of the file's classes and functions, by name: constructions and the call sites whose arguments
  // reach a parameter.
  for (uint32_t i = 0; i < m_.sites_.size(); ++i) {
    const Site& site = m_.sites_[i];
    if (site.kind != SiteKind::kCall) continue;
    std::string_view name;
    if (KindOf(site.callee) == K::kIdentifier) {
      name = m_.Text(site.callee);
      if (class_by_name_.count(name) == 0 && m_.FunctionsNamed(name).empty()) continue;
    } else if (const ts::Node receiver = ReceiverOf(site);
               KindOf(receiver) == K::kIdentifier && (m_.Text(receiver) == "self" || m_.Text(receiver) == "cls")) {
      name = site.name;
      if (m_.FunctionsNamed(name).empty()) continue;
    } else {
      continue;
    }
    m_.local_call_sites_.emplace_back(name, static_cast<int>(i));
  }
  std::stable_sort(m_.local_call_sites_.begin(), m_.local_call_sites_.end(), NameLess{});
  FindConfigRecords();
  MarkConfigArguments();
  if (!m_.config_records_.empty() || std::any_of(m_.config_classes_.begin(), m_.config_classes_.end(),
                                                 [](const Model::ConfigClass& klass) { return klass.config; })) {
    CollectHandedOn();
  }
  CollectRecordWrites();
  CollectClassWrites();
  std::stable_sort(m_.config_writes_.begin(), m_.config_writes_.end(), NameLess{});
  m_.writes_by_record_.resize(m_.config_writes_.size());
  for (uint32_t i = 0; i < m_.writes_by_record_.size(); ++i) m_.writes_by_record_[i] = i;
  std::stable_sort(m_.writes_by_record_.begin(), m_.writes_by_record_.end(),
                   [&](uint32_t a, uint32_t b) { return m_.config_writes_[a].record < m_.config_writes_[b].record; });
}

void Builder::FindConfigClasses() {
  std::vector<bool> has_init(m_.scopes_.size(), false);  // by class scope
  for (const auto& [name, function] : m_.FunctionsNamed("__init__")) {
    if (const int parent = m_.scopes_[static_cast<size_t>(function)].parent; parent >= 0) {
      has_init[static_cast<size_t>(parent)] = true;
    }
  }
  for (size_t i = 0; i < m_.scopes_.size(); ++i) {
    const Scope& scope = m_.scopes_[i];
    if (scope.kind != ScopeKind::kClass) continue;
    Model::ConfigClass klass;
    klass.name = scope.name;
    klass.scope = static_cast<int>(i);
    bool dataclass = false;
    if (ts::Node decorated = scope.decorated; !decorated.IsNull()) {
      for (ts::Node decorator : m_.NamedChildren(decorated)) {
        if (KindOf(decorator) == K::kDecorator && m_.Text(decorator).find("dataclass") != std::string_view::npos) {
          dataclass = true;
        }
      }
    }
    const std::string_view bases = m_.Text(Field(scope.node, F::kSuperclasses));
    // NamedTuple and pydantic models take their fields as constructor arguments, as dataclasses do.
    if (bases.find("NamedTuple") != std::string_view::npos || bases.find("BaseModel") != std::string_view::npos) {
      dataclass = true;
    }
    bool annotated_value = false;
    bool only_fields = true;  // nothing but class attributes (and a docstring): a holder of constants
    const ts::Node body = Field(scope.node, F::kBody);
    for (ts::Node statement : m_.NamedChildren(body)) {
      if (KindOf(statement) == K::kComment) continue;
      if (KindOf(statement) != K::kExpressionStatement || m_.NamedChildCount(statement) == 0) {
        only_fields = false;
        continue;
      }
      ts::Node assignment = m_.NamedChild(statement, 0);
      if (KindOf(assignment) != K::kAssignment) {
        only_fields = only_fields && KindOf(assignment) == K::kString;
        continue;
      }
      ts::Node left = Field(assignment, F::kLeft);
      if (KindOf(left) != K::kIdentifier) continue;
      Model::ConfigField field;
      field.name = m_.Text(left);
      field.value = Field(assignment, F::kRight);
      while (KindOf(field.value) == K::kAssignment) field.value = Field(field.value, F::kRight);
      field.annotated = !Field(assignment, F::kType).IsNull();
      annotated_value = annotated_value || (field.annotated && !field.value.IsNull());
      klass.fields.push_back(field);
    }
    klass.has_init = has_init[i];
    klass.fields_are_arguments = dataclass && !klass.has_init;
    // An nn.Module's annotated class attributes are declarations of its own, not configuration.
    const bool module = bases.find("Module") != std::string_view::npos;
    klass.config = dataclass || ConfigClassName(klass.name) ||
                   (!module && (annotated_value || (only_fields && !klass.fields.empty())));
    auto [it, inserted] = class_by_name_.emplace(klass.name, static_cast<int>(m_.config_classes_.size()));
    if (!inserted) it->second = -1;
    m_.config_classes_.push_back(std::move(klass));
  }
}

int Builder::AddRecord(std::string_view name, int scope) {
  if (int index = m_.RecordOf(name, scope); index >= 0) return index;
  Model::ConfigRecord record;
  record.name = name;
  record.scope = scope;
  auto& records = m_.config_records_;
  auto it = std::lower_bound(records.begin(), records.end(), record, [](const auto& a, const auto& b) {
    return std::make_pair(a.name, a.scope) < std::make_pair(b.name, b.scope);
  });
  it = records.insert(it, record);  // before begin(): the insertion may move the storage
  return static_cast<int>(it - records.begin());
}

// Variables bound to a config class's construction or an argparse Namespace are configs; those bound
// to a dict literal are records too (their keys are read back through subscripts), configs only once
// they are handed to a constructor (MarkConfigArguments).
void Builder::FindConfigRecords() {
  for (const Model::Binding& binding : m_.bindings_) {
    if (binding.kind != Model::BindingKind::kAssign || binding.position != -1 ||
        KindOf(binding.target) != K::kIdentifier) {
      continue;
    }
    const ts::Node value = Unparen(binding.value);
    const K kind = KindOf(value);
    bool config = false;
    bool dict = kind == K::kDictionary;
    if (kind == K::kCall) {
      const ts::Node callee = Unparen(Field(value, F::kFunction));
      const std::string_view name = m_.Text(callee);
      if (auto it = class_by_name_.find(name); KindOf(callee) == K::kIdentifier && it != class_by_name_.end()) {
        config = it->second >= 0 && m_.config_classes_[static_cast<size_t>(it->second)].config;
      } else if (name == "dict") {
        dict = true;
      } else {
        config = IsNamespace(m_.CanonicalName(callee));
      }
    } else if (kind == K::kSubscript) {
      // `config_args = {'gpt2': dict(...), ...}[model_type]`: a row of a table of dicts (a row of
      // tuples is read by position instead).
      bool unknown = false;
      const std::vector<ValueFlow::Place> rows = ValueFlow(m_).Containers(value, binding.scope, 0, unknown);
      dict = !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const ValueFlow::Place& row) {
        return KindOf(row.expr) == K::kDictionary || KindOf(row.expr) == K::kCall;
      });
    }
    if (!config && !dict) continue;
    const int index = AddRecord(binding.name, binding.scope);
    m_.config_records_[static_cast<size_t>(index)].config |= config;
  }
  // Closed: every binding of the variable in its scope builds the dict from literals.
  for (Model::ConfigRecord& record : m_.config_records_) record.closed = true;
  for (const Model::Binding& binding : m_.bindings_) {
    const int index = m_.RecordOf(binding.name, binding.scope);
    if (index < 0) continue;
    const ts::Node value = Unparen(binding.value);
    const K kind = KindOf(value);
    const bool literal = binding.kind == Model::BindingKind::kAssign && binding.position == -1 &&
                         (kind == K::kDictionary || kind == K::kSubscript ||
                          (kind == K::kCall && m_.Text(Field(value, F::kFunction)) == "dict"));
    if (!literal) m_.config_records_[static_cast<size_t>(index)].closed = false;
  }
}

// What an argument passes: a keyword argument's value, a splat's operand (`*xs`, `**d`), unparenthesized.
ts::Node Builder::PassedExpression(ts::Node argument) const {
  const K k = KindOf(argument);
  if (k == K::kKeywordArgument) return Unparen(Field(argument, F::kValue));
  if (k == K::kDictionarySplat || k == K::kListSplat) {
    return m_.NamedChildCount(argument) > 0 ? Unparen(m_.NamedChild(argument, 0)) : ts::Node();
  }
  return Unparen(argument);
}

// A dict splatted into a constructor or a function of the file (`GPTConfig(**config_args)`), or passed
// to a class of the file, is a config; so is any variable with a config's name passed to a class of the
// file (`config = cls.get_default_config(); ...; GPT(config)`). Calls that hand a record on are kept:
// a write after one of them does not overwrite what the callee saw.
void Builder::MarkConfigArguments() {
  for (const Site& site : m_.sites_) {
    if (site.kind != SiteKind::kCall) continue;
    const ts::Node call_args = site.Arguments();
    if (KindOf(call_args) != K::kArgumentList) continue;
    bool to_class = false;
    bool to_local = false;
    if (KindOf(site.callee) == K::kIdentifier) {
      const std::string_view name = m_.Text(site.callee);
      to_class = class_by_name_.count(name) != 0;
      to_local = to_class || (!m_.FunctionsNamed(name).empty() && m_.import_last_.count(name) == 0);
      if (!to_local) to_local = IsNamespace(m_.CalleeCanonical(site));
    } else if (const ts::Node receiver = ReceiverOf(site); KindOf(receiver) == K::kIdentifier) {
      const std::string_view name = m_.Text(receiver);
      to_local = (name == "self" || name == "cls") && !m_.FunctionsNamed(site.name).empty();
      // `d.update(...)` and the like change keys the model cannot read.
      constexpr std::array<std::string_view, 5> kMutators = {"update", "setdefault", "pop", "clear", "popitem"};
      if (OneOf(site.name, kMutators)) {
        for (int s = site.scope; s >= 0; s = m_.scopes_[static_cast<size_t>(s)].parent) {
          if (int index = m_.RecordOf(name, s); index >= 0)
            m_.config_records_[static_cast<size_t>(index)].closed = false;
        }
      }
    }
    if (!to_local) continue;  // (what follows is about calls of the file's own classes and functions)
    for (const ts::Node argument : m_.NamedChildren(call_args)) {
      const bool splat = KindOf(argument) == K::kDictionarySplat;
      const ts::Node arg = PassedExpression(argument);
      if (KindOf(arg) != K::kIdentifier) continue;
      const std::string_view name = m_.Text(arg);
      if (name == "self" || name == "cls") continue;
      const int scope = m_.BindingScope(name, site.scope);
      if (scope < 0) continue;
      const int existing = m_.RecordOf(name, scope);
      const bool is_dict = existing >= 0 && !m_.config_records_[static_cast<size_t>(existing)].config;
      if ((splat && (existing >= 0 || to_class)) || (to_class && is_dict) || (to_class && ConfigVariableName(name))) {
        m_.config_records_[static_cast<size_t>(AddRecord(name, scope))].config = true;
      }
    }
  }
}

// The calls each name is handed to, as a receiver or an argument (`d.update(...)`, `f(d)`, `f(x=d)`,
// `f(**d)`): only Overwritten asks, and only in a file with a record or a config class, so it is made
// then.
void Builder::CollectHandedOn() {
  // Overwritten asks of a record's name and of `self` only: the other names are not kept.
  std::vector<std::string_view> asked = {"self"};
  for (const Model::ConfigRecord& record : m_.config_records_) asked.push_back(record.name);
  std::sort(asked.begin(), asked.end());
  const auto hand_on = [&](std::string_view name, uint32_t offset) {
    if (std::binary_search(asked.begin(), asked.end(), name)) handed_on_[name].push_back(offset);
  };
  for (const Site& site : m_.sites_) {
    if (site.kind != SiteKind::kCall) continue;
    const ts::Node call_args = site.Arguments();
    if (KindOf(call_args) != K::kArgumentList) continue;
    if (KindOf(site.callee) != K::kIdentifier) {
      if (const ts::Node receiver = ReceiverOf(site); KindOf(receiver) == K::kIdentifier) {
        hand_on(m_.Text(receiver), site.node.StartByte());
      }
    }
    for (const ts::Node argument : m_.NamedChildren(call_args)) {
      if (const ts::Node arg = PassedExpression(argument); KindOf(arg) == K::kIdentifier) {
        hand_on(m_.Text(arg), site.node.StartByte());
      }
    }
  }
}

// A write is overwritten when a later write of the same field, in the same block or one around it
// (so it runs whenever the first did), follows with no call in between that the record was handed to.
bool Builder::Overwritten(const RecordWrite& earlier, const std::vector<RecordWrite>& writes,
                          std::string_view name) const {
  if (earlier.statement.IsNull()) return false;
  const auto calls = handed_on_.find(name);
  auto [first, last] = std::equal_range(writes.begin(), writes.end(), earlier, ByField{});
  for (auto later = first; later != last; ++later) {
    if (later->statement.IsNull() || later->statement.StartByte() < earlier.statement.EndByte() ||
        !Contains(later->statement.Parent(), earlier.statement)) {
      continue;
    }
    // Call offsets are in document order: is there one between the two writes?
    bool handed = false;
    if (calls != handed_on_.end()) {
      auto call = std::lower_bound(calls->second.begin(), calls->second.end(), earlier.statement.EndByte());
      handed = call != calls->second.end() && *call < later->statement.StartByte();
    }
    if (!handed) return true;
  }
  return false;
}

void Builder::CollectRecordWrites() {
  record_writes_.assign(m_.config_records_.size(), {});
  for (size_t r = 0; r < m_.config_records_.size(); ++r) {
    const Model::ConfigRecord record = m_.config_records_[r];
    std::vector<RecordWrite>& writes = record_writes_[r];
    auto add = [&](std::string_view field, ts::Node value, int scope, ts::Node statement) {
      Model::ConfigWrite write;
      write.field = field;
      write.value = value;
      write.scope = scope;
      write.record = static_cast<int>(r);
      write.config = record.config;
      writes.push_back({write, statement});
    };
    // A dict literal's pairs, `dict(k=v)`'s keywords.
    auto add_entries = [&](ts::Node dict, int scope, ts::Node statement) {
      if (KindOf(dict) == K::kDictionary) {
        for (ts::Node pair : m_.NamedChildren(dict)) {
          if (KindOf(pair) != K::kPair) continue;
          if (auto key = StringContent(Field(pair, F::kKey), m_.source_)) {
            add(*key, Field(pair, F::kValue), scope, statement);
          }
        }
      } else if (KindOf(dict) == K::kCall) {
        const ts::Node call_args = Field(dict, F::kArguments);
        for (ts::Node arg : m_.NamedChildren(call_args)) {
          if (KindOf(arg) == K::kKeywordArgument)
            add(m_.Text(Field(arg, F::kName)), Field(arg, F::kValue), scope, statement);
        }
      }
    };
    for (const Model::Binding& binding : m_.BindingsOf(record.name)) {
      if (binding.scope != record.scope || binding.kind != Model::BindingKind::kAssign || binding.position != -1) {
        continue;
      }
      const ts::Node statement = StatementOf(binding.target);
      const ts::Node value = Unparen(binding.value);
      if (KindOf(value) == K::kCall) {
        const ts::Node callee = Unparen(Field(value, F::kFunction));
        const ts::Node call_args = Field(value, F::kArguments);
        const auto it = class_by_name_.find(m_.Text(callee));
        const Model::ConfigClass* klass = it != class_by_name_.end() && it->second >= 0
                                              ? &m_.config_classes_[static_cast<size_t>(it->second)]
                                              : nullptr;
        if (klass != nullptr && !klass->fields_are_arguments) continue;  // its __init__ writes `self.x`
        if (klass == nullptr && m_.Text(callee) != "dict" && !IsNamespace(m_.CanonicalName(callee))) continue;
        const std::vector<size_t> fields = klass != nullptr ? ArgumentFields(*klass) : std::vector<size_t>();
        size_t position = 0;
        for (ts::Node arg : m_.NamedChildren(call_args)) {
          if (KindOf(arg) == K::kKeywordArgument) {
            add(m_.Text(Field(arg, F::kName)), Field(arg, F::kValue), binding.scope, statement);
          } else if (KindOf(arg) == K::kListSplat) {
            position = SIZE_MAX;
          } else if (KindOf(arg) != K::kDictionarySplat && KindOf(arg) != K::kComment && position < fields.size()) {
            add(klass->fields[fields[position]].name, arg, binding.scope, statement);
            ++position;
          }
        }
        continue;
      }
      bool unknown = false;
      ValueFlow flow(m_);
      for (const ValueFlow::Place& dict : flow.Containers(value, binding.scope, 0, unknown)) {
        add_entries(dict.expr, dict.scope, statement);
      }
    }
    // `record.x = v` and `record['x'] = v`, in the record's scope or a function under it.
    const std::string prefix = std::string(record.name) + ".";
    auto first = std::lower_bound(m_.bindings_.begin(), m_.bindings_.end(), std::string_view(prefix), NameLess{});
    for (auto it = first; it != m_.bindings_.end() && it->name.starts_with(prefix); ++it) {
      const std::string_view field = it->name.substr(prefix.size());
      if (field.find_first_of(". []()") != std::string_view::npos ||
          m_.BindingScope(record.name, it->scope) != record.scope) {
        continue;
      }
      const bool whole = it->kind == Model::BindingKind::kAssign && it->position == -1;
      add(field, whole ? it->value : ts::Node(), it->scope, StatementOf(it->target));
    }
    auto [items, items_end] = std::equal_range(m_.item_writes_.begin(), m_.item_writes_.end(), record.name, NameLess{});
    for (auto it = items; it != items_end; ++it) {
      if (m_.BindingScope(record.name, it->scope) != record.scope) continue;
      if (auto key = StringContent(it->key, m_.source_)) {
        add(*key, it->value, it->scope, StatementOf(it->target));
      } else {
        m_.config_records_[r].closed = false;  // a key the model cannot read
      }
    }
    std::stable_sort(writes.begin(), writes.end(), ByField{});
    for (const RecordWrite& write : writes) {
      if (!Overwritten(write, writes, record.name)) m_.config_writes_.push_back(write.write);
    }
  }
}

// Does a construction of a dataclass set the field (so that the default is not what it gets)?
bool Builder::Supplies(const Site& construction, const Model::ConfigClass& klass, size_t field) const {
  const std::string_view name = klass.fields[field].name;
  const std::vector<size_t> fields = ArgumentFields(klass);
  const auto at = std::find(fields.begin(), fields.end(), field);
  const size_t index = at == fields.end() ? SIZE_MAX : static_cast<size_t>(at - fields.begin());
  const ts::Node statement = StatementOf(construction.node);
  const ts::Node call_args = construction.Arguments();
  size_t positional = 0;
  for (const ts::Node arg : m_.NamedChildren(call_args)) {
    const K k = KindOf(arg);
    if (k == K::kComment) continue;
    if (k == K::kKeywordArgument) {
      if (m_.Text(Field(arg, F::kName)) == name) return true;
      continue;
    }
    if (k == K::kListSplat) return false;  // it may or may not reach the field
    if (k != K::kDictionarySplat) {
      ++positional;
      continue;
    }
    const ts::Node dict = m_.NamedChildCount(arg) > 0 ? Unparen(m_.NamedChild(arg, 0)) : ts::Node();
    if (KindOf(dict) == K::kDictionary || KindOf(dict) == K::kCall) {
      if (KindOf(dict) == K::kDictionary) {
        for (uint32_t j = 0; j < m_.NamedChildCount(dict); ++j) {
          const auto key = StringContent(Field(m_.NamedChild(dict, j), F::kKey), m_.source_);
          if (key && *key == name) return true;
        }
      } else if (m_.Text(Field(dict, F::kFunction)) == "dict" &&
                 !KeywordValue(Field(dict, F::kArguments), name, m_.source_).IsNull()) {
        return true;
      }
      continue;
    }
    if (KindOf(dict) != K::kIdentifier) continue;
    const std::string_view dict_name = m_.Text(dict);
    const int record = m_.RecordOf(dict_name, m_.BindingScope(dict_name, construction.scope));
    if (record < 0) continue;
    // A key written before the construction, on every path to it.
    const std::vector<RecordWrite>& writes = record_writes_[static_cast<size_t>(record)];
    RecordWrite probe;
    probe.write.field = name;
    auto [first, last] = std::equal_range(writes.begin(), writes.end(), probe, ByField{});
    for (auto it = first; it != last; ++it) {
      const RecordWrite& write = *it;
      if (!write.statement.IsNull() && !statement.IsNull() && write.statement.EndByte() <= statement.StartByte() &&
          Contains(write.statement.Parent(), statement)) {
        return true;
      }
    }
  }
  if (positional > index) return true;
  // `cfg = Config(); cfg.field = ...`: the construction's default is overwritten before anyone sees it.
  const ts::Node target = AssignedTo(construction.node);
  if (KindOf(target) != K::kIdentifier) return false;
  const int record = m_.RecordOf(m_.Text(target), construction.scope);
  if (record < 0) return false;
  RecordWrite created;
  created.write.field = name;
  created.statement = statement;
  return Overwritten(created, record_writes_[static_cast<size_t>(record)], m_.Text(target));
}

// A config class's defaults (class-level values, a dataclass field's `field(default=...)`), kept unless
// every construction of the class in the file sets the field, and the `self.x = v` of its methods.
void Builder::CollectClassWrites() {
  for (size_t c = 0; c < m_.config_classes_.size(); ++c) {
    const Model::ConfigClass& klass = m_.config_classes_[c];
    if (!klass.config) continue;
    std::vector<const Site*> constructions;
    auto [first, last] = std::equal_range(m_.local_call_sites_.begin(), m_.local_call_sites_.end(), klass.name,
                                          NameLess{});
    for (auto it = first; it != last; ++it) {
      const Site& site = m_.sites_[static_cast<size_t>(it->second)];
      if (KindOf(site.callee) == K::kIdentifier) constructions.push_back(&site);
    }
    std::vector<RecordWrite> members;
    const std::string_view self_prefix = "self.";
    auto self_first = std::lower_bound(m_.bindings_.begin(), m_.bindings_.end(), self_prefix, NameLess{});
    for (auto it = self_first; it != m_.bindings_.end() && it->name.starts_with(self_prefix); ++it) {
      const std::string_view field = it->name.substr(5);
      if (m_.scopes_[static_cast<size_t>(it->scope)].parent != klass.scope ||
          field.find_first_of(". []()") != std::string_view::npos) {
        continue;
      }
      const bool whole = it->kind == Model::BindingKind::kAssign && it->position == -1;
      RecordWrite write;
      write.write = {field, whole ? it->value : ts::Node(), it->scope, -1, true};
      write.statement = StatementOf(it->target);
      members.push_back(write);
    }
    for (size_t f = 0; f < klass.fields.size(); ++f) {
      const Model::ConfigField& field = klass.fields[f];
      ts::Node value = Unparen(field.value);
      if (KindOf(value) == K::kCall && LastSegment(m_.Text(Field(value, F::kFunction))) == "field") {
        value = KeywordValue(Field(value, F::kArguments), "default", m_.source_);  // default_factory: not a constant
      }
      if (value.IsNull()) continue;
      bool live = true;
      if (klass.fields_are_arguments) {
        live = constructions.empty() || std::any_of(constructions.begin(), constructions.end(),
                                                    [&](const Site* site) { return !Supplies(*site, klass, f); });
      } else {
        // `self.field = ...` at the top of `__init__` replaces the class attribute on every instance.
        live = std::none_of(members.begin(), members.end(), [&](const RecordWrite& member) {
          const Scope& method = m_.scopes_[static_cast<size_t>(member.write.scope)];
          return member.write.field == field.name && method.name == "__init__" && !member.statement.IsNull() &&
                 member.statement.Parent() == Field(method.node, F::kBody);
        });
      }
      if (live) m_.config_writes_.push_back({field.name, value, klass.scope, -1, true});
    }
    std::stable_sort(members.begin(), members.end(), ByField{});
    for (const RecordWrite& member : members) {
      if (!Overwritten(member, members, "self")) m_.config_writes_.push_back(member.write);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Model: lookups over the tables.

int Model::RecordOf(std::string_view name, int scope) const {
  auto it = std::lower_bound(config_records_.begin(), config_records_.end(), std::make_pair(name, scope),
                             [](const ConfigRecord& r, const std::pair<std::string_view, int>& key) {
                               return std::make_pair(r.name, r.scope) < key;
                             });
  if (it == config_records_.end() || it->name != name || it->scope != scope) return -1;
  return static_cast<int>(it - config_records_.begin());
}

std::pair<std::vector<uint32_t>::const_iterator, std::vector<uint32_t>::const_iterator> Model::RecordWrites(
    int record) const {
  struct ByRecord {
    const std::vector<ConfigWrite>& writes;
    bool operator()(uint32_t write, int r) const { return writes[write].record < r; }
    bool operator()(int r, uint32_t write) const { return r < writes[write].record; }
  };
  return std::equal_range(writes_by_record_.begin(), writes_by_record_.end(), record, ByRecord{config_writes_});
}

int Model::BindingScope(std::string_view name, int scope) const {
  for (int s = scope; s >= 0; s = scopes_[static_cast<size_t>(s)].parent) {
    if (s != scope && scopes_[static_cast<size_t>(s)].kind == ScopeKind::kClass) continue;
    if (!BindingsIn(name, s, s).empty()) return s;
  }
  return -1;
}

const Model::ConfigClass* Model::ClassNamed(std::string_view name) const {
  auto [first, last] = std::equal_range(class_by_name_.begin(), class_by_name_.end(), name, NameLess{});
  // Two classes of that name: neither is known to be the one.
  if (last - first != 1) return nullptr;
  return &config_classes_[static_cast<size_t>(first->second)];
}

std::vector<Value> Model::ResolveAll(ts::Node expr, int scope) const {
  // A name is resolved from its binding in the scope (ValueFlow::Identifier), never from the node:
  // its values are kept by (name, scope).
  const ts::Node bare = Unparen(expr);
  const bool name = KindOf(bare) == K::kIdentifier;
  if (name) {
    const std::lock_guard lock(resolved_mu_);
    if (auto it = resolved_names_.find({Text(bare), scope}); it != resolved_names_.end()) return it->second;
  }
  std::vector<Value> values;
  ValueFlow(*this).Resolve(expr, scope, 0, values);
  std::vector<Value> out;
  for (const Value& value : values) {
    if (std::none_of(out.begin(), out.end(), [&](const Value& seen) { return SameValue(seen, value); })) {
      out.push_back(value);
    }
  }
  if (name) {
    const std::lock_guard lock(resolved_mu_);
    resolved_names_.emplace(std::pair(Text(bare), scope), out);
  }
  return out;
}

std::string_view Model::WrittenName(ts::Node literal) const {
  ts::Node node = literal;
  int element = -1;  // the place of `node` in the tuple it was climbed out of (`a, b = 768, 3070`)
  // A few levels at most: parentheses, a sign, a branch, the tuple a row of numbers sits in.
  for (int i = 0; i < 8 && !node.IsNull(); ++i) {
    const ts::Node parent = node.Parent();
    switch (KindOf(parent)) {
      case K::kTuple:
      case K::kList:
      case K::kExpressionList:
        element = -1;
        for (uint32_t j = 0; j < NamedChildCount(parent); ++j) {
          if (NamedChild(parent, j) == node) element = static_cast<int>(j);
        }
        node = parent;
        continue;
      case K::kParenthesized:
      case K::kUnary:
      case K::kConditional: node = parent; continue;
      case K::kKeywordArgument: {
        const std::string_view name = Text(Field(parent, F::kName));
        const ts::Node call = parent.Parent().Parent();
        const std::string_view callee = KindOf(call) == K::kCall ? LastSegment(Text(Field(call, F::kFunction))) : "";
        // `add_argument('--hidden-size', default=500)`: the option is what the user knows it by.
        if (name == "default" && callee == "add_argument") {
          if (auto option = StringContent(Field(call, F::kArguments).NamedChild(0), source_)) {
            return option->substr(std::min(option->find_first_not_of('-'), option->size()));
          }
        }
        // `hidden: int = field(default=11006)`: the dataclass field.
        if (name == "default" && callee == "field") {
          node = call;
          continue;
        }
        return name;
      }
      case K::kArgumentList: {
        size_t position = 0;
        for (uint32_t j = 0; j < NamedChildCount(parent) && !(NamedChild(parent, j) == node); ++j) {
          const K k = KindOf(NamedChild(parent, j));
          if (k == K::kListSplat) return {};
          if (k != K::kComment && k != K::kKeywordArgument && k != K::kDictionarySplat) ++position;
        }
        // `EncoderSpec(522, 6)`: the field a dataclass's constructor takes at that position;
        // `mlp(1288)`, `Net(784, 500)`: the parameter of the file's function or `__init__`.
        const ts::Node callee = Field(parent.Parent(), F::kFunction);
        if (KindOf(callee) != K::kIdentifier) return {};
        const std::string_view name = Text(callee);
        if (const ConfigClass* klass = ClassNamed(name); klass != nullptr) {
          if (klass->fields_are_arguments) {
            const std::vector<size_t> fields = ArgumentFields(*klass);
            return position < fields.size() ? klass->fields[fields[position]].name : "";
          }
          for (const auto& [init, scope] : FunctionsNamed("__init__")) {
            if (scopes_[static_cast<size_t>(scope)].parent == klass->scope) {
              return PositionalParameter(scopes_[static_cast<size_t>(scope)].node, position + 1, source_);
            }
          }
          return {};
        }
        const auto functions = FunctionsNamed(name);
        if (functions.size() != 1) return {};
        return PositionalParameter(scopes_[static_cast<size_t>(functions.front().second)].node, position, source_);
      }
      case K::kPair: {
        const ts::Node key = Field(parent, F::kKey);
        if (auto s = StringContent(key, source_)) return *s;
        return Text(key);
      }
      case K::kDefaultParameter: return Text(Field(parent, F::kName));
      case K::kAssignment: {
        ts::Node left = Field(parent, F::kLeft);
        const K lk = KindOf(left);
        if ((lk == K::kPatternList || lk == K::kTuplePattern) && element >= 0 &&
            static_cast<uint32_t>(element) < NamedChildCount(left) && KindOf(node) == K::kExpressionList) {
          left = NamedChild(left, static_cast<uint32_t>(element));
        }
        if (KindOf(left) == K::kIdentifier) return Text(left);
        if (KindOf(left) == K::kAttribute) return Text(Field(left, F::kAttribute));
        if (KindOf(left) == K::kSubscript) {
          if (auto s = StringContent(Field(left, F::kSubscript), source_)) return *s;
        }
        return {};
      }
      default: return {};
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------------
// ValueFlow: the queries.

bool ValueFlow::Spend(int depth) {
  if (depth > kMaxDepth || budget_ <= 0) return false;
  --budget_;
  return true;
}

void ValueFlow::Resolve(ts::Node expr, int scope, int depth, std::vector<Value>& out) {
  if (!Spend(depth)) {
    PushUnknown(out);
    return;
  }
  expr = Unparen(expr);
  switch (KindOf(expr)) {
    case K::kIdentifier: Identifier(expr, scope, depth, out); return;
    case K::kAttribute: Attribute(expr, scope, depth, out); return;
    case K::kSubscript: Subscript(expr, scope, depth, out); return;
    case K::kBinary: Binary(expr, scope, depth, out); return;
    case K::kUnary: {
      const std::string_view op = m_.Text(Field(expr, F::kOperator));
      std::vector<Value> inner;
      Resolve(Field(expr, F::kArgument), scope, depth + 1, inner);
      for (Value value : inner) {
        const bool number = value.kind == ValueKind::kInt || value.kind == ValueKind::kFloat;
        if (op == "-" && value.kind == ValueKind::kInt && value.int_value != INT64_MIN) {
          value.int_value = -value.int_value;
          value.origin = ts::Node();
        } else if (op == "-" && value.kind == ValueKind::kFloat) {
          value.float_value = -value.float_value;
          value.origin = ts::Node();
        } else if (!(op == "+" && number)) {
          value = Value{};
        }
        out.push_back(value);
      }
      return;
    }
    case K::kConditional:
      if (m_.NamedChildCount(expr) != 3) {
        PushUnknown(out);
        return;
      }
      Resolve(m_.NamedChild(expr, 0), scope, depth + 1, out);
      Resolve(m_.NamedChild(expr, 2), scope, depth + 1, out);
      return;
    default: out.push_back(m_.Resolve(expr, scope)); return;  // literals; anything else is unknown
  }
}

void ValueFlow::Identifier(ts::Node expr, int scope, int depth, std::vector<Value>& out) {
  const Model::Binding* binding = m_.SingleBinding(m_.Text(expr), scope);
  if (binding == nullptr) {
    PushUnknown(out);
    return;
  }
  if (binding->kind == Model::BindingKind::kAssign && binding->position == -1) {
    Resolve(binding->value, binding->scope, depth + 1, out);
    return;
  }
  if (binding->kind == Model::BindingKind::kAssign && binding->position >= 0 && binding->position < 100) {
    // `a, b = 512, 1001`: the element at the same place, when both sides have the same length.
    const ts::Node value = Unparen(binding->value);
    const ts::Node pattern = binding->target.Parent();
    const K k = KindOf(value);
    if ((k == K::kTuple || k == K::kList || k == K::kExpressionList) &&
        m_.NamedChildCount(value) == m_.NamedChildCount(pattern)) {
      const ts::Node element = m_.NamedChild(value, static_cast<uint32_t>(binding->position));
      if (KindOf(element) != K::kListSplat) {
        Resolve(element, binding->scope, depth + 1, out);
        return;
      }
    }
  }
  if (binding->kind == Model::BindingKind::kParameter) {
    if (m_.RemoteParameterValues(*binding, out)) return;  // filled by other files' calls only
    // A recursive function passes its parameter back to itself: the values that come around again
    // add nothing the first pass did not find, except what the model cannot bound.
    if (std::find(active_.begin(), active_.end(), binding) != active_.end()) {
      PushUnknown(out);
      return;
    }
    active_.push_back(binding);
    bool unknown = false;
    for (const Place& argument : Arguments(*binding, depth, unknown)) {
      Resolve(argument.expr, argument.scope, depth + 1, out);
    }
    active_.pop_back();
    if (unknown) PushUnknown(out);
    return;
  }
  PushUnknown(out);
}

void ValueFlow::Attribute(ts::Node expr, int scope, int depth, std::vector<Value>& out) {
  const ts::Node object = Unparen(Field(expr, F::kObject));
  const std::string_view attribute = m_.Text(Field(expr, F::kAttribute));
  if (KindOf(object) == K::kIdentifier && m_.Text(object) == "self") {
    bool unknown = false;
    const std::vector<Place> members = Members(attribute, scope, unknown);
    for (const Place& member : members) Resolve(member.expr, member.scope, depth + 1, out);
    if (unknown) PushUnknown(out);
    if (!members.empty() || unknown) return;
  } else if (const Model::ConfigClass* klass = KindOf(object) == K::kIdentifier ? m_.ClassNamed(m_.Text(object))
                                                                                : nullptr;
             klass != nullptr && klass->config) {
    // `Config.vocab_size`: the class attribute itself.
    for (const Model::ConfigField& field : klass->fields) {
      if (field.name == attribute && !field.value.IsNull()) {
        Resolve(field.value, klass->scope, depth + 1, out);
        return;
      }
    }
  } else if (m_.RemoteFieldValues(object, attribute, scope, out)) {
    return;  // a parameter other files fill with their configuration
  } else if (ConfigLike(object, scope, depth) && FieldValues(attribute, depth, out)) {
    return;
  }
  // What Resolve knows: the one assignment of `x.attr` in the file, an argparse default.
  out.push_back(m_.Resolve(expr, scope));
}

void ValueFlow::Subscript(ts::Node expr, int scope, int depth, std::vector<Value>& out) {
  const ts::Node object = Unparen(Field(expr, F::kValue));
  if (m_.NamedChildCount(expr) != 2) {  // slices, `x[a, b]`
    PushUnknown(out);
    return;
  }
  // A table's key as written, not followed into call sites: a table of configurations is there to be
  // chosen from by callers the file does not show, so every row counts.
  const Value key = m_.Resolve(Field(expr, F::kSubscript), scope);
  if (KindOf(object) == K::kIdentifier) {
    const std::string_view name = m_.Text(object);
    const int bound = m_.BindingScope(name, scope);
    if (const int record = m_.RecordOf(name, bound); record >= 0) {
      // A dict variable: its literal's keys and every item written to it since.
      bool found = false;
      auto [first, last] = m_.RecordWrites(record);
      for (auto it = first; it != last; ++it) {
        const Model::ConfigWrite& write = m_.config_writes_[*it];
        if (key.known() && !(key.kind == ValueKind::kString && key.string_value == write.field)) continue;
        found = true;
        if (write.value.IsNull()) {
          PushUnknown(out);
        } else {
          Resolve(write.value, write.scope, depth + 1, out);
        }
      }
      // A parameter with a config's name handed to a class of the file (`Block(cfg)` in `GPT.__init__(self,
      // cfg)`) is a record too, but it holds what the callers pass: a key the function does not write is
      // read from them, below.
      const Model::Binding* binding = found ? nullptr : m_.SingleBinding(name, bound);
      if (binding == nullptr || binding->kind != Model::BindingKind::kParameter) {
        if (!found || !m_.config_records_[static_cast<size_t>(record)].closed || !key.known()) PushUnknown(out);
        return;
      }
    }
  }
  if (key.kind == ValueKind::kString && ConfigLike(object, scope, depth) && FieldValues(key.string_value, depth, out)) {
    return;
  }
  bool unknown = false;
  std::vector<Place> elements;
  for (const Place& container : Containers(object, scope, depth + 1, unknown)) {
    Select(container, key, elements, unknown);
  }
  for (const Place& element : elements) Resolve(element.expr, element.scope, depth + 1, out);
  if (unknown || elements.empty()) PushUnknown(out);
}

void ValueFlow::Binary(ts::Node expr, int scope, int depth, std::vector<Value>& out) {
  std::vector<Value> left;
  std::vector<Value> right;
  Resolve(Field(expr, F::kLeft), scope, depth + 1, left);
  Resolve(Field(expr, F::kRight), scope, depth + 1, right);
  const std::string_view op = m_.Text(Field(expr, F::kOperator));
  // A literal of this very expression (the `2` of `out_channels // 2`) is not where the result is written.
  auto local = [&](const Value& v) { return Contains(expr, v.origin); };
  size_t produced = 0;
  for (const Value& a : left) {
    for (const Value& b : right) {
      if (++produced > kMaxValues) {
        PushUnknown(out);
        return;
      }
      const auto r = a.kind == ValueKind::kInt && b.kind == ValueKind::kInt
                         ? IntArithmetic(op, a.int_value, b.int_value)
                         : std::nullopt;
      if (!r) {
        out.push_back(BoundedArithmetic(op, a, b));
        continue;
      }
      Value value;
      value.kind = ValueKind::kInt;
      value.int_value = *r;
      if (local(a) && !local(b)) value.source = b.source;
      if (local(b) && !local(a)) value.source = a.source;
      out.push_back(value);
    }
  }
}

bool ValueFlow::FieldValues(std::string_view field, int depth, std::vector<Value>& out) {
  // `self.vocab_size = config.vocab_size` in a config class reads the field it writes.
  if (std::find(active_fields_.begin(), active_fields_.end(), field) != active_fields_.end()) {
    PushUnknown(out);
    return true;
  }
  active_fields_.push_back(field);
  bool any = false;
  auto [first, last] = std::equal_range(m_.config_writes_.begin(), m_.config_writes_.end(), field, NameLess{});
  for (auto it = first; it != last; ++it) {
    if (!it->config) continue;
    any = true;
    if (it->value.IsNull()) {
      PushUnknown(out);
    } else {
      Resolve(it->value, it->scope, depth + 1, out);
    }
  }
  if (const Model::ArgparseDefault* d = m_.FindArgparse(field); d != nullptr) {
    any = true;
    out.push_back(d->conflicting ? Value{} : d->value);
  }
  active_fields_.pop_back();
  return any;
}

std::vector<ValueFlow::Place> ValueFlow::Arguments(const Model::Binding& parameter, int depth, bool& unknown) {
  std::vector<Place> out;
  const Scope& function = m_.scopes_[static_cast<size_t>(parameter.scope)];
  if (function.kind != ScopeKind::kFunction || KindOf(function.node) != K::kFunction || function.parent < 0 ||
      !Spend(depth)) {
    unknown = true;
    return out;
  }
  // The parameter's place among the positional ones, and its default.
  const ts::Node parameters = Field(function.node, F::kParameters);
  int position = -1;
  int index = 0;
  bool keyword_only = false;
  bool found = false;
  ts::Node default_value;
  for (uint32_t i = 0; i < m_.NamedChildCount(parameters) && !found; ++i) {
    const ts::Node p = m_.NamedChild(parameters, i);
    ts::Node name = p;
    switch (KindOf(p)) {
      case K::kListSplatPattern:
      case K::kKeywordSeparator: keyword_only = true; continue;
      case K::kDefaultParameter:
        name = Field(p, F::kName);
        default_value = Field(p, F::kValue);
        break;
      case K::kTypedParameter:
        name = m_.NamedChildCount(p) > 0 ? m_.NamedChild(p, 0) : ts::Node();
        if (KindOf(name) == K::kListSplatPattern) keyword_only = true;
        break;
      case K::kIdentifier: break;
      default: continue;
    }
    if (name == parameter.target) {
      found = true;
      position = keyword_only ? -1 : index;
    } else {
      default_value = ts::Node();
      if (!keyword_only) ++index;
    }
  }
  const Scope& parent = m_.scopes_[static_cast<size_t>(function.parent)];
  const bool method = parent.kind == ScopeKind::kClass;
  if (method && !m_.IsStaticMethod(parameter.scope) && position >= 0) {
    if (position == 0) found = false;  // self
    --position;
  }
  if (!found) {
    unknown = true;
    return out;
  }
  // Who calls it: `Class(...)` for an `__init__`, `self.name(...)` for another method (when no other
  // class of the file has one of that name), `name(...)` for a function.
  const bool init = method && function.name == "__init__";
  const std::string_view callee = init ? parent.name : function.name;
  if (!init) {
    if (m_.FunctionsNamed(function.name).size() != 1 || (!method && m_.FindImport(function.name) != nullptr)) {
      unknown = true;
      return out;
    }
  } else if (m_.ClassNamed(parent.name) == nullptr) {
    unknown = true;
    return out;
  }
  std::vector<const Site*> calls;
  auto [first, last] = std::equal_range(m_.local_call_sites_.begin(), m_.local_call_sites_.end(), callee, NameLess{});
  for (auto it = first; it != last; ++it) {
    const Site& site = m_.sites_[static_cast<size_t>(it->second)];
    if ((KindOf(site.callee) == K::kAttribute) == (method && !init)) calls.push_back(&site);
  }
  const int default_scope = function.parent;
  if (calls.empty()) {
    // A config class's `__init__(self, vocab_size=50257)` is its dataclass default by another name.
    const Model::ConfigClass* klass = init ? m_.ClassNamed(parent.name) : nullptr;
    if (klass != nullptr && klass->config && !default_value.IsNull()) {
      out.push_back({default_value, default_scope});
    } else {
      unknown = true;
    }
    return out;
  }
  if (calls.size() > kMaxCallSites) {
    unknown = true;
    calls.resize(kMaxCallSites);
  }
  const std::string_view name = m_.Text(parameter.target);
  for (const Site* site : calls) {
    const ts::Node call_args = site->Arguments();
    bool given = false;
    bool star = false;
    bool maybe = false;
    int at = 0;
    std::vector<ts::Node> splats;
    for (uint32_t i = 0; i < m_.NamedChildCount(call_args) && !given; ++i) {
      const ts::Node arg = m_.NamedChild(call_args, i);
      switch (KindOf(arg)) {
        case K::kComment: break;
        case K::kKeywordArgument:
          if (m_.Text(Field(arg, F::kName)) == name) {
            out.push_back({Field(arg, F::kValue), site->scope});
            given = true;
          }
          break;
        case K::kListSplat: star = true; break;
        case K::kDictionarySplat:
          if (m_.NamedChildCount(arg) > 0) splats.push_back(Unparen(m_.NamedChild(arg, 0)));
          break;
        default:
          if (!star && at == position) {
            out.push_back({arg, site->scope});
            given = true;
          }
          ++at;
      }
    }
    if (given) continue;
    maybe = star && position >= 0;  // `f(*xs)` may fill it
    for (const ts::Node splat : splats) {
      // `**config_args`: the keys written to that dict; any other mapping may hold the key.
      const std::string_view splat_name = KindOf(splat) == K::kIdentifier ? m_.Text(splat) : std::string_view();
      const int record = splat_name.empty() ? -1 : m_.RecordOf(splat_name, m_.BindingScope(splat_name, site->scope));
      if (record < 0) {
        maybe = true;
        continue;
      }
      auto [writes, writes_end] = m_.RecordWrites(record);
      for (auto it = writes; it != writes_end; ++it) {
        const Model::ConfigWrite& write = m_.config_writes_[*it];
        if (write.field != name) continue;
        given = true;
        if (write.value.IsNull()) {
          maybe = true;
        } else {
          out.push_back({write.value, write.scope});
        }
      }
      maybe = maybe || !m_.config_records_[static_cast<size_t>(record)].closed;
    }
    if (!given) {
      if (default_value.IsNull()) {
        unknown = true;
      } else {
        out.push_back({default_value, default_scope});
      }
    }
    unknown = unknown || maybe;
  }
  return out;
}

std::vector<ValueFlow::Place> ValueFlow::Members(std::string_view name, int scope, bool& unknown) const {
  std::vector<Place> out;
  int klass = -1;
  for (int s = scope; s >= 0; s = m_.scopes_[static_cast<size_t>(s)].parent) {
    if (m_.scopes_[static_cast<size_t>(s)].kind == ScopeKind::kClass) {
      klass = s;
      break;
    }
  }
  if (klass < 0) return out;
  const std::string text = "self." + std::string(name);
  for (const Model::Binding& binding : m_.BindingsOf(text)) {
    if (m_.scopes_[static_cast<size_t>(binding.scope)].parent != klass) continue;  // another class's `self`
    if (binding.kind == Model::BindingKind::kAssign && binding.position == -1) {
      out.push_back({binding.value, binding.scope});
    } else {
      unknown = true;
    }
  }
  for (const Model::Binding& binding : m_.BindingsOf(name)) {
    if (binding.scope == klass && binding.kind == Model::BindingKind::kAssign && binding.position == -1) {
      out.push_back({binding.value, klass});
    }
  }
  return out;
}

std::vector<ValueFlow::Place> ValueFlow::Containers(ts::Node expr, int scope, int depth, bool& unknown) {
  std::vector<Place> out;
  if (!Spend(depth)) {
    unknown = true;
    return out;
  }
  expr = Unparen(expr);
  auto add = [&](const std::vector<Place>& more) { out.insert(out.end(), more.begin(), more.end()); };
  switch (KindOf(expr)) {
    case K::kDictionary:
    case K::kTuple:
    case K::kList:
    case K::kExpressionList: out.push_back({expr, scope}); break;
    case K::kCall:
      if (m_.Text(Field(expr, F::kFunction)) == "dict") {
        out.push_back({expr, scope});
      } else {
        unknown = true;
      }
      break;
    case K::kIdentifier: {
      const Model::Binding* binding = m_.SingleBinding(m_.Text(expr), scope);
      if (binding != nullptr && binding->kind == Model::BindingKind::kAssign && binding->position == -1) {
        add(Containers(binding->value, binding->scope, depth + 1, unknown));
      } else if (binding != nullptr && binding->kind == Model::BindingKind::kParameter) {
        if (auto known = parameter_containers_.find(binding); known != parameter_containers_.end()) {
          // Followed already in this query, or being followed (a recursion: unknown, as Resolve has it).
          unknown = unknown || !known->second.done || known->second.unknown;
          add(known->second.places);
          break;
        }
        // (The entry stays where it is while the calls below add others: the map's nodes do not move.)
        ParameterContainers& found = parameter_containers_[binding];
        bool found_unknown = false;
        std::vector<Place> places;
        for (const Place& argument : Arguments(*binding, depth, found_unknown)) {
          const std::vector<Place> more = Containers(argument.expr, argument.scope, depth + 1, found_unknown);
          places.insert(places.end(), more.begin(), more.end());
        }
        unknown = unknown || found_unknown;
        add(places);
        found = {.done = true, .unknown = found_unknown, .places = std::move(places)};
      } else {
        unknown = true;
      }
      break;
    }
    case K::kSubscript: {
      if (m_.NamedChildCount(expr) != 2) {
        unknown = true;
        break;
      }
      const Value key = m_.Resolve(Field(expr, F::kSubscript), scope);
      std::vector<Place> elements;
      for (const Place& container : Containers(Field(expr, F::kValue), scope, depth + 1, unknown)) {
        Select(container, key, elements, unknown);
      }
      for (const Place& element : elements) add(Containers(element.expr, element.scope, depth + 1, unknown));
      break;
    }
    case K::kAttribute: {
      const ts::Node object = Unparen(Field(expr, F::kObject));
      if (KindOf(object) != K::kIdentifier || m_.Text(object) != "self") {
        unknown = true;
        break;
      }
      for (const Place& member : Members(m_.Text(Field(expr, F::kAttribute)), scope, unknown)) {
        add(Containers(member.expr, member.scope, depth + 1, unknown));
      }
      break;
    }
    case K::kConditional:
      if (m_.NamedChildCount(expr) == 3) {
        add(Containers(m_.NamedChild(expr, 0), scope, depth + 1, unknown));
        add(Containers(m_.NamedChild(expr, 2), scope, depth + 1, unknown));
      }
      break;
    default: unknown = true;
  }
  return out;
}

void ValueFlow::Select(const Place& container, const Value& key, std::vector<Place>& out, bool& unknown) const {
  const ts::Node node = container.expr;
  const K kind = KindOf(node);
  if (kind == K::kDictionary || kind == K::kCall) {
    const bool literal = kind == K::kDictionary;
    const ts::Node items = literal ? node : Field(node, F::kArguments);
    bool matched = false;
    for (const ts::Node item : m_.NamedChildren(items)) {
      const K k = KindOf(item);
      if (k == K::kComment) continue;
      if (k != (literal ? K::kPair : K::kKeywordArgument)) {
        unknown = true;  // `**other` or a positional mapping: keys the model cannot list
        continue;
      }
      const ts::Node value = Field(item, F::kValue);
      if (!key.known()) {
        out.push_back({value, container.scope});
        continue;
      }
      Value item_key;
      if (literal) {
        item_key = m_.Resolve(Field(item, F::kKey), container.scope);
      } else {
        item_key.kind = ValueKind::kString;
        item_key.string_value = m_.Text(Field(item, F::kName));
      }
      if (!item_key.known()) {
        unknown = true;
      } else if (SameKey(item_key, key)) {
        out.push_back({value, container.scope});
        matched = true;
      }
    }
    if (key.known() && !matched) unknown = true;
    return;
  }
  if (kind != K::kTuple && kind != K::kList && kind != K::kExpressionList) {
    unknown = true;
    return;
  }
  std::vector<ts::Node> elements;
  for (const ts::Node element : m_.NamedChildren(node)) {
    if (KindOf(element) == K::kListSplat) {
      unknown = true;
      return;
    }
    if (KindOf(element) != K::kComment) elements.push_back(element);
  }
  if (!key.known()) {
    for (const ts::Node element : elements) out.push_back({element, container.scope});
    return;
  }
  const auto index = key.AsInt();
  const auto size = static_cast<int64_t>(elements.size());
  if (!index || *index >= size || *index < -size) {
    unknown = true;
    return;
  }
  out.push_back({elements[static_cast<size_t>(*index < 0 ? *index + size : *index)], container.scope});
}

bool ValueFlow::ConfigLike(ts::Node object, int scope, int depth) {
  if (!Spend(depth)) return false;
  object = Unparen(object);
  if (KindOf(object) == K::kAttribute) {
    // `self.config`: a config's name, or a member assigned from a config parameter.
    const ts::Node base = Unparen(Field(object, F::kObject));
    const std::string_view attribute = m_.Text(Field(object, F::kAttribute));
    if (ConfigVariableName(attribute)) return true;
    if (KindOf(base) != K::kIdentifier || m_.Text(base) != "self") return false;
    bool unknown = false;
    for (const Place& member : Members(attribute, scope, unknown)) {
      if (ConfigLike(member.expr, member.scope, depth + 1)) return true;
    }
    return false;
  }
  if (KindOf(object) != K::kIdentifier) return false;
  const std::string_view name = m_.Text(object);
  if (name == "self" || name == "cls") return false;
  if (ConfigVariableName(name)) return true;
  if (const int record = m_.RecordOf(name, m_.BindingScope(name, scope));
      record >= 0 && m_.config_records_[static_cast<size_t>(record)].config) {
    return true;
  }
  const Model::Binding* binding = m_.SingleBinding(name, scope);
  if (binding == nullptr || binding->kind != Model::BindingKind::kParameter) return false;
  // `params: ModelArgs`: annotated with a config class.
  const ts::Node annotation = Field(binding->target.Parent(), F::kType);
  if (!annotation.IsNull()) {
    std::string_view type = m_.Text(annotation);
    type = LastSegment(type.substr(0, type.find('[')));
    const Model::ConfigClass* klass = m_.ClassNamed(type);
    if ((klass != nullptr && klass->config) || ConfigClassName(type) || type == "Namespace") return true;
  }
  // A call site that passes a config.
  bool unknown = false;
  for (const Place& argument : Arguments(*binding, depth, unknown)) {
    const ts::Node expr = Unparen(argument.expr);
    if (KindOf(expr) == K::kCall) {
      const ts::Node callee = Unparen(Field(expr, F::kFunction));
      const Model::ConfigClass* klass = KindOf(callee) == K::kIdentifier ? m_.ClassNamed(m_.Text(callee)) : nullptr;
      if ((klass != nullptr && klass->config) || IsNamespace(m_.CanonicalName(callee))) return true;
    } else if (ConfigLike(expr, argument.scope, depth + 1)) {
      return true;
    }
  }
  return false;
}

}  // namespace tl::semantic
