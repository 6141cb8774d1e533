// Syntax helpers over tree-sitter-python nodes, shared by the semantic model and the rules: node kinds
// and field names resolved to ids once per process, so that nothing compares type strings in a walk,
// and the small readers every rule needs (parentheses, string literals, integer literals).
#pragma once

#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "linter/ts/ts.h"

namespace tl::semantic {

// Node kinds the builder and resolvers act on. Tree-sitter symbols are looked up once per process and
// mapped to this enum through a table indexed by symbol id, so the walk never compares type strings.
enum class NodeKind : uint8_t {
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
  kExpressionList,
  kDecorator,
  kListSplatPattern,
  kDictionarySplatPattern,
  kKeywordSeparator,
  kPositionalSeparator,
  kAssert,
  kReturn,
  kForInClause,
  kIfClause,
  kYield,
  kExcept,
  kTry,
  kToken,  // anonymous tokens (punctuation, keywords): leaves
};

// Field names the model reads, resolved to ids once (by-name lookups compare strings per call).
enum class FieldName : uint8_t {
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
  kType,
  kSubscript,
  kDefinition,
  kCount,
};
inline constexpr std::array<std::string_view, static_cast<size_t>(FieldName::kCount)> kFieldNames = {
    "alias",    "argument",     "arguments", "attribute",   "body",      "condition",  "consequence", "expression",
    "function", "key",          "left",      "module_name", "name",      "object",     "operator",    "parameters",
    "right",    "superclasses", "value",     "type",        "subscript", "definition",
};

// The symbol -> kind table and the field ids of the loaded grammar, built on first use.
struct SyntaxTables {
  std::vector<NodeKind> by_symbol;
  TSFieldId field_body = 0;
  TSFieldId field_consequence = 0;
  std::array<TSFieldId, static_cast<size_t>(FieldName::kCount)> fields{};
  SyntaxTables();
};
// Inline: KindOf asks it for every node the walks visit, and a call per node costs more than the guard.
inline const SyntaxTables& Tables() {
  static const SyntaxTables tables;
  return tables;
}

inline NodeKind KindOf(TSNode node) {
  if (ts_node_is_null(node)) return NodeKind::kOther;
  const TSSymbol symbol = ts_node_symbol(node);
  const auto& table = Tables().by_symbol;
  return symbol < table.size() ? table[symbol] : NodeKind::kOther;
}
inline NodeKind KindOf(ts::Node node) { return KindOf(node.raw()); }
inline bool Is(ts::Node node, NodeKind kind) { return KindOf(node) == kind; }

inline ts::Node Field(ts::Node node, FieldName field) {
  if (node.IsNull()) return ts::Node();
  return ts::Node(ts_node_child_by_field_id(node.raw(), Tables().fields[static_cast<size_t>(field)]));
}

// Positional children for the hot node kinds (calls, attributes, assignments): a by-field lookup
// scans the children and the field map on every call, and these nodes are the most frequent.
inline ts::Node FirstChild(ts::Node node) {
  return node.IsNull() ? ts::Node() : ts::Node(ts_node_child(node.raw(), 0));
}
inline ts::Node LastChild(ts::Node node) {
  if (node.IsNull()) return ts::Node();
  const uint32_t count = ts_node_child_count(node.raw());
  return count == 0 ? ts::Node() : ts::Node(ts_node_child(node.raw(), count - 1));
}

// The name of an `object . attribute` node, read from its text: the identifier after the last dot, for
// a scan of a few bytes where LastChild walks the node's children (the hot path: every method call and
// every dotted name). The text is trusted only when what follows its last dot is blanks and one
// identifier; a comment or a line continuation between the dot and the name (inside brackets) fails
// that, and the name is then read from the tree.
inline std::string_view AttributeNameText(ts::Node attribute, std::string_view source) {
  const std::string_view text = attribute.Text(source);
  const size_t dot = text.rfind('.');
  if (dot != std::string_view::npos) {
    std::string_view name = text.substr(dot + 1);
    name.remove_prefix(std::min(name.find_first_not_of(" \t\f\r\n"), name.size()));
    const bool identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return u >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    });
    if (identifier) return name;
  }
  return LastChild(attribute).Text(source);
}

