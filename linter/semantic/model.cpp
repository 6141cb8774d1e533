#include "linter/semantic/model.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <unordered_map>
#include <utility>

namespace tl::semantic {
namespace {

// Node kinds the builder and resolvers act on. Tree-sitter symbols are looked up once per process and
// mapped to this enum through a table indexed by symbol id, so the walk never compares type strings.
enum class K : uint8_t {
  kOther,
  kModule,
  kFunction,
  kLambda,
  kClass,
  kFor,
  kWhile,
  kIf,
  kElif,
  kCall,
  kInterpolation,
  kString,
  kAssignment,
  kAugmented,
  kImport,
  kImportFrom,
  kBlock,
  kIdentifier,
  kAttribute,
  kInteger,
  kFloat,
  kTrue,
  kFalse,
  kNone,
  kParenthesized,
  kUnary,
  kBinary,
  kComparison,
  kNot,
  kBoolean,
  kConditional,
  kSubscript,
  kKeywordArgument,
  kDictionarySplat,
  kListSplat,
  kDictionary,
  kPair,
  kPatternList,
  kTuplePattern,
  kListPattern,
  kTuple,
  kList,
  kSet,
  kComprehension,
  kParameters,
  kDefaultParameter,
  kTypedParameter,
  kComment,
  kConcatenatedString,
  kDecorated,
  kExpressionStatement,
  kArgumentList,
  kStringContent,
  kAliasedImport,
  kDottedName,
  kWildcardImport,
  kWith,
  kType,
  kToken,  // anonymous tokens (punctuation, keywords): leaves
};

// Field names the model reads, resolved to ids once (by-name lookups compare strings per call).
enum class F : uint8_t {
  kAlias,
  kArgument,
  kArguments,
  kAttribute,
  kBody,
  kCondition,
  kConsequence,
  kExpression,
  kFunction,
  kKey,
  kLeft,
  kModuleName,
  kName,
  kObject,
  kOperator,
  kParameters,
  kRight,
  kSuperclasses,
  kValue,
  kCount,
};
constexpr std::array<std::string_view, static_cast<size_t>(F::kCount)> kFieldNames = {
    "alias",      "argument",   "arguments", "attribute",    "body",        "condition", "consequence",
    "expression", "function",   "key",       "left",         "module_name", "name",      "object",
    "operator",   "parameters", "right",     "superclasses", "value",
};

struct KindTable {
  std::vector<K> by_symbol;
  TSFieldId field_body = 0;
  TSFieldId field_consequence = 0;
  std::array<TSFieldId, static_cast<size_t>(F::kCount)> fields{};

  KindTable() {
    static constexpr std::pair<std::string_view, K> kNames[] = {
        {"module", K::kModule},
        {"function_definition", K::kFunction},
        {"lambda", K::kLambda},
        {"class_definition", K::kClass},
        {"for_statement", K::kFor},
        {"while_statement", K::kWhile},
        {"if_statement", K::kIf},
        {"elif_clause", K::kElif},
        {"call", K::kCall},
        {"interpolation", K::kInterpolation},
        {"string", K::kString},
        {"assignment", K::kAssignment},
        {"augmented_assignment", K::kAugmented},
        {"import_statement", K::kImport},
        {"import_from_statement", K::kImportFrom},
        {"future_import_statement", K::kImportFrom},
        {"block", K::kBlock},
        {"identifier", K::kIdentifier},
        {"attribute", K::kAttribute},
        {"integer", K::kInteger},
        {"float", K::kFloat},
        {"true", K::kTrue},
        {"false", K::kFalse},
        {"none", K::kNone},
        {"parenthesized_expression", K::kParenthesized},
        {"unary_operator", K::kUnary},
        {"binary_operator", K::kBinary},
        {"comparison_operator", K::kComparison},
        {"not_operator", K::kNot},
        {"boolean_operator", K::kBoolean},
        {"conditional_expression", K::kConditional},
        {"subscript", K::kSubscript},
        {"keyword_argument", K::kKeywordArgument},
        {"dictionary_splat", K::kDictionarySplat},
        {"list_splat", K::kListSplat},
        {"dictionary", K::kDictionary},
        {"pair", K::kPair},
        {"pattern_list", K::kPatternList},
        {"tuple_pattern", K::kTuplePattern},
        {"list_pattern", K::kListPattern},
        {"tuple", K::kTuple},
        {"list", K::kList},
        {"set", K::kSet},
        {"list_comprehension", K::kComprehension},
        {"dictionary_comprehension", K::kComprehension},
        {"set_comprehension", K::kComprehension},
        {"generator_expression", K::kComprehension},
        {"parameters", K::kParameters},
        {"default_parameter", K::kDefaultParameter},
        {"typed_default_parameter", K::kDefaultParameter},
        {"typed_parameter", K::kTypedParameter},
        {"comment", K::kComment},
        {"concatenated_string", K::kConcatenatedString},
        {"decorated_definition", K::kDecorated},
        {"expression_statement", K::kExpressionStatement},
        {"argument_list", K::kArgumentList},
        {"string_content", K::kStringContent},
        {"aliased_import", K::kAliasedImport},
        {"dotted_name", K::kDottedName},
        {"wildcard_import", K::kWildcardImport},
        {"with_statement", K::kWith},
        {"type", K::kType},
    };
    const TSLanguage* language = ts::PythonLanguage();
    const uint32_t count = ts_language_symbol_count(language);
    by_symbol.assign(count, K::kOther);
    for (uint32_t symbol = 0; symbol < count; ++symbol) {
      const auto id = static_cast<TSSymbol>(symbol);
      // Anonymous tokens share names with named nodes ("none" vs the keyword); only named ones count.
      if (ts_language_symbol_type(language, id) != TSSymbolTypeRegular) {
        by_symbol[symbol] = K::kToken;
        continue;
      }
      const std::string_view name = ts_language_symbol_name(language, id);
      for (const auto& [type, kind] : kNames) {
        if (name == type) by_symbol[symbol] = kind;
      }
    }
    for (size_t i = 0; i < kFieldNames.size(); ++i) {
      fields[i] = ts_language_field_id_for_name(language, kFieldNames[i].data(),
                                                static_cast<uint32_t>(kFieldNames[i].size()));
    }
    field_body = ts_language_field_id_for_name(language, "body", 4);
    field_consequence = ts_language_field_id_for_name(language, "consequence", 11);
  }
};

const KindTable& Kinds() {
  static const KindTable table;
  return table;
}

K KindOf(TSNode node) {
  if (ts_node_is_null(node)) return K::kOther;
  const TSSymbol symbol = ts_node_symbol(node);
  const auto& table = Kinds().by_symbol;
  return symbol < table.size() ? table[symbol] : K::kOther;
}
K KindOf(ts::Node node) { return KindOf(node.raw()); }

ts::Node Field(ts::Node node, F field) {
  if (node.IsNull()) return ts::Node();
  return ts::Node(ts_node_child_by_field_id(node.raw(), Kinds().fields[static_cast<size_t>(field)]));
}

// Positional children for the hot node kinds (calls, attributes, assignments): a by-field lookup
// scans the children and the field map on every call, and these nodes are the most frequent.
ts::Node FirstChild(ts::Node node) { return node.IsNull() ? ts::Node() : ts::Node(ts_node_child(node.raw(), 0)); }
ts::Node LastChild(ts::Node node) {
  if (node.IsNull()) return ts::Node();
  const uint32_t count = ts_node_child_count(node.raw());
  return count == 0 ? ts::Node() : ts::Node(ts_node_child(node.raw(), count - 1));
}

// Strips parentheses: `((x))` -> `x`. Iterative, so deep nesting is fine.
ts::Node Unparen(ts::Node node) {
  while (KindOf(node) == K::kParenthesized) {
    ts::Node inner = node.NamedChildCount() > 0 ? node.NamedChild(0) : ts::Node();
    if (inner.IsNull() || KindOf(inner) == K::kComment) return node;
    node = inner;
  }
  return node;
}

bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < needle.size(); ++k) {
      if (std::tolower(static_cast<unsigned char>(haystack[i + k])) != needle[k]) {
        match = false;
        break;
      }
    }
    if (match) return true;
  }
  return false;
}

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

