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

inline NodeKind KindOf(ts::Node node) {
  if (node.IsNull()) return NodeKind::kOther;
  const TSSymbol symbol = node.Symbol();
  const auto& table = Tables().by_symbol;
  return symbol < table.size() ? table[symbol] : NodeKind::kOther;
}
inline bool Is(ts::Node node, NodeKind kind) { return KindOf(node) == kind; }

inline ts::Node Field(ts::Node node, FieldName field) {
  if (node.IsNull()) return ts::Node();
  return node.FieldById(Tables().fields[static_cast<size_t>(field)]);
}

// Positional children for the hot node kinds (calls, attributes, assignments), without a field lookup.
inline ts::Node FirstChild(ts::Node node) { return node.Child(0); }
inline ts::Node LastChild(ts::Node node) {
  const uint32_t count = node.ChildCount();
  return count == 0 ? ts::Node() : node.Child(count - 1);
}

// The name of an `object . attribute` node: its last child (tree-sitter keeps comments out of a node's
// two ends, so a comment between the dot and the name inside brackets comes before it).
inline std::string_view AttributeNameText(ts::Node attribute, std::string_view source) {
  return LastChild(attribute).Text(source);
}

// A node's named children, in order (Model::NamedChildren). `for (ts::Node arg : m_.NamedChildren(args))`.
using ChildList = ts::NamedChildRange;

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

// A fixed set of names asked of many names that are mostly not in it (every call's name): the lengths
// of its names and a byte made of each one's length, first and last bytes, kept as bit masks, turn most
// of those away before any comparison.
template <size_t N>
class NameSet {
 public:
  constexpr explicit NameSet(const std::array<std::string_view, N>& names) : names_(names) {
    for (const std::string_view name : names) {
      lengths_ |= uint64_t{1} << std::min<size_t>(name.size(), 63);
      const uint8_t sign = Sign(name);
      signs_[sign / 64] |= uint64_t{1} << (sign % 64);
    }
  }
  bool Contains(std::string_view s) const {
    if ((lengths_ & (uint64_t{1} << std::min<size_t>(s.size(), 63))) == 0) return false;
    const uint8_t sign = Sign(s);
    if ((signs_[sign / 64] & (uint64_t{1} << (sign % 64))) == 0) return false;
    return std::find(names_.begin(), names_.end(), s) != names_.end();
  }

 private:
  static constexpr uint8_t Sign(std::string_view s) {
    if (s.empty()) return 0;
    const auto first = static_cast<unsigned>(static_cast<unsigned char>(s.front()));
    const auto last = static_cast<unsigned>(static_cast<unsigned char>(s.back()));
    return static_cast<uint8_t>(first * 7U + last * 31U + static_cast<unsigned>(s.size()) * 13U);
  }

  std::array<std::string_view, N> names_;
  uint64_t lengths_ = 0;  // bit min(size, 63) of each name
  std::array<uint64_t, 4> signs_ = {};
};

template <size_t N>
bool OneOf(std::string_view s, const NameSet<N>& set) {
  return set.Contains(s);
}

// The content of a plain or raw string literal (no f-string, no bytes, no implicit concatenation): its
// text between the quotes, escapes as written.
std::optional<std::string_view> StringContent(ts::Node node, std::string_view source);

// A Python integer literal (underscores, 0x/0o/0b prefixes); nullopt when it does not fit int64.
std::optional<int64_t> ParseIntLiteral(std::string_view text);

}  // namespace tl::semantic