// Named children the model's walk read, kept so that the passes after it and the rules read them from an
// array: in this tree-sitter (0.20) NamedChild(i) walks the node's children from the first, hundreds of
// instructions a call, and the same argument lists and parameter lists are read again and again (the
// walk keeps those two kinds only: keeping every node's children costs the walk more than it saves).
// Only nodes with up to NamedChildRange::kFewChildren named children are kept, which the walk reads with
// NamedChild(0..n-1): what the table holds is what tree-sitter answers. Keyed by the node's id (its
// place in the tree), in an open-addressing table of the nodes of one tree.
class ChildTable {
 public:
  // Makes room for `count` named children; returns the slot of the first. Set fills the slots, and Keep
  // files them under their parent once all are set: a record is never seen half filled.
  uint32_t Open(uint32_t count) {
    const auto first = static_cast<uint32_t>(children_.size());
    children_.resize(children_.size() + count);
    return first;
  }
  void Set(uint32_t slot, ts::Node child) { children_[slot] = child; }
  void Keep(ts::Node parent, uint32_t first, uint32_t count);
  // The named children of `node`, or nullopt when the walk did not keep them.
  std::optional<std::span<const ts::Node>> Find(ts::Node node) const {
    if (used_ == 0 || node.raw().tree != tree_ || node.raw().id == nullptr) return std::nullopt;
    for (size_t i = Hash(node.raw().id);; i = (i + 1) & (entries_.size() - 1)) {
      const Entry& entry = entries_[i];
      if (entry.id == node.raw().id) return std::span<const ts::Node>(children_.data() + entry.first, entry.count);
      if (entry.id == nullptr) return std::nullopt;
    }
  }

 private:
  struct Entry {
    const void* id = nullptr;
    uint32_t first = 0;
    uint32_t count = 0;
  };
  size_t Hash(const void* id) const {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(id) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void Insert(const Entry& entry);
  std::vector<Entry> entries_;  // a power of two in size, at most half full
  size_t used_ = 0;
  unsigned shift_ = 64;
  std::vector<ts::Node> children_;
  const TSTree* tree_ = nullptr;
};

// A node's named children, in order (Model::NamedChildren): the ones the walk kept, or else tree-sitter's,
// one at a time (NamedChildRange). `for (ts::Node arg : m_.NamedChildren(args))`.
class ChildList {
 public:
  explicit ChildList(std::span<const ts::Node> kept) : kept_(kept), has_kept_(true), range_(ts::Node()) {}
  explicit ChildList(ts::Node node) : range_(node) {}

  uint32_t size() const { return has_kept_ ? static_cast<uint32_t>(kept_.size()) : range_.size(); }
  // The next named child, or a null Node after the last.
  ts::Node Next() {
    if (!has_kept_) return range_.Next();
    return next_ < kept_.size() ? kept_[next_++] : ts::Node();
  }

  using Iterator = ts::NextIterator<ChildList>;
  Iterator begin() { return Iterator(this, Next()); }
  std::default_sentinel_t end() const { return {}; }

 private:
  std::span<const ts::Node> kept_;
  size_t next_ = 0;
  bool has_kept_ = false;
  ts::NamedChildRange range_;
};

// The statement after `statement` in its block, skipping comments (a trailing `# ...` is a sibling).
inline ts::Node NextStatement(ts::Node statement) {
  ts::Node next = statement.NextNamedSibling();
  while (!next.IsNull() && KindOf(next) == NodeKind::kComment) next = next.NextNamedSibling();
  return next;
}

// Strips parentheses: `((x))` -> `x`. Iterative, so deep nesting is fine.
ts::Node Unparen(ts::Node node);

// ASCII case-insensitive search; `needle` must be lower case.
bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle);

// A character of a Python identifier (ASCII letters, digits, `_`).
inline bool IdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// How many times `text` has `name` as a name of its own: not inside a longer identifier, and not as an
// attribute (`x.name`). A textual count: strings and comments count too.
size_t NameCount(std::string_view text, std::string_view name);

// `a.b.c` -> `c`.
inline std::string_view LastSegment(std::string_view dotted) {
  const size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

// The framework whose constructor runs the training (`canonical` is the callee's canonical name):
// Lightning's `Trainer`, `Fabric` or `LightningCLI` (which builds the Trainer) (`lightning.`,
// `pytorch_lightning.`, `lightning_fabric.`), Accelerate's `Accelerator`.
enum class TrainingFramework : uint8_t { kNone, kLightning, kAccelerate };
inline TrainingFramework TrainingFrameworkOf(std::string_view canonical) {
  const std::string_view last = LastSegment(canonical);
  if (last == "Accelerator" && canonical.starts_with("accelerate")) return TrainingFramework::kAccelerate;
  if (canonical.starts_with("lightning") || canonical.starts_with("pytorch_lightning")) {
    if (last == "Trainer" || last == "Fabric" || last == "LightningCLI") return TrainingFramework::kLightning;
  }
  return TrainingFramework::kNone;
}

template <size_t N>
bool OneOf(std::string_view s, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// The content of a plain string literal (no f-string interpolation, no implicit concatenation).
std::optional<std::string_view> StringContent(ts::Node node, std::string_view source);

// A Python integer literal (underscores, 0x/0o/0b prefixes); nullopt when it does not fit int64.
std::optional<int64_t> ParseIntLiteral(std::string_view text);

}  // namespace tl::semantic