std::string_view LastSegment(std::string_view dotted) {
  const size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

template <size_t N>
bool OneOf(std::string_view s, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// The content of a plain string literal (no f-string interpolation, no implicit concatenation).
std::optional<std::string_view> StringContent(ts::Node node, std::string_view source) {
  if (KindOf(node) != K::kString) return std::nullopt;
  std::string_view content;
  bool seen_content = false;
  for (uint32_t i = 0; i < node.NamedChildCount(); ++i) {
    ts::Node child = node.NamedChild(i);
    const K kind = KindOf(child);
    if (kind == K::kInterpolation) return std::nullopt;
    if (kind == K::kStringContent) {
      if (seen_content) return std::nullopt;
      content = child.Text(source);
      seen_content = true;
    }
  }
  // Prefixes such as f/b change what the bytes mean; only plain and r-strings are constants.
  const std::string_view text = node.Text(source);
  for (char c : text) {
    if (c == '"' || c == '\'') break;
    if (c != 'r' && c != 'R' && c != 'u' && c != 'U') return std::nullopt;
  }
  return content;
}

std::optional<int64_t> ParseIntLiteral(std::string_view text) {
  std::string digits;
  digits.reserve(text.size());
  for (char c : text) {
    if (c != '_') digits.push_back(c);
  }
  int base = 10;
  std::string_view body = digits;
  if (body.size() > 2 && body[0] == '0') {
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(body[1])));
    if (p == 'x') base = 16;
    if (p == 'o') base = 8;
    if (p == 'b') base = 2;
    if (base != 10) body.remove_prefix(2);
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value, base);
  if (ec != std::errc() || ptr != body.data() + body.size()) return std::nullopt;
  return value;
}

// Orders bindings and (name, scope) pairs by name, and compares them with a bare name in lookups.
struct NameLess {
  static std::string_view Key(std::string_view name) { return name; }
  static std::string_view Key(const Model::Binding& binding) { return binding.name; }
  static std::string_view Key(const std::pair<std::string_view, int>& function) { return function.first; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return Key(a) < Key(b);
  }
};

constexpr int kMaxDepth = 24;  // bound on resolution chains (x = y; y = z ...) and nesting

}  // namespace

std::optional<int64_t> Value::AsInt() const {
  if (kind == ValueKind::kInt || kind == ValueKind::kBool) return int_value;
  return std::nullopt;
}

std::optional<bool> Value::Truthy() const {
  switch (kind) {
    case ValueKind::kInt:
    case ValueKind::kBool: return int_value != 0;
    case ValueKind::kFloat: return float_value != 0;
    case ValueKind::kNone: return false;
    case ValueKind::kString: return !string_value.empty();
    case ValueKind::kUnknown: break;
  }
  return std::nullopt;
}

ts::Node Site::Receiver() const {
  if (kind != SiteKind::kCall || KindOf(callee) != K::kAttribute) return ts::Node();
  return Field(callee, F::kObject);
}

ts::Node Site::Arguments() const {
  if (kind != SiteKind::kCall) return ts::Node();
  return Field(node, F::kArguments);
}

std::string_view ToString(Phase phase) {
  switch (phase) {
    case Phase::kData: return "data";
    case Phase::kForward: return "forward";
    case Phase::kLoss: return "loss";
    case Phase::kBackward: return "backward";
    case Phase::kOptimizer: return "optimizer";
    case Phase::kOther: break;
  }
  return "other";
}

// ---------------------------------------------------------------------------------------------------
// Builder: one iterative preorder walk that records scopes, loops, guards, sites, bindings and
// imports, then a few passes over those (small) tables to classify loops and propagate "runs every
// step" through the file's own functions.

class Builder {
 public:
  Builder(Model& model, const ts::Tree& tree) : m_(model), tree_(tree) {}
  void Run();

 private:
  struct Frame {
    uint32_t depth;
    int scope, loop, guard;  // the values to restore when the frame is popped
  };

  bool Enter(ts::Node node, const TSTreeCursor* cursor, uint32_t depth);
  void Push(uint32_t depth) { frames_.push_back({depth, scope_, loop_, guard_}); }
  void PopTo(uint32_t depth) {
    while (!frames_.empty() && frames_.back().depth >= depth) {
      scope_ = frames_.back().scope;
      loop_ = frames_.back().loop;
      guard_ = frames_.back().guard;
      frames_.pop_back();
    }
  }
  void AddScope(ScopeKind kind, ts::Node node, uint32_t depth);
  void BindTarget(ts::Node target, ts::Node value, Model::BindingKind kind, int position, int loop);
  void RecordParameters(ts::Node parameters);
  void RecordImport(ts::Node node, K kind);
  void RecordCall(ts::Node node);
  void AddSite(ts::Node node, SiteKind kind);
  void NoteString(ts::Node node);

  void NameCalls();
  void ReadArgparse();
  void FindCudaEvidence();
  // Accelerate's Accelerator(), torch.cuda.amp.GradScaler(), Lightning's Trainer(accelerator="gpu").
  bool IsDeviceCall(const Site& site) const;
  void EvaluateGuards();
  void EvaluateSkipGuard(Guard& guard);
  // The `X % N` side of a comparison `X % N <op> K` whose other side resolves to an integer; null if not.
  ts::Node ModuloCompared(ts::Node comparison, std::string_view op, int scope) const;
  // `i == 0` (either side) with `i` a loop target: true once per pass over the loop, not every step.
  bool CountsOnce(ts::Node comparison, int scope) const;
  bool UnderSkipGuard(const Site& site, TextRange within) const;
  void ClassifyLoops();
  void PropagatePerStep();
  int StepLoopOf(const Site& site) const;
  std::vector<int> LocalCallees(const Site& site) const;

  Model& m_;
  const ts::Tree& tree_;
  std::vector<Frame> frames_;
  std::vector<K> parent_kind_;  // kind of the node at each depth
  int scope_ = 0;
  int loop_ = -1;
  int guard_ = -1;
  int pending_loop_ = -1;   // for_statement whose body block comes next
  int pending_guard_ = -1;  // if/elif whose consequence block comes next
  std::vector<uint32_t> add_argument_calls_;
  // Call sites that reach functions of this file, with those functions (few per file).
  std::vector<std::pair<uint32_t, std::vector<int>>> local_calls_;
  std::vector<int> skip_guards_;  // guards of the `if i % N != 0: continue` shape
  std::unordered_map<std::string_view, int> import_index_;
};

void Builder::AddScope(ScopeKind kind, ts::Node node, uint32_t depth) {
  Push(depth);
  Scope scope;
  scope.kind = kind;
  scope.node = node;
  scope.parent = scope_;
  if (ts::Node name = Field(node, F::kName); !name.IsNull()) scope.name = m_.Text(name);
  m_.scopes_.push_back(scope);
  scope_ = static_cast<int>(m_.scopes_.size()) - 1;
  loop_ = -1;  // a nested function's body does not run in the enclosing loop until it is called
  guard_ = -1;
  if (kind == ScopeKind::kFunction && !scope.name.empty()) {
    m_.functions_.emplace_back(scope.name, scope_);
  }
}

void Builder::BindTarget(ts::Node target, ts::Node value, Model::BindingKind kind, int position, int loop) {
  target = Unparen(target);
  const K k = KindOf(target);
  if (k == K::kIdentifier || k == K::kAttribute) {
    m_.bindings_.push_back({m_.Text(target), scope_, kind, value, target, position, loop});
    return;
  }
  if (k == K::kPatternList || k == K::kTuplePattern || k == K::kListPattern || k == K::kTuple || k == K::kList) {
    // One level of unpacking keeps the position; deeper patterns bind names with unknown values.
    const uint32_t n = target.NamedChildCount();
    for (uint32_t i = 0; i < n; ++i) {
      ts::Node element = Unparen(target.NamedChild(i));
      const K ek = KindOf(element);
      if (ek == K::kIdentifier || ek == K::kAttribute) {
        m_.bindings_.push_back(
            {m_.Text(element), scope_, kind, value, element, position < 0 ? static_cast<int>(i) : -2, loop});
      } else if (ek == K::kPatternList || ek == K::kTuplePattern || ek == K::kListPattern || ek == K::kTuple ||
                 ek == K::kList) {
        for (uint32_t j = 0; j < element.NamedChildCount(); ++j) {
          ts::Node inner = Unparen(element.NamedChild(j));
          if (KindOf(inner) == K::kIdentifier) {
            // Position -2: somewhere inside element i; the loop-element logic reads `i` from the
            // enclosing pattern (enumerate's index is only ever element 0).
            m_.bindings_.push_back(
                {m_.Text(inner), scope_, kind, value, inner, position < 0 ? static_cast<int>(100 + i) : -2, loop});
          }
        }
      }
    }
    return;
  }
  if (k == K::kSubscript) {
    // `d["k"] = v` mutates a dict: a `**d` built from a literal can no longer be trusted as closed.
    ts::Node object = Unparen(Field(target, F::kValue));
    if (KindOf(object) == K::kIdentifier) m_.open_dicts_.push_back(m_.Text(object));
  }
}

void Builder::RecordParameters(ts::Node parameters) {
  const uint32_t n = parameters.NamedChildCount();
  for (uint32_t i = 0; i < n; ++i) {
    ts::Node p = parameters.NamedChild(i);
    const K k = KindOf(p);
    ts::Node name;
    ts::Node value;
    if (k == K::kIdentifier) {
      name = p;
    } else if (k == K::kDefaultParameter) {
      name = Field(p, F::kName);
      value = Field(p, F::kValue);
    } else if (k == K::kTypedParameter) {
      name = p.NamedChildCount() > 0 ? p.NamedChild(0) : ts::Node();
    }
    if (KindOf(name) == K::kIdentifier) {
      m_.bindings_.push_back({m_.Text(name), scope_, Model::BindingKind::kParameter, value, name, -1, -1});
    }
  }
}

void Builder::RecordImport(ts::Node node, K kind) {
  auto add = [&](std::string_view local, std::string canonical) {
    m_.imports_.push_back({local, std::move(canonical)});
  };
  if (kind == K::kImport) {
    for (uint32_t i = 0; i < node.NamedChildCount(); ++i) {
      ts::Node child = node.NamedChild(i);
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
  if (KindOf(module) != K::kDottedName) return;  // relative imports name modules of this project
  const std::string_view module_name = m_.Text(module);
  for (uint32_t i = 0; i < node.NamedChildCount(); ++i) {
    ts::Node child = node.NamedChild(i);
    if (child == module) continue;
    const K k = KindOf(child);
    if (k == K::kWildcardImport) {
      m_.star_imports_.emplace_back(module_name);
    } else if (k == K::kDottedName) {
      add(m_.Text(child), std::string(module_name) + "." + std::string(m_.Text(child)));
    } else if (k == K::kAliasedImport) {
      ts::Node name = Field(child, F::kName);
      ts::Node alias = Field(child, F::kAlias);
      if (!name.IsNull() && !alias.IsNull()) {
        add(m_.Text(alias), std::string(module_name) + "." + std::string(m_.Text(name)));
      }
    }
  }
}

void Builder::RecordCall(ts::Node node) {
  Site site;
  site.node = node;
  site.kind = SiteKind::kCall;
  site.scope = scope_;
  site.loop = loop_;
  site.guard = guard_;
  site.callee = Unparen(FirstChild(node));  // `function` is always the first child
  const K ck = KindOf(site.callee);
  if (ck == K::kAttribute) {
    site.name = m_.Text(LastChild(site.callee));  // `object . attribute`
    if (site.name == "update" || site.name == "setdefault" || site.name == "pop") {
      ts::Node object = Unparen(Field(site.callee, F::kObject));
      if (KindOf(object) == K::kIdentifier) m_.open_dicts_.push_back(m_.Text(object));
    }
    if (site.name == "add_argument") add_argument_calls_.push_back(static_cast<uint32_t>(m_.sites_.size()));
  } else if (ck == K::kIdentifier) {
    site.name = m_.Text(site.callee);  // aliases are resolved after the walk (NameCalls)
  }
  m_.sites_.push_back(site);
}

void Builder::AddSite(ts::Node node, SiteKind kind) {
  Site site;
  site.node = node;
  site.kind = kind;
  site.scope = scope_;
  site.loop = loop_;
  site.guard = guard_;
  m_.sites_.push_back(site);
}

void Builder::NoteString(ts::Node node) {
  if (!m_.cuda_evidence_.IsNull()) return;
  // Only short literals can be a device string; this keeps the test cheap on long docstrings.
  const uint32_t size = node.EndByte() - node.StartByte();
  if (size > 16 || size < 6 || m_.Text(node).find("cuda") == std::string_view::npos) return;
  const auto content = StringContent(node, m_.source_);
  if (!content) return;
  if (*content == "cuda" || (content->starts_with("cuda:") && content->size() > 5)) {
    m_.cuda_evidence_ = node;
  }
}

bool Builder::Enter(ts::Node node, const TSTreeCursor* cursor, uint32_t depth) {
  const K kind = KindOf(node);
  if (parent_kind_.size() <= depth) parent_kind_.resize(depth + 1);
  parent_kind_[depth] = kind;
  const K parent = depth > 0 ? parent_kind_[depth - 1] : K::kOther;

  switch (kind) {
    // Leaves: asking the cursor for their first child costs as much as visiting a node.
    case K::kToken:
    case K::kIdentifier:
    case K::kInteger:
    case K::kFloat:
    case K::kTrue:
    case K::kFalse:
    case K::kNone:
    case K::kComment: return false;
    case K::kFunction: {
      AddScope(ScopeKind::kFunction, node, depth);
      if (ts::Node params = Field(node, F::kParameters); !params.IsNull()) RecordParameters(params);
      return true;
    }
    case K::kLambda: {
      AddScope(ScopeKind::kFunction, node, depth);
      if (ts::Node params = Field(node, F::kParameters); !params.IsNull()) RecordParameters(params);
      return true;
    }
    case K::kClass: AddScope(ScopeKind::kClass, node, depth); return true;
    case K::kFor: {
      Loop loop;
      loop.node = node;
      loop.kind = LoopKind::kFor;
      loop.scope = scope_;
      loop.parent = loop_;
      loop.target = Field(node, F::kLeft);
      loop.iterable = Field(node, F::kRight);
      loop.body = Field(node, F::kBody);
      m_.loops_.push_back(loop);
      pending_loop_ = static_cast<int>(m_.loops_.size()) - 1;
      if (!loop.target.IsNull()) {
        BindTarget(loop.target, loop.iterable, Model::BindingKind::kLoopTarget, -1, pending_loop_);
      }
      return true;
    }
    case K::kWhile: {
      Loop loop;
      loop.node = node;
      loop.kind = LoopKind::kWhile;
      loop.scope = scope_;
      loop.parent = loop_;
      loop.iterable = Field(node, F::kCondition);
      loop.body = Field(node, F::kBody);
      m_.loops_.push_back(loop);
      // The condition runs on every iteration, so the frame starts at the statement itself.
      Push(depth);
      loop_ = static_cast<int>(m_.loops_.size()) - 1;
      if (!loop.iterable.IsNull()) {
        AddSite(loop.iterable, SiteKind::kCondition);
      }
      return true;
    }
    case K::kIf:
    case K::kElif: {
      Guard guard;
      guard.condition = Field(node, F::kCondition);
      guard.block = Field(node, F::kConsequence);
      guard.parent = guard_;
      guard.scope = scope_;
      m_.guards_.push_back(guard);
      pending_guard_ = static_cast<int>(m_.guards_.size()) - 1;
      if (!guard.condition.IsNull()) {
        AddSite(guard.condition, SiteKind::kCondition);
      }
      return true;
    }
    case K::kBlock: {
      if (pending_loop_ < 0 && pending_guard_ < 0) return true;
      // The field id is only needed here; reading it for every node would cost a lookup each.
      const TSFieldId field = ts_tree_cursor_current_field_id(cursor);
      if (field == Kinds().field_body && parent == K::kFor && pending_loop_ >= 0) {
        Push(depth);
        loop_ = pending_loop_;
        pending_loop_ = -1;
      } else if (field == Kinds().field_consequence && (parent == K::kIf || parent == K::kElif) &&
                 pending_guard_ >= 0) {
        Push(depth);
        guard_ = pending_guard_;
        pending_guard_ = -1;
      }
      return true;
    }
    case K::kAttribute:
      // `a.b`: nothing to record below when the object is a plain name (most attributes); the
      // parent (a call or an assignment) reads the attribute itself.
      return KindOf(ts_node_child(node.raw(), 0)) != K::kIdentifier;
    case K::kParameters:
    case K::kType:
      // Parameters were bound with the function; defaults and annotations run once, at definition.
      return false;
    case K::kCall: RecordCall(node); return true;
    case K::kInterpolation: AddSite(node, SiteKind::kInterpolation); return true;
    case K::kString: {
      NoteString(node);
      // Only f-strings have children worth visiting (interpolations); docstrings are skipped.
      const std::string_view text = m_.Text(node);
      for (char c : text) {
        if (c == 'f' || c == 'F') return true;
        if (c == '"' || c == '\'') break;
      }
      return false;
    }
    case K::kAssignment: {
      // `left = right`, `left: type = right` or `left: type` (no value: nothing to bind).
      ts::Node left = FirstChild(node);
      ts::Node right = LastChild(node);
      if (KindOf(right) == K::kType || right == left) right = ts::Node();
      // `a = b = value`: every target gets the final value (the inner assignment binds its own).
      while (KindOf(right) == K::kAssignment) right = Field(right, F::kRight);
      if (!left.IsNull() && !right.IsNull()) BindTarget(left, right, Model::BindingKind::kAssign, -1, -1);
      return true;
    }
    case K::kAugmented: {
      ts::Node left = Unparen(FirstChild(node));
      const K lk = KindOf(left);
      if (lk == K::kIdentifier || lk == K::kAttribute) {
        m_.bindings_.push_back({m_.Text(left), scope_, Model::BindingKind::kAugmented, LastChild(node), left, -1, -1});
      }
      return true;
    }
    case K::kImport:
    case K::kImportFrom: RecordImport(node, kind); return false;
    default: return true;
  }
}

void Builder::Run() {
  Scope module;
  module.kind = ScopeKind::kModule;
  module.node = tree_.Root();
  m_.scopes_.push_back(module);

  TSTreeCursor cursor = ts_tree_cursor_new(tree_.Root().raw());
  uint32_t depth = 0;
  for (;;) {
    const ts::Node node(ts_tree_cursor_current_node(&cursor));
    const bool descend = Enter(node, &cursor, depth);
    if (descend && ts_tree_cursor_goto_first_child(&cursor)) {
      ++depth;
      continue;
    }
    PopTo(depth);
    bool done = false;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        done = true;
        break;
      }
      --depth;
      PopTo(depth);
    }
    if (done) break;
  }
  ts_tree_cursor_delete(&cursor);

  std::stable_sort(m_.bindings_.begin(), m_.bindings_.end(), NameLess{});
  std::stable_sort(m_.functions_.begin(), m_.functions_.end(), NameLess{});
  for (size_t i = 0; i < m_.imports_.size(); ++i) import_index_[m_.imports_[i].local] = static_cast<int>(i);
  NameCalls();
  for (uint32_t i = 0; i < m_.sites_.size(); ++i) {
    std::vector<int> callees = LocalCallees(m_.sites_[i]);
    if (!callees.empty()) local_calls_.emplace_back(i, std::move(callees));
  }
  ReadArgparse();
  FindCudaEvidence();
  EvaluateGuards();
  ClassifyLoops();
  PropagatePerStep();
}

void Builder::NameCalls() {
  for (uint32_t i = 0; i < m_.sites_.size(); ++i) {
    Site& site = m_.sites_[i];
    if (site.kind != SiteKind::kCall) continue;
    if (KindOf(site.callee) == K::kIdentifier && !import_index_.empty()) {
      if (auto it = import_index_.find(site.name); it != import_index_.end()) {
        site.name = LastSegment(m_.imports_[static_cast<size_t>(it->second)].canonical);
      }
    }
  }
}

void Builder::ReadArgparse() {
  for (uint32_t index : add_argument_calls_) {
    const Site& site = m_.sites_[index];
    const ts::Node call_args = site.Arguments();
    if (call_args.IsNull()) continue;
    std::string dest;
    std::string_view first_long, first_short, positional;
    ts::Node default_node;
    std::string_view action, type;
    bool has_dest = false;
    for (uint32_t i = 0; i < call_args.NamedChildCount(); ++i) {
      ts::Node arg = call_args.NamedChild(i);
      if (KindOf(arg) == K::kKeywordArgument) {
        const std::string_view key = m_.Text(Field(arg, F::kName));
        ts::Node value = Field(arg, F::kValue);
        if (key == "default") default_node = value;
        if (key == "dest") {
          if (auto s = StringContent(value, m_.source_)) {
            dest = std::string(*s);
            has_dest = true;
          }
        }
        if (key == "action") {
          if (auto s = StringContent(value, m_.source_)) action = *s;
        }
        if (key == "type") type = m_.Text(value);
        continue;
      }
      if (auto s = StringContent(arg, m_.source_)) {
        if (s->starts_with("--")) {
          if (first_long.empty()) first_long = s->substr(2);
        } else if (s->starts_with("-")) {
          if (first_short.empty()) first_short = s->substr(1);
        } else if (positional.empty()) {
          positional = *s;
        }
      }
    }
    if (!has_dest) {
      const std::string_view raw = !first_long.empty() ? first_long : !first_short.empty() ? first_short : positional;
      if (raw.empty()) continue;
      dest = std::string(raw);
      std::replace(dest.begin(), dest.end(), '-', '_');
    }
    Value value;
    if (!default_node.IsNull()) {
      value = m_.Resolve(default_node, site.scope);
      // argparse passes string defaults through `type`.
      if (value.kind == ValueKind::kString && type == "int") {
        if (auto parsed = ParseIntLiteral(value.string_value)) {
          value.kind = ValueKind::kInt;
          value.int_value = *parsed;
        } else {
          value = Value{};
        }
      }
    } else if (action == "store_true") {
      value.kind = ValueKind::kBool;
      value.int_value = 0;
    } else if (action == "store_false") {
      value.kind = ValueKind::kBool;
      value.int_value = 1;
    }
    if (ContainsIgnoreCase(dest, "cuda") || ContainsIgnoreCase(dest, "gpu")) {
      if (m_.cuda_evidence_.IsNull()) m_.cuda_evidence_ = site.node;
    }
    auto existing = std::find_if(m_.argparse_.begin(), m_.argparse_.end(),
                                 [&](const Model::ArgparseDefault& d) { return d.dest == dest; });
    if (existing == m_.argparse_.end()) {
      m_.argparse_.push_back({dest, value, false});
    } else if (!(existing->value.kind == value.kind && existing->value.int_value == value.int_value &&
                 existing->value.string_value == value.string_value &&
                 existing->value.float_value == value.float_value)) {
      existing->conflicting = true;  // sub-parsers with different defaults: no single answer
      existing->value = Value{};
    }
  }
}

void Builder::FindCudaEvidence() {
  if (!m_.cuda_evidence_.IsNull()) return;
  for (const Site& site : m_.sites_) {
    if (site.kind != SiteKind::kCall) continue;
    if (site.Receiver().IsNull()) {
      // Accelerate's `Accelerator()` places the model on the GPU by default, as do `GradScaler()` and a
      // Lightning `Trainer(accelerator="gpu")`. Only these names pay for the canonical name.
      if (site.name == "Accelerator" || site.name == "GradScaler" || site.name == "Trainer") {
        if (IsDeviceCall(site)) {
          m_.cuda_evidence_ = site.node;
          return;
        }
      }
      continue;
    }
    if (site.name == "cuda") {  // x.cuda(), model.cuda()
      m_.cuda_evidence_ = site.node;
      return;
    }
    // torch.cuda.anything(...), torch.cuda.amp.GradScaler(...), torch.accelerator.is_available() (PyTorch
    // >= 2.6): only calls whose receiver is spelled `...cuda`, `...amp` or `...accelerator` pay for the
    // canonical name.
    ts::Node receiver = Unparen(site.Receiver());
    const K rk = KindOf(receiver);
    const std::string_view last = rk == K::kAttribute    ? m_.Text(Field(receiver, F::kAttribute))
                                  : rk == K::kIdentifier ? m_.Text(receiver)
                                                         : "";
    if (last != "cuda" && last != "accelerator" && last != "amp" && last != "pl" && last != "L") continue;
    const std::string canonical = m_.CanonicalName(receiver);
    if (canonical == "torch.cuda" || canonical == "torch.accelerator" || IsDeviceCall(site)) {
      m_.cuda_evidence_ = site.node;
      return;
    }
  }
}

bool Builder::IsDeviceCall(const Site& site) const {
  const std::string canonical = m_.CanonicalName(site.callee);
  if (canonical == "accelerate.Accelerator") return true;
  if (canonical == "torch.cuda.amp.GradScaler") return true;
  if (canonical.ends_with(".Trainer") &&
      (canonical.starts_with("lightning.") || canonical.starts_with("pytorch_lightning."))) {
    if (auto arg = m_.FindArgument(site, "accelerator", -1)) {
      const Value value = m_.Resolve(arg->value, site.scope);
      return value.kind == ValueKind::kString &&
             (value.string_value == "gpu" || value.string_value == "cuda" || value.string_value == "auto");
    }
  }
  return false;
}

void Builder::EvaluateGuards() {
  for (Guard& guard : m_.guards_) {
    // Find `X % N == 0` in the condition, through `not`, `and` and parentheses. `or` is not looked
    // through: `if i % 100 == 0 or loss_is_bad:` can run on any step.
    std::vector<ts::Node> work{guard.condition};
    ts::Node modulo;
    bool once = false;
    while (!work.empty() && modulo.IsNull()) {
      ts::Node node = Unparen(work.back());
      work.pop_back();
      switch (KindOf(node)) {
        case K::kNot: {
          ts::Node arg = Unparen(Field(node, F::kArgument));
          if (KindOf(arg) == K::kBinary && m_.Text(Field(arg, F::kOperator)) == "%") modulo = arg;
          break;
        }
        case K::kBoolean:
          if (m_.Text(Field(node, F::kOperator)) == "and") {
            work.push_back(Field(node, F::kLeft));
            work.push_back(Field(node, F::kRight));
          }
          break;
        case K::kComparison:
          modulo = ModuloCompared(node, "==", guard.scope);
          once = once || (modulo.IsNull() && CountsOnce(node, guard.scope));
          break;
        default: break;
      }
    }
    if (modulo.IsNull() && once) {
      // `if i == 0:` runs on one iteration of the loop: as rare as any periodic guard.
      guard.periodic = true;
      continue;
    }
    if (modulo.IsNull()) {
      EvaluateSkipGuard(guard);
      continue;
    }
    guard.period = m_.Resolve(Field(modulo, F::kRight), guard.scope);
    const auto n = guard.period.AsInt();
    // N == 1 (or 0/negative, which Python would reject at run time) runs every step; unknown N is
    // taken as periodic: a modulo guard is written to throttle, and reporting it would be noise.
    guard.periodic = !n.has_value() || *n > 1;
  }
}

void Builder::EvaluateSkipGuard(Guard& guard) {
  // `if i % N != 0: continue` (or `if i % N: continue`): what follows in the loop body runs once
  // every N iterations, as if it were under `if i % N == 0:` (gradient accumulation loops).
  ts::Node condition = Unparen(guard.condition);
  ts::Node modulo;
  if (KindOf(condition) == K::kBinary && m_.Text(Field(condition, F::kOperator)) == "%") {
    modulo = condition;
  } else if (KindOf(condition) == K::kComparison) {
    modulo = ModuloCompared(condition, "!=", guard.scope);
  }
  if (modulo.IsNull() || guard.block.NamedChildCount() != 1 ||
      guard.block.NamedChild(0).Type() != "continue_statement") {
    return;
  }
  // Parent lookups walk down from the root in this tree-sitter; they are only paid here, for the
  // rare guard of this shape.
  ts::Node statement = guard.condition.Parent();
  ts::Node block = statement.Parent();
  if (!statement.Is("if_statement") || !block.Is("block")) return;
  guard.period = m_.Resolve(Field(modulo, F::kRight), guard.scope);
  const auto n = guard.period.AsInt();
  if (n.has_value() && *n <= 1) return;  // `i % 1 != 0` never skips
  guard.rest = {statement.EndByte(), block.EndByte()};
  guard.periodic = true;
  skip_guards_.push_back(static_cast<int>(&guard - m_.guards_.data()));
}

bool Builder::CountsOnce(ts::Node comparison, int scope) const {
  if (comparison.NamedChildCount() != 2 || comparison.ChildCount() != 3 || m_.Text(comparison.Child(1)) != "==") {
    return false;
  }
  for (uint32_t i = 0; i < 2; ++i) {
    ts::Node side = Unparen(comparison.NamedChild(i));
    if (KindOf(side) != K::kIdentifier || !m_.Resolve(comparison.NamedChild(1 - i), scope).AsInt()) continue;
    const Model::Binding* binding = m_.SingleBinding(m_.Text(side), scope);
    if (binding != nullptr && binding->kind == Model::BindingKind::kLoopTarget) return true;
  }
  return false;
}

ts::Node Builder::ModuloCompared(ts::Node comparison, std::string_view op, int scope) const {
  ts::Node modulo;
  if (comparison.NamedChildCount() != 2 || comparison.ChildCount() != 3 || m_.Text(comparison.Child(1)) != op) {
    return modulo;
  }
  for (uint32_t i = 0; i < 2; ++i) {
    ts::Node side = Unparen(comparison.NamedChild(i));
    if (KindOf(side) == K::kBinary && m_.Text(Field(side, F::kOperator)) == "%" &&
        m_.Resolve(comparison.NamedChild(1 - i), scope).AsInt().has_value()) {
      modulo = side;
    }
  }
  return modulo;
}

bool Builder::UnderSkipGuard(const Site& site, TextRange within) const {
  for (int index : skip_guards_) {
    const Guard& guard = m_.guards_[static_cast<size_t>(index)];
    if (guard.scope == site.scope && guard.rest.Contains(site.node.StartByte()) && within.Contains(guard.rest)) {
      return true;
    }
  }
  return false;
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

void Builder::ClassifyLoops() {
  auto& loops = m_.loops_;
  const size_t n = loops.size();
  if (n == 0) return;
  auto& scopes = m_.scopes_;

  // 1. Direct evidence from each loop's header and from the calls whose innermost loop it is; the
  //    same evidence outside any loop makes a function a "training helper".
  std::vector<uint32_t> function_evidence(scopes.size(), 0);
  std::vector<std::vector<int>> calls_from_loop(n);  // local callees, by innermost loop
  std::vector<std::vector<int>> calls_outside_loops(scopes.size());
  std::vector<std::vector<int>> calls_anywhere(scopes.size());
  for (size_t i = 0; i < n; ++i) {
    Loop& loop = loops[i];
    if (loop.kind == LoopKind::kFor && m_.IsDataLoaderLike(loop.iterable, loop.scope)) {
      loop.evidence |= kIteratesLoader;
    }
  }
  for (const Site& site : m_.sites_) {
    if (site.kind != SiteKind::kCall) continue;
    // Cheap name tests first: only backward/step/next calls and, inside loops, calls of a model
    // need the (costlier) binding lookups.
    uint32_t bits = 0;
    if (site.name == "backward" && KindOf(site.callee) == K::kAttribute) bits |= kBackward;
    if (site.name == "step" && KindOf(site.callee) == K::kAttribute) {
      ts::Node receiver = Unparen(site.Receiver());
      const std::string_view text = m_.Text(receiver);
      if (m_.IsOptimizerLike(receiver, site.scope) || ContainsIgnoreCase(text, "scaler")) {
        bits |= kOptimizerStep;
      }
    }
    if (site.name == "next" && KindOf(site.callee) == K::kIdentifier) {
      const ts::Node args = site.Arguments();
      if (!args.IsNull() && args.NamedChildCount() > 0 && m_.IsDataLoaderLike(args.NamedChild(0), site.scope)) {
        bits |= kNextBatch;
      }
    }
    if (site.loop >= 0) {
      if (m_.IsModelLike(site.callee, site.scope, 0)) bits |= kModelCall;
      loops[static_cast<size_t>(site.loop)].evidence |= bits;
    } else {
      function_evidence[static_cast<size_t>(site.scope)] |= bits & ~kNextBatch;
    }
  }
  for (const auto& [index, callees] : local_calls_) {
    const Site& site = m_.sites_[index];
    for (int callee : callees) {
      calls_anywhere[static_cast<size_t>(site.scope)].push_back(callee);
      if (site.loop >= 0) {
        calls_from_loop[static_cast<size_t>(site.loop)].push_back(callee);
      } else {
        calls_outside_loops[static_cast<size_t>(site.scope)].push_back(callee);
      }
    }
  }
  // A function "trains" when it (or what it calls outside its own loops) does a training call.
  std::vector<char> trains(scopes.size(), 0);
  for (size_t s = 0; s < scopes.size(); ++s) trains[s] = function_evidence[s] != 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t s = 0; s < scopes.size(); ++s) {
      if (trains[s]) continue;
      for (int callee : calls_outside_loops[s]) {
        if (trains[static_cast<size_t>(callee)]) {
          trains[s] = 1;
          changed = true;
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (int callee : calls_from_loop[i]) {
      if (trains[static_cast<size_t>(callee)]) loops[i].evidence |= kTrainingHelper;
    }
  }

  // 2. Loops that iterate a DataLoader (or take batches with next()) are step loops unless an
  //    enclosing loop already is: the batch loop wins over anything nested in it (gradient
  //    accumulation over micro-batches is per-element).
  auto inside_step = [&](size_t i) {
    for (int p = loops[i].parent; p >= 0; p = loops[static_cast<size_t>(p)].parent) {
      if (loops[static_cast<size_t>(p)].role == LoopRole::kStep) return true;
    }
    return false;
  };
  constexpr uint32_t kStrong = kIteratesLoader | kNextBatch;
  for (size_t i = 0; i < n; ++i) {  // preorder: parents come before children
    if ((loops[i].evidence & kStrong) != 0 && !inside_step(i)) loops[i].role = LoopRole::kStep;
  }
  // 3. Loops with only training calls are step loops when no loop nested in them has evidence
  //    (else they are epoch loops around it) and they are not already inside a step loop.
  std::vector<char> evidence_below(n, 0);
  for (size_t i = n; i-- > 0;) {
    if ((loops[i].evidence != 0 || evidence_below[i]) && loops[i].parent >= 0) {
      evidence_below[static_cast<size_t>(loops[i].parent)] = 1;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role == LoopRole::kStep || loops[i].evidence == 0 || evidence_below[i]) continue;
    if (!inside_step(i)) loops[i].role = LoopRole::kStep;
  }
  // Loops in functions that a batch loop calls run inside that batch: per-element, not steps.
  PropagatePerStep();
  for (size_t i = 0; i < n; ++i) {
    const Scope& scope = scopes[static_cast<size_t>(loops[i].scope)];
    if (loops[i].role == LoopRole::kStep && (loops[i].evidence & kStrong) == 0 && scope.runs_per_step) {
      loops[i].role = LoopRole::kPerElement;
    }
  }

  // 4. Epoch loops: around a step loop in the same function, or calling a function that contains one.
  std::vector<char> contains_step(scopes.size(), 0);
  for (const Loop& loop : loops) {
    if (loop.role == LoopRole::kStep) contains_step[static_cast<size_t>(loop.scope)] = 1;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t s = 0; s < scopes.size(); ++s) {
      if (contains_step[s]) continue;
      for (int callee : calls_anywhere[s]) {
        if (contains_step[static_cast<size_t>(callee)]) {
          contains_step[s] = 1;
          changed = true;
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role != LoopRole::kStep) continue;
    for (int p = loops[i].parent; p >= 0; p = loops[static_cast<size_t>(p)].parent) {
      if (loops[static_cast<size_t>(p)].role == LoopRole::kPerElement)
        loops[static_cast<size_t>(p)].role = LoopRole::kEpoch;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role != LoopRole::kPerElement || inside_step(i)) continue;
    for (int callee : calls_from_loop[i]) {
      if (contains_step[static_cast<size_t>(callee)]) loops[i].role = LoopRole::kEpoch;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role != LoopRole::kStep) continue;
    for (int p = loops[i].parent; p >= 0; p = loops[static_cast<size_t>(p)].parent) {
      if (loops[static_cast<size_t>(p)].role == LoopRole::kEpoch) {
        loops[i].epoch_loop = p;
        break;
      }
    }
  }
}

int Builder::StepLoopOf(const Site& site) const {
  // Inside a step loop of its own function, with no periodic guard between the site and that loop.
  int step = -1;
  for (int l = site.loop; l >= 0; l = m_.loops_[static_cast<size_t>(l)].parent) {
    if (m_.loops_[static_cast<size_t>(l)].role == LoopRole::kStep) {
      step = l;
      break;
    }
  }
  if (step >= 0) {
    const TextRange loop_range = m_.loops_[static_cast<size_t>(step)].node.Range();
    for (int g = site.guard; g >= 0; g = m_.guards_[static_cast<size_t>(g)].parent) {
      const Guard& guard = m_.guards_[static_cast<size_t>(g)];
      if (guard.periodic && loop_range.Contains(guard.block.Range())) return -1;
    }
    if (UnderSkipGuard(site, loop_range)) return -1;
    return step;
  }
  // Otherwise in a function that runs every step, outside any periodic guard or epoch loop in it.
  const Scope& scope = m_.scopes_[static_cast<size_t>(site.scope)];
  if (!scope.runs_per_step) return -1;
  for (int g = site.guard; g >= 0; g = m_.guards_[static_cast<size_t>(g)].parent) {
    if (m_.guards_[static_cast<size_t>(g)].periodic) return -1;
  }
  for (int l = site.loop; l >= 0; l = m_.loops_[static_cast<size_t>(l)].parent) {
    if (m_.loops_[static_cast<size_t>(l)].role == LoopRole::kEpoch) return -1;
  }
  if (UnderSkipGuard(site, scope.node.Range())) return -1;
  return scope.step_loop;
}

void Builder::PropagatePerStep() {
  // The call sites that reach the file's own functions are few; iterate them to a fixed point.
  for (Scope& scope : m_.scopes_) {
    scope.runs_per_step = false;
    scope.step_loop = -1;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [index, callees] : local_calls_) {
      const int step = StepLoopOf(m_.sites_[index]);
      if (step < 0) continue;
      for (int callee : callees) {
        Scope& scope = m_.scopes_[static_cast<size_t>(callee)];
        if (!scope.runs_per_step) {
          scope.runs_per_step = true;
          scope.step_loop = step;
          changed = true;
        }
      }
    }
  }
  for (Site& site : m_.sites_) site.step_loop = StepLoopOf(site);
}

// ---------------------------------------------------------------------------------------------------
// Model queries.

std::unique_ptr<Model> Model::Build(const SourceFile& file, const ts::Tree& tree) {
  std::unique_ptr<Model> model(new Model());  // NOLINT: private constructor, owned at once
  model->source_ = file.text();
  Builder(*model, tree).Run();
  return model;
}

std::vector<uint32_t> Model::CallsNamed(std::string_view name) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < sites_.size(); ++i) {
    if (sites_[i].name == name && sites_[i].kind == SiteKind::kCall) out.push_back(i);
  }
  return out;
}

const Model::Import* Model::FindImport(std::string_view local) const {
  // Last import of a name wins, as at run time for straight-line module code.
  for (size_t i = imports_.size(); i-- > 0;) {
    if (imports_[i].local == local) return &imports_[i];
  }
  return nullptr;
}

std::string Model::CanonicalName(ts::Node expr) const {
  // Collect the attribute chain iteratively: a.b.c -> [c, b], head a.
  std::vector<std::string_view> tail;
  ts::Node node = Unparen(expr);
  while (KindOf(node) == K::kAttribute) {
    tail.push_back(Text(Field(node, F::kAttribute)));
    node = Unparen(Field(node, F::kObject));
    if (tail.size() > 64) return {};
  }
  if (KindOf(node) != K::kIdentifier) return {};
  std::string out;
  const std::string_view head = Text(node);
  if (const Import* import = FindImport(head)) {
    out = import->canonical;
  } else if (!star_imports_.empty() && tail.empty()) {
    // `from torch.nn import *`: a bare name may come from it. Only torch's star imports are
    // trusted, since rules only ask about torch names.
    for (const std::string& module : star_imports_) {
      if (module.starts_with("torch")) out = module + "." + std::string(head);
    }
    if (out.empty()) return {};
  } else {
    return {};
  }
  for (size_t i = tail.size(); i-- > 0;) {
    out += '.';
    out += tail[i];
  }
  PublicName(out);
  return out;
}

bool Model::IsCanonical(const Site& call, std::string_view canonical) const {
  if (call.kind != SiteKind::kCall || LastSegment(canonical) != call.name) return false;
  return CanonicalName(call.callee) == canonical;
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

std::span<const Model::Binding> Model::BindingsOf(std::string_view name) const {
  auto [first, last] = std::equal_range(bindings_.begin(), bindings_.end(), name, NameLess{});
  return {first, last};
}

std::span<const std::pair<std::string_view, int>> Model::FunctionsNamed(std::string_view name) const {
  auto [first, last] = std::equal_range(functions_.begin(), functions_.end(), name, NameLess{});
  return {first, last};
}

const Model::Binding* Model::SingleBinding(std::string_view name, int scope) const {
  const std::span<const Binding> all = BindingsOf(name);
  if (all.empty()) return nullptr;
  if (name.find('.') != std::string_view::npos) {
    // `self.workers = 4`: attribute bindings are file-wide; one assignment in the file is trusted.
    return all.size() == 1 ? &all.front() : nullptr;
  }
  // Python's lookup: the scope, then enclosing functions (classes are skipped), then the module.
  for (int s = scope; s >= 0; s = scopes_[static_cast<size_t>(s)].parent) {
    if (s != scope && scopes_[static_cast<size_t>(s)].kind == ScopeKind::kClass) continue;
    const Binding* found = nullptr;
    int count = 0;
    for (const Binding& binding : all) {
      if (binding.scope == s) {
        found = &binding;
        ++count;
      }
    }
    if (count == 1) return found;
    if (count > 1) return nullptr;  // rebound: no single value
  }
  return nullptr;
}

const Model::ArgparseDefault* Model::FindArgparse(std::string_view dest) const {
  for (const ArgparseDefault& d : argparse_) {
    if (d.dest == dest) return &d;
  }
  return nullptr;
}

Value Model::Resolve(ts::Node expr, int scope) const { return ResolveDepth(expr, scope, 0); }

Value Model::ResolveDepth(ts::Node expr, int scope, int depth) const {
  Value out;
  if (depth > kMaxDepth) return out;
  expr = Unparen(expr);
  switch (KindOf(expr)) {
    case K::kInteger:
      if (auto v = ParseIntLiteral(Text(expr))) {
        out.kind = ValueKind::kInt;
        out.int_value = *v;
        out.origin = expr;
      }
      return out;
    case K::kFloat: {
      std::string text(Text(expr));
      text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
      if (text.find_first_of("jJ") != std::string::npos) return out;  // complex
      char* end = nullptr;
      out.float_value = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size()) return Value{};
      out.kind = ValueKind::kFloat;
      out.origin = expr;
      return out;
    }
    case K::kTrue:
    case K::kFalse:
      out.kind = ValueKind::kBool;
      out.int_value = KindOf(expr) == K::kTrue ? 1 : 0;
      out.origin = expr;
      return out;
    case K::kNone:
      out.kind = ValueKind::kNone;
      out.origin = expr;
      return out;
    case K::kString:
      if (auto s = StringContent(expr, source_)) {
        out.kind = ValueKind::kString;
        out.string_value = *s;
        out.origin = expr;
      }
      return out;
    case K::kUnary: {
      const std::string_view op = Text(Field(expr, F::kOperator));
      Value inner = ResolveDepth(Field(expr, F::kArgument), scope, depth + 1);
      if (op == "-" && inner.kind == ValueKind::kInt) {
        inner.int_value = -inner.int_value;
        inner.origin = ts::Node();
        return inner;
      }
      if (op == "-" && inner.kind == ValueKind::kFloat) {
        inner.float_value = -inner.float_value;
        inner.origin = ts::Node();
        return inner;
      }
      if (op == "+" && (inner.kind == ValueKind::kInt || inner.kind == ValueKind::kFloat)) return inner;
      return out;
    }
    case K::kBinary: {
      const Value a = ResolveDepth(Field(expr, F::kLeft), scope, depth + 1);
      const Value b = ResolveDepth(Field(expr, F::kRight), scope, depth + 1);
      if (a.kind != ValueKind::kInt || b.kind != ValueKind::kInt) return out;
      const std::string_view op = Text(Field(expr, F::kOperator));
      int64_t r = 0;
      bool ok = true;
      if (op == "+") {
        ok = !__builtin_add_overflow(a.int_value, b.int_value, &r);
      } else if (op == "-") {
        ok = !__builtin_sub_overflow(a.int_value, b.int_value, &r);
      } else if (op == "*") {
        ok = !__builtin_mul_overflow(a.int_value, b.int_value, &r);
      } else if (op == "//" && b.int_value > 0 && a.int_value >= 0) {
        r = a.int_value / b.int_value;
      } else {
        ok = false;
      }
      if (!ok) return out;
      out.kind = ValueKind::kInt;
      out.int_value = r;
      return out;
    }
    case K::kConditional: {
      // Both branches agree, or it is unknown.
      if (expr.NamedChildCount() != 3) return out;
      const Value a = ResolveDepth(expr.NamedChild(0), scope, depth + 1);
      const Value b = ResolveDepth(expr.NamedChild(2), scope, depth + 1);
      if (a.known() && a.kind == b.kind && a.int_value == b.int_value && a.float_value == b.float_value &&
          a.string_value == b.string_value) {
        Value v = a;
        v.origin = ts::Node();
        return v;
      }
      return out;
    }
    case K::kIdentifier: {
      const Binding* binding = SingleBinding(Text(expr), scope);
      if (binding == nullptr || binding->kind != BindingKind::kAssign || binding->position != -1) return out;
      return ResolveDepth(binding->value, binding->scope, depth + 1);
    }
    case K::kAttribute: {
      ts::Node object = Unparen(Field(expr, F::kObject));
      const std::string_view attribute = Text(Field(expr, F::kAttribute));
      if (const Binding* binding = SingleBinding(Text(expr), scope);
          binding != nullptr && binding->kind == BindingKind::kAssign && binding->position == -1) {
        return ResolveDepth(binding->value, binding->scope, depth + 1);
      }
      // `args.workers`: an argparse default. Any plain name reads it (the namespace is usually
      // passed around as args/opt/cfg), except self, whose attributes are the object's own.
      if (KindOf(object) == K::kIdentifier && Text(object) != "self") {
        if (const ArgparseDefault* d = FindArgparse(attribute); d != nullptr && !d->conflicting) {
          return d->value;
        }
      }
      return out;
    }
    default: return out;
  }
}

bool Model::IsOptimizerLike(ts::Node expr, int scope) const {
  expr = Unparen(expr);
  const K k = KindOf(expr);
  if (k != K::kIdentifier && k != K::kAttribute) return false;
  const std::string_view text = Text(expr);
  const std::string_view last = LastSegment(text);
  if (ContainsIgnoreCase(last, "sched")) return false;
  if (ContainsIgnoreCase(last, "optim") || last == "opt") return true;
  const std::span<const Binding> all = BindingsOf(text);
  if (all.empty()) return false;
  for (const Binding& binding : all) {
    if (binding.kind != BindingKind::kAssign || KindOf(binding.value) != K::kCall) continue;
    const std::string canonical = CanonicalName(Field(binding.value, F::kFunction));
    if (canonical.starts_with("torch.optim.") && !canonical.starts_with("torch.optim.lr_scheduler")) {
      return true;
    }
  }
  (void)scope;
  return false;
}

bool Model::IsModelLike(ts::Node expr, int scope, int depth) const {
  if (depth > 8) return false;
  expr = Unparen(expr);
  const K k = KindOf(expr);
  if (k == K::kCall) {
    ts::Node callee = Unparen(Field(expr, F::kFunction));
    ts::Node args = Field(expr, F::kArguments);
    if (KindOf(callee) == K::kAttribute) {
      static constexpr std::array<std::string_view, 9> kChain = {"to",    "cuda",     "train",  "eval", "half",
                                                                 "float", "bfloat16", "double", "cpu"};
      const std::string_view method = Text(Field(callee, F::kAttribute));
      if (OneOf(method, kChain)) return IsModelLike(Field(callee, F::kObject), scope, depth + 1);
      if (method == "from_pretrained") return true;
    }
    const std::string canonical = CanonicalName(callee);
    const std::string_view last = LastSegment(canonical);
    if (canonical.starts_with("torchvision.models.") || canonical == "timm.create_model" ||
        canonical.starts_with("transformers.")) {
      return true;
    }
    // Wrappers that return a module around their first argument.
    if (canonical == "torch.compile" || last == "DistributedDataParallel" || last == "DataParallel" ||
        last == "FullyShardedDataParallel") {
      return KindOf(args) == K::kArgumentList && args.NamedChildCount() > 0 &&
             IsModelLike(args.NamedChild(0), scope, depth + 1);
    }
    if (canonical.starts_with("torch.nn.") && !last.empty() && std::isupper(static_cast<unsigned char>(last[0])) &&
        !last.ends_with("Loss")) {
      return true;
    }
    // A class of this file built on nn.Module (or anything named like a model).
    if (KindOf(callee) == K::kIdentifier) {
      const std::string_view name = Text(callee);
      for (const Scope& s : scopes_) {
        if (s.kind != ScopeKind::kClass || s.name != name) continue;
        const std::string_view bases = Text(Field(s.node, F::kSuperclasses));
        if (bases.find("Module") != std::string_view::npos || bases.find("Model") != std::string_view::npos) {
          return true;
        }
      }
    }
    return false;
  }
  if (k != K::kIdentifier && k != K::kAttribute) return false;
  const std::string_view text = Text(expr);
  const std::string_view last = LastSegment(text);
  // Names are the fallback for parameters (`def train(model, loader, optimizer)`).
  if (last == "model" || last == "net" || last.ends_with("_model") || last.ends_with("_net")) {
    return true;
  }
  const std::span<const Binding> all = BindingsOf(text);
  if (all.empty()) return false;
  for (const Binding& binding : all) {
    if (binding.kind == BindingKind::kAssign && binding.position == -1 && binding.value != expr &&
        IsModelLike(binding.value, binding.scope, depth + 1)) {
      return true;
    }
  }
  return false;
}

bool Model::IsLossCall(const Site& call) const {
  if (call.kind != SiteKind::kCall) return false;
  if (ContainsIgnoreCase(call.name, "loss") || call.name == "criterion" || call.name == "cross_entropy" ||
      call.name == "kl_div") {
    return true;
  }
  const std::span<const Binding> all = BindingsOf(Text(call.callee));
  if (all.empty()) return false;
  for (const Binding& binding : all) {
    if (binding.kind == BindingKind::kAssign && KindOf(binding.value) == K::kCall) {
      const std::string canonical = CanonicalName(Field(binding.value, F::kFunction));
      if (canonical.starts_with("torch.nn.") && canonical.ends_with("Loss")) return true;
    }
  }
  return false;
}

bool Model::IsDataLoaderLike(ts::Node expr, int scope) const { return LoaderLikeDepth(expr, scope, 0); }

bool Model::LoaderLikeDepth(ts::Node expr, int scope, int depth) const {
  if (depth > 8) return false;
  expr = Unparen(expr);
  const K k = KindOf(expr);
  if (k == K::kCall) {
    ts::Node callee = Unparen(Field(expr, F::kFunction));
    ts::Node args = Field(expr, F::kArguments);
    std::string_view name = KindOf(callee) == K::kAttribute ? Text(Field(callee, F::kAttribute)) : Text(callee);
    if (KindOf(callee) == K::kIdentifier) {
      if (const Import* import = FindImport(name)) name = LastSegment(import->canonical);
    }
    if (name.ends_with("DataLoader") || name.ends_with("Loader")) return true;
    static constexpr std::array<std::string_view, 7> kWrappers = {"enumerate", "zip",   "tqdm",    "iter",
                                                                  "islice",    "cycle", "prefetch"};
    if (OneOf(name, kWrappers) && KindOf(args) == K::kArgumentList) {
      // zip(a, b) counts when any of its inputs is a loader; the others look at their first input.
      const uint32_t count = name == "zip" ? args.NamedChildCount() : std::min(1u, args.NamedChildCount());
      for (uint32_t i = 0; i < count; ++i) {
        if (LoaderLikeDepth(args.NamedChild(i), scope, depth + 1)) return true;
      }
    }
    return false;
  }
  if (k != K::kIdentifier && k != K::kAttribute) return false;
  const std::string_view text = Text(expr);
  // Names are the fallback for parameters (`def train(model, train_loader)`); `loaders` is a
  // collection of them, not one.
  const std::string_view last = LastSegment(text);
  if (ContainsIgnoreCase(last, "loader") && !last.ends_with("loaders") && !last.ends_with("Loaders")) return true;
  const std::span<const Binding> all = BindingsOf(text);
  if (all.empty()) return false;
  for (const Binding& binding : all) {
    if (binding.kind == BindingKind::kAssign && binding.position == -1 && binding.value != expr &&
        LoaderLikeDepth(binding.value, binding.scope, depth + 1)) {
      return true;
    }
  }
  return false;
}

TensorKind Model::TensorKindOf(ts::Node expr, int scope) const { return TensorKindDepth(expr, scope, 0); }

TensorKind Model::TensorKindDepth(ts::Node expr, int scope, int depth) const {
  if (depth > 12) return TensorKind::kUnknown;
  expr = Unparen(expr);
  switch (KindOf(expr)) {
    case K::kInteger:
    case K::kFloat:
    case K::kTrue:
    case K::kFalse:
    case K::kNone:
    case K::kString:
    case K::kConcatenatedString:
    case K::kList:
    case K::kDictionary:
    case K::kSet:
    case K::kTuple:
    case K::kComprehension:
    case K::kLambda: return TensorKind::kNotTensor;
    case K::kNot: return TensorKind::kNotTensor;  // `not x` is a Python bool (the sync is in evaluating x)
    case K::kAttribute: {
      const std::string_view attribute = Text(Field(expr, F::kAttribute));
      static constexpr std::array<std::string_view, 8> kMeta = {"shape",   "ndim",          "dtype",   "device",
                                                                "is_cuda", "requires_grad", "is_leaf", "layout"};
      if (OneOf(attribute, kMeta)) return TensorKind::kNotTensor;
      static constexpr std::array<std::string_view, 7> kTensorAttrs = {"data", "grad", "T", "mT", "real", "imag", "H"};
      ts::Node object = Field(expr, F::kObject);
      if (OneOf(attribute, kTensorAttrs) && TensorKindDepth(object, scope, depth + 1) == TensorKind::kTensor) {
        return TensorKind::kTensor;
      }
      // `outputs.loss` / `outputs.logits`: fields of a model's output.
      if ((attribute == "loss" || attribute == "logits") && KindOf(Unparen(object)) != K::kAttribute &&
          TensorKindDepth(object, scope, depth + 1) == TensorKind::kTensor) {
        return TensorKind::kTensor;
      }
      break;  // then as a name bound by assignment (self.x = ...)
    }
    case K::kSubscript:
      // batch["x"], out[0], loss[mask]: an element or slice of a tensor (or of a batch) is a tensor.
      return TensorKindDepth(Field(expr, F::kValue), scope, depth + 1) == TensorKind::kTensor ? TensorKind::kTensor
                                                                                              : TensorKind::kUnknown;
    case K::kBinary:
    case K::kComparison:
    case K::kBoolean: {
      bool all_python = true;
      for (uint32_t i = 0; i < expr.NamedChildCount(); ++i) {
        const TensorKind kind = TensorKindDepth(expr.NamedChild(i), scope, depth + 1);
        if (kind == TensorKind::kTensor) return TensorKind::kTensor;
        if (kind != TensorKind::kNotTensor) all_python = false;
      }
      return all_python ? TensorKind::kNotTensor : TensorKind::kUnknown;
    }
    case K::kUnary: return TensorKindDepth(Field(expr, F::kArgument), scope, depth + 1);
    case K::kCall: {
      ts::Node callee = Unparen(Field(expr, F::kFunction));
      const K ck = KindOf(callee);
      std::string_view name = ck == K::kAttribute ? Text(Field(callee, F::kAttribute)) : Text(callee);
      static constexpr std::array<std::string_view, 24> kPython = {
          "item",   "tolist", "size",   "dim",        "numel",        "len",       "str",    "int",
          "float",  "bool",   "round",  "isinstance", "range",        "enumerate", "zip",    "keys",
          "values", "items",  "format", "repr",       "element_size", "nelement",  "stride", "data_ptr"};
      if (OneOf(name, kPython)) return TensorKind::kNotTensor;
      const std::string canonical = CanonicalName(callee);
      if (canonical.starts_with("numpy.") || canonical.starts_with("math.")) return TensorKind::kNotTensor;
      if (canonical.starts_with("torch.")) {
        static constexpr std::array<std::string_view, 16> kNotTensorModules = {
            "torch.cuda.",  "torch.backends.",   "torch.distributed.", "torch.utils.",
            "torch.optim.", "torch.jit.",        "torch.amp.",         "torch.autograd.grad_mode",
            "torch.device", "torch.no_grad",     "torch.is_",          "torch.get_",
            "torch.set_",   "torch.manual_seed", "torch.compile",      "torch.save"};
        for (std::string_view prefix : kNotTensorModules) {
          if (canonical.starts_with(prefix)) return TensorKind::kNotTensor;
        }
        if (canonical.starts_with("torch.nn.") && !canonical.starts_with("torch.nn.functional.")) {
          return TensorKind::kUnknown;  // a module constructor
        }
        return TensorKind::kTensor;
      }
      if (ck == K::kAttribute) {
        // A method of a tensor returns a tensor (the non-tensor methods are listed above).
        if (TensorKindDepth(Field(callee, F::kObject), scope, depth + 1) == TensorKind::kTensor) {
          return TensorKind::kTensor;
        }
      }
      if (IsModelLike(callee, scope, 0)) return TensorKind::kTensor;
      if (const Site* site = SiteOf(expr); site != nullptr && IsLossCall(*site)) return TensorKind::kTensor;
      return TensorKind::kUnknown;
    }
    default: break;
  }
  const K k = KindOf(expr);
  if (k != K::kIdentifier && k != K::kAttribute) return TensorKind::kUnknown;
  const std::span<const Binding> all = BindingsOf(Text(expr));
  if (all.empty()) return TensorKind::kUnknown;
  // Tensor when any binding in reach is a tensor; not one when every binding plainly is not.
  bool any = false;
  bool all_python = true;
  const bool attribute = k == K::kAttribute;
  for (const Binding& binding : all) {
    if (!attribute && binding.scope != scope && binding.scope != 0) continue;
    any = true;
    TensorKind kind = TensorKind::kUnknown;
    switch (binding.kind) {
      case BindingKind::kAssign:
      case BindingKind::kAugmented:
        if (binding.position == -1 && binding.value != expr) {
          kind = TensorKindDepth(binding.value, binding.scope, depth + 1);
        } else if (binding.position != -1 && binding.value != expr &&
                   TensorKindDepth(binding.value, binding.scope, depth + 1) == TensorKind::kTensor) {
          kind = TensorKind::kTensor;  // `logits, aux = model(x)`, `x, y = batch`
        }
        break;
      case BindingKind::kLoopTarget: {
        if (binding.loop < 0) break;
        ts::Node iterable = Unparen(loops_[static_cast<size_t>(binding.loop)].iterable);
        ts::Node callee = KindOf(iterable) == K::kCall ? Unparen(Field(iterable, F::kFunction)) : ts::Node();
        const std::string_view callee_name = Text(callee);
        if (callee_name == "range") {
          kind = TensorKind::kNotTensor;
        } else if (callee_name == "enumerate" && binding.position == 0) {
          kind = TensorKind::kNotTensor;  // the step counter
        } else if (IsDataLoaderLike(iterable, binding.scope)) {
          kind = TensorKind::kTensor;  // a batch, or a field of one
        }
        break;
      }
      default: break;
    }
    if (kind == TensorKind::kTensor) return TensorKind::kTensor;
    if (kind != TensorKind::kNotTensor) all_python = false;
  }
  return any && all_python ? TensorKind::kNotTensor : TensorKind::kUnknown;
}

std::vector<int> Model::StepLoops() const {
  std::vector<int> out;
  for (size_t i = 0; i < loops_.size(); ++i) {
    if (loops_[i].role == LoopRole::kStep) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::vector<ts::Node> Model::BodyStatements(int loop) const {
  std::vector<ts::Node> out;
  if (loop < 0 || static_cast<size_t>(loop) >= loops_.size()) return out;
  ts::Node body = loops_[static_cast<size_t>(loop)].body;
  for (uint32_t i = 0; i < body.NamedChildCount(); ++i) {
    ts::Node child = body.NamedChild(i);
    if (KindOf(child) != K::kComment) out.push_back(child);
  }
  return out;
}

Phase Model::PhaseOf(ts::Node statement) const {
  const TextRange range = statement.Range();
  auto first = std::lower_bound(sites_.begin(), sites_.end(), range.begin,
                                [](const Site& site, uint32_t offset) { return site.node.StartByte() < offset; });
  Phase phase = Phase::kOther;
  for (auto it = first; it != sites_.end() && it->node.StartByte() < range.end; ++it) {
    if (it->kind != SiteKind::kCall) continue;
    Phase p = Phase::kOther;
    if (it->name == "backward") {
      p = Phase::kBackward;
    } else if ((it->name == "step" || it->name == "zero_grad" || it->name == "update") && !it->Receiver().IsNull()) {
      p = Phase::kOptimizer;
    } else if (IsLossCall(*it)) {
      p = Phase::kLoss;
    } else if (IsModelLike(it->callee, it->scope, 0)) {
      p = Phase::kForward;
    } else if (it->name == "next" || it->name == "to" || it->name == "cuda") {
      p = Phase::kData;
    }
    if (static_cast<int>(p) > static_cast<int>(phase)) phase = p;
  }
  return phase;
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

int Model::ScopeAt(uint32_t offset) const {
  int best = 0;
  for (size_t i = 1; i < scopes_.size(); ++i) {
    const TextRange range = scopes_[i].node.Range();
    if (range.begin > offset) break;  // scopes are in preorder
    if (range.Contains(offset)) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace tl::semantic
